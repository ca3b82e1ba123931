// A reduction starts from its operator's identity: a user operator must declare one.
use sparse::prelude::*;

tensor_kernel! {
    pub fn sums;
    y(i) = A(i,j);
    formats< A: csr >;
    reduce< j: plus >;
    ops< plus(x, y) = x + y; >;
}

fn main() {}
