// The output read on the right of `=`: it would be overwritten while being read.
use sparse::prelude::*;

tensor_kernel! {
    fn scale;
    y(i) = y(i) * x(i);
}

fn main() {}
