// Twin of `schedule-gpu-warp-thread-extent.rs`: under a `GpuWarp` loop, a `GpuThread` loop of exactly 32.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, block, block_row, Down, 256).split(block_row, warp_row, warp, Down, 8)
              .pos(j, jpos, A(i,j)).split(jpos, thread_nz, thread, Down, 32)
              .reorder(block, warp, warp_row, thread, thread_nz)
              .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
              .parallelize(thread, GpuThread, Temporary) >;
}

fn main() {}
