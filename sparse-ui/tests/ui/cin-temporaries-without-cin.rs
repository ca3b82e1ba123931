// `temporaries<...>` belongs to a statement in concrete index notation.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    temporaries< t >;
}

fn main() {}
