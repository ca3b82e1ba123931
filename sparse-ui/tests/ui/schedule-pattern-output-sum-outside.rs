use sparse::prelude::*;

tensor_kernel! {
    pub fn sddmm;
    A(i,k) = B(i,k) * C(i,j) * D(j,k);
    formats< A: csr, B: csr >;
    schedule< reorder(j, k) >;
}

fn main() {}
