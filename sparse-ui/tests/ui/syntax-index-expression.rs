use sparse::prelude::*;

tensor_kernel! {
    pub fn shift;
    y(i) = x(i + 1);
}

fn main() {}
