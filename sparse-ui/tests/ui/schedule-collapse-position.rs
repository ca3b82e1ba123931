use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< pos(j, p, A).collapse(i, p, f) >;
}

fn main() {}
