use sparse::prelude::*;

tensor_kernel! {
    pub fn scale;
    y(i) = 2.0f32 * x(i);
}

fn main() {}
