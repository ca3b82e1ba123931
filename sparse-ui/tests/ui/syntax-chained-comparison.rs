use sparse::prelude::*;

tensor_kernel! {
    pub fn between;
    y(i) = a(i) < x(i) < b(i);
}

fn main() {}
