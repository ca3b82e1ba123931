use sparse::prelude::*;

tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< collapse(i, j, f).pos(f, p, A).pos(p, q, A) >;
}

fn main() {}
