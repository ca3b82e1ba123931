// A tensor listed twice in the parameter list.
use sparse::prelude::*;

tensor_kernel! {
    pub fn axpy(y, x, alpha, x);
    y(i) = alpha * x(i) + y(i);
}

fn main() {}
