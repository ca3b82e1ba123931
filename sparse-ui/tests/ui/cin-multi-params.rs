// The parameter list of a `multi` kernel names its outputs first, in the statements' order.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel(z, y, b, c);
    multi(forall(i, y(i) = b(i)), forall(i, z(i) = c(i)));
}

fn main() {}
