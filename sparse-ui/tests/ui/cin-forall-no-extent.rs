// A forall variable must index some tensor inside it.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, forall(k, y(i) += b(i)));
}

fn main() {}
