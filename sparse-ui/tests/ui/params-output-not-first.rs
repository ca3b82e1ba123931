// A parameter list that does not start with the output.
use sparse::prelude::*;

tensor_kernel! {
    pub fn axpy(x, y, alpha);
    y(i) = alpha * x(i) + y(i);
}

fn main() {}
