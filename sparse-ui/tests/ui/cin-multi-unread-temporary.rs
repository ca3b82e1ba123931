// A temporary produced around a `multi` is read by one of its statements at least.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, where(multi(y(i) = b(i), z(i) = c(i)), forall(j, t += A(i,j))));
    formats< A: csr >;
    temporaries< t >;
}

fn main() {}
