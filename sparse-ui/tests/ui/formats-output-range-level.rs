use sparse::prelude::*;

tensor_kernel! {
    pub fn copy;
    Y(i,j,k) = A(i,j,k);
    formats< Y: (dense, range, offset) >;
}

fn main() {}
