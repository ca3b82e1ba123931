use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * D(i,j);
    formats< A: csr, D: (dense, dense) order(1, 0) >;
    schedule< collapse(i, j, f).pos(f, p, D) >;
}

fn main() {}
