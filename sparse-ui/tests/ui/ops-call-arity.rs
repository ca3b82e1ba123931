// A user operator is called with as many operands as it has parameters.
use sparse::prelude::*;

tensor_kernel! {
    pub fn masked;
    y(i) = f(a(i));
    ops< f(x, z) = x - z over x & !z; >;
}

fn main() {}
