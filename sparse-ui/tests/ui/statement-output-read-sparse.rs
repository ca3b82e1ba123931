// A sparse output read on the right: it is rebuilt while it is computed.
use sparse::prelude::*;

tensor_kernel! {
    pub fn add;
    C(i,j) = C(i,j) + A(i,j);
    formats< A: csr, C: csr >;
}

fn main() {}
