// `=` inside a loop its place does not vary with would keep only the last value.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, forall(j, y(i) += A(i,j) * x(j)));
    formats< A: csr >;
}

fn main() {}
