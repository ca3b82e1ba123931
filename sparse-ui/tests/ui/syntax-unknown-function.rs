use sparse::prelude::*;

tensor_kernel! {
    pub fn root;
    y(i) = sqr(x(i));
}

fn main() {}
