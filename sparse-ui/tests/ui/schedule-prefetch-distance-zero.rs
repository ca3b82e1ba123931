use sparse::prelude::*;

tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< prefetch(x, 0) >;
}

fn main() {}
