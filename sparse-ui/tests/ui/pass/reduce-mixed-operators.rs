use sparse::prelude::*;

tensor_kernel! {
    pub fn minimum;
    y(i) = B(i,j,k);
    formats< B: csf >;
    reduce< j: min, k: min >;
}

fn main() {}
