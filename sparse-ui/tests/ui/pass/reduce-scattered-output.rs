use sparse::prelude::*;

tensor_kernel! {
    pub fn closest;
    Z(j,k,l) = X(i,j,k) + Y(i,l);
    formats< X: csf, Y: csr >;
    fills< X: inf, Y: inf, Z: inf >;
    reduce< i: min >;
}

fn main() {}
