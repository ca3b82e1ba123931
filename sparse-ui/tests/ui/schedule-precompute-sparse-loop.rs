use sparse::prelude::*;

tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< precompute(A(i,j) * x(j), j, jw, W) >;
}

fn main() {}
