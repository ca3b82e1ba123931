// A user operator cannot take the name of a built-in function.
use sparse::prelude::*;

tensor_kernel! {
    pub fn largest;
    y(i) = max(a(i), b(i));
    ops< max(x, z) = x + z over x | z; >;
}

fn main() {}
