// A fill value belongs to a tensor of the statement.
use sparse::prelude::*;

tensor_kernel! {
    pub fn minplus;
    y(i) = A(i,j) + x(j);
    formats< A: csr >;
    fills< A: inf, x: inf, z: inf >;
    reduce< j: min >;
}

fn main() {}
