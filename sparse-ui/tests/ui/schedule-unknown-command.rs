use sparse::prelude::*;

tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< tile(i, i0, i1, Down, 4) >;
}

fn main() {}
