// A min-plus contraction whose sum runs outside the output's loops is assembled from scattered
// triples, which the runtime combines with `+` only.
use sparse::prelude::*;

tensor_kernel! {
    pub fn closest;
    Z(j,k,l) = X(i,j,k) + Y(i,l);
    formats< X: csf, Y: csr, Z: coo >;
    fills< X: inf, Y: inf, Z: inf >;
    reduce< i: min >;
}

fn main() {}
