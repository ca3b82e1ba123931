use sparse::prelude::*;

tensor_kernel! {
    pub fn narrow;
    y(i) = x(i) as i32;
}

fn main() {}
