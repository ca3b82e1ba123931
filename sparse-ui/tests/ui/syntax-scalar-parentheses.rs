use sparse::prelude::*;

tensor_kernel! {
    pub fn scale;
    y(i) = alpha() * x(i);
}

fn main() {}
