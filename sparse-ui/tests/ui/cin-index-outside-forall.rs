// An index must be bound by an enclosing forall.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, y(i) += A(i,j) * x(j));
    formats< A: csr >;
}

fn main() {}
