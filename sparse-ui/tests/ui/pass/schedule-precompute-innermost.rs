use sparse::prelude::*;

tensor_kernel! {
    pub fn spmm;
    C(i,k) = A(i,j) * B(j,k);
    formats< A: csr >;
    schedule< reorder(j, k).precompute(A(i,j) * B(j,k), k, kw, W) >;
}

tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< pos(j, jpos, A(i,j)).precompute(A(i,j) * x(j), jpos, jw, W) >;
}

fn main() {}

tensor_kernel! {
    pub fn mttkrp;
    A(i,j) = B(i,k,l) * D(l,j) * C(k,j);
    formats< B: csf >;
    schedule< reorder(i, k, l, j).precompute(B(i,k,l) * D(l,j), j, jw, W) >;
}
