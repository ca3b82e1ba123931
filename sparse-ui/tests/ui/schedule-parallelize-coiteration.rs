use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    a(i) = b(i) + c(i);
    formats< b: sparse, c: sparse >;
    schedule< parallelize(i, CpuThread, NoRaces) >;
}

fn main() {}
