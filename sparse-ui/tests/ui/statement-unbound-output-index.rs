// An output index the right-hand side never uses has no extent.
use sparse::prelude::*;

tensor_kernel! {
    fn broadcast;
    A(i,j) = x(i);
}

fn main() {}
