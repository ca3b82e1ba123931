use sparse::prelude::*;

tensor_kernel! {
    pub fn column_max;
    y(j) = A(i,j);
    formats< A: csr >;
    reduce< i: max >;
}

fn main() {}
