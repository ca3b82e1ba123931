use sparse::prelude::*;

tensor_kernel! {
    pub fn bad;
    y(i) = A(i,j) * x(j) + A(i);
}

fn main() {}
