use sparse::prelude::*;

tensor_kernel! {
    pub fn two;
    y(i) = A(i,j) * x(j);
    z(i) = y(i);
}

fn main() {}
