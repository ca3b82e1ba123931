use sparse::prelude::*;

tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,in) * x(in);
}

fn main() {}
