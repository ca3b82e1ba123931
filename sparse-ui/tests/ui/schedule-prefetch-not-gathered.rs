use sparse::prelude::*;

// With `A` in CSC the loop over `j` is dense, so `x(j)` is read in order, not gathered through
// `A`'s coordinates.
tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,j) * x(j);
    formats< A: csc >;
    schedule< prefetch(x, 64) >;
}

fn main() {}
