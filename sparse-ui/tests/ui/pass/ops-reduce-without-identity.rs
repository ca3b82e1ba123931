use sparse::prelude::*;

tensor_kernel! {
    pub fn sums;
    y(i) = A(i,j);
    formats< A: csr >;
    reduce< j: plus >;
    ops< plus(x, y) = x + y identity 0; >;
}

fn main() {}
