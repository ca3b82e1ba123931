// `sequence` into a sparse output does not compile yet.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, sequence(y(i) = b(i), y(i) += c(i)));
    formats< y: sparse, b: sparse, c: sparse >;
}

fn main() {}
