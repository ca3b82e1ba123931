use sparse::prelude::*;

tensor_kernel! {
    pub fn sums;
    y(i) = plus(A(i,j), 1);
    formats< A: csr >;
    reduce< j: + >;
    ops< plus(x, y) = x + y over x; >;
}

fn main() {}
