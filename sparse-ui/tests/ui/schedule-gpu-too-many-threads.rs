// CUDA runs at most 1024 threads per block: 64 warps of 32 are too many.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, block, warp, Down, 64)
              .parallelize(block, GpuBlock, NoRaces).parallelize(warp, GpuWarp, NoRaces) >;
}

fn main() {}
