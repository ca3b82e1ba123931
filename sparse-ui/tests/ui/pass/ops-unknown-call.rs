use sparse::prelude::*;

tensor_kernel! {
    pub fn unknown;
    y(i) = f(a(i), b(i));
    ops< f(x, z) = x + z; >;
}

fn main() {}
