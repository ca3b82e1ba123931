// A `multi` kernel's parameter list names every tensor of every statement once.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel(y, z, b, c);
    multi(forall(i, y(i) = b(i)), forall(i, z(i) = c(i)));
}

fn main() {}
