use sparse::prelude::*;

tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, i0, i1, 4) >;
}

fn main() {}
