use sparse::prelude::*;

tensor_kernel! {
    pub fn scale;
    a(i) = b(i) * c(i);
    // Sorted coordinates: each tile of 64 searches where it starts in `b`.
    formats< b: sparse >;
    schedule< split(i, i0, i1, Down, 64) >;
}

fn main() {}
