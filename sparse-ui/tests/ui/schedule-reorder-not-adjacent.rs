use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    r(i) = A(i,j) * x(j) + B(i,k) * z(k);
    formats< A: csr, B: csr >;
    schedule< reorder(j, k) >;
}

fn main() {}
