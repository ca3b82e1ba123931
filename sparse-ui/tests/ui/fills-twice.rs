// One fill value per tensor.
use sparse::prelude::*;

tensor_kernel! {
    pub fn minplus;
    y(i) = A(i,j) + x(j);
    formats< A: csr >;
    fills< A: inf, x: inf, A: -inf >;
    reduce< j: min >;
}

fn main() {}
