//! The CPU schedules of the evaluation of Senanayake et al. 2020 and its small cases,
//! each against the unscheduled kernel and a dense reference.
mod common;

use common::*;
use sparse::prelude::*;

tensor_kernel! { fn spmv; y(i) = A(i,j) * x(j); formats<A: csr>; }
tensor_kernel! {
    fn spmv_fig2d;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<split(i, i0, i1, Down, 32).reorder(i0, i1, j).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn spmv_fig4b;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<fuse(i, j, f).pos(f, p, A(i,j)).split(p, p0, p1, Down, 16).parallelize(p0, CpuThread, Atomics)>;
}
tensor_kernel! {
    /// The load-balanced SpMV of Fig. 22 on CPU threads: each tile's products are precomputed
    /// into a register array by an unrolled loop, then summed into the rows (20 and 7: neither
    /// divides the other nor the sizes).
    fn spmv_precompute;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<fuse(i, j, f).pos(f, fpos, A(i,j)).split(fpos, chunk, fpos1, Down, 20)
        .split(fpos1, group, nz, Down, 7).precompute(A(i,j) * x(j), nz, nz_pre, products)
        .unroll(nz_pre, 7).parallelize(chunk, CpuThread, Atomics)>;
}
tensor_kernel! {
    /// A precomputed expression that reads the row coordinate (`d(i)`): the producer walks its
    /// own copy of the row tracker.
    fn spmv_scaled_precompute;
    y(i) = A(i,j) * x(j) * d(i);
    formats<A: csr>;
    schedule<fuse(i, j, f).pos(f, fpos, A(i,j)).split(fpos, chunk, fpos1, Down, 20)
        .split(fpos1, group, nz, Down, 7).precompute(A(i,j) * x(j) * d(i), nz, nz_pre, products)
        .unroll(nz_pre, 7).parallelize(chunk, CpuThread, Atomics)>;
}
tensor_kernel! {
    /// A precomputed innermost loop with no split: the workspace spans the row's columns.
    fn spmv_precompute_row;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<pos(j, jpos, A(i,j)).precompute(A(i,j) * x(j), jpos, jw, products)>;
}
tensor_kernel! { fn spmspv; y(i) = A(i,j) * x(j); formats<A: csc, x: sparse>; }
tensor_kernel! {
    fn spmspv_seed;
    y(i) = A(i,j) * x(j);
    formats<A: csc, x: sparse>;
    schedule<reorder(j, i).pos(j, jpos, x(j)).split(jpos, jpos0, jpos1, Down, 8).parallelize(jpos0, CpuThread, Atomics)>;
}
tensor_kernel! {
    /// The GPU SpMSpV schedule of A.11 on CPU threads, with its lower bound (the position loop
    /// over `x` starts at 0).
    fn spmspv_bounded;
    y(i) = A(i,j) * x(j);
    formats<A: csc, x: sparse>;
    schedule<reorder(j, i).pos(j, jpos, x(j)).bound(jpos, jpos_bound, 0, MinExact)
        .split(jpos_bound, block, thread, Down, 4).reorder(block, thread, i)
        .parallelize(block, CpuThread, Atomics)>;
}
tensor_kernel! {
    fn spmspv_constrained;
    y(i) = A(i,j) * x(j);
    formats<A: csc, x: sparse>;
    schedule<reorder(j, i).pos(j, jpos, x(j)).bound(jpos, jb, 0, MinConstraint)>;
}
tensor_kernel! { fn spmm; C(i,k) = A(i,j) * B(j,k); formats<A: csr>; }
tensor_kernel! {
    fn spmm_seed;
    C(i,k) = A(i,j) * B(j,k);
    formats<A: csr>;
    schedule<split(i, i0, i1, Down, 16).pos(j, jpos, A(i,j)).split(jpos, jpos0, jpos1, Down, 4)
        .reorder(i0, i1, jpos0, k, jpos1)
        .parallelize(i0, CpuThread, NoRaces).parallelize(k, CpuVector, IgnoreRaces)>;
}
tensor_kernel! {
    /// A row of products over the dense `k` loop, precomputed then added into the output row.
    fn spmm_precompute;
    C(i,k) = A(i,j) * B(j,k);
    formats<A: csr>;
    schedule<reorder(j, k).precompute(A(i,j) * B(j,k), k, kw, row).parallelize(kw, CpuVector, NoRaces)>;
}
tensor_kernel! {
    fn spmm_positions;
    C(i,k) = A(i,j) * B(j,k);
    formats<A: csr>;
    schedule<reorder(i, j, k).fuse(i, j, f).pos(f, fpos, A(i,j)).split(fpos, block, nnz, Down, 8)
        .parallelize(block, CpuThread, Atomics)>;
}
tensor_kernel! {
    /// The GPU SpMM schedule of the evaluation (NNZ_PER_WARP = 16, 512 threads per block,
    /// K = 128) on CPU threads: the outer part of the split dense loop is bounded to exactly 4.
    fn spmm_gpu_schedule_on_cpu;
    C(i,k) = A(i,j) * B(j,k);
    formats<A: csr, C: (dense, dense) order(1,0)>;
    schedule<reorder(i, j, k).fuse(i, j, f).pos(f, fpos, A(i,j))
        .split(fpos, block, fpos1, Down, 256).split(fpos1, warp, nnz, Down, 16)
        .split(k, dense_val_unbounded, thread, Down, 32)
        .reorder(block, warp, thread, dense_val_unbounded, nnz)
        .bound(dense_val_unbounded, dense_val, 4, MaxExact)
        .parallelize(block, CpuThread, Atomics)>;
}
tensor_kernel! {
    /// The same bound without parallel units, with smaller tiles (so several blocks run) and the
    /// split dense loop inside the nonzeros (SDDMM's order).
    fn spmm_gpu_schedule_sequential;
    C(i,k) = A(i,j) * B(j,k);
    formats<A: csr, C: (dense, dense) order(1,0)>;
    schedule<reorder(i, j, k).fuse(i, j, f).pos(f, fpos, A(i,j))
        .split(fpos, block, fpos1, Down, 12).split(fpos1, warp, nnz, Down, 5)
        .split(k, dense_val_unbounded, thread, Down, 32)
        .reorder(block, warp, nnz, thread, dense_val_unbounded)
        .bound(dense_val_unbounded, dense_val, 4, MaxExact)>;
}
tensor_kernel! {
    fn sddmm_seed;
    A(i,k) = B(i,k) * C(i,j) * D(j,k);
    formats<A: csr, B: csr>;
    schedule<split(i, i0, i1, Down, 8).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn ttv_seed;
    A(i,j) = B(i,j,k) * c(k);
    formats<A: csr, B: (dense, compressed, compressed)>;
    schedule<fuse(i, j, f).pos(f, fpos, B(i,j,k)).split(fpos, chunk, fpos2, Down, 32)
        .reorder(chunk, fpos2, k).parallelize(chunk, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn mttkrp3_seed;
    A(i,j) = B(i,k,l) * C(k,j) * D(l,j);
    formats<B: (dense, compressed, compressed)>;
    schedule<split(i, i1, i2, Down, 64).reorder(i1, i2, k, l, j).parallelize(i1, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// The "workspace" MTTKRP of A.11 through `precompute`: for each (i, k), the sum over l of
    /// B(i,k,l) * D(l,j) is gathered in a dense row over j, then scaled by C(k,j) into A's row.
    fn mttkrp3_workspace;
    A(i,j) = B(i,k,l) * D(l,j) * C(k,j);
    formats<B: (dense, compressed, compressed)>;
    schedule<reorder(i, k, l, j).precompute(B(i,k,l) * D(l,j), j, jw, row)
        .split(i, i1, i2, Down, 16).parallelize(i1, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// The same with both dense row loops in `wide` lanes.
    fn mttkrp3_workspace_lanes;
    A(i,j) = B(i,k,l) * D(l,j) * C(k,j);
    formats<B: (dense, compressed, compressed)>;
    schedule<reorder(i, k, l, j).precompute(B(i,k,l) * D(l,j), j, jw, row)
        .split(i, i1, i2, Down, 16).parallelize(jw, CpuVector, NoRaces)
        .parallelize(j, CpuVector, NoRaces).parallelize(i1, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn mttkrp4_seed;
    A(i,j) = B(i,k,l,m) * C(k,j) * D(l,j) * E(m,j);
    formats<B: (dense, compressed, compressed, compressed)>;
    schedule<split(i, i1, i2, Down, 64).reorder(i1, i2, k, l, m, j).parallelize(i1, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn mttkrp5_seed;
    A(i,j) = B(i,k,l,m,n) * C(k,j) * D(l,j) * E(m,j) * F(n,j);
    formats<B: (dense, compressed, compressed, compressed, compressed)>;
    schedule<split(i, i1, i2, Down, 64).reorder(i1, i2, k, l, m, n, j).parallelize(i1, CpuThread, NoRaces)>;
}
tensor_kernel! {
    /// The order-5 workspace MTTKRP: the sum over n in a row, per (i, k, l, m).
    fn mttkrp5_workspace;
    A(i,j) = B(i,k,l,m,n) * F(n,j) * C(k,j) * D(l,j) * E(m,j);
    formats<B: (dense, compressed, compressed, compressed, compressed)>;
    schedule<reorder(i, k, l, m, n, j).precompute(B(i,k,l,m,n) * F(n,j), j, jw, row)>;
}
tensor_kernel! {
    fn mttkrp5_workspace_lanes;
    A(i,j) = B(i,k,l,m,n) * F(n,j) * C(k,j) * D(l,j) * E(m,j);
    formats<B: (dense, compressed, compressed, compressed, compressed)>;
    schedule<reorder(i, k, l, m, n, j).precompute(B(i,k,l,m,n) * F(n,j), j, jw, row)
        .parallelize(jw, CpuVector, NoRaces).parallelize(j, CpuVector, NoRaces)
        .parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! { fn vmul_pos; c(i) = a(i) * b(i); formats<a: sparse>; schedule<pos(i, ipos, a(i))>; }
tensor_kernel! {
    fn vmul_pos_split;
    c(i) = a(i) * b(i);
    formats<a: sparse>;
    schedule<pos(i, ipos, a(i)).split(ipos, outer, inner, Down, 2)>;
}
tensor_kernel! {
    /// `coord`: tiles of 3 of `a`'s nonzeros, each iterating the coordinates from its first
    /// nonzero to the next tile's, across threads (the tiles' coordinates are disjoint).
    fn vadd_coord;
    c(i) = a(i) + b(i);
    formats<a: sparse>;
    schedule<pos(i, ipos, a(i)).split(ipos, tile, inner, Down, 3).coord(inner, ic)
        .parallelize(tile, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn vmul_coord;
    c(i) = a(i) * b(i);
    formats<a: sparse>;
    schedule<pos(i, ipos, a(i)).split(ipos, tile, inner, Up, 2).coord(inner, ic)>;
}
tensor_kernel! {
    /// `coord` inside a row: tiles of 2 of the row's nonzeros over the columns.
    fn spmv_coord;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<pos(j, jpos, A(i,j)).split(jpos, j0, j1, Down, 2).coord(j1, jc)>;
}
tensor_kernel! {
    fn dot_atomics;
    s = a(i) * b(i);
    schedule<split(i, i0, i1, Down, 2).parallelize(i0, CpuThread, Atomics)>;
}
tensor_kernel! {
    fn dot_temporary;
    s = a(i) * b(i);
    schedule<split(i, i0, i1, Down, 2).parallelize(i0, CpuThread, Temporary)>;
}

fn values(n: usize, seed: u64) -> (Vec<f64>, Tensor<f64, Dense<1>>) {
    let mut rng = Rng::new(seed);
    let v: Vec<f64> = (0..n).map(|_| rng.value()).collect();
    let t = Tensor::from_dense([n], &v).unwrap();
    (v, t)
}

fn dense_matrix(m: usize, n: usize, seed: u64) -> (Vec<f64>, Tensor<f64, Dense<2>>) {
    let mut rng = Rng::new(seed);
    let v: Vec<f64> = (0..m * n).map(|_| rng.value()).collect();
    let t = Tensor::from_dense([m, n], &v).unwrap();
    (v, t)
}

/// Within 1e-12 relative, or `atomic_tolerance` where atomics reorder a sum.
fn close_to(got: &[f64], want: &[f64], tolerance: f64) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= tolerance * w.abs().max(1.0),
            "got {g}, want {w}"
        );
    }
}

#[test]
fn spmv_figure_schedules() {
    for (m, n) in [(0, 0), (1, 1), (70, 33), (33, 70)] {
        for a in cases([m, n], 1) {
            let at = tensor::<Csr, 2>([m, n], &a);
            let (xs, x) = values(n, 2);
            let d = dense([m, n], &a);
            let want: Vec<f64> = (0..m)
                .map(|i| (0..n).map(|j| d[i * n + j] * xs[j]).sum())
                .collect();
            let mut plain = garbage([m]);
            spmv(&mut plain, &at, &x).unwrap();
            close_to(plain.values(), &want, 1e-12);
            let mut y = garbage([m]);
            spmv_fig2d(&mut y, &at, &x).unwrap();
            close_to(y.values(), &want, 1e-12);
            let mut y = garbage([m]);
            spmv_fig4b(&mut y, &at, &x).unwrap();
            close_to(y.values(), &want, 1e-10);
            let mut y = garbage([m]);
            spmv_precompute(&mut y, &at, &x).unwrap();
            close_to(y.values(), &want, 1e-10);
            let mut y = garbage([m]);
            spmv_precompute_row(&mut y, &at, &x).unwrap();
            close_to(y.values(), &want, 1e-12);
            let mut y = garbage([m]);
            spmv_coord(&mut y, &at, &x).unwrap();
            close_to(y.values(), &want, 1e-12);
            let (ds, dv) = values(m, 9);
            let mut y = garbage([m]);
            spmv_scaled_precompute(&mut y, &at, &x, &dv).unwrap();
            let scaled: Vec<f64> = want.iter().zip(&ds).map(|(w, d)| w * d).collect();
            close_to(y.values(), &scaled, 1e-10);
        }
    }
}

#[test]
fn spmspv_seed_schedule() {
    for (m, n) in [(0, 0), (1, 1), (23, 41)] {
        for a in cases([m, n], 3) {
            for x in cases([n], 4).into_iter().take(4) {
                let (at, xt) = (
                    tensor::<Csc, 2>([m, n], &a),
                    tensor::<SparseVec, 1>([n], &x),
                );
                let (d, dx) = (dense([m, n], &a), dense([n], &x));
                let want: Vec<f64> = (0..m)
                    .map(|i| (0..n).map(|j| d[i * n + j] * dx[j]).sum())
                    .collect();
                let mut plain = garbage([m]);
                spmspv(&mut plain, &at, &xt).unwrap();
                close_to(plain.values(), &want, 1e-12);
                let mut y = garbage([m]);
                spmspv_seed(&mut y, &at, &xt).unwrap();
                close_to(y.values(), &want, 1e-10);
                let mut y = garbage([m]);
                spmspv_bounded(&mut y, &at, &xt).unwrap();
                close_to(y.values(), &want, 1e-10);
                let mut y = garbage([m]);
                spmspv_constrained(&mut y, &at, &xt).unwrap();
                close_to(y.values(), &want, 1e-12);
            }
        }
    }
}

#[test]
fn spmm_and_sddmm_seed_schedules() {
    for (m, j, k) in [(0, 0, 0), (1, 1, 1), (37, 9, 13)] {
        let (db, b) = dense_matrix(j, k, 5);
        for a in cases([m, j], 6) {
            let at = tensor::<Csr, 2>([m, j], &a);
            let da = dense([m, j], &a);
            let want = dense_product(&da, &db, (m, j, k));
            let mut plain = garbage([m, k]);
            spmm(&mut plain, &at, &b).unwrap();
            close_to(plain.values(), &want, 1e-12);
            let mut c = garbage([m, k]);
            spmm_seed(&mut c, &at, &b).unwrap();
            close_to(c.values(), &want, 1e-12);
            let mut c = garbage([m, k]);
            spmm_precompute(&mut c, &at, &b).unwrap();
            close_to(c.values(), &want, 1e-12);
            let mut c = garbage([m, k]);
            spmm_positions(&mut c, &at, &b).unwrap();
            // Atomic adds reorder a row's sum.
            close_to(c.values(), &want, 1e-10);
        }
        let (dc, c) = dense_matrix(m, j, 7);
        let (dd, d) = dense_matrix(j, k, 8);
        for bk in cases([m, k], 9) {
            let mut a = Tensor::<f64, Csr>::zeros([m, k]);
            sddmm_seed(&mut a, &tensor([m, k], &bk), &c, &d).unwrap();
            let dbk = dense([m, k], &bk);
            let want: Vec<f64> = (0..m * k)
                .map(|ik| {
                    dbk[ik]
                        * (0..j)
                            .map(|l| dc[ik / k * j + l] * dd[l * k + ik % k])
                            .sum::<f64>()
                })
                .collect();
            close_to(&a.to_dense(), &want, 1e-12);
        }
    }
}

/// The row-major product of an `m x j` and a `j x k` dense matrix.
fn dense_product(a: &[f64], b: &[f64], (m, j, k): (usize, usize, usize)) -> Vec<f64> {
    (0..m * k)
        .map(|ik| (0..j).map(|l| a[ik / k * j + l] * b[l * k + ik % k]).sum())
        .collect()
}

/// Column-major dense matrices, the layout of the GPU SpMM's output.
type ColumnMajor = sparse::Custom<
    { sparse::encode_levels(&[sparse::LevelSpec::dense(1), sparse::LevelSpec::dense(0)]) },
>;

/// `bound(.., MaxExact)` of the outer part of a split (the GPU SpMM schedule, on the CPU): right
/// where the promise holds (K from 97 to 128, with and without a tail), `BoundViolated` where it
/// does not. The bound's extent is the split part's number of tiles, and with SpMM's order (the
/// dense loop between the position split's parts) the row tracker of `A` starts again in each
/// iteration of the dense loop.
#[test]
fn spmm_gpu_schedule_bounds_a_split() {
    for (m, j, k) in [(0, 0, 100), (1, 1, 128), (37, 9, 100), (40, 31, 128)] {
        let (db, b) = dense_matrix(j, k, 11);
        for a in cases([m, j], 12) {
            let at = tensor::<Csr, 2>([m, j], &a);
            let da = dense([m, j], &a);
            let want = dense_product(&da, &db, (m, j, k));
            let mut plain = garbage([m, k]);
            spmm(&mut plain, &at, &b).unwrap();
            close_to(plain.values(), &want, 1e-12);
            let mut c = Tensor::<f64, ColumnMajor>::zeros([m, k]);
            spmm_gpu_schedule_sequential(&mut c, &at, &b).unwrap();
            close_to(&c.to_dense(), &want, 1e-12);
            let mut c = Tensor::<f64, ColumnMajor>::zeros([m, k]);
            spmm_gpu_schedule_on_cpu(&mut c, &at, &b).unwrap();
            // Atomic adds reorder a sum.
            close_to(&c.to_dense(), &want, 1e-10);
        }
    }
    let at = tensor::<Csr, 2>([3, 4], &[([0, 1], 2.0)]);
    let (_, b) = dense_matrix(4, 64, 13);
    let mut c = Tensor::<f64, ColumnMajor>::zeros([3, 64]);
    let err = spmm_gpu_schedule_on_cpu(&mut c, &at, &b).unwrap_err();
    assert!(
        matches!(
            err,
            KernelError::BoundViolated {
                bound: 4,
                extent: 2,
                exact: true,
                ..
            }
        ),
        "{err:?}"
    );
}

type Dcc = sparse::Custom<
    {
        sparse::encode_levels(&[
            sparse::LevelSpec::dense(0),
            sparse::LevelSpec::compressed(1),
            sparse::LevelSpec::compressed(2),
        ])
    },
>;

#[test]
fn ttv_and_mttkrp_seed_schedules() {
    let (m, p, q, r) = (70, 5, 6, 11);
    let (dc, c) = dense_matrix(p, r, 10);
    let (dd, d) = dense_matrix(q, r, 11);
    let (vs, v) = values(q, 12);
    for b in cases([m, p, q], 13) {
        let bt = tensor::<Dcc, 3>([m, p, q], &b);
        let db = dense([m, p, q], &b);
        let mut a = Tensor::<f64, Csr>::zeros([m, p]);
        ttv_seed(&mut a, &bt, &v).unwrap();
        let want: Vec<f64> = (0..m * p)
            .map(|ij| (0..q).map(|l| db[ij * q + l] * vs[l]).sum())
            .collect();
        close_to(&a.to_dense(), &want, 1e-12);
        let mut a = garbage([m, r]);
        mttkrp3_seed(&mut a, &bt, &c, &d).unwrap();
        let mut want = vec![0.0; m * r];
        for i in 0..m {
            for jj in 0..r {
                for k in 0..p {
                    for l in 0..q {
                        want[i * r + jj] +=
                            db[(i * p + k) * q + l] * dc[k * r + jj] * dd[l * r + jj];
                    }
                }
            }
        }
        close_to(a.values(), &want, 1e-12);
        let mut a = garbage([m, r]);
        mttkrp3_workspace(&mut a, &bt, &d, &c).unwrap();
        close_to(a.values(), &want, 1e-12);
        let mut a = garbage([m, r]);
        mttkrp3_workspace_lanes(&mut a, &bt, &d, &c).unwrap();
        close_to(a.values(), &want, 1e-12);
    }
}

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

#[test]
fn mttkrp_orders_4_and_5() {
    // Rank 6: one chunk of f64 lanes and a tail.
    let (m, s, r) = (67, 3, 6);
    let factors: Vec<(Vec<f64>, Tensor<f64, Dense<2>>)> =
        (0..4).map(|k| dense_matrix(s, r, 20 + k)).collect();
    for b in cases([m, s, s, s], 14) {
        let db = dense([m, s, s, s], &b);
        let mut a = garbage([m, r]);
        mttkrp4_seed(
            &mut a,
            &tensor::<Dccc, 4>([m, s, s, s], &b),
            &factors[0].1,
            &factors[1].1,
            &factors[2].1,
        )
        .unwrap();
        let mut want = vec![0.0; m * r];
        for i in 0..m {
            for j in 0..r {
                for (kk, &bv) in db[i * s * s * s..(i + 1) * s * s * s].iter().enumerate() {
                    let (k, l, n) = (kk / (s * s), kk / s % s, kk % s);
                    want[i * r + j] += bv
                        * factors[0].0[k * r + j]
                        * factors[1].0[l * r + j]
                        * factors[2].0[n * r + j];
                }
            }
        }
        close_to(a.values(), &want, 1e-12);
    }
    for b in cases([m, s, s, s, s], 15).into_iter().take(4) {
        let db = dense([m, s, s, s, s], &b);
        let mut a = garbage([m, r]);
        let f = |k: usize| &factors[k].1;
        mttkrp5_seed(
            &mut a,
            &tensor::<Dcccc, 5>([m, s, s, s, s], &b),
            f(0),
            f(1),
            f(2),
            f(3),
        )
        .unwrap();
        let mut want = vec![0.0; m * r];
        let block = s * s * s * s;
        for i in 0..m {
            for j in 0..r {
                for (kk, &bv) in db[i * block..(i + 1) * block].iter().enumerate() {
                    let idx = [kk / (s * s * s), kk / (s * s) % s, kk / s % s, kk % s];
                    let product: f64 = idx
                        .iter()
                        .enumerate()
                        .map(|(t, &x)| factors[t].0[x * r + j])
                        .product();
                    want[i * r + j] += bv * product;
                }
            }
        }
        close_to(a.values(), &want, 1e-12);
        let bt = tensor::<Dcccc, 5>([m, s, s, s, s], &b);
        let mut a = garbage([m, r]);
        mttkrp5_workspace(&mut a, &bt, f(3), f(0), f(1), f(2)).unwrap();
        close_to(a.values(), &want, 1e-12);
        let mut a = garbage([m, r]);
        mttkrp5_workspace_lanes(&mut a, &bt, f(3), f(0), f(1), f(2)).unwrap();
        close_to(a.values(), &want, 1e-12);
    }
}

#[test]
fn small_cases_of_the_seed() {
    for n in [0, 1, 2, 7, 16] {
        let (bs, b) = values(n, 30);
        for a in cases([n], 31) {
            let at = tensor::<SparseVec, 1>([n], &a);
            let da = dense([n], &a);
            let want: Vec<f64> = da.iter().zip(&bs).map(|(x, y)| x * y).collect();
            for kernel in [vmul_pos, vmul_pos_split, vmul_coord] {
                let mut c = garbage([n]);
                kernel(&mut c, &at, &b).unwrap();
                close_to(c.values(), &want, 1e-12);
            }
            let sum: Vec<f64> = da.iter().zip(&bs).map(|(x, y)| x + y).collect();
            let mut c = garbage([n]);
            vadd_coord(&mut c, &at, &b).unwrap();
            close_to(c.values(), &sum, 1e-12);
        }
        let (cs, c) = values(n, 32);
        let want: f64 = bs.iter().zip(&cs).map(|(x, y)| x * y).sum();
        for kernel in [dot_atomics, dot_temporary] {
            let mut s = garbage([]);
            kernel(&mut s, &b, &c).unwrap();
            close_to(s.values(), &[want], 1e-10);
        }
    }
}
