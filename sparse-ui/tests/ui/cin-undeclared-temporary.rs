// What a where's producer assigns must be declared a temporary.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, where(y(i) = t, forall(j, t += A(i,j) * x(j))));
    formats< A: csr >;
}

fn main() {}
