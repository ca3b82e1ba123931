// Only the first assignment to the output may overwrite it.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    sequence(forall(i, y(i) = b(i)), forall(i, y(i) += c(i)));
}

fn main() {}
