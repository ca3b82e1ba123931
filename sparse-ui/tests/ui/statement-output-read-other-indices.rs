// The output read at other indices than its own: another iteration may already have written them.
use sparse::prelude::*;

tensor_kernel! {
    pub fn gauss_seidel;
    y(i) += A(i,j) * y(j);
    formats< A: csr >;
}

fn main() {}
