// A temporary is read only inside the consumer of the where that produces it.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, where(y(i) = t, forall(j, t += A(i,j) * x(j) + t)));
    formats< A: csr >;
    temporaries< t >;
}

fn main() {}
