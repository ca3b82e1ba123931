use sparse::prelude::*;

tensor_kernel! {
    pub fn scale;
    A(i,j) = B(i,j) * c(j) * d(i);
    formats< B: dense >;
    schedule< precompute(B(i,j) * c(j), i, iw, W) >;
}

fn main() {}
