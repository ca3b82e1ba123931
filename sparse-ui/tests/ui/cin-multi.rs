// `multi` (several outputs in one kernel) does not compile yet.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    multi(forall(i, y(i) = b(i)), forall(i, z(i) = c(i)));
}

fn main() {}
