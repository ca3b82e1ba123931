use sparse::prelude::*;

tensor_kernel! {
    pub fn add;
    a(i) = b(i) + c(i);
    formats< b: sparse, c: sparse >;
    // Each of the outer loop's tiles merges its part of `b` and `c` on its own thread.
    schedule< split(i, i0, i1, Down, 64).parallelize(i0, CpuThread, NoRaces) >;
}

fn main() {}
