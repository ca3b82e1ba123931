// A sparse output stores nothing where nothing is reduced, so its fill must be what the
// reduction gives there (`min`: inf).
use sparse::prelude::*;

tensor_kernel! {
    pub fn minplus;
    y(i) = A(i,j) + x(j);
    formats< A: csr, y: sparse >;
    fills< A: inf, x: inf, y: 0 >;
    reduce< j: min >;
}

fn main() {}
