// A region names the operator's operands, not the statement's tensors.
use sparse::prelude::*;

tensor_kernel! {
    pub fn masked;
    y(i) = f(a(i), b(i));
    formats< a: sparse, b: sparse >;
    ops< f(x, z) = x - z over x & b; >;
}

fn main() {}
