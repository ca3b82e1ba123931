use sparse::prelude::*;

tensor_kernel! {
    pub fn rem;
    y(i) = a(i) % b(i);
}

fn main() {}
