// A scalar written with indices: only order-0 inputs are passed as plain values.
use sparse::prelude::*;

tensor_kernel! {
    pub fn axpy;
    y(i) = alpha * x(i) + y(i);
    scalars< alpha, x >;
}

fn main() {}
