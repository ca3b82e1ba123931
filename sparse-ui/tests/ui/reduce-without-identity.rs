// A reduction starts from its operator's identity: `-` has none (nor is it commutative).
use sparse::prelude::*;

tensor_kernel! {
    pub fn differences;
    y(i) = A(i,j);
    formats< A: csr >;
    reduce< j: - >;
}

fn main() {}
