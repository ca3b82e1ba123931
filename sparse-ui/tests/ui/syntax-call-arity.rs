use sparse::prelude::*;

tensor_kernel! {
    pub fn power;
    y(i) = pow(x(i));
}

fn main() {}
