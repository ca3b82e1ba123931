use sparse::prelude::*;

// Rows 0, 2, 4, ... then 1, 3, 5, ...: `A` cannot be appended in that order.
tensor_kernel! {
    pub fn kernel;
    A(i,j) = B(i,j) + C(i,j);
    formats< A: csr, B: csr, C: csr >;
    schedule< split(i, i0, i1, Down, 2).reorder(i1, i0) >;
}

fn main() {}
