// `temporaries<...>` belongs to a statement in concrete index notation.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, where(y(i) = t, forall(j, t += A(i,j) * x(j))));
    temporaries< t >;
}

fn main() {}
