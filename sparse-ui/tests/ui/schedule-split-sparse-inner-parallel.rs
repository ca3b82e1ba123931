use sparse::prelude::*;

tensor_kernel! {
    pub fn add;
    a(i) = b(i) + c(i);
    formats< b: sparse, c: sparse >;
    // The tiles' inner loop merges `b` and `c`: it cannot run on threads.
    schedule< split(i, i0, i1, Down, 64).parallelize(i1, CpuThread, NoRaces) >;
}

fn main() {}
