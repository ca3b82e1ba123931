use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, i0, i1, Down, 4).bound(i1, ib, 4, MaxExact) >;
}

fn main() {}
