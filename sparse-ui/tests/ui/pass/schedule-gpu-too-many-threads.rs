// Twin of `schedule-gpu-too-many-threads.rs`: 32 warps of 32 threads: 1024 threads per block, CUDA's limit.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, block, warp, Down, 32)
              .parallelize(block, GpuBlock, NoRaces).parallelize(warp, GpuWarp, NoRaces) >;
}

fn main() {}
