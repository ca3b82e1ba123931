// Twin of `schedule-gpu-atomics-no-sum.rs`: `Atomics` where threads sum into the output (the position split).
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< collapse(i, j, f).pos(f, fpos, A(i,j))
              .split(fpos, block, fpos1, Down, 3584).split(fpos1, warp, fpos2, Down, 224)
              .split(fpos2, thread, thread_nz, Down, 7).reorder(block, warp, thread, thread_nz)
              .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
              .parallelize(thread, GpuThread, Atomics) >;
}

fn main() {}
