use sparse::prelude::*;

tensor_kernel! {
    pub fn minplus;
    y(i) = A(i,j) + x(j);
    formats< A: csr, y: sparse >;
    fills< A: inf, x: inf, y: inf >;
    reduce< j: min >;
}

fn main() {}
