use sparse::prelude::*;

tensor_kernel! {
    pub fn sub;
    y(i) -= x(i);
}

fn main() {}
