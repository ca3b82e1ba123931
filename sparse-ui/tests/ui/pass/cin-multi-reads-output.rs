// A statement of a `multi` reads inputs only, never another statement's output.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, multi(y(i) = b(i) * 2, z(i) = b(i) * 2 + c(i)));
}

fn main() {}
