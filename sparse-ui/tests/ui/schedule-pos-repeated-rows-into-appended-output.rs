use sparse::prelude::*;

// Positions of COO's rows visit a row once per nonzero; a DCSR result appends its columns row by
// row.
tensor_kernel! {
    pub fn kernel;
    A(i,j) = B(i,j);
    formats< A: dcsr, B: coo >;
    schedule< pos(i, ip, B) >;
}

fn main() {}
