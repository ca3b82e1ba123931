use sparse::prelude::*;

tensor_kernel! {
    pub fn twice;
    y(i) = f(a(i), b(i)) + g(a(i), b(i));
    ops< f(x, z) = x + z; g(x, z) = x * z; >;
}

fn main() {}
