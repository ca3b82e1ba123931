// The output read by a kernel that writes only where `r` stores entries and zeroes the rest first.
use sparse::prelude::*;

tensor_kernel! {
    pub fn scale;
    p(i) = r(i) * p(i);
    formats< r: sparse >;
}

fn main() {}
