// One output per kernel: a second tensor assigned is not a workspace.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, sequence(y(i) = b(i), y(i) += b(i)));
}

fn main() {}
