use sparse::prelude::*;

tensor_kernel! {
    pub fn sums;
    y(i) = A(i,j);
    formats< A: csr >;
    reduce< j: + >;
}

fn main() {}
