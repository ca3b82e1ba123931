// A scalar also given a format: it is passed as a plain value.
use sparse::prelude::*;

tensor_kernel! {
    pub fn axpy;
    y(i) = alpha * x(i) + y(i);
    formats< alpha: dense >;
    scalars< alpha >;
}

fn main() {}
