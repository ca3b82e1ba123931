// A parameter list naming something that is not a tensor of the statement.
use sparse::prelude::*;

tensor_kernel! {
    pub fn axpy(y, x, alpha, z);
    y(i) = alpha * x(i) + y(i);
}

fn main() {}
