// A call names a built-in function or an operator of ops<...>.
use sparse::prelude::*;

tensor_kernel! {
    pub fn unknown;
    y(i) = g(a(i), b(i));
    ops< f(x, z) = x + z; >;
}

fn main() {}
