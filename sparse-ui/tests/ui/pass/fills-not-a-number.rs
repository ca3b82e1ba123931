use sparse::prelude::*;

tensor_kernel! {
    pub fn shifted;
    y(i) = x(i) + 1;
    fills< x: -1.5, y: -0.5 >;
}

fn main() {}
