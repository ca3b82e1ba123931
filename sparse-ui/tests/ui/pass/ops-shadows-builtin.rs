use sparse::prelude::*;

tensor_kernel! {
    pub fn largest;
    y(i) = larger(a(i), b(i));
    ops< larger(x, z) = max(x, z) over x | z; >;
}

fn main() {}
