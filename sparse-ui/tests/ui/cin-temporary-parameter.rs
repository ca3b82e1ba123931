// A temporary is not a parameter of the function.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, where(y(i) = t, forall(j, t += A(i,j) * x(j))));
    formats< A: csr, t: dense >;
    temporaries< t >;
}

fn main() {}
