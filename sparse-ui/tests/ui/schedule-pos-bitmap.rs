use sparse::prelude::*;

// A bitmap level's positions include the absent coordinates: no position loop over them.
tensor_kernel! {
    pub fn kernel;
    a(i) = d(i);
    formats< d: bitvec >;
    schedule< pos(i, ip, d) >;
}

fn main() {}
