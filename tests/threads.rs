//! Thread regions on both sides of the work thresholds: below them a region runs on the calling
//! thread, above them on the runtime's thread team (row blocks, a shared output with atomic adds)
//! or rayon's pool (per-task partials, a row-parallel assembly), and on rayon's pool too where the
//! team is taken or the kernel runs inside `ThreadPool::install`. Each must give the dense
//! reference's result every way.
mod common;

use std::collections::BTreeMap;

use common::*;
use sparse::__private::{PARALLEL_MIN_WORK, TEAM_MIN_WORK};
use sparse::prelude::*;

tensor_kernel! {
    fn rows; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<split(i, i0, i1, Down, 32).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn positions; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 16)
        .parallelize(p0, CpuThread, Atomics)>;
}
tensor_kernel! {
    fn partials; y(i) = A(i,j) * x(j); formats<A: csc>;
    schedule<parallelize(j, CpuThread, Temporary)>;
}
tensor_kernel! {
    fn add_rows; C(i,j) = A(i,j) + B(i,j); formats<C: csr, A: csr, B: csr>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}

/// A `rows x rows` matrix with about `per_row` entries per row (duplicates included), one row in
/// seven empty. Values are positive, so no sum cancels to a zero that packing would drop.
fn entries(rows: usize, per_row: usize, seed: u64) -> Vec<([usize; 2], f64)> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for i in (0..rows).filter(|i| i % 7 != 3) {
        for _ in 0..per_row {
            out.push(([i, rng.below(rows)], (1 + rng.below(8)) as f64 / 4.0));
        }
    }
    out
}

fn spmv_reference(n: usize, a: &[([usize; 2], f64)], x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; n];
    for &([i, j], v) in a {
        y[i] += v * x[j];
    }
    y
}

/// Row counts on both sides of the thresholds: the work is the matrix's values plus `x`'s.
fn sizes() -> [usize; 4] {
    [1, 200, TEAM_MIN_WORK / 3, 4 * PARALLEL_MIN_WORK / 5]
}

#[test]
fn spmv_regions_agree_with_the_reference_below_and_above_the_threshold() {
    for (n, seed) in sizes().into_iter().zip(1..) {
        let list = entries(n, 4, seed);
        let x: Vec<f64> = (0..n).map(|k| (k % 5) as f64 - 2.0).collect();
        let want = spmv_reference(n, &list, &x);
        let xt = Tensor::from_dense([n], &x).unwrap();
        let csc = tensor::<Csc, 2>([n, n], &list);
        check_splits(&tensor([n, n], &list), &xt, &want);
        let mut y = garbage([n]);
        partials(&mut y, &csc, &xt).unwrap();
        assert_close(&y.to_dense(), &want);
    }
    assert!(
        5 * sizes()[3] > PARALLEL_MIN_WORK && 4 * sizes()[2] > TEAM_MIN_WORK,
        "the largest inputs use the team and the pool"
    );
}

#[test]
fn row_splits_of_skewed_rows_agree_with_the_reference() {
    // The team shares a row split's blocks out by their entries: heavy rows at the end, all the
    // entries in one row, and rows of one entry each.
    let n = 3000;
    let mut rng = Rng::new(7);
    let mut value = || (1 + rng.below(8)) as f64 / 4.0;
    let tail: Vec<_> = (0..n)
        .flat_map(|i| vec![i; if i < n - 100 { 1 } else { 150 }])
        .enumerate()
        .map(|(e, i)| ([i, (e * 31) % n], value()))
        .collect();
    let one_row: Vec<_> = (0..4 * n).map(|e| ([n / 2, e % n], value())).collect();
    let thin: Vec<_> = (0..n).map(|i| ([i, (i * 7) % n], value())).collect();
    assert!(tail.len() > TEAM_MIN_WORK && one_row.len() > TEAM_MIN_WORK);
    let x: Vec<f64> = (0..n).map(|k| (k % 5) as f64 - 2.0).collect();
    let xt = Tensor::from_dense([n], &x).unwrap();
    for list in [tail, one_row, thin] {
        let want = spmv_reference(n, &list, &x);
        for _ in 0..5 {
            check_splits(&tensor([n, n], &list), &xt, &want);
        }
    }
}

/// The row-split and nonzero-split SpMVs against `want`.
fn check_splits(csr: &Tensor<f64, Csr>, x: &Tensor<f64, DenseVec>, want: &[f64]) {
    let n = want.len();
    for split in [rows, positions] {
        let mut y = garbage([n]);
        split(&mut y, csr, x).unwrap();
        assert_close(&y.to_dense(), want);
    }
}

/// The row-split and nonzero-split SpMVs of `n` rows, called 20 times each, against the
/// reference.
fn check_spmv_splits(n: usize, seed: u64) {
    let list = entries(n, 4, seed);
    let x: Vec<f64> = (0..n).map(|k| (k % 3) as f64 - 1.0).collect();
    let want = spmv_reference(n, &list, &x);
    let (xt, csr) = (Tensor::from_dense([n], &x).unwrap(), tensor([n, n], &list));
    for _ in 0..20 {
        check_splits(&csr, &xt, &want);
    }
}

#[test]
fn callers_on_many_threads_share_the_team_or_use_rayon() {
    std::thread::scope(|s| {
        for seed in 0..4 {
            s.spawn(move || check_spmv_splits(TEAM_MIN_WORK / 2 + 100 * seed as usize, seed));
        }
    });
}

#[test]
fn kernels_inside_a_rayon_pool_run_on_that_pool() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    pool.install(|| check_spmv_splits(TEAM_MIN_WORK, 7));
    pool.install(|| {
        rayon::join(
            || check_spmv_splits(TEAM_MIN_WORK / 2, 8),
            || check_spmv_splits(PARALLEL_MIN_WORK / 4, 9),
        )
    });
}

#[test]
fn row_parallel_assembly_agrees_with_the_reference_below_and_above_the_threshold() {
    for (n, seed) in sizes().into_iter().zip(10..) {
        let (a, b) = (entries(n, 3, seed), entries(n, 2, seed + 100));
        // The matrices are too large to scatter densely: compare entry by entry.
        let mut want = BTreeMap::new();
        for &(c, v) in a.iter().chain(&b) {
            *want.entry(c).or_insert(0.0) += v;
        }
        let mut c = Tensor::<f64, Csr>::zeros([n, n]);
        add_rows(&mut c, &tensor([n, n], &a), &tensor([n, n], &b)).unwrap();
        let mut got = BTreeMap::new();
        c.for_each_entry(|at, v| {
            got.insert([at[0], at[1]], v);
        });
        let keys = |m: &BTreeMap<[usize; 2], f64>| m.keys().copied().collect::<Vec<_>>();
        assert_eq!(keys(&got), keys(&want), "{n} rows: stored coordinates");
        let values = |m: &BTreeMap<[usize; 2], f64>| m.values().copied().collect::<Vec<_>>();
        assert_close(&values(&got), &values(&want));
    }
}
