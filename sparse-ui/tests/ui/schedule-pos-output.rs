use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = b(i) * c(i);
    formats< b: sparse >;
    schedule< pos(i, ip, y) >;
}

fn main() {}
