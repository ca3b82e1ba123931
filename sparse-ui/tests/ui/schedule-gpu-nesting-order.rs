// GPU loops nest as blocks, then warps, then threads.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, block, rows, Down, 256).split(rows, thread, warp, Down, 8)
              .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces)
              .parallelize(warp, GpuWarp, NoRaces) >;
}

fn main() {}
