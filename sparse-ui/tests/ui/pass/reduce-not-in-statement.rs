use sparse::prelude::*;

tensor_kernel! {
    pub fn row_max;
    y(i) = A(i,j);
    formats< A: csr >;
    reduce< j: max >;
}

fn main() {}
