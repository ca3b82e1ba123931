// A scalar that is not a tensor of the statement.
use sparse::prelude::*;

tensor_kernel! {
    pub fn axpy;
    y(i) = alpha * x(i) + y(i);
    scalars< gamma >;
}

fn main() {}
