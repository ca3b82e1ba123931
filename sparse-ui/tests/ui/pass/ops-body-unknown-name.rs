use sparse::prelude::*;

tensor_kernel! {
    pub fn scaled;
    y(i) = f(a(i), b(i));
    ops< f(x, w) = x * w + w; >;
}

fn main() {}
