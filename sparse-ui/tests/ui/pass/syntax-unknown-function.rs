use sparse::prelude::*;

tensor_kernel! {
    pub fn root;
    y(i) = sqrt(x(i));
}

fn main() {}
