//! Scheduled-kernel benchmarks: what the `schedule<...>` clause buys over the unscheduled kernel on
//! all the threads of the machine (rayon's default pool), and how close it gets to memory bandwidth.
//!
//! - `triad`: `a[i] = b[i] + s * c[i]` on one thread and on rayon's pool (24 bytes per element).
//!   Each SpMV group measures the parallel triad again first and last (`triad_before`,
//!   `triad_after`): the bandwidth the machine's other tenants leave moves within minutes, so an
//!   SpMV's bytes per second is divided by the triad measured beside it. The triad writes a third
//!   of the bytes it counts, and each written line is read first, so it moves 4/3 of them; an
//!   SpMV's bytes are nearly all reads. `read_before`/`read_after` (two arrays summed, 16 bytes
//!   per element) give the read-only figure beside it.
//! - `spmv_stencil`, `spmv_uniform`, `spmv_power_law`, `spmv_hubs`, `spmv_power_law_sorted`:
//!   `y = A x` on a 3-D 7-point stencil, on uniformly random columns, on power-law row lengths (in
//!   random order, and sorted by decreasing length) and on a matrix whose first eight rows hold
//!   most nonzeros: the unscheduled kernel and sprs (both on one thread), a hand-written rayon
//!   SpMV with and without a prefetch hint and with the gathers from `x` prefetched too, row-split
//!   kernels with three split factors, one in lanes and one with `prefetch(x, 64)`, and
//!   position-split kernels (atomic adds at row boundaries) with two factors, with
//!   `prefetch(x, 64)`, in groups of 8, and precomputed.
//! - `spmv_stencil_in_cache`: the stencil SpMV on matrices that fit a core's L2 and the L3, on one
//!   thread and on two: what the kernel itself can do when memory does not limit it.
//! - `spmv_stencil_interleaved` (printed, not a criterion benchmark): rounds of the triad, the
//!   read-only stream and the stencil's row splits, each once, so that each SpMV is divided by
//!   stream figures taken in the same second.
//! - `spmm`: `A = B C` with `B` CSR and `C` dense with 64 columns: the unscheduled kernel, the
//!   `reorder(k, j)` kernel with and without `CpuVector` lanes (one thread), lanes plus row threads
//!   (also with `prefetch(C, 8)`), and sprs.
//! - `spmm_narrow`: the same with a `C` of 4096 rows that stays in cache.
//! - `sddmm`: `A = B .* (C Dᵀ)` over the square `B`'s pattern: unscheduled, the seed's row split
//!   (also with `prefetch(D, 4)`), and the row split with the dot products in lanes.
//! - `spmspv`: CSC matrix times a sparse vector (10% dense): unscheduled, the seed's schedule
//!   (positions of `x` across threads, atomic adds), and sprs.
//! - `ttv`, `mttkrp`: order-3 CSF kernels, unscheduled against `parallelize(i, CpuThread, NoRaces)`,
//!   MTTKRP also in loop order i, k, l, j and with the seed's precomputed row workspace;
//!   `mttkrp4`, `mttkrp5`: orders 4 and 5, unscheduled, the seed's schedule, threads, and the
//!   workspace in lanes.
//!
//! Every input exceeds the last-level cache (32 MiB on the machine of BENCHMARKS.md). Under
//! `cargo test --benches` criterion runs each benchmark once as a smoke test on tiny inputs. Inputs
//! are seeded, so every run measures the same data, and every kernel's result is checked against
//! the unscheduled kernel's before it is timed.

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkGroup, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
    measurement::WallTime,
};
use rayon::prelude::*;
use sparse::prelude::*;
use sparse::{Idx, Level};
use sprs::CsMatI;

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

tensor_kernel! {
    /// The unscheduled SpMV: one thread, rows in order.
    fn spmv_serial; y(i) = A(i,j) * x(j); formats<A: csr>;
}
tensor_kernel! {
    /// Row split, 64 rows per parallel iteration.
    fn spmv_rows_64; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<split(i, i0, i1, Down, 64).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// Row split, 1024 rows per parallel iteration.
    fn spmv_rows_1024; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<split(i, i0, i1, Down, 1024).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// Row split, 16384 rows per parallel iteration.
    fn spmv_rows_16384; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<split(i, i0, i1, Down, 16384).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// Position split, 2048 nonzeros per parallel iteration, atomic adds where rows straddle them.
    fn spmv_pos_2048; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 2048).parallelize(p0, CpuThread, Atomics)>;
}
tensor_kernel! {
    /// Position split, 16384 nonzeros per parallel iteration.
    fn spmv_pos_16384; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 16384).parallelize(p0, CpuThread, Atomics)>;
}
tensor_kernel! {
    /// Row split 1024 with the gathers from `x` prefetched 64 nonzeros ahead.
    fn spmv_rows_gathers; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<split(i, i0, i1, Down, 1024).parallelize(i0, CpuThread, NoRaces).prefetch(x, 64)>;
}
tensor_kernel! {
    /// Position split 2048 with the gathers from `x` prefetched 64 nonzeros ahead.
    fn spmv_pos_gathers; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 2048)
        .parallelize(p0, CpuThread, Atomics).prefetch(x, 64)>;
}
tensor_kernel! {
    /// Row split with each row's nonzeros in `wide` lanes (`x` gathered, a partial sum per lane).
    fn spmv_rows_lanes; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<split(i, i0, i1, Down, 1024).pos(j, jpos, A(i,j))
        .parallelize(jpos, CpuVector, ParallelReduction).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// Position split with each tile cut into groups of 8 nonzeros (the shape of Fig. 22's GPU
    /// schedule, without its workspace).
    fn spmv_pos_groups; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 16384).split(p1, p2, p3, Down, 8)
        .parallelize(p0, CpuThread, Atomics)>;
}
tensor_kernel! {
    /// The same groups with their products precomputed into an 8-value stack array by an
    /// unrolled loop, then summed into the rows (Fig. 22's `precompute` + `unroll`).
    fn spmv_pos_precompute; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 16384).split(p1, p2, p3, Down, 8)
        .precompute(A(i,j) * x(j), p3, p3w, products).unroll(p3w, 8)
        .parallelize(p0, CpuThread, Atomics)>;
}
tensor_kernel! {
    /// The unscheduled SpMM: for each output entry, a dot product down a column of `C`.
    fn spmm_serial; A(i,j) = B(i,k) * C(k,j); formats<B: csr>;
}
tensor_kernel! {
    /// Rows of `C` scaled and added into a row of `A`, one scalar at a time.
    fn spmm_plain; A(i,j) = B(i,k) * C(k,j); formats<B: csr>; schedule<reorder(k, j)>;
}
tensor_kernel! {
    /// The same row updates in `wide` lanes with a scalar tail.
    fn spmm_lanes; A(i,j) = B(i,k) * C(k,j); formats<B: csr>;
    schedule<reorder(k, j).parallelize(j, CpuVector, NoRaces)>;
}
tensor_kernel! {
    /// Lanes inside, rows of `A` across threads.
    fn spmm_lanes_threads; A(i,j) = B(i,k) * C(k,j); formats<B: csr>;
    schedule<reorder(k, j).parallelize(j, CpuVector, NoRaces).parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// Lanes and threads, with the rows of `C` the next 8 nonzeros gather prefetched.
    fn spmm_lanes_threads_gathers; A(i,j) = B(i,k) * C(k,j); formats<B: csr>;
    schedule<reorder(k, j).parallelize(j, CpuVector, NoRaces).parallelize(i, CpuThread, NoRaces)
        .prefetch(C, 8)>;
}
tensor_kernel! {
    /// The unscheduled SDDMM (`C · Dᵀ` sampled at `B`'s pattern, `D` stored by rows of `k`).
    fn sddmm_serial; A(i,k) = B(i,k) * C(i,j) * D(k,j); formats<A: csr, B: csr>;
}
tensor_kernel! {
    /// SDDMM with the seed's row split across threads.
    fn sddmm_threads; A(i,k) = B(i,k) * C(i,j) * D(k,j); formats<A: csr, B: csr>;
    schedule<split(i, i0, i1, Down, 8).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// The seed's row split with the rows of `D` the next 4 nonzeros gather prefetched.
    fn sddmm_threads_gathers; A(i,k) = B(i,k) * C(i,j) * D(k,j); formats<A: csr, B: csr>;
    schedule<split(i, i0, i1, Down, 8).parallelize(i0, CpuThread, NoRaces).prefetch(D, 4)>;
}
tensor_kernel! {
    /// The same with each dot product over `j` in `wide` lanes.
    fn sddmm_lanes_threads; A(i,k) = B(i,k) * C(i,j) * D(k,j); formats<A: csr, B: csr>;
    schedule<split(i, i0, i1, Down, 8).parallelize(j, CpuVector, ParallelReduction)
        .parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// The unscheduled sparse matrix times sparse vector.
    fn spmspv_serial; y(i) = A(i,j) * x(j); formats<A: csc, x: sparse>;
}
tensor_kernel! {
    /// SpMSpV with the seed's schedule: positions of `x` split across threads, atomic adds into `y`.
    fn spmspv_threads; y(i) = A(i,j) * x(j); formats<A: csc, x: sparse>;
    schedule<reorder(j, i).pos(j, jpos, x(j)).split(jpos, jpos0, jpos1, Down, 64)
        .parallelize(jpos0, CpuThread, Atomics)>;
}
tensor_kernel! {
    /// The unscheduled order-4 MTTKRP.
    fn mttkrp4_serial; A(i,j) = B(i,k,l,m) * C(k,j) * D(l,j) * E(m,j);
    formats<B: (dense, compressed, compressed, compressed)>;
}
tensor_kernel! {
    /// The seed's order-4 MTTKRP schedule.
    fn mttkrp4_seed; A(i,j) = B(i,k,l,m) * C(k,j) * D(l,j) * E(m,j);
    formats<B: (dense, compressed, compressed, compressed)>;
    schedule<split(i, i1, i2, Down, 64).reorder(i1, i2, k, l, m, j)
        .parallelize(i1, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// Order-4 MTTKRP with slices across threads, default loop order.
    fn mttkrp4_threads; A(i,j) = B(i,k,l,m) * C(k,j) * D(l,j) * E(m,j);
    formats<B: (dense, compressed, compressed, compressed)>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// Order-4 MTTKRP with the sum over `m` in a precomputed row, rows in lanes.
    fn mttkrp4_workspace_lanes; A(i,j) = B(i,k,l,m) * E(m,j) * C(k,j) * D(l,j);
    formats<B: (dense, compressed, compressed, compressed)>;
    schedule<reorder(i, k, l, m, j).precompute(B(i,k,l,m) * E(m,j), j, jw, row)
        .parallelize(jw, CpuVector, NoRaces).parallelize(j, CpuVector, NoRaces)
        .parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// The unscheduled order-5 MTTKRP.
    fn mttkrp5_serial; A(i,j) = B(i,k,l,m,n) * C(k,j) * D(l,j) * E(m,j) * F(n,j);
    formats<B: (dense, compressed, compressed, compressed, compressed)>;
}
tensor_kernel! {
    /// The seed's order-5 MTTKRP schedule.
    fn mttkrp5_seed; A(i,j) = B(i,k,l,m,n) * C(k,j) * D(l,j) * E(m,j) * F(n,j);
    formats<B: (dense, compressed, compressed, compressed, compressed)>;
    schedule<split(i, i1, i2, Down, 64).reorder(i1, i2, k, l, m, n, j)
        .parallelize(i1, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// Order-5 MTTKRP with slices across threads, default loop order.
    fn mttkrp5_threads; A(i,j) = B(i,k,l,m,n) * C(k,j) * D(l,j) * E(m,j) * F(n,j);
    formats<B: (dense, compressed, compressed, compressed, compressed)>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// Order-5 MTTKRP with the sum over `n` in a precomputed row, rows in lanes.
    fn mttkrp5_workspace_lanes; A(i,j) = B(i,k,l,m,n) * F(n,j) * C(k,j) * D(l,j) * E(m,j);
    formats<B: (dense, compressed, compressed, compressed, compressed)>;
    schedule<reorder(i, k, l, m, n, j).precompute(B(i,k,l,m,n) * F(n,j), j, jw, row)
        .parallelize(jw, CpuVector, NoRaces).parallelize(j, CpuVector, NoRaces)
        .parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// The seed's SpMM CPU schedule: row tiles across threads, each row's nonzeros in groups of 4
    /// outside the dense loop over `j`, which runs in lanes.
    fn spmm_seed; A(i,j) = B(i,k) * C(k,j); formats<B: csr>;
    schedule<split(i, i0, i1, Down, 16).pos(k, kpos, B(i,k)).split(kpos, kpos0, kpos1, Down, 4)
        .reorder(i0, i1, kpos0, j, kpos1)
        .parallelize(i0, CpuThread, NoRaces).parallelize(j, CpuVector, IgnoreRaces)>;
}
tensor_kernel! {
    /// The seed's TTV CPU schedule: the (i, j) fibers collapsed and split by position across
    /// threads, into a sparse output with `B`'s fiber pattern.
    fn ttv_seed; A(i,j) = B(i,j,k) * c(k);
    formats<A: csr, B: (dense, compressed, compressed)>;
    schedule<fuse(i, j, f).pos(f, fpos, B(i,j,k)).split(fpos, chunk, fpos2, Down, 32)
        .reorder(chunk, fpos2, k).parallelize(chunk, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// The unscheduled tensor-times-vector.
    fn ttv_serial; A(i,j) = B(i,j,k) * c(k); formats<B: csf>;
}
tensor_kernel! {
    /// Tensor-times-vector with slices `i` across threads.
    fn ttv_threads; A(i,j) = B(i,j,k) * c(k); formats<B: csf>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// The unscheduled MTTKRP.
    fn mttkrp_serial; A(i,j) = B(i,k,l) * C(k,j) * D(l,j); formats<B: csf>;
}
tensor_kernel! {
    /// MTTKRP with slices `i` across threads.
    fn mttkrp_threads; A(i,j) = B(i,k,l) * C(k,j) * D(l,j); formats<B: csf>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// MTTKRP in the order that walks each slice once (i, k, l, j), slices across threads.
    fn mttkrp_ordered; A(i,j) = B(i,k,l) * D(l,j) * C(k,j); formats<B: csf>;
    schedule<reorder(i, k, l, j).parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// A.11's workspace MTTKRP: per (i, k), the sum over l of B * D gathered in a row, then
    /// scaled by a row of C.
    fn mttkrp_workspace; A(i,j) = B(i,k,l) * D(l,j) * C(k,j); formats<B: csf>;
    schedule<reorder(i, k, l, j).precompute(B(i,k,l) * D(l,j), j, jw, row)
        .parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// The workspace MTTKRP with both row loops in `wide` lanes.
    fn mttkrp_workspace_lanes; A(i,j) = B(i,k,l) * D(l,j) * C(k,j); formats<B: csf>;
    schedule<reorder(i, k, l, j).precompute(B(i,k,l) * D(l,j), j, jw, row)
        .parallelize(jw, CpuVector, NoRaces).parallelize(j, CpuVector, NoRaces)
        .parallelize(i, CpuThread, NoRaces)>;
}

/// The input sizes of one run: far larger than the cache when measuring, tiny when criterion only
/// checks that each benchmark runs.
#[derive(Clone, Copy)]
struct Sizes {
    /// Elements of each triad array.
    stream_len: usize,
    /// Grid points along each side of the 3-D stencil (its matrix has `side^3` rows).
    stencil_side: usize,
    /// Sides of the stencils whose SpMV runs from cache: one that fits a core's L2, one the L3.
    in_cache_sides: [usize; 2],
    /// Rows (and columns) of the uniform SpMV matrix.
    uniform_rows: usize,
    /// Rows (and columns) of the power-law SpMV matrix.
    power_law_rows: usize,
    /// Rows (and columns) of the SpMM's sparse operand.
    spmm_rows: usize,
    /// The first two dimensions of the order-3 tensor.
    tensor_slices: usize,
    /// The last dimension of the order-3 tensor.
    tensor_depth: usize,
}

impl Sizes {
    /// Criterion passes `--bench` when it measures (`cargo bench`) and not when it only tests
    /// (`cargo test --benches`).
    fn from_args() -> Self {
        if std::env::args().any(|a| a == "--bench") {
            Sizes {
                stream_len: 64 << 20,
                stencil_side: 160,
                in_cache_sides: [20, 48],
                uniform_rows: 4_000_000,
                power_law_rows: 3_000_000,
                spmm_rows: 1 << 17,
                tensor_slices: 2048,
                tensor_depth: 1 << 20,
            }
        } else {
            Sizes {
                stream_len: 4096,
                stencil_side: 6,
                in_cache_sides: [4, 5],
                uniform_rows: 2_000,
                power_law_rows: 2_000,
                spmm_rows: 300,
                tensor_slices: 12,
                tensor_depth: 500,
            }
        }
    }
}

/// Columns of the dense SpMM operand and rank of the MTTKRP factors.
const DENSE_COLS: usize = 64;
/// Rank of the MTTKRP factor matrices.
const RANK: usize = 16;

fn idx(x: usize) -> Idx {
    Idx::try_from(x).expect("generated sizes fit u32")
}

/// Appends `len` uniformly random coordinates below `n`, sorted and without repeats (so fewer
/// than `len` where one is drawn twice), as the segment that starts at `start`.
fn push_sorted_segment(crd: &mut Vec<Idx>, rng: &mut Rng, len: usize, n: usize) {
    let start = crd.len();
    crd.extend((0..len).map(|_| idx(rng.below(n))));
    crd[start..].sort_unstable();
    let mut kept = start;
    for k in start..crd.len() {
        if kept == start || crd[k] != crd[kept - 1] {
            crd[kept] = crd[k];
            kept += 1;
        }
    }
    crd.truncate(kept);
}

/// A square CSR matrix with its byte count, built straight from arrays so that tens of millions
/// of nonzeros take seconds to make.
struct Matrix {
    a: Tensor<f64, Csr>,
    label: String,
}

impl Matrix {
    fn from_arrays(
        [rows, cols]: [usize; 2],
        pos: Vec<Idx>,
        crd: Vec<Idx>,
        seed: u64,
        label: &str,
    ) -> Self {
        let mut rng = Rng(seed);
        let vals = (0..crd.len()).map(|_| rng.value()).collect();
        let levels = vec![Level::Dense { size: rows }, Level::Compressed { pos, crd }];
        let a = Tensor::from_parts(vec![rows, cols], levels, vals)
            .expect("generated CSR arrays are valid");
        Matrix {
            a,
            label: label.to_string(),
        }
    }

    /// `n` square rows of `row_len(rng)` uniformly random columns.
    fn random(n: usize, seed: u64, label: &str, row_len: impl FnMut(&mut Rng) -> usize) -> Self {
        Self::random_rect([n, n], seed, label, row_len)
    }

    /// Rows of `row_len(rng)` uniformly random columns.
    fn random_rect(
        [rows, cols]: [usize; 2],
        seed: u64,
        label: &str,
        mut row_len: impl FnMut(&mut Rng) -> usize,
    ) -> Self {
        let mut rng = Rng(seed);
        let (mut pos, mut crd) = (Vec::with_capacity(rows + 1), Vec::new());
        pos.push(0);
        for _ in 0..rows {
            let len = row_len(&mut rng).min(cols);
            push_sorted_segment(&mut crd, &mut rng, len, cols);
            pos.push(idx(crd.len()));
        }
        Self::from_arrays([rows, cols], pos, crd, seed ^ 0xA5A5, label)
    }

    /// The 7-point stencil of a `side^3` grid: a band of seven diagonals, three of them far from
    /// the main one, so `x` is read in a sliding window that stays in cache.
    fn stencil(side: usize) -> Self {
        let n = side * side * side;
        let (mut pos, mut crd) = (Vec::with_capacity(n + 1), Vec::with_capacity(7 * n));
        pos.push(0);
        let plane = side * side;
        for row in 0..n {
            let (x, y, z) = (row % side, row / side % side, row / plane);
            let neighbours = [
                (z > 0).then(|| row - plane),
                (y > 0).then(|| row - side),
                (x > 0).then(|| row - 1),
                Some(row),
                (x + 1 < side).then(|| row + 1),
                (y + 1 < side).then(|| row + side),
                (z + 1 < side).then(|| row + plane),
            ];
            crd.extend(neighbours.into_iter().flatten().map(idx));
            pos.push(idx(crd.len()));
        }
        Self::from_arrays([n, n], pos, crd, 0x5851_F42D_4C95_7F2D, "stencil")
    }

    /// `mean / 2` to `3 mean / 2` nonzeros per row at uniformly random columns.
    fn uniform(n: usize, mean: usize) -> Self {
        Self::random(n, 0x9E37_79B9_7F4A_7C15, "uniform", |rng| {
            mean / 2 + rng.below(mean + 1)
        })
    }

    /// Row lengths from a Pareto law of shape 1 (`P(len >= k) = 1/k`, cut at `n`): half the rows
    /// hold one nonzero and the longest 1% hold most of them.
    fn power_law(n: usize) -> Self {
        Self::random(n, 0xD1B5_4A32_D192_ED03, "power_law", |rng| {
            (1.0 / rng.unit()) as usize
        })
    }

    /// The power law's row lengths in decreasing order, as in a graph whose vertices are
    /// numbered by degree: the heaviest rows share the first tiles of a row split.
    fn power_law_sorted(n: usize) -> Self {
        let mut rng = Rng(0x94D0_49BB_1331_11EB);
        let mut lens: Vec<usize> = (0..n).map(|_| (1.0 / rng.unit()) as usize).collect();
        lens.sort_unstable_by(|a, b| b.cmp(a));
        let mut lens = lens.into_iter();
        Self::random(n, 0xBF58_476D_1CE4_E5B9, "power_law_sorted", move |_| {
            lens.next().unwrap_or(0)
        })
    }

    /// Eight hub rows first, each with `n` random draws of a column (about 0.63 `n` distinct),
    /// then rows of 1 to 7 nonzeros: the hubs hold most of the nonzeros and all fall in the first
    /// tile of any row split, as in a graph whose hub vertices are numbered first.
    fn hubs(n: usize) -> Self {
        let mut row = 0;
        Self::random(n, 0x2127_599B_F432_5C37, "hubs", |rng| {
            row += 1;
            if row <= 8 { n } else { 1 + rng.below(7) }
        })
    }

    fn rows(&self) -> usize {
        self.a.shape()[0]
    }

    fn nnz(&self) -> usize {
        self.a.level(1).crd().len()
    }

    /// The bytes an SpMV must move at least: values and column indices once, the row pointers,
    /// `x` once and `y` once.
    fn spmv_bytes(&self) -> u64 {
        let n = self.rows();
        (self.nnz() * (8 + 4) + (n + 1) * 4 + n * 8 + n * 8) as u64
    }

    /// Nonzeros, longest row, and the share of the nonzeros in the longest 1% of rows.
    fn describe(&self) -> String {
        let mut lens: Vec<usize> = (self.a.level(1).pos().windows(2))
            .map(|w| (w[1] - w[0]) as usize)
            .collect();
        lens.sort_unstable_by(|a, b| b.cmp(a));
        let n = self.rows();
        let top: usize = lens.iter().take(n.div_ceil(100)).sum();
        format!(
            "{}: {n} x {}, {} nonzeros, {:.0} MB to move, longest row {}, longest 1% of rows \
             hold {:.0}% of the nonzeros",
            self.label,
            self.a.shape()[1],
            self.nnz(),
            self.spmv_bytes() as f64 / 1e6,
            lens.first().copied().unwrap_or(0),
            100.0 * top as f64 / self.nnz().max(1) as f64,
        )
    }

    /// sprs's CSR over copies of the same arrays, with `u32` indices so it moves the same bytes.
    fn to_sprs(&self) -> CsMatI<f64, u32, u32> {
        let level = self.a.level(1);
        CsMatI::new(
            (self.rows(), self.a.shape()[1]),
            level.pos().to_vec(),
            level.crd().to_vec(),
            self.a.values().to_vec(),
        )
    }
}

fn dense<const N: usize>(shape: [usize; N], seed: u64) -> Tensor<f64, Dense<N>> {
    let mut rng = Rng(seed);
    let values: Vec<f64> = (0..shape.iter().product()).map(|_| rng.value()).collect();
    Tensor::from_dense(shape, &values).expect("shape and values agree")
}

/// Warm-up and measurement short enough that the whole file runs in a few minutes.
fn configure(group: &mut BenchmarkGroup<'_, WallTime>, throughput: Throughput) {
    group
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(throughput);
}

/// One triad pass over the three slices.
fn triad(a: &mut [f64], b: &[f64], c: &[f64], s: f64) {
    for ((ai, bi), ci) in a.iter_mut().zip(b).zip(c) {
        *ai = bi + s * ci;
    }
}

/// Elements per rayon task of the parallel triad: large enough that task overhead vanishes.
const TRIAD_CHUNK: usize = 1 << 16;

/// The triad's arrays.
struct Triad {
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
}

impl Triad {
    fn new(n: usize) -> Self {
        let mut t = Triad {
            a: vec![0.0; n],
            b: vec![1.5; n],
            c: vec![2.5; n],
        };
        t.serial(3.0);
        assert!(
            t.a.iter().all(|&v| v == 1.5 + 3.0 * 2.5),
            "triad result is wrong"
        );
        t
    }

    fn bytes(&self) -> u64 {
        (self.a.len() * 3 * 8) as u64
    }

    fn serial(&mut self, s: f64) {
        triad(&mut self.a, &self.b, &self.c, s);
    }

    fn parallel(&mut self, s: f64) {
        (self.a.par_chunks_mut(TRIAD_CHUNK))
            .zip(self.b.par_chunks(TRIAD_CHUNK))
            .zip(self.c.par_chunks(TRIAD_CHUNK))
            .for_each(|((a, b), c)| triad(a, b, c, s));
    }

    /// Reads `b` and `c` once across the pool (a sum with eight running sums per task, which
    /// the compiler keeps in SIMD registers): the bandwidth of a stream without writes.
    fn read(&self) -> f64 {
        let sum8 = |xs: &[f64]| {
            let mut acc = [0.0; 8];
            for chunk in xs.chunks_exact(8) {
                for (a, x) in acc.iter_mut().zip(chunk) {
                    *a += x;
                }
            }
            acc.iter().sum::<f64>() + xs.chunks_exact(8).remainder().iter().sum::<f64>()
        };
        (self.b.par_chunks(TRIAD_CHUNK))
            .zip(self.c.par_chunks(TRIAD_CHUNK))
            .map(|(b, c)| sum8(b) + sum8(c))
            .sum()
    }

    /// Times the parallel triad as benchmark `triad_{when}` of `group` and the read-only stream
    /// as `read_{when}`, each in its own throughput.
    fn bench_in(&mut self, group: &mut BenchmarkGroup<'_, WallTime>, when: &str) {
        group.throughput(Throughput::Bytes(self.bytes()));
        let triad = format!("triad_{when}");
        group.bench_function(triad, |bench| bench.iter(|| self.parallel(black_box(3.0))));
        group.throughput(Throughput::Bytes((self.b.len() * 2 * 8) as u64));
        let read = format!("read_{when}");
        group.bench_function(read, |bench| bench.iter(|| black_box(self.read())));
    }
}

fn stream_triad(c: &mut Criterion) {
    println!("rayon's pool: {} threads", rayon::current_num_threads());
    let mut t = Triad::new(Sizes::from_args().stream_len);
    let mut group = c.benchmark_group("triad");
    configure(&mut group, Throughput::Bytes(t.bytes()));
    group.bench_function("serial", |bench| bench.iter(|| t.serial(black_box(3.0))));
    let n = t.b.len() as f64;
    assert_eq!(t.read(), n * (1.5 + 2.5), "read result is wrong");
    t.bench_in(&mut group, "rayon");
    group.finish();
}

type Spmv = fn(
    &mut Tensor<f64, Dense<1>>,
    &Tensor<f64, Csr>,
    &Tensor<f64, Dense<1>>,
) -> Result<(), KernelError>;

/// The scheduled SpMVs.
const SCHEDULED_SPMV: [(&str, Spmv); 10] = [
    ("rows_64", spmv_rows_64),
    ("rows_1024", spmv_rows_1024),
    ("rows_1024_gathers_64", spmv_rows_gathers),
    ("rows_16384", spmv_rows_16384),
    ("rows_1024_lanes", spmv_rows_lanes),
    ("pos_2048", spmv_pos_2048),
    ("pos_2048_gathers_64", spmv_pos_gathers),
    ("pos_16384", spmv_pos_16384),
    ("pos_groups_8", spmv_pos_groups),
    ("pos_precompute_8", spmv_pos_precompute),
];

fn spmv(c: &mut Criterion) {
    let sizes = Sizes::from_args();
    let mut t = Triad::new(sizes.stream_len);
    bench_spmv(c, &mut t, &Matrix::stencil(sizes.stencil_side));
    bench_spmv(c, &mut t, &Matrix::uniform(sizes.uniform_rows, 10));
    bench_spmv(c, &mut t, &Matrix::power_law(sizes.power_law_rows));
    bench_spmv(c, &mut t, &Matrix::hubs(sizes.power_law_rows));
    bench_spmv(c, &mut t, &Matrix::power_law_sorted(sizes.power_law_rows));
}

fn bench_spmv(c: &mut Criterion, triad: &mut Triad, m: &Matrix) {
    println!("{}", m.describe());
    let n = m.rows();
    let theirs = m.to_sprs();
    let x = dense([n], 0x2545_F491_4F6C_DD1D);
    let mut y = Tensor::<f64, Dense<1>>::zeros([n]);
    check_spmv(m, &theirs, &x, &mut y);
    let mut group = c.benchmark_group(format!("spmv_{}", m.label));
    let spmv_throughput = Throughput::ElementsAndBytes {
        elements: m.nnz() as u64,
        bytes: m.spmv_bytes(),
    };
    configure(&mut group, spmv_throughput.clone());
    triad.bench_in(&mut group, "before");
    group.throughput(spmv_throughput);
    group.bench_function("serial_macro", |b| {
        b.iter(|| spmv_serial(black_box(&mut y), black_box(&m.a), black_box(&x)))
    });
    group.bench_function("sprs_serial", |b| {
        b.iter(|| {
            let out = black_box(y.values_mut());
            out.fill(0.0);
            sprs::prod::mul_acc_mat_vec_csr(theirs.view(), x.values(), out);
        })
    });
    group.bench_function("rayon_handwritten", |b| {
        b.iter(|| spmv_rayon(black_box(y.values_mut()), &m.a, x.values()))
    });
    group.bench_function("rayon_handwritten_prefetch", |b| {
        b.iter(|| spmv_rayon_prefetch(black_box(y.values_mut()), &m.a, x.values()))
    });
    group.bench_function("rayon_gather_prefetch_64", |b| {
        b.iter(|| spmv_rayon_gather_prefetch(black_box(y.values_mut()), &m.a, x.values()))
    });
    for (name, kernel) in SCHEDULED_SPMV {
        group.bench_function(name, |b| {
            b.iter(|| kernel(black_box(&mut y), black_box(&m.a), black_box(&x)))
        });
    }
    bench_parts(&mut group, m, x.values(), y.values_mut());
    triad.bench_in(&mut group, "after");
    group.finish();
}

/// The stencil SpMV on matrices that stay in cache, so memory bandwidth is not what limits it: the
/// kernels' own speed, in the bytes per second they would need from memory. A one-thread run
/// on a matrix that fits one core's L2 (`l2`), and one- and two-thread runs on one that fits the
/// L3 (`l3`). If this ceiling is below the triad, no prefetching brings the out-of-cache SpMV to
/// the triad.
fn spmv_in_cache(c: &mut Criterion) {
    let [l2, l3] = Sizes::from_args().in_cache_sides.map(Matrix::stencil);
    let mut group = c.benchmark_group("spmv_stencil_in_cache");
    for (m, cache) in [(&l2, "l2"), (&l3, "l3")] {
        let n = m.rows();
        let x = dense([n], 0x2545_F491_4F6C_DD1D);
        let mut y = Tensor::<f64, Dense<1>>::zeros([n]);
        check_spmv(m, &m.to_sprs(), &x, &mut y);
        configure(
            &mut group,
            Throughput::ElementsAndBytes {
                elements: m.nnz() as u64,
                bytes: m.spmv_bytes(),
            },
        );
        group.bench_function(format!("serial_macro_{cache}"), |b| {
            b.iter(|| spmv_serial(black_box(&mut y), black_box(&m.a), black_box(&x)))
        });
        if cache == "l3" {
            group.bench_function("rows_1024_l3", |b| {
                b.iter(|| spmv_rows_1024(black_box(&mut y), black_box(&m.a), black_box(&x)))
            });
            group.bench_function("rayon_handwritten_prefetch_l3", |b| {
                b.iter(|| spmv_rayon_prefetch(black_box(y.values_mut()), &m.a, x.values()))
            });
        }
    }
    group.finish();
}

/// The stencil SpMV's fraction of the bandwidth bound with the stream figure taken in the same
/// moment: criterion times each benchmark for seconds on end, and on this shared machine the
/// triad beside an SpMV can move by 1.5x between two of them. Here every round runs the parallel
/// triad, the read-only stream and then each SpMV once, and each SpMV's bytes per second is
/// divided by that round's stream figures; the medians over the rounds are printed, and beside
/// them the best round of each divided by the best round of the streams. Runs when the
/// benchmark filter is absent or names the stencil.
fn spmv_stencil_interleaved(_: &mut Criterion) {
    let measuring = std::env::args().any(|a| a == "--bench");
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if filter.is_some_and(|f| !f.contains("stencil")) {
        return;
    }
    let sizes = Sizes::from_args();
    let mut t = Triad::new(sizes.stream_len);
    let m = Matrix::stencil(sizes.stencil_side);
    let n = m.rows();
    let x = dense([n], 0x2545_F491_4F6C_DD1D);
    let mut y = Tensor::<f64, Dense<1>>::zeros([n]);
    check_spmv(&m, &m.to_sprs(), &x, &mut y);
    let kernels: [(&str, Spmv); 3] = [
        ("rows_64", spmv_rows_64),
        ("rows_1024", spmv_rows_1024),
        ("rayon_handwritten_prefetch", |y, a, x| {
            spmv_rayon_prefetch(y.values_mut(), a, x.values());
            Ok(())
        }),
    ];
    let rounds = if measuring { 41 } else { 2 };
    let bytes_per_second = |bytes: u64, run: &mut dyn FnMut()| {
        let start = std::time::Instant::now();
        run();
        bytes as f64 / start.elapsed().as_secs_f64()
    };
    let read_bytes = (t.b.len() * 2 * 8) as u64;
    let (mut triads, mut reads) = (Vec::new(), Vec::new());
    let mut spmvs = vec![Vec::new(); kernels.len()];
    for _ in 0..rounds {
        triads.push(bytes_per_second(t.bytes(), &mut || {
            t.parallel(black_box(3.0))
        }));
        reads.push(bytes_per_second(read_bytes, &mut || {
            black_box(t.read());
        }));
        for ((_, kernel), rates) in kernels.iter().zip(&mut spmvs) {
            rates.push(bytes_per_second(m.spmv_bytes(), &mut || {
                kernel(black_box(&mut y), &m.a, &x).expect("shapes agree")
            }));
        }
    }
    println!(
        "spmv_stencil_interleaved: {rounds} rounds; median GB/s, and the median over the rounds \
         of its fraction of that round's triad / read-only stream"
    );
    println!(
        "  triad {:.1} GB/s, read-only stream {:.1} GB/s",
        median(&triads) / 1e9,
        median(&reads) / 1e9
    );
    for ((name, _), rates) in kernels.iter().zip(&spmvs) {
        let of = |stream: &[f64]| {
            median(
                &rates
                    .iter()
                    .zip(stream)
                    .map(|(r, s)| r / s)
                    .collect::<Vec<_>>(),
            )
        };
        println!(
            "  {name}: {:.1} GB/s, {:.2} of the triad, {:.2} of the read-only stream; \
             best round {:.1} GB/s, {:.2} of the best triad, {:.2} of the best read-only stream",
            median(rates) / 1e9,
            of(&triads),
            of(&reads),
            best(rates) / 1e9,
            best(rates) / best(&triads),
            best(rates) / best(&reads)
        );
    }
}

/// The highest value: STREAM's convention of reporting the best of its trials, applied to the
/// streams and the SpMV alike, estimates what each reaches when no other tenant takes the cores.
fn best(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// The middle value (the upper of the two middle ones for an even count).
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// Rows per rayon task of the hand-written parallel SpMV.
const ROWS_PER_TASK: usize = 1024;

/// `y[i] = row(column indices of row i, values of row i)` for every row of `a`, over disjoint
/// chunks of `y` across rayon's pool; with `prefetch`, the runtime's prefetch hint before each
/// row, as generated kernels have it.
fn rows_rayon(
    y: &mut [f64],
    a: &Tensor<f64, Csr>,
    prefetch: bool,
    row: impl Fn(usize, &[Idx], &[f64]) -> f64 + Sync,
) {
    let (pos, crd, vals) = (a.level(1).pos(), a.level(1).crd(), a.values());
    y.par_chunks_mut(ROWS_PER_TASK)
        .enumerate()
        .for_each(|(chunk, ys)| {
            let first = chunk * ROWS_PER_TASK;
            for (yi, bounds) in ys.iter_mut().zip(pos[first..].windows(2)) {
                let (lo, hi) = (bounds[0] as usize, bounds[1] as usize);
                if prefetch {
                    sparse::__private::prefetch_ahead(crd, lo);
                    sparse::__private::prefetch_ahead(vals, lo);
                }
                *yi = row(lo, &crd[lo..hi], &vals[lo..hi]);
            }
        });
}

/// A row's dot product with `x`, summed in order as the unscheduled kernel sums it.
fn row_dot(x: &[f64]) -> impl Fn(usize, &[Idx], &[f64]) -> f64 + Sync + '_ {
    |_, crd, vals| (crd.iter().zip(vals)).fold(0.0, |sum, (&j, &v)| sum + v * x[j as usize])
}

/// A parallel SpMV written by hand, the baseline for the scheduled ones.
fn spmv_rayon(y: &mut [f64], a: &Tensor<f64, Csr>, x: &[f64]) {
    rows_rayon(y, a, false, row_dot(x));
}

/// [`spmv_rayon`] with prefetch hints: the hand-tuned baseline.
fn spmv_rayon_prefetch(y: &mut [f64], a: &Tensor<f64, Csr>, x: &[f64]) {
    rows_rayon(y, a, true, row_dot(x));
}

/// How far ahead the hand-written SpMV prefetches its gathers, as `prefetch(x, 64)` does.
const GATHER_AHEAD: usize = 64;

/// [`spmv_rayon_prefetch`] that also asks, at each nonzero, for the element of `x` the gather
/// [`GATHER_AHEAD`] nonzeros later reads.
fn spmv_rayon_gather_prefetch(y: &mut [f64], a: &Tensor<f64, Csr>, x: &[f64]) {
    let crd = a.level(1).crd();
    rows_rayon(y, a, true, |first, row_crd, vals| {
        let nonzeros = row_crd.iter().zip(vals).enumerate();
        nonzeros.fold(0.0, |sum, (k, (&j, &v))| {
            sparse::__private::prefetch_gather(x, crd, first + k + GATHER_AHEAD, 0, 1);
            sum + v * x[j as usize]
        })
    });
}

/// The SpMV's two parts timed apart, to say which one limits it: the stream alone (every array
/// but `x`: `y[i] = sum of vals[p] * crd[p]`) and the gathers from `x` alone (`y[i] = sum of
/// x[crd[p]]`, no values), both with prefetch hints.
fn bench_parts(group: &mut BenchmarkGroup<'_, WallTime>, m: &Matrix, x: &[f64], y: &mut [f64]) {
    group.bench_function("part_stream", |b| {
        b.iter(|| {
            rows_rayon(black_box(&mut *y), &m.a, true, |_, crd, vals| {
                (crd.iter().zip(vals)).fold(0.0, |sum, (&j, &v)| sum + v * f64::from(j))
            })
        })
    });
    group.bench_function("part_gathers", |b| {
        b.iter(|| {
            rows_rayon(black_box(&mut *y), &m.a, true, |_, crd, _| {
                crd.iter().fold(0.0, |sum, &j| sum + x[j as usize])
            })
        })
    });
}

/// A hand-written SpMV: `y`, `A`, `x`.
type HandSpmv = fn(&mut [f64], &Tensor<f64, Csr>, &[f64]);

/// The unscheduled kernel sums a row of four entries or more as a dot product in SIMD lanes,
/// sprs and the hand-written loops in order, atomic adds may split a row's sum and lanes keep a
/// partial sum each: every SpMV agrees with the others to rounding.
fn check_spmv(
    m: &Matrix,
    theirs: &CsMatI<f64, u32, u32>,
    x: &Tensor<f64, Dense<1>>,
    y: &mut Tensor<f64, Dense<1>>,
) {
    spmv_serial(y, &m.a, x).expect("shapes agree");
    let want = y.values().to_vec();
    y.values_mut().fill(0.0);
    sprs::prod::mul_acc_mat_vec_csr(theirs.view(), x.values(), y.values_mut());
    assert!(close(y.values(), &want), "sprs differs on {}", m.label);
    y.values_mut().fill(f64::NAN);
    spmv_rayon(y.values_mut(), &m.a, x.values());
    let label = &m.label;
    assert!(
        close(y.values(), &want),
        "hand-written rayon SpMV differs on {label}"
    );
    let hand_tuned: [(&str, HandSpmv); 2] = [
        ("with prefetch", spmv_rayon_prefetch),
        ("with gather prefetch 64", spmv_rayon_gather_prefetch),
    ];
    for (name, kernel) in hand_tuned {
        y.values_mut().fill(f64::NAN);
        kernel(y.values_mut(), &m.a, x.values());
        assert!(
            close(y.values(), &want),
            "hand-written SpMV {name} differs on {label}"
        );
    }
    for (name, kernel) in SCHEDULED_SPMV {
        y.values_mut().fill(f64::NAN);
        kernel(y, &m.a, x).expect("shapes agree");
        assert!(close(y.values(), &want), "{name} differs on {label}");
    }
}

type Spmm = fn(
    &mut Tensor<f64, Dense<2>>,
    &Tensor<f64, Csr>,
    &Tensor<f64, Dense<2>>,
) -> Result<(), KernelError>;

/// The SpMM kernels: all add each output entry's products in the order of `k`.
const SPMM: [(&str, Spmm); 6] = [
    ("serial_macro", spmm_serial),
    ("reorder_plain", spmm_plain),
    ("reorder_lanes", spmm_lanes),
    ("reorder_lanes_threads", spmm_lanes_threads),
    (
        "reorder_lanes_threads_prefetch_8",
        spmm_lanes_threads_gathers,
    ),
    ("seed_schedule", spmm_seed),
];

fn spmm(c: &mut Criterion) {
    let n = Sizes::from_args().spmm_rows;
    let square = Matrix::random(n, 0x94D0_49BB_1331_11EB, "spmm", |rng| 4 + rng.below(9));
    bench_spmm(c, &square);
    let narrow = Matrix::random_rect([n, n / 32], 0x9E37_79B9_7F4A_7C15, "spmm_narrow", |rng| {
        4 + rng.below(9)
    });
    bench_spmm(c, &narrow);
    bench_sddmm(c, &square);
}

/// SDDMM over `B`'s pattern with `C` and `D` dense of `DENSE_COLS` columns: each nonzero is a dot
/// product of a row of `C` and a row of `D` (512 bytes each, `D`'s at random rows).
fn bench_sddmm(c: &mut Criterion, b: &Matrix) {
    let n = b.rows();
    let cm = dense([n, DENSE_COLS], 0x1F83_D9AB_FB41_BD6B);
    let dm = dense([n, DENSE_COLS], 0x5BE0_CD19_137E_2179);
    let mut out = Tensor::<f64, Csr>::zeros([n, n]);
    sddmm_serial(&mut out, &b.a, &cm, &dm).expect("shapes agree");
    let want = out.values().to_vec();
    for (name, kernel) in [
        ("threads", sddmm_threads as Sddmm),
        ("threads_prefetch_4", sddmm_threads_gathers),
        ("lanes_threads", sddmm_lanes_threads),
    ] {
        kernel(&mut out, &b.a, &cm, &dm).expect("shapes agree");
        assert!(close(out.values(), &want), "SDDMM {name} differs");
    }
    let mut group = c.benchmark_group("sddmm");
    configure(
        &mut group,
        Throughput::Elements((b.nnz() * DENSE_COLS) as u64),
    );
    for (name, kernel) in [
        ("serial_macro", sddmm_serial as Sddmm),
        ("threads", sddmm_threads),
        ("threads_prefetch_4", sddmm_threads_gathers),
        ("lanes_threads", sddmm_lanes_threads),
    ] {
        group.bench_function(name, |bench| {
            bench.iter(|| kernel(black_box(&mut out), black_box(&b.a), &cm, &dm))
        });
    }
    group.finish();
}

type Sddmm = fn(
    &mut Tensor<f64, Csr>,
    &Tensor<f64, Csr>,
    &Tensor<f64, Dense<2>>,
    &Tensor<f64, Dense<2>>,
) -> Result<(), KernelError>;

/// SpMSpV: the uniform matrix's arrays read as CSC (the transpose of a random matrix is one), times
/// a sparse vector holding 10% of the coordinates.
fn spmspv(c: &mut Criterion) {
    let m = Matrix::uniform(Sizes::from_args().uniform_rows, 10);
    let n = m.rows();
    let level = m.a.level(1);
    let levels = vec![
        Level::Dense { size: n },
        Level::Compressed {
            pos: level.pos().to_vec(),
            crd: level.crd().to_vec(),
        },
    ];
    let a = Tensor::<f64, Csc>::from_parts(vec![n, n], levels, m.a.values().to_vec())
        .expect("CSR arrays of a square matrix are a valid CSC");
    let mut rng = Rng(0x428A_2F98_D728_AE22);
    let x_entries: Vec<([usize; 1], f64)> = (0..n)
        .filter(|_| rng.below(10) == 0)
        .map(|j| ([j], 1.0 + j as f64 / n as f64))
        .collect();
    let x = Tensor::<f64, SparseVec>::from_entries([n], x_entries.clone())
        .expect("coordinates in range");
    println!(
        "spmspv: A {n} x {n} CSC, {} nonzeros; x {} nonzeros",
        m.nnz(),
        x.nnz()
    );
    let mut y = Tensor::<f64, Dense<1>>::zeros([n]);
    spmspv_serial(&mut y, &a, &x).expect("shapes agree");
    let want = y.values().to_vec();
    spmspv_threads(&mut y, &a, &x).expect("shapes agree");
    assert!(close(y.values(), &want), "parallel SpMSpV differs");
    let theirs: CsMatI<f64, u32, u32> = CsMatI::new_csc(
        (n, n),
        a.level(1).pos().to_vec(),
        a.level(1).crd().to_vec(),
        a.values().to_vec(),
    );
    let (xi, xv): (Vec<u32>, Vec<f64>) = x_entries.iter().map(|([j], v)| (idx(*j), *v)).unzip();
    let theirs_x = sprs::CsVecI::<f64, u32>::new(n, xi, xv);
    let product = &theirs * &theirs_x;
    let mut dense_product = vec![0.0; n];
    for (i, v) in product.iter() {
        dense_product[i] = *v;
    }
    assert!(close(&dense_product, &want), "sprs SpMSpV differs");
    let mut group = c.benchmark_group("spmspv");
    configure(&mut group, Throughput::Elements(x.nnz() as u64 * 10));
    group.bench_function("serial_macro", |bench| {
        bench.iter(|| spmspv_serial(black_box(&mut y), black_box(&a), black_box(&x)))
    });
    group.bench_function("threads", |bench| {
        bench.iter(|| spmspv_threads(black_box(&mut y), black_box(&a), black_box(&x)))
    });
    group.bench_function("sprs_serial", |bench| {
        bench.iter(|| black_box(&theirs * black_box(&theirs_x)))
    });
    group.finish();
}

/// `A = B * C` for a CSR `B` and a dense `C` of `DENSE_COLS` columns: the square `B` gathers rows
/// of a `C` far larger than the cache, the narrow one rows of a `C` that stays in it.
fn bench_spmm(c: &mut Criterion, b: &Matrix) {
    let (n, inner) = (b.rows(), b.a.shape()[1]);
    let cm = dense([inner, DENSE_COLS], 0xBF58_476D_1CE4_E5B9);
    println!(
        "{}; C dense {inner} x {DENSE_COLS} ({:.1} MB)",
        b.describe(),
        (inner * DENSE_COLS * 8) as f64 / 1e6
    );
    let theirs = b.to_sprs();
    // sprs multiplies into ndarray arrays; ndarray is not a dependency of ours, so both arrays
    // come from sprs's own `to_dense` and are then overwritten in place.
    let mut theirs_c = CsMatI::<f64, u32, u32>::zero((inner, DENSE_COLS)).to_dense();
    theirs_c
        .as_slice_mut()
        .expect("a fresh array is contiguous")
        .copy_from_slice(cm.values());
    let mut theirs_out = CsMatI::<f64, u32, u32>::zero((n, DENSE_COLS)).to_dense();
    let mut out = Tensor::<f64, Dense<2>>::zeros([n, DENSE_COLS]);
    spmm_serial(&mut out, &b.a, &cm).expect("shapes agree");
    let want = out.values().to_vec();
    for (name, kernel) in SPMM {
        out.values_mut().fill(f64::NAN);
        kernel(&mut out, &b.a, &cm).expect("shapes agree");
        assert!(close(out.values(), &want), "{name} differs");
    }
    sprs::prod::csr_mulacc_dense_rowmaj(theirs.view(), theirs_c.view(), theirs_out.view_mut());
    let sprs_out = theirs_out.as_slice().expect("a fresh array is contiguous");
    assert!(close(sprs_out, &want), "sprs differs");

    let mut group = c.benchmark_group(&b.label);
    configure(
        &mut group,
        Throughput::Elements((b.nnz() * DENSE_COLS) as u64),
    );
    for (name, kernel) in SPMM {
        group.bench_function(name, |bench| {
            bench.iter(|| kernel(black_box(&mut out), black_box(&b.a), black_box(&cm)))
        });
    }
    group.bench_function("sprs_serial", |bench| {
        bench.iter(|| {
            theirs_out.fill(0.0);
            sprs::prod::csr_mulacc_dense_rowmaj(
                theirs.view(),
                theirs_c.view(),
                black_box(theirs_out.view_mut()),
            );
        })
    });
    group.finish();
}

fn close(got: &[f64], want: &[f64]) -> bool {
    got.len() == want.len()
        && (got.iter().zip(want)).all(|(g, w)| (g - w).abs() <= 1e-12 * w.abs().max(1.0))
}

/// An order-3 CSF tensor of shape `slices x slices x depth`: every `(i, j)` fiber holds 0 to 8
/// uniformly random coordinates of the last mode (empty fibers are not stored).
fn csf_tensor(slices: usize, depth: usize) -> Tensor<f64, Csf<3>> {
    let mut rng = Rng(0x6A09_E667_F3BC_C908);
    let (mut pos1, mut crd1) = (vec![0], Vec::new());
    let (mut pos2, mut crd2) = (vec![0], Vec::new());
    for _ in 0..slices {
        for j in 0..slices {
            let len = rng.below(9);
            if len > 0 {
                push_sorted_segment(&mut crd2, &mut rng, len, depth);
                pos2.push(idx(crd2.len()));
                crd1.push(idx(j));
            }
        }
        pos1.push(idx(crd1.len()));
    }
    let vals = (0..crd2.len()).map(|_| rng.value()).collect();
    let levels = vec![
        Level::Compressed {
            pos: vec![0, idx(slices)],
            crd: (0..slices).map(idx).collect(),
        },
        Level::Compressed {
            pos: pos1,
            crd: crd1,
        },
        Level::Compressed {
            pos: pos2,
            crd: crd2,
        },
    ];
    Tensor::from_parts(vec![slices, slices, depth], levels, vals)
        .expect("generated CSF arrays are valid")
}

/// The order-3 tensor format of the seed's TTV: dense slices, then compressed levels.
type DenseSlices3 = sparse::Custom<
    {
        sparse::encode_levels(&[
            sparse::LevelSpec::dense(0),
            sparse::LevelSpec::compressed(1),
            sparse::LevelSpec::compressed(2),
        ])
    },
>;

/// The order-4 tensor format of the seed's MTTKRP: dense slices, then compressed levels.
type Dccc = sparse::Custom<
    {
        sparse::encode_levels(&[
            sparse::LevelSpec::dense(0),
            sparse::LevelSpec::compressed(1),
            sparse::LevelSpec::compressed(2),
            sparse::LevelSpec::compressed(3),
        ])
    },
>;

/// The order-5 tensor format of the seed's MTTKRP.
type Dcccc = sparse::Custom<
    {
        sparse::encode_levels(&[
            sparse::LevelSpec::dense(0),
            sparse::LevelSpec::compressed(1),
            sparse::LevelSpec::compressed(2),
            sparse::LevelSpec::compressed(3),
            sparse::LevelSpec::compressed(4),
        ])
    },
>;

/// A tensor of shape `slices x slices x dims...` with dense slices and compressed levels below:
/// every `(i, j)` holds 0 to 4 random coordinates of the third mode (`j` is stored only when it
/// holds any), each of those 1 to 3 of every further middle mode and 1 to 8 of the last.
fn dense_slices_tensor<F: Format>(slices: usize, dims: &[usize]) -> Tensor<f64, F> {
    let mut rng = Rng(0xBB67_AE85_84CA_A73B);
    let mut levels: Vec<(Vec<Idx>, Vec<Idx>)> = vec![(vec![0], Vec::new()); dims.len() + 1];
    for _ in 0..slices {
        for j in 0..slices {
            let len = rng.below(5);
            if len > 0 {
                levels[0].1.push(idx(j));
                push_subtree(&mut rng, len, dims, &mut levels[1..]);
            }
        }
        let stored = levels[0].1.len();
        levels[0].0.push(idx(stored));
    }
    let nnz = levels.last().map_or(0, |(_, crd)| crd.len());
    let vals = (0..nnz).map(|_| rng.value()).collect();
    let mut stored = vec![Level::Dense { size: slices }];
    stored.extend(
        levels
            .into_iter()
            .map(|(pos, crd)| Level::Compressed { pos, crd }),
    );
    let mut shape = vec![slices, slices];
    shape.extend_from_slice(dims);
    Tensor::from_parts(shape, stored, vals).expect("generated CSF arrays are valid")
}

/// Appends a segment of `len` random coordinates below `dims[0]` to `levels[0]`, then a segment
/// below each of them in the levels under it.
fn push_subtree(rng: &mut Rng, len: usize, dims: &[usize], levels: &mut [(Vec<Idx>, Vec<Idx>)]) {
    let (Some((&dim, below)), Some((level, rest))) = (dims.split_first(), levels.split_first_mut())
    else {
        return;
    };
    let start = level.1.len();
    push_sorted_segment(&mut level.1, rng, len, dim);
    level.0.push(idx(level.1.len()));
    if below.is_empty() {
        return;
    }
    for _ in start..level.1.len() {
        let len = if below.len() == 1 {
            1 + rng.below(8)
        } else {
            1 + rng.below(3)
        };
        push_subtree(rng, len, below, rest);
    }
}

/// Order-4 MTTKRP, rank `RANK`: the unscheduled kernel, the seed's schedule, slices across threads
/// in the default order, and the workspace over `m` with lanes.
fn bench_mttkrp4(c: &mut Criterion, slices: usize, depth: usize) {
    let b: Tensor<f64, Dccc> = dense_slices_tensor(slices, &[64, depth]);
    let nnz = b.level(3).crd().len();
    let shape = b.shape().to_vec();
    println!("csf4: {slices} x {slices} x 64 x {depth}, {nnz} nonzeros");
    let cm = dense([shape[1], RANK], 0x3C6E_F372_FE94_F82B);
    let dm = dense([shape[2], RANK], 0xA54F_F53A_5F1D_36F1);
    let em = dense([shape[3], RANK], 0x9B05_688C_2B3E_6C1F);
    let mut out = Tensor::<f64, Dense<2>>::zeros([shape[0], RANK]);
    mttkrp4_serial(&mut out, &b, &cm, &dm, &em).expect("shapes agree");
    let want = out.values().to_vec();
    mttkrp4_seed(&mut out, &b, &cm, &dm, &em).expect("shapes agree");
    assert!(close(out.values(), &want), "seed MTTKRP-4 differs");
    mttkrp4_threads(&mut out, &b, &cm, &dm, &em).expect("shapes agree");
    assert!(close(out.values(), &want), "parallel MTTKRP-4 differs");
    mttkrp4_workspace_lanes(&mut out, &b, &em, &cm, &dm).expect("shapes agree");
    assert!(close(out.values(), &want), "workspace MTTKRP-4 differs");
    let mut group = c.benchmark_group("mttkrp4");
    configure(&mut group, Throughput::Elements((nnz * RANK) as u64));
    group.bench_function("serial_macro", |bench| {
        bench.iter(|| mttkrp4_serial(black_box(&mut out), black_box(&b), &cm, &dm, &em))
    });
    group.bench_function("seed_schedule", |bench| {
        bench.iter(|| mttkrp4_seed(black_box(&mut out), black_box(&b), &cm, &dm, &em))
    });
    group.bench_function("threads", |bench| {
        bench.iter(|| mttkrp4_threads(black_box(&mut out), black_box(&b), &cm, &dm, &em))
    });
    group.bench_function("workspace_lanes_threads", |bench| {
        bench.iter(|| mttkrp4_workspace_lanes(black_box(&mut out), black_box(&b), &em, &cm, &dm))
    });
    group.finish();
}

/// Order-5 MTTKRP, rank `RANK`, with the same four schedules as order 4.
fn bench_mttkrp5(c: &mut Criterion, slices: usize, depth: usize) {
    let b: Tensor<f64, Dcccc> = dense_slices_tensor(slices, &[32, 32, depth]);
    let nnz = b.level(4).crd().len();
    let shape = b.shape().to_vec();
    println!("csf5: {slices} x {slices} x 32 x 32 x {depth}, {nnz} nonzeros");
    let cm = dense([shape[1], RANK], 0x3C6E_F372_FE94_F82B);
    let dm = dense([shape[2], RANK], 0xA54F_F53A_5F1D_36F1);
    let em = dense([shape[3], RANK], 0x9B05_688C_2B3E_6C1F);
    let fm = dense([shape[4], RANK], 0x1F83_D9AB_FB41_BD6B);
    let mut out = Tensor::<f64, Dense<2>>::zeros([shape[0], RANK]);
    mttkrp5_serial(&mut out, &b, &cm, &dm, &em, &fm).expect("shapes agree");
    let want = out.values().to_vec();
    mttkrp5_seed(&mut out, &b, &cm, &dm, &em, &fm).expect("shapes agree");
    assert!(close(out.values(), &want), "seed MTTKRP-5 differs");
    mttkrp5_threads(&mut out, &b, &cm, &dm, &em, &fm).expect("shapes agree");
    assert!(close(out.values(), &want), "parallel MTTKRP-5 differs");
    mttkrp5_workspace_lanes(&mut out, &b, &fm, &cm, &dm, &em).expect("shapes agree");
    assert!(close(out.values(), &want), "workspace MTTKRP-5 differs");
    let mut group = c.benchmark_group("mttkrp5");
    configure(&mut group, Throughput::Elements((nnz * RANK) as u64));
    group.bench_function("serial_macro", |bench| {
        bench.iter(|| mttkrp5_serial(black_box(&mut out), black_box(&b), &cm, &dm, &em, &fm))
    });
    group.bench_function("seed_schedule", |bench| {
        bench.iter(|| mttkrp5_seed(black_box(&mut out), black_box(&b), &cm, &dm, &em, &fm))
    });
    group.bench_function("threads", |bench| {
        bench.iter(|| mttkrp5_threads(black_box(&mut out), black_box(&b), &cm, &dm, &em, &fm))
    });
    group.bench_function("workspace_lanes_threads", |bench| {
        bench.iter(|| {
            mttkrp5_workspace_lanes(black_box(&mut out), black_box(&b), &fm, &cm, &dm, &em)
        })
    });
    group.finish();
}

fn tensor_kernels(c: &mut Criterion) {
    let sizes = Sizes::from_args();
    let (s, d) = (sizes.tensor_slices, sizes.tensor_depth);
    let b = csf_tensor(s, d);
    let nnz = b.level(2).crd().len();
    println!(
        "csf: {s} x {s} x {d}, {nnz} nonzeros in {} fibers ({:.0} MB)",
        b.level(1).crd().len(),
        (nnz * 12 + b.level(1).crd().len() * 8) as f64 / 1e6
    );
    bench_ttv(c, &b, nnz);
    bench_mttkrp(c, &b, nnz);
    bench_mttkrp4(c, s / 2, d / 16);
    bench_mttkrp5(c, s / 4, d / 16);
}

fn bench_ttv(c: &mut Criterion, b: &Tensor<f64, Csf<3>>, nnz: usize) {
    let shape = b.shape();
    let v = dense([shape[2]], 0x3C6E_F372_FE94_F82B);
    let mut out = Tensor::<f64, Dense<2>>::zeros([shape[0], shape[1]]);
    ttv_serial(&mut out, b, &v).expect("shapes agree");
    let want = out.values().to_vec();
    out.values_mut().fill(f64::NAN);
    ttv_threads(&mut out, b, &v).expect("shapes agree");
    assert_eq!(out.values(), &want[..], "parallel TTV differs");
    // The seed's schedule needs dense slices: the same arrays, with the first level (every slice
    // present) stored densely.
    let dense_slices = Tensor::<f64, DenseSlices3>::from_parts(
        shape.to_vec(),
        vec![
            Level::Dense { size: shape[0] },
            Level::Compressed {
                pos: b.level(1).pos().to_vec(),
                crd: b.level(1).crd().to_vec(),
            },
            Level::Compressed {
                pos: b.level(2).pos().to_vec(),
                crd: b.level(2).crd().to_vec(),
            },
        ],
        b.values().to_vec(),
    )
    .expect("a CSF tensor with every slice present has dense slices");
    let mut sparse_out = Tensor::<f64, Csr>::zeros([shape[0], shape[1]]);
    ttv_seed(&mut sparse_out, &dense_slices, &v).expect("shapes agree");
    assert!(close(&sparse_out.to_dense(), &want), "seed TTV differs");
    let mut group = c.benchmark_group("ttv");
    configure(&mut group, Throughput::Elements(nnz as u64));
    group.bench_function("serial_macro", |bench| {
        bench.iter(|| ttv_serial(black_box(&mut out), black_box(b), black_box(&v)))
    });
    group.bench_function("threads", |bench| {
        bench.iter(|| ttv_threads(black_box(&mut out), black_box(b), black_box(&v)))
    });
    group.bench_function("seed_schedule_sparse_out", |bench| {
        bench.iter(|| ttv_seed(black_box(&mut sparse_out), black_box(&dense_slices), &v))
    });
    group.finish();
}

fn bench_mttkrp(c: &mut Criterion, b: &Tensor<f64, Csf<3>>, nnz: usize) {
    let shape = b.shape();
    let cm = dense([shape[1], RANK], 0xA54F_F53A_5F1D_36F1);
    let dm = dense([shape[2], RANK], 0x510E_527F_ADE6_82D1);
    let mut out = Tensor::<f64, Dense<2>>::zeros([shape[0], RANK]);
    mttkrp_serial(&mut out, b, &cm, &dm).expect("shapes agree");
    let want = out.values().to_vec();
    out.values_mut().fill(f64::NAN);
    mttkrp_threads(&mut out, b, &cm, &dm).expect("shapes agree");
    assert_eq!(out.values(), &want[..], "parallel MTTKRP differs");
    let reordered: [(&str, fn(&mut _, &_, &_, &_) -> _); 3] = [
        ("ordered_threads", mttkrp_ordered),
        ("workspace_threads", mttkrp_workspace),
        ("workspace_lanes_threads", mttkrp_workspace_lanes),
    ];
    for (name, kernel) in reordered {
        out.values_mut().fill(f64::NAN);
        kernel(&mut out, b, &dm, &cm).expect("shapes agree");
        for (g, w) in out.values().iter().zip(&want) {
            // Another loop order sums in another order.
            assert!((g - w).abs() <= 1e-12 * w.abs().max(1.0), "{name} differs");
        }
    }
    let mut group = c.benchmark_group("mttkrp");
    configure(&mut group, Throughput::Elements((nnz * RANK) as u64));
    group.bench_function("serial_macro", |bench| {
        bench.iter(|| mttkrp_serial(black_box(&mut out), black_box(b), &cm, &dm))
    });
    group.bench_function("threads", |bench| {
        bench.iter(|| mttkrp_threads(black_box(&mut out), black_box(b), &cm, &dm))
    });
    for (name, kernel) in reordered {
        group.bench_function(name, |bench| {
            bench.iter(|| kernel(black_box(&mut out), black_box(b), &dm, &cm))
        });
    }
    group.finish();
}

criterion_group! {
    name = schedules;
    config = Criterion::default().sample_size(10);
    targets = stream_triad, spmv, spmv_in_cache, spmv_stencil_interleaved, spmm, spmspv, tensor_kernels
}
criterion_main!(schedules);
