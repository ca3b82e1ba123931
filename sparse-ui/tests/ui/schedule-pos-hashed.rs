use sparse::prelude::*;

// A hashed level's positions are its buckets, some of them empty, in no coordinate order: no
// position loop over them.
tensor_kernel! {
    pub fn kernel;
    a(i) = d(i);
    formats< d: hash >;
    schedule< pos(i, ip, d) >;
}

fn main() {}
