use sparse::prelude::*;

tensor_kernel! {
    pub fn spmv;
    y(i) = __A(i,j) * x(j);
}

fn main() {}
