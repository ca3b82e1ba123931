use sparse::prelude::*;

tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< pos(j, jpos, A(i,j)).bound(jpos, jb, 0, MinConstraint) >;
}

fn main() {}
