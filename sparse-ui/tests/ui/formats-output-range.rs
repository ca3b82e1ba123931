use sparse::prelude::*;

tensor_kernel! {
    pub fn copy;
    Y(i,j) = A(i,j);
    formats< Y: dia, A: csr >;
}

fn main() {}
