// A forall variable is bound once on each path.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, y(i) += b(i));
}

fn main() {}
