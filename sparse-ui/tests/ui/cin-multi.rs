// A `where` producer computes one temporary: a `multi` inside it is refused.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, where(y(i) = t, multi(forall(j, t += A(i,j)), forall(j, u += A(i,j)))));
    formats< A: csr >;
    temporaries< t, u >;
}

fn main() {}
