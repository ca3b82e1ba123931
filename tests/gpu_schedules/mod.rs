//! The GPU schedules of Senanayake et al.'s evaluation, as `tensor_kernel!`s: the GPU tests
//! check them (`tests/gpu_kernels.rs`) and the GPU benchmark times them
//! (`examples/gpu_bench.rs`, which includes this file), so both run the same kernels.

use sparse::prelude::*;

tensor_kernel! {
    /// One thread per row: the best CPU schedule run on the GPU.
    pub fn spmv_thread;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<split(i, block, thread, Down, 256)
        .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces)>;
}

tensor_kernel! {
    /// One warp per row, its 32 lanes' partial sums combined by shuffles.
    pub fn spmv_warp;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<split(i, block, block_row, Down, 256).split(block_row, warp_row, warp, Down, 8)
        .pos(j, jpos, A(i,j)).split(jpos, thread_nz, thread, Down, 32)
        .reorder(block, warp, warp_row, thread, thread_nz)
        .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
        .parallelize(thread, GpuThread, Temporary)>;
}

tensor_kernel! {
    /// The nonzero-balanced position split: 7 nonzeros per thread, segments flushed atomically.
    pub fn spmv_pos;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, fpos, A(i,j))
        .split(fpos, block, fpos1, Down, 3584).split(fpos1, warp, fpos2, Down, 224)
        .split(fpos2, thread, thread_nz, Down, 7).reorder(block, warp, thread, thread_nz)
        .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
        .parallelize(thread, GpuThread, Atomics)>;
}

tensor_kernel! {
    /// The position split with each thread's products precomputed into registers, unrolled.
    pub fn spmv_pos_pre;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, fpos, A(i,j))
        .split(fpos, block, fpos1, Down, 3584).split(fpos1, warp, fpos2, Down, 224)
        .split(fpos2, thread, thread_nz, Down, 7).reorder(block, warp, thread, thread_nz)
        .precompute(A(i,j) * x(j), thread_nz, thread_nz_pre, pre).unroll(thread_nz_pre, 7)
        .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
        .parallelize(thread, GpuThread, Atomics)>;
}

tensor_kernel! {
    /// SpMM with the evaluation's schedule: warps over nonzeros, threads over columns of B.
    pub fn spmm;
    C(i,k) = A(i,j) * B(j,k);
    formats<A: csr, C: (dense, dense) order(1,0)>;
    schedule<reorder(i, j, k).collapse(i, j, f).pos(f, fpos, A(i,j))
        .split(fpos, block, fpos1, Down, 256).split(fpos1, warp, nnz, Down, 16)
        .split(k, dense_val, thread, Down, 32).reorder(block, warp, thread, dense_val, nnz)
        .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
        .parallelize(thread, GpuThread, Atomics)>;
}

tensor_kernel! {
    /// SDDMM with the evaluation's schedule (NNZ_PER_WARP = 128, CO_FACTOR = 4): a warp per 128
    /// nonzeros of B, its lanes over the dense index, combined by a warp reduction.
    pub fn sddmm;
    A(i,k) = B(i,k) * C(i,j) * D(j,k);
    formats<A: csr, B: csr, D: (dense, dense) order(1,0)>;
    schedule<reorder(i, k, j).collapse(i, k, f).pos(f, fpos, B(i,k))
        .split(fpos, block, fpos1, Down, 2048).split(fpos1, warp, nnz, Down, 128)
        .split(j, dense_val_unbounded, thread, Down, 32)
        .bound(dense_val_unbounded, dense_val, 4, MaxExact)
        .reorder(block, warp, nnz, thread, dense_val).unroll(dense_val, 4)
        .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, Atomics)
        .parallelize(thread, GpuThread, ParallelReduction)>;
}

tensor_kernel! {
    /// SpMSpV with the evaluation's schedule: a thread per stored entry of `x`, 512 per block,
    /// each adding its column of A into `y` atomically.
    pub fn spmspv;
    y(i) = A(i,j) * x(j);
    formats<A: csc, x: sparse>;
    schedule<reorder(j, i).pos(j, jpos, x(j)).bound(jpos, jpos_bound, 0, MinExact)
        .split(jpos_bound, block, thread, Down, 512).reorder(block, thread, i)
        .parallelize(block, GpuBlock, IgnoreRaces).parallelize(thread, GpuThread, Atomics)>;
}

tensor_kernel! {
    /// TTV with the evaluation's schedule (NNZ_PER_WARP = 128, BLOCK_SIZE = 512): one position
    /// loop over B's nonzeros, its `i` and `j` recovered by walking two levels of segments; each
    /// thread precomputes 4 products, then adds them into A, which takes B's structure.
    pub fn ttv;
    A(i,j) = B(i,j,k) * c(k);
    formats<A: (dense, compressed), B: (dense, compressed, compressed)>;
    schedule<fuse(j, k, jk).fuse(i, jk, f).pos(f, fpos, B(i,j,k))
        .split(fpos, block, fpos1, Down, 2048).split(fpos1, warp, fpos2, Down, 128)
        .split(fpos2, thread, thread_nz, Down, 4).reorder(block, warp, thread, thread_nz)
        .precompute(B(i,j,k) * c(k), thread_nz, thread_nz_pre, precomputed)
        .unroll(thread_nz_pre, 4)
        .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
        .parallelize(thread, GpuThread, Atomics)>;
}

tensor_kernel! {
    /// MTTKRP with the evaluation's schedule (NNZ_PER_WARP = 4, BLOCK_SIZE = 512, J = 32): a
    /// warp per 4 nonzeros of B in CSF, its lanes over the 32 columns of the factors.
    pub fn mttkrp;
    A(i,j) = B(i,k,l) * C(k,j) * D(l,j);
    formats<B: csf>;
    schedule<reorder(i, k, l, j).fuse(k, l, kl).fuse(i, kl, f).pos(f, fpos, B(i,k,l))
        .split(fpos, block, fpos1, Down, 64).split(fpos1, warp, nnz, Down, 4)
        .split(j, dense_val_unbounded, thread, Down, 32)
        .bound(dense_val_unbounded, dense_val, 1, MaxExact)
        .reorder(block, warp, dense_val, thread, nnz)
        .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
        .parallelize(thread, GpuThread, Atomics)>;
}
