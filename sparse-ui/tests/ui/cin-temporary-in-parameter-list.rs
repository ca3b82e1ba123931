// A temporary is not one of the function's parameters.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel(y, t, A, x);
    forall(i, where(y(i) = t, forall(j, t += A(i,j) * x(j))));
    formats< A: csr >;
    temporaries< t >;
}

fn main() {}
