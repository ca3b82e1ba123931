use sparse::prelude::*;

tensor_kernel! {
    pub fn xor;
    y(i) = a(i) ^ b(i);
}

fn main() {}
