use sparse::prelude::*;

tensor_kernel! {
    pub fn scale;
    a(i) = b(i) * c(i);
    // A hashed level keeps its coordinates in bucket order: a tile cannot search its start.
    formats< b: hash >;
    schedule< split(i, i0, i1, Down, 64) >;
}

fn main() {}
