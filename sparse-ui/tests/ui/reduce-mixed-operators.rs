// Two operators: `min_j max_k` is not `max_k min_j`.
use sparse::prelude::*;

tensor_kernel! {
    pub fn minimax;
    y(i) = B(i,j,k);
    formats< B: csf >;
    reduce< j: min, k: max >;
}

fn main() {}
