// The output declared as a scalar: the kernel writes it.
use sparse::prelude::*;

tensor_kernel! {
    pub fn dot;
    s = r(i) * r(i);
    scalars< s >;
}

fn main() {}
