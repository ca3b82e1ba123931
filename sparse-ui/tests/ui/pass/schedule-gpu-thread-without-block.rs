// Twin of `schedule-gpu-thread-without-block.rs`: the thread loop inside a `GpuBlock` loop (one thread per row).
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, block, thread, Down, 256)
              .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces) >;
}

fn main() {}
