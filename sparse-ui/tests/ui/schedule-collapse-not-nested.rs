use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    C(i,k) = A(i,j) * B(j,k);
    formats< A: csr, B: csr >;
    schedule< collapse(i, k, f) >;
}

fn main() {}
