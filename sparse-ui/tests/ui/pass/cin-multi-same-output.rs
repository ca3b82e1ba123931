// Each statement of a `multi` computes its own output: two that write `y` are a `sequence`.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    multi(forall(i, y(i) = b(i)), forall(i, z(i) += c(i)));
}

fn main() {}
