use sparse::prelude::*;

tensor_kernel! {
    pub fn power;
    y(i) = pow(x(i), 2);
}

fn main() {}
