// `+=` with a reduction by a user operator: the message names the operator.
use sparse::prelude::*;

tensor_kernel! {
    pub fn largest;
    y(i) += A(i,j) * x(j);
    formats< A: csr >;
    reduce< j: big >;
    ops< big(p, q) = max(abs(p), abs(q)) identity 0; >;
}

fn main() {}
