// A dense temporary is consumed as `forall(j, A(i,j) = w(j))`.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, where(forall(j, A(i,j) += w(j)), forall(k, forall(j, w(j) += B(i,k) * C(k,j)))));
    formats< A: csr, B: csr, C: csr >;
    temporaries< w: dense >;
}

fn main() {}
