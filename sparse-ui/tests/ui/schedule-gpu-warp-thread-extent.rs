// Under a `GpuWarp` loop, the `GpuThread` loop is the 32 lanes of the warp.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, block, warp, Down, 8).pos(j, jpos, A(i,j))
              .split(jpos, thread_nz, thread, Down, 16).reorder(block, warp, thread, thread_nz)
              .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
              .parallelize(thread, GpuThread, Temporary) >;
}

fn main() {}
