// A produced temporary must be read by its consumer.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, where(y(i) = b(i) + t, forall(j, t += A(i,j) * x(j))));
    formats< A: csr >;
    temporaries< t >;
}

fn main() {}
