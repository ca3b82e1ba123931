// A scalar declared twice.
use sparse::prelude::*;

tensor_kernel! {
    pub fn axpy;
    y(i) = alpha * x(i) + y(i);
    scalars< alpha, alpha >;
}

fn main() {}
