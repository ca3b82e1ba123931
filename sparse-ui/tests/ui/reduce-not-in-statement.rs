// `reduce<...>` names a variable the statement reduces over.
use sparse::prelude::*;

tensor_kernel! {
    pub fn row_max;
    y(i) = A(i,j);
    formats< A: csr >;
    reduce< k: max >;
}

fn main() {}
