// A scalar temporary has no indices; a dense one has one.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, where(y(i) = t(i), forall(j, t(i) += A(i,j) * x(j))));
    formats< A: csr >;
    temporaries< t >;
}

fn main() {}
