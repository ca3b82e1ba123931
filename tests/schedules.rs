//! Scheduled kernels (Senanayake et al. 2020): each agrees with the unscheduled kernel and the
//! dense reference, on inputs with empty rows at the start, the end and in runs, one huge row, and
//! sizes no split factor divides.
mod common;

use common::*;
use sparse::prelude::*;

tensor_kernel! { fn spmv; y(i) = A(i,j) * x(j); formats<A: csr>; }
tensor_kernel! {
    fn spmv_rows;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<split(i, i0, i1, Down, 4).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn spmv_rows_up;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<split(i, i0, i1, Up, 3).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn spmv_positions;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 16).parallelize(p0, CpuThread, Atomics)>;
}
tensor_kernel! {
    fn spmv_positions_serial;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 5)>;
}
tensor_kernel! {
    fn spmv_positions_up;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Up, 3).parallelize(p0, CpuThread, Atomics)>;
}
tensor_kernel! {
    fn spmv_positions_whole;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A)>;
}
tensor_kernel! {
    /// Tiles of 10 positions in groups of 4 (neither divides the other): the walk continues
    /// across the groups of a tile.
    fn spmv_positions_groups;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 10).split(p1, p2, p3, Down, 4)
        .parallelize(p0, CpuThread, Atomics)>;
}
tensor_kernel! {
    fn spmv_positions_groups_up;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Up, 3).split(p1, p2, p3, Down, 2)>;
}
tensor_kernel! {
    fn spmv_positions_accumulate;
    y(i) += A(i,j) * x(j);
    formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 4).parallelize(p0, CpuThread, Atomics)>;
}
tensor_kernel! {
    /// `+=` through a precomputed row of products.
    fn spmv_precompute_accumulate;
    y(i) += A(i,j) * x(j);
    formats<A: csr>;
    schedule<pos(j, jpos, A(i,j)).precompute(A(i,j) * x(j), jpos, jw, products)>;
}
tensor_kernel! {
    fn spmv_row_positions;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<pos(j, jp, A).split(jp, j0, j1, Down, 3).unroll(j1, 3)>;
}
tensor_kernel! {
    /// Each row's nonzeros in `wide` lanes: values loaded, `x` gathered at the column indices,
    /// one partial sum per lane.
    fn spmv_lanes;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<pos(j, jpos, A(i,j)).parallelize(jpos, CpuVector, ParallelReduction)>;
}
tensor_kernel! {
    fn spmv_lanes_rows;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<split(i, i0, i1, Down, 4).pos(j, jpos, A(i,j))
        .parallelize(jpos, CpuVector, ParallelReduction).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! { fn spmm; A(i,j) = B(i,k) * C(k,j); formats<B: csr>; }
tensor_kernel! {
    fn spmm_vector;
    A(i,j) = B(i,k) * C(k,j);
    formats<B: csr>;
    schedule<reorder(k, j).parallelize(j, CpuVector, NoRaces).parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn spmm_lanes;
    A(i,j) = B(i,k) * C(k,j);
    formats<B: csr>;
    schedule<reorder(k, j).parallelize(j, CpuVector, NoRaces)>;
}
tensor_kernel! {
    fn mttkrp_parallel;
    A(i,j) = B(i,k,l) * C(k,j) * D(l,j);
    formats<B: csf>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn ttv_parallel;
    A(i,j) = B(i,j,k) * c(k);
    formats<B: csf>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! { fn spmv_auto; y(i) = A(i,j) * x(j); formats<A: csr>; schedule<auto>; }
tensor_kernel! {
    /// SpMM with index names that are the emitter's own locals without their `__` (the lane
    /// loop's count `n`, rows `row_0`, bounds `lo`/`hi`): the names the kernel gets must not be
    /// captured by them.
    fn spmm_hygiene;
    A(row_0,n) = B(row_0,lo) * C(lo,n);
    formats<B: csr>;
    schedule<reorder(lo, n).parallelize(n, CpuVector, NoRaces).parallelize(row_0, CpuThread, NoRaces)>;
}

/// Matrices with empty rows at the start, the end and in runs, and one huge row.
fn matrices(m: usize, n: usize) -> Vec<Vec<([usize; 2], f64)>> {
    let mut out = cases([m, n], (m * 7 + n) as u64);
    if m >= 6 {
        let mut rng = Rng::new(99);
        let mut e = Vec::new();
        for j in 0..n {
            e.push(([m / 2, j], rng.value()));
        }
        for i in [m / 2 + 2, m / 2 + 3] {
            e.push(([i, rng.below(n)], rng.value()));
        }
        out.push(e);
    }
    out
}

type Spmv = fn(
    &mut Tensor<f64, Dense<1>>,
    &Tensor<f64, Csr>,
    &Tensor<f64, Dense<1>>,
) -> Result<(), KernelError>;

fn check_spmv(kernel: Spmv, tolerance: f64) {
    for (m, n) in [(0, 0), (1, 1), (7, 5), (13, 17), (31, 3)] {
        for entries in matrices(m, n) {
            let a = tensor::<Csr, 2>([m, n], &entries);
            let xs: Vec<f64> = (0..n).map(|j| 1.0 + j as f64 / 8.0).collect();
            let x = Tensor::from_dense([n], &xs).unwrap();
            let mut plain = garbage([m]);
            spmv(&mut plain, &a, &x).unwrap();
            let mut y = garbage([m]);
            kernel(&mut y, &a, &x).unwrap();
            let d = dense([m, n], &entries);
            let want: Vec<f64> = (0..m)
                .map(|i| (0..n).map(|j| d[i * n + j] * xs[j]).sum())
                .collect();
            assert_close(plain.values(), &want);
            for (g, w) in y.values().iter().zip(&want) {
                assert!(
                    (g - w).abs() <= tolerance * w.abs().max(1.0),
                    "got {g}, want {w}"
                );
            }
        }
    }
}

tensor_kernel! {
    /// Tiles of 3 positions, themselves in groups of 2: one row walk crosses the tiles of a
    /// group (it once stepped past a row the next tile still had to finish).
    fn spmv_position_tiles_grouped;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 3).split(p0, g0, g1, Down, 2)
        .parallelize(g0, CpuThread, Atomics)>;
}
tensor_kernel! {
    /// A bound on the tiles' loop: the walk starts at the tile's first position (it once
    /// started every tile at position 0).
    fn spmv_position_tiles_bounded;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 3).bound(p0, b, 0, MinExact)>;
}

#[test]
fn spmv_position_tiles_split_or_bounded() {
    check_spmv(spmv_position_tiles_grouped, 1e-12);
    check_spmv(spmv_position_tiles_bounded, 1e-12);
}

#[test]
fn spmv_row_split_in_parallel() {
    check_spmv(spmv_rows, 1e-12);
    check_spmv(spmv_rows_up, 1e-12);
}

#[test]
fn spmv_position_split_with_atomics() {
    // Atomic adds reorder the sum of a row: allow rounding.
    check_spmv(spmv_positions, 1e-10);
    check_spmv(spmv_positions_serial, 1e-12);
    check_spmv(spmv_positions_up, 1e-10);
    check_spmv(spmv_positions_whole, 1e-12);
    check_spmv(spmv_positions_groups, 1e-10);
    check_spmv(spmv_positions_groups_up, 1e-12);
}

#[test]
fn spmv_position_split_adds_into_the_output() {
    // Rows a tile holds whole are stored, not added, when the output starts at zero; with `+=` it
    // does not, so every row must be added to what `y` held.
    for (m, n) in [(0, 0), (1, 1), (7, 5), (13, 17), (31, 3)] {
        for entries in matrices(m, n) {
            let a = tensor::<Csr, 2>([m, n], &entries);
            let xs: Vec<f64> = (0..n).map(|j| 1.0 + j as f64 / 8.0).collect();
            let x = Tensor::from_dense([n], &xs).unwrap();
            let start: Vec<f64> = (0..m).map(|i| 0.5 + i as f64).collect();
            let d = dense([m, n], &entries);
            let want: Vec<f64> = (0..m)
                .map(|i| start[i] + (0..n).map(|j| d[i * n + j] * xs[j]).sum::<f64>())
                .collect();
            for kernel in [spmv_positions_accumulate, spmv_precompute_accumulate] {
                let mut y = Tensor::from_dense([m], &start).unwrap();
                kernel(&mut y, &a, &x).unwrap();
                for (g, w) in y.values().iter().zip(&want) {
                    assert!(
                        (g - w).abs() <= 1e-10 * w.abs().max(1.0),
                        "got {g}, want {w}"
                    );
                }
            }
        }
    }
}

#[test]
fn spmv_rows_in_lanes() {
    // Lanes sum a row in another order: allow rounding.
    check_spmv(spmv_lanes, 1e-12);
    check_spmv(spmv_lanes_rows, 1e-12);
}

#[test]
fn spmv_split_positions_of_a_row_unrolled() {
    check_spmv(spmv_row_positions, 1e-12);
}

#[test]
fn spmv_auto_schedule() {
    check_spmv(spmv_auto, 1e-12);
}

#[test]
fn spmm_vectorized() {
    for (m, k, n) in [(0, 0, 0), (1, 1, 1), (5, 4, 11), (9, 6, 16)] {
        let c = Tensor::from_dense(
            [k, n],
            &(0..k * n).map(|v| (v % 7) as f64 - 3.0).collect::<Vec<_>>(),
        )
        .unwrap();
        for b in cases([m, k], 5) {
            let bt = tensor::<Csr, 2>([m, k], &b);
            let mut plain = garbage([m, n]);
            spmm(&mut plain, &bt, &c).unwrap();
            let mut a = garbage([m, n]);
            spmm_vector(&mut a, &bt, &c).unwrap();
            assert_close(a.values(), plain.values());
            let mut a = garbage([m, n]);
            spmm_lanes(&mut a, &bt, &c).unwrap();
            assert_close(a.values(), plain.values());
            let mut a = garbage([m, n]);
            spmm_hygiene(&mut a, &bt, &c).unwrap();
            assert_close(a.values(), plain.values());
            let db = dense([m, k], &b);
            let dc = c.to_dense();
            let want: Vec<f64> = (0..m * n)
                .map(|ij| {
                    (0..k)
                        .map(|l| db[ij / n * k + l] * dc[l * n + ij % n])
                        .sum()
                })
                .collect();
            assert_close(plain.values(), &want);
        }
    }
}

#[test]
fn parallel_tensor_kernels() {
    let (m, p, q, r) = (6, 4, 5, 3);
    let c = Tensor::from_dense(
        [p, r],
        &(0..p * r).map(|v| v as f64 / 4.0).collect::<Vec<_>>(),
    )
    .unwrap();
    let d = Tensor::from_dense(
        [q, r],
        &(0..q * r).map(|v| 1.0 - v as f64 / 8.0).collect::<Vec<_>>(),
    )
    .unwrap();
    for b in cases([m, p, q], 3) {
        let bt = tensor::<Csf<3>, 3>([m, p, q], &b);
        let mut a = garbage([m, r]);
        mttkrp_parallel(&mut a, &bt, &c, &d).unwrap();
        let (db, dc, dd) = (dense([m, p, q], &b), c.to_dense(), d.to_dense());
        let mut want = vec![0.0; m * r];
        for i in 0..m {
            for j in 0..r {
                for k in 0..p {
                    for l in 0..q {
                        want[i * r + j] += db[(i * p + k) * q + l] * dc[k * r + j] * dd[l * r + j];
                    }
                }
            }
        }
        assert_close(a.values(), &want);
        let v =
            Tensor::from_dense([q], &(0..q).map(|v| v as f64 - 2.0).collect::<Vec<_>>()).unwrap();
        let mut t = garbage([m, p]);
        ttv_parallel(&mut t, &bt, &v).unwrap();
        let want: Vec<f64> = (0..m * p)
            .map(|ij| (0..q).map(|l| db[ij * q + l] * (l as f64 - 2.0)).sum())
            .collect();
        assert_close(t.values(), &want);
    }
}

tensor_kernel! {
    /// The seed's position split with a precomputed tile, on an order-3 input: the producer
    /// iterates `B`'s third level below the tile's positions (an internal error once).
    fn ttv_position_tiles_precomputed;
    A(i,j) = B(i,j,k) * c(k);
    formats<A: csr, B: (dense, compressed, compressed)>;
    schedule<collapse(i, j, f).pos(f, p, B).split(p, p0, p1, Down, 3)
        .precompute(B(i,j,k) * c(k), p1, pw, W).parallelize(p0, CpuThread, NoRaces)>;
}

#[test]
fn ttv_with_precomputed_position_tiles() {
    for shape in [[0, 0, 0], [1, 1, 1], [5, 4, 6]] {
        let c = Tensor::from_dense(
            [shape[2]],
            &(0..shape[2]).map(|v| v as f64 - 1.5).collect::<Vec<_>>(),
        )
        .unwrap();
        for b in cases(shape, 37) {
            let bt = tensor::<
                sparse::Custom<
                    {
                        sparse::encode_levels(&[
                            sparse::LevelSpec::dense(0),
                            sparse::LevelSpec::compressed(1),
                            sparse::LevelSpec::compressed(2),
                        ])
                    },
                >,
                3,
            >(shape, &b);
            let db = dense(shape, &b);
            let want: Vec<f64> = (0..shape[0] * shape[1])
                .map(|ij| {
                    (0..shape[2])
                        .map(|l| db[ij * shape[2] + l] * (l as f64 - 1.5))
                        .sum()
                })
                .collect();
            let mut a = tensor::<Csr, 2>([shape[0], shape[1]], &[]);
            ttv_position_tiles_precomputed(&mut a, &bt, &c).unwrap();
            assert_close(&a.to_dense(), &want);
        }
    }
}

tensor_kernel! { fn dot; s = b(i) * c(i); }
tensor_kernel! { fn dot_lanes; s = b(i) * c(i); schedule<parallelize(i, CpuVector, ParallelReduction)>; }
tensor_kernel! { fn dot_threads; s = b(i) * c(i); schedule<parallelize(i, CpuThread, Temporary)>; }
tensor_kernel! {
    fn spmv_columns_temporary;
    y(i) = A(i,j) * x(j);
    formats<A: csc>;
    schedule<parallelize(j, CpuThread, Temporary)>;
}

#[test]
fn reductions_over_lanes_and_threads() {
    for n in [0, 1, 3, 8, 37] {
        let bs: Vec<f64> = (0..n).map(|i| (i % 5) as f64 - 1.5).collect();
        let cs: Vec<f64> = (0..n).map(|i| 0.25 * i as f64).collect();
        let (b, c) = (
            Tensor::from_dense([n], &bs).unwrap(),
            Tensor::from_dense([n], &cs).unwrap(),
        );
        let want: f64 = bs.iter().zip(&cs).map(|(x, y)| x * y).sum();
        for kernel in [dot, dot_lanes, dot_threads] {
            let mut s = garbage([]);
            kernel(&mut s, &b, &c).unwrap();
            assert_close(s.values(), &[want]);
        }
    }
}

#[test]
fn spmv_parallel_over_columns_with_temporaries() {
    for (m, n) in [(0, 0), (1, 1), (9, 14), (20, 3)] {
        for entries in matrices(m, n) {
            let a = tensor::<Csc, 2>([m, n], &entries);
            let xs: Vec<f64> = (0..n).map(|j| 1.0 + j as f64 / 8.0).collect();
            let x = Tensor::from_dense([n], &xs).unwrap();
            let mut y = garbage([m]);
            spmv_columns_temporary(&mut y, &a, &x).unwrap();
            let d = dense([m, n], &entries);
            let want: Vec<f64> = (0..m)
                .map(|i| (0..n).map(|j| d[i * n + j] * xs[j]).sum())
                .collect();
            for (g, w) in y.values().iter().zip(&want) {
                assert!(
                    (g - w).abs() <= 1e-10 * w.abs().max(1.0),
                    "got {g}, want {w}"
                );
            }
        }
    }
}

tensor_kernel! { fn sddmm; A(i,j) = B(i,j) * C(i,k) * D(k,j); formats<A: csr, B: csr>; }
tensor_kernel! {
    fn sddmm_parallel;
    A(i,j) = B(i,j) * C(i,k) * D(k,j);
    formats<A: csr, B: csr>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn ttv_sparse_parallel;
    A(i,j) = B(i,j,k) * c(k);
    formats<A: dcsr, B: csf>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}

tensor_kernel! {
    /// Rows assembled in parallel by a loop over the rows B stores (CSF's compressed first level),
    /// which skips the empty ones.
    fn ttv_csr_rows;
    A(i,j) = B(i,j,k) * c(k);
    formats<A: csr, B: csf, c: sparse>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn ttv_csr_rows_atomics;
    A(i,j) = B(i,j,k) * c(k);
    formats<A: csr, B: csf, c: sparse>;
    schedule<parallelize(i, CpuThread, Atomics)>;
}

type SparseTtv = fn(
    &mut Tensor<f64, Csr>,
    &Tensor<f64, Csf<3>>,
    &Tensor<f64, SparseVec>,
) -> Result<(), KernelError>;

#[test]
fn rows_assembled_in_parallel_from_stored_rows_only() {
    for shape in [[0, 0, 0], [1, 1, 1], [6, 4, 5]] {
        let c_entries: Vec<([usize; 1], f64)> = match shape[2] {
            0 => Vec::new(),
            p => vec![([0], 2.0), ([p - 1], -1.5)],
        };
        let c = tensor::<SparseVec, 1>([shape[2]], &c_entries);
        let dc = c.to_dense();
        for b in cases(shape, 29) {
            let bt = tensor::<Csf<3>, 3>(shape, &b);
            let db = dense(shape, &b);
            let want: Vec<f64> = (0..shape[0] * shape[1])
                .map(|ij| (0..shape[2]).map(|l| db[ij * shape[2] + l] * dc[l]).sum())
                .collect();
            let kernels: [SparseTtv; 2] = [ttv_csr_rows, ttv_csr_rows_atomics];
            for kernel in kernels {
                let mut a = tensor::<Csr, 2>([shape[0], shape[1]], &[]);
                kernel(&mut a, &bt, &c).unwrap();
                assert_close(&a.to_dense(), &want);
            }
        }
    }
}

tensor_kernel! { fn csr_from_dense; A(i,j) = B(i,j); formats<A: csr>; }
tensor_kernel! {
    fn csr_from_dense_split_j;
    A(i,j) = B(i,j);
    formats<A: csr>;
    schedule<split(j, j0, j1, Down, 3)>;
}
tensor_kernel! {
    fn dcsr_split_rows;
    A(i,j) = B(i,j) * C(i,j);
    formats<A: dcsr, B: csr>;
    schedule<split(i, i0, i1, Up, 2)>;
}
tensor_kernel! {
    fn coo_collapsed;
    A(i,j) = B(i,j);
    formats<A: coo>;
    schedule<collapse(i, j, f).split(f, f0, f1, Down, 4)>;
}
tensor_kernel! {
    fn sparse_vector_bounded;
    a(i) = -(b(i) * b(i));
    formats<a: sparse>;
    schedule<bound(i, ib, 0, MinExact)>;
}

tensor_kernel! {
    /// Positions of COO's rows visit a row once per nonzero, and its columns as often.
    fn coo_rows_into_compressed_levels;
    A(i,j,k) = B(i,j,k);
    formats<A: (dense, compressed, compressed), B: coo>;
    schedule<pos(i, ip, B)>;
}

/// Sparse outputs whose appended levels only derived loops visit (the level's variable split,
/// bounded or collapsed): each was assembled without closing its segments, and failed on every
/// call.
#[test]
fn outputs_appended_through_derived_loops() {
    for (m, n) in [(0, 0), (1, 1), (5, 7)] {
        for entries in matrices(m, n) {
            let d = dense([m, n], &entries);
            let b = Tensor::from_dense([m, n], &d).unwrap();
            let mut plain = tensor::<Csr, 2>([m, n], &[]);
            csr_from_dense(&mut plain, &b).unwrap();
            let mut split = tensor::<Csr, 2>([m, n], &[([0, 0], 1.0)][..(m * n).min(1)]);
            csr_from_dense_split_j(&mut split, &b).unwrap();
            assert_eq!(split.to_dense(), d);
            assert_eq!(split.level(1).pos(), plain.level(1).pos());
            let mut coo = tensor::<Coo<2>, 2>([m, n], &[]);
            coo_collapsed(&mut coo, &b).unwrap();
            assert_eq!(coo.to_dense(), d);
            let bt = tensor::<Csr, 2>([m, n], &entries);
            let ct = Tensor::from_dense(
                [m, n],
                &(0..m * n).map(|k| k as f64 - 3.0).collect::<Vec<_>>(),
            )
            .unwrap();
            let mut rows = tensor::<Dcsr, 2>([m, n], &[]);
            dcsr_split_rows(&mut rows, &bt, &ct).unwrap();
            let want: Vec<f64> = (0..m * n).map(|k| d[k] * (k as f64 - 3.0)).collect();
            assert_close(&rows.to_dense(), &want);
        }
    }
    for b in cases([4, 3, 5], 43) {
        let mut dcc = tensor::<
            sparse::Custom<
                {
                    sparse::encode_levels(&[
                        sparse::LevelSpec::dense(0),
                        sparse::LevelSpec::compressed(1),
                        sparse::LevelSpec::compressed(2),
                    ])
                },
            >,
            3,
        >([4, 3, 5], &[]);
        coo_rows_into_compressed_levels(&mut dcc, &tensor::<Coo<3>, 3>([4, 3, 5], &b)).unwrap();
        assert_close(&dcc.to_dense(), &dense([4, 3, 5], &b));
    }
    let b = Tensor::from_dense([4], &[1.0, 0.0, -2.0, 3.0]).unwrap();
    let mut a = tensor::<SparseVec, 1>([4], &[([1], 5.0)]);
    sparse_vector_bounded(&mut a, &b).unwrap();
    assert_eq!(a.to_dense(), vec![-1.0, -0.0, -4.0, -9.0]);
}

#[test]
fn parallel_sparse_outputs_with_an_input_pattern() {
    for (m, k, n) in [(0, 0, 0), (1, 1, 1), (7, 3, 9)] {
        let c = Tensor::from_dense(
            [m, k],
            &(0..m * k).map(|v| (v % 4) as f64 - 1.0).collect::<Vec<_>>(),
        )
        .unwrap();
        let d = Tensor::from_dense(
            [k, n],
            &(0..k * n).map(|v| (v % 3) as f64 * 0.5).collect::<Vec<_>>(),
        )
        .unwrap();
        for b in cases([m, n], 17) {
            let bt = tensor::<Csr, 2>([m, n], &b);
            let mut serial = Tensor::<f64, Csr>::zeros([m, n]);
            sddmm(&mut serial, &bt, &c, &d).unwrap();
            let mut parallel = Tensor::<f64, Csr>::zeros([m, n]);
            sddmm_parallel(&mut parallel, &bt, &c, &d).unwrap();
            let (db, dc, dd) = (dense([m, n], &b), c.to_dense(), d.to_dense());
            let want: Vec<f64> = (0..m * n)
                .map(|ij| {
                    db[ij]
                        * (0..k)
                            .map(|l| dc[ij / n * k + l] * dd[l * n + ij % n])
                            .sum::<f64>()
                })
                .collect();
            assert_close(&serial.to_dense(), &want);
            assert_close(&parallel.to_dense(), &want);
            assert_eq!(
                parallel.level(1).pos(),
                bt.level(1).pos(),
                "the output takes B's structure"
            );
        }
    }
    for shape in [[0, 0, 0], [1, 1, 1], [5, 4, 6]] {
        let v = Tensor::from_dense(
            [shape[2]],
            &(0..shape[2]).map(|x| x as f64 + 0.5).collect::<Vec<_>>(),
        )
        .unwrap();
        for b in cases(shape, 23) {
            let mut a = Tensor::<f64, Dcsr>::zeros([shape[0], shape[1]]);
            ttv_sparse_parallel(&mut a, &tensor::<Csf<3>, 3>(shape, &b), &v).unwrap();
            let db = dense(shape, &b);
            let want: Vec<f64> = (0..shape[0] * shape[1])
                .map(|ij| {
                    (0..shape[2])
                        .map(|l| db[ij * shape[2] + l] * (l as f64 + 0.5))
                        .sum()
                })
                .collect();
            assert_close(&a.to_dense(), &want);
        }
    }
}

tensor_kernel! {
    fn add_rows_parallel;
    A(i,j) = B(i,j) + C(i,j);
    formats<A: csr, B: csr, C: csr>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// Each row of an assembled output belongs to one iteration, so `Atomics` (or any race
    /// strategy the rows allow) assembles it like `NoRaces`.
    fn add_rows_parallel_atomics;
    A(i,j) = B(i,j) + C(i,j);
    formats<A: csr, B: csr, C: csr>;
    schedule<parallelize(i, CpuThread, Atomics)>;
}
tensor_kernel! {
    fn spgemm_rows_parallel;
    A(i,j) = B(i,k) * C(k,j);
    formats<A: csr, B: csr, C: csr>;
    schedule<split(i, i0, i1, Down, 3).parallelize(i0, CpuThread, NoRaces)>;
}

#[test]
fn sparse_outputs_assembled_by_rows_in_parallel() {
    for (m, k, n) in [(0, 0, 0), (1, 1, 1), (7, 5, 6), (20, 4, 9)] {
        for b in matrices(m, k) {
            let c = cases([k, n], 151).pop().unwrap_or_default();
            let (bt, ct) = (tensor::<Csr, 2>([m, k], &b), tensor::<Csr, 2>([k, n], &c));
            let mut p = Tensor::<f64, Csr>::zeros([m, n]);
            spgemm_rows_parallel(&mut p, &bt, &ct).unwrap();
            let (db, dc) = (dense([m, k], &b), dense([k, n], &c));
            let mut want = vec![0.0; m * n];
            for i in 0..m {
                for l in 0..k {
                    for j in 0..n {
                        want[i * n + j] += db[i * k + l] * dc[l * n + j];
                    }
                }
            }
            assert_close(&p.to_dense(), &want);
            let b2 = cases([m, k], 157).pop().unwrap_or_default();
            let mut s = Tensor::<f64, Csr>::zeros([m, k]);
            add_rows_parallel(&mut s, &bt, &tensor([m, k], &b2)).unwrap();
            let want: Vec<f64> = db
                .iter()
                .zip(dense([m, k], &b2))
                .map(|(x, y)| x + y)
                .collect();
            assert_close(&s.to_dense(), &want);
            let mut atomics = Tensor::<f64, Csr>::zeros([m, k]);
            add_rows_parallel_atomics(&mut atomics, &bt, &tensor([m, k], &b2)).unwrap();
            assert_eq!(
                atomics.to_dense(),
                s.to_dense(),
                "Atomics assembles as NoRaces does"
            );
            assert_eq!(
                atomics.level(1).pos(),
                s.level(1).pos(),
                "the same row pointers"
            );
        }
    }
}

#[test]
fn scheduled_kernels_run_for_every_value_type() {
    // i32 atomics (position split), i64 row chunks, f32 lanes, i64 partials: against the
    // unscheduled kernel, exactly for integers.
    let entries: Vec<([usize; 2], i32)> = (0..60)
        .map(|k| ([k % 13, (k * 7) % 11], (k % 5) as i32 - 2))
        .collect();
    let a32 = Tensor::<i32, Csr>::from_entries([13, 11], entries.iter().copied()).unwrap();
    let x32 =
        Tensor::<i32, Dense<1>>::from_dense([11], &(0..11).map(|v| v - 5).collect::<Vec<_>>())
            .unwrap();
    let (mut plain, mut y) = (
        Tensor::<i32, Dense<1>>::zeros([13]),
        Tensor::<i32, Dense<1>>::zeros([13]),
    );
    spmv(&mut plain, &a32, &x32).unwrap();
    spmv_positions(&mut y, &a32, &x32).unwrap();
    assert_eq!(y.values(), plain.values());
    let a64: Tensor<i64, Csr> =
        Tensor::from_entries([13, 11], entries.iter().map(|&(c, v)| (c, i64::from(v)))).unwrap();
    let x64 =
        Tensor::<i64, Dense<1>>::from_dense([11], &(0..11).map(|v| v - 5).collect::<Vec<_>>())
            .unwrap();
    let (mut plain, mut y) = (
        Tensor::<i64, Dense<1>>::zeros([13]),
        Tensor::<i64, Dense<1>>::zeros([13]),
    );
    spmv(&mut plain, &a64, &x64).unwrap();
    spmv_rows(&mut y, &a64, &x64).unwrap();
    assert_eq!(y.values(), plain.values());
    let b32: Tensor<f32, Csr> =
        Tensor::from_entries([13, 11], entries.iter().map(|&(c, v)| (c, v as f32))).unwrap();
    let c32 = Tensor::<f32, Dense<2>>::from_dense(
        [11, 19],
        &(0..11 * 19)
            .map(|v| (v % 9) as f32 - 4.0)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let (mut plain, mut lanes) = (
        Tensor::<f32, Dense<2>>::zeros([13, 19]),
        Tensor::<f32, Dense<2>>::zeros([13, 19]),
    );
    spmm(&mut plain, &b32, &c32).unwrap();
    spmm_vector(&mut lanes, &b32, &c32).unwrap();
    assert_eq!(lanes.values(), plain.values());
    let v = Tensor::<i64, Dense<1>>::from_dense([40], &(0..40).collect::<Vec<_>>()).unwrap();
    let (mut serial, mut threads) = (
        Tensor::<i64, Dense<0>>::zeros([]),
        Tensor::<i64, Dense<0>>::zeros([]),
    );
    dot(&mut serial, &v, &v).unwrap();
    dot_threads(&mut threads, &v, &v).unwrap();
    assert_eq!(threads.values(), serial.values());
    assert_eq!(serial.values(), &[(0..40).map(|k: i64| k * k).sum::<i64>()]);
}

tensor_kernel! {
    fn spmv_bounded;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<bound(i, ib, 8, MaxExact).unroll(ib, 4)>;
}

#[test]
fn bounds_are_checked_when_the_kernel_runs() {
    let entries: Vec<([usize; 2], f64)> =
        (0..20).map(|k| ([k % 8, k % 5], 1.0 + k as f64)).collect();
    let a = tensor::<Csr, 2>([8, 5], &entries);
    let x = Tensor::from_dense([5], &[1.0, -1.0, 2.0, 0.5, 3.0]).unwrap();
    let (mut plain, mut y) = (garbage([8]), garbage([8]));
    spmv(&mut plain, &a, &x).unwrap();
    spmv_bounded(&mut y, &a, &x).unwrap();
    assert_close(y.values(), plain.values());
    let a9 = tensor::<Csr, 2>([9, 5], &entries);
    let mut y9 = garbage([9]);
    let err = spmv_bounded(&mut y9, &a9, &x).unwrap_err();
    assert!(
        matches!(
            err,
            KernelError::BoundViolated {
                bound: 8,
                extent: 9,
                ..
            }
        ),
        "{err}"
    );
}

tensor_kernel! {
    /// Row split with the gathers from `x` prefetched 3 nonzeros ahead: past the end of `crd`
    /// near the last row.
    fn spmv_rows_gathers;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<split(i, i0, i1, Down, 4).parallelize(i0, CpuThread, NoRaces).prefetch(x, 3)>;
}
tensor_kernel! {
    fn spmv_positions_gathers;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 4)
        .parallelize(p0, CpuThread, Atomics).prefetch(x, 2)>;
}
tensor_kernel! {
    /// Lanes ignore the hint; the kernel must still vectorize and agree.
    fn spmv_lanes_gathers;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<pos(j, jpos, A(i,j)).parallelize(jpos, CpuVector, ParallelReduction).prefetch(x, 8)>;
}
tensor_kernel! {
    /// The rows of `C` gathered at `B`'s column indices: the hint asks for a row's first element.
    fn spmm_gathers;
    A(i,j) = B(i,k) * C(k,j);
    formats<B: csr>;
    schedule<prefetch(C, 2)>;
}

tensor_kernel! { fn times; A(i,j) = B(i,j) * C(i,j); formats<B: csr>; }
tensor_kernel! {
    /// `C` read at each row's gathered columns.
    fn times_gathers;
    A(i,j) = B(i,j) * C(i,j);
    formats<B: csr>;
    schedule<prefetch(C, 3)>;
}

#[test]
fn spmv_with_gathers_prefetched() {
    check_spmv(spmv_rows_gathers, 1e-12);
    check_spmv(spmv_positions_gathers, 1e-10);
    check_spmv(spmv_lanes_gathers, 1e-12);
}

#[test]
fn elementwise_with_gathers_prefetched() {
    for (m, n) in [(0, 0), (1, 1), (7, 5), (13, 17), (31, 3)] {
        let cs: Vec<f64> = (0..m * n).map(|e| 0.5 + e as f64 / 4.0).collect();
        let c = Tensor::from_dense([m, n], &cs).unwrap();
        for entries in matrices(m, n) {
            let b = tensor::<Csr, 2>([m, n], &entries);
            let mut plain = garbage([m, n]);
            times(&mut plain, &b, &c).unwrap();
            let mut hinted = garbage([m, n]);
            times_gathers(&mut hinted, &b, &c).unwrap();
            assert_eq!(hinted.values(), plain.values());
            let d = dense([m, n], &entries);
            let want: Vec<f64> = d.iter().zip(&cs).map(|(b, c)| b * c).collect();
            assert_close(plain.values(), &want);
        }
    }
}

#[test]
fn spmm_with_rows_prefetched() {
    for (m, k, n) in [(0, 0, 0), (1, 1, 1), (5, 4, 11), (9, 6, 16)] {
        let cs: Vec<f64> = (0..k * n).map(|e| 0.5 + e as f64 / 4.0).collect();
        let c = Tensor::from_dense([k, n], &cs).unwrap();
        for entries in matrices(m, k) {
            let b = tensor::<Csr, 2>([m, k], &entries);
            let mut plain = garbage([m, n]);
            spmm(&mut plain, &b, &c).unwrap();
            let mut hinted = garbage([m, n]);
            spmm_gathers(&mut hinted, &b, &c).unwrap();
            assert_eq!(hinted.values(), plain.values());
            let d = dense([m, k], &entries);
            let want: Vec<f64> = (0..m * n)
                .map(|e| (0..k).map(|q| d[e / n * k + q] * cs[q * n + e % n]).sum())
                .collect();
            assert_close(plain.values(), &want);
        }
    }
}

// Schedules that once compiled to wrong results (found by comparing random schedules against
// the unscheduled kernels).

tensor_kernel! {
    /// A split's two parts collapsed again: the fused loop counts both parts' ranges.
    fn spmv_split_collapsed;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<split(i, i0, i1, Up, 3).collapse(i0, i1, f)>;
}

#[test]
fn spmv_over_a_collapsed_split() {
    check_spmv(spmv_split_collapsed, 1e-12);
}

tensor_kernel! { fn coo_spmv; y(i) = A(i,j) * x(j); formats<A: coo>; }
tensor_kernel! {
    /// The positions of a row of COO, whose row coordinate repeats once per entry.
    fn coo_spmv_positions;
    y(i) = A(i,j) * x(j);
    formats<A: coo>;
    schedule<pos(j, p, A)>;
}
tensor_kernel! {
    fn coo_spmv_position_tiles;
    y(i) = A(i,j) * x(j);
    formats<A: coo>;
    schedule<pos(j, p, A).split(p, p0, p1, Down, 2)>;
}

#[test]
fn coo_rows_iterated_by_position() {
    for (m, n) in [(0, 0), (1, 1), (7, 5), (13, 17)] {
        for entries in matrices(m, n) {
            let a = tensor::<Coo<2>, 2>([m, n], &entries);
            let xs: Vec<f64> = (0..n).map(|j| 1.0 + j as f64 / 8.0).collect();
            let x = Tensor::from_dense([n], &xs).unwrap();
            let d = dense([m, n], &entries);
            let want: Vec<f64> = (0..m)
                .map(|i| (0..n).map(|j| d[i * n + j] * xs[j]).sum())
                .collect();
            let mut plain = garbage([m]);
            coo_spmv(&mut plain, &a, &x).unwrap();
            assert_close(plain.values(), &want);
            for kernel in [coo_spmv_positions, coo_spmv_position_tiles] {
                let mut y = garbage([m]);
                kernel(&mut y, &a, &x).unwrap();
                assert_eq!(
                    y.values(),
                    plain.values(),
                    "the same sums in the same order"
                );
            }
        }
    }
}

tensor_kernel! { fn times_sparse; A(i,j) = B(i,j) * C(i,j); formats<A: csr, B: csr, C: csr>; }
tensor_kernel! {
    /// The output takes `B`'s structure, copied after the bound is checked.
    fn times_sparse_bounded;
    A(i,j) = B(i,j) * C(i,j);
    formats<A: csr, B: csr, C: csr>;
    schedule<bound(i, ib, 64, MaxConstraint)>;
}

#[test]
fn a_bounded_kernel_copies_its_output_structure() {
    for (m, n) in [(0, 0), (1, 1), (7, 5), (31, 3)] {
        for entries in matrices(m, n) {
            let b = tensor::<Csr, 2>([m, n], &entries);
            let c = tensor::<Csr, 2>([m, n], &cases([m, n], 5).pop().unwrap_or_default());
            let (db, dc) = (dense([m, n], &entries), c.to_dense());
            let want: Vec<f64> = db.iter().zip(&dc).map(|(x, y)| x * y).collect();
            let mut plain = Tensor::<f64, Csr>::from_dense([m, n], &vec![7.5; m * n]).unwrap();
            times_sparse(&mut plain, &b, &c).unwrap();
            assert_close(&plain.to_dense(), &want);
            let mut a = Tensor::<f64, Csr>::from_dense([m, n], &vec![7.5; m * n]).unwrap();
            times_sparse_bounded(&mut a, &b, &c).unwrap();
            assert_close(&a.to_dense(), &want);
        }
    }
}
