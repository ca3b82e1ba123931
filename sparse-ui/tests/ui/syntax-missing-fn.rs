use sparse::prelude::*;

tensor_kernel! {
    y(i) = A(i,j) * x(j);
}

fn main() {}
