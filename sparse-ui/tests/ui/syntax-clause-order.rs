use sparse::prelude::*;

tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,j) * x(j);
    schedule< auto >;
    formats< A: csr >;
}

fn main() {}
