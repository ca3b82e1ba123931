// A body reads only the operator's operands.
use sparse::prelude::*;

tensor_kernel! {
    pub fn scaled;
    y(i) = f(a(i), b(i));
    ops< f(x, z) = x * w + z; >;
}

fn main() {}
