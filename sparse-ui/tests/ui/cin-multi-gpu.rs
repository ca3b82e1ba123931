// A kernel computing several outputs runs on the CPU: a GPU schedule on it is refused.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    forall(i, multi(y(i) = b(i) * 2, z(i) = c(i) * 3));
    schedule< split(i, block, thread, Down, 256)
        .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces) >;
}

fn main() {}
