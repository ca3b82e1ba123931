// The written loops must visit a sparse operand in its storage order.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(j, forall(i, y(i) += A(i,j) * x(j)));
    formats< A: csc >;
}

fn main() {}
