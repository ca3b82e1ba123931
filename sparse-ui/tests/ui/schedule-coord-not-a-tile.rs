use sparse::prelude::*;

tensor_kernel! {
    pub fn vadd;
    c(i) = a(i) + b(i);
    formats< a: sparse >;
    schedule< pos(i, ip, a(i)).coord(ip, ic) >;
}

fn main() {}
