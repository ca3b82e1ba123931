use sparse::prelude::*;

tensor_kernel! {
    pub fn masked;
    y(i) = f(a(i), b(i));
    formats< a: sparse, b: sparse >;
    ops< f(x, z) = x - z over x & !z; >;
}

fn main() {}
