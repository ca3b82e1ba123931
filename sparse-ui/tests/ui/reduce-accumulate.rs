// `+=` adds into the output; with a `min` reduction that is ambiguous.
use sparse::prelude::*;

tensor_kernel! {
    pub fn relax;
    y(i) += A(i,j) + x(j);
    formats< A: csr >;
    fills< A: inf, x: inf, y: inf >;
    reduce< j: min >;
}

fn main() {}
