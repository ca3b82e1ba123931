// `multi` (several outputs in one kernel) does not compile yet.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    sequence(forall(i, y(i) = b(i)), forall(i, y(i) += c(i)));
}

fn main() {}
