// A `where` producer computes one temporary: a `multi` inside it is refused.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, multi(where(y(i) = t, forall(j, t += A(i,j))), where(z(i) = u, forall(j, u += A(i,j)))));
    formats< A: csr >;
    temporaries< t, u >;
}

fn main() {}
