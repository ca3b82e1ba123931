use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    C(i,k) = A(i,j) * B(j,k);
    formats< A: csr >;
    schedule< reorder(j, i, i) >;
}

fn main() {}
