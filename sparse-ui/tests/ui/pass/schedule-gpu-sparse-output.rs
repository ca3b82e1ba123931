// Twin of `schedule-gpu-sparse-output.rs`: a sparse output that takes an input's structure (SDDMM).
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    A(i,k) = B(i,k) * C(i,j) * D(j,k);
    formats< A: csr, B: csr, D: (dense, dense) order(1,0) >;
    schedule< reorder(i, k, j).collapse(i, k, f).pos(f, fpos, B(i,k))
              .split(fpos, block, fpos1, Down, 2048).split(fpos1, warp, nnz, Down, 128)
              .split(j, dense_val_unbounded, thread, Down, 32)
              .bound(dense_val_unbounded, dense_val, 4, MaxExact)
              .reorder(block, warp, nnz, thread, dense_val).unroll(dense_val, 4)
              .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, Atomics)
              .parallelize(thread, GpuThread, ParallelReduction) >;
}

fn main() {}
