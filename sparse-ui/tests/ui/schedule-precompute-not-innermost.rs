use sparse::prelude::*;

tensor_kernel! {
    pub fn spmm;
    C(i,k) = A(i,j) * B(j,k);
    formats< A: csr >;
    schedule< reorder(j, k).precompute(A(i,j) * B(j,k), j, jw, W) >;
}

fn main() {}
