// An index of the output is not reduced over.
use sparse::prelude::*;

tensor_kernel! {
    pub fn row_max;
    y(i) = A(i,j);
    formats< A: csr >;
    reduce< i: max >;
}

fn main() {}
