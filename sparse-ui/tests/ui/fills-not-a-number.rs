// A fill value is a number, `inf` or `-inf`.
use sparse::prelude::*;

tensor_kernel! {
    pub fn shifted;
    y(i) = x(i) + 1;
    fills< x: infinity >;
}

fn main() {}
