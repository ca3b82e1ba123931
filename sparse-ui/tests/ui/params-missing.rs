// A parameter list that leaves out a tensor of the statement.
use sparse::prelude::*;

tensor_kernel! {
    pub fn axpy(y, x);
    y(i) = alpha * x(i) + y(i);
}

fn main() {}
