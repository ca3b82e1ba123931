//! Thread splits on both sides of the work threshold: below it a row split runs its rows as one
//! plain loop (the `unsplit` pass) and a split that shares its output runs the unscheduled
//! kernel (`ir::twin`), above it the thread region. The other kernel tests make every split run
//! its region (`common::regions_on_small_inputs`); this file keeps the runtime's default, so its
//! small inputs take the plain loops.

use sparse::prelude::*;

tensor_kernel! { fn spmv; y(i) = A(i,j) * x(j); formats<A: csr>; }
tensor_kernel! {
    fn spmv_rows; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<split(i, i0, i1, Down, 32).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn spmm_rows; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
    schedule<split(i, i0, i1, Down, 16).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn spmv_nonzeros; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<collapse(i,j,f).pos(f,p,A).split(p,p0,p1,Down,16).parallelize(p0,CpuThread,Atomics)>;
}
tensor_kernel! {
    fn spmv_columns; y(i) = A(i,j) * x(j); formats<A: csc>;
    schedule<parallelize(j, CpuThread, Temporary)>;
}
tensor_kernel! {
    fn minplus_rows; y(i) = A(i,j) + x(j); formats<A: csr>;
    fills<A: inf, x: inf, y: inf>; reduce<j: min>;
    schedule<split(i, i0, i1, Down, 32).parallelize(i0, CpuThread, NoRaces)>;
}

/// Entries of an `m x n` matrix: about `per_row` a row at pseudo-random columns (duplicates
/// among them, summed on packing), every seventh row empty, and values that are exact in
/// binary so that sums in any order agree.
fn entries(m: usize, n: usize, per_row: usize) -> Vec<([usize; 2], f64)> {
    let mut state = 0x2545_F491_4F6C_DD1Du64 ^ (m * 31 + n) as u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = Vec::new();
    for i in (0..m).filter(|i| i % 7 != 3) {
        for _ in 0..per_row {
            let j = (next() % n as u64) as usize;
            out.push(([i, j], (next() % 64) as f64 / 8.0 - 4.0));
        }
    }
    out
}

fn dense_matrix(m: usize, n: usize, entries: &[([usize; 2], f64)]) -> Vec<f64> {
    let mut d = vec![0.0; m * n];
    for ([i, j], v) in entries {
        d[i * n + j] += v;
    }
    d
}

/// A matrix's rows, columns and entries.
type Input = (usize, usize, Vec<([usize; 2], f64)>);

/// The shapes: empty, one entry, small (below the threshold), and large (above it).
fn inputs() -> Vec<Input> {
    vec![
        (0, 0, Vec::new()),
        (1, 1, vec![([0, 0], 2.5)]),
        (5, 4, vec![([4, 3], -1.0), ([4, 3], 0.5)]),
        (70, 50, entries(70, 50, 3)),
        (3000, 2000, entries(3000, 2000, 5)),
    ]
}

#[test]
fn the_small_inputs_are_below_the_default_threshold() {
    assert_eq!(
        sparse::__private::unsplit_below(),
        sparse::__private::TEAM_MIN_WORK
    );
    let (_, _, large) = &inputs()[4];
    assert!(large.len() > sparse::__private::TEAM_MIN_WORK);
}

#[test]
fn spmv_rows_matches_the_dense_product_and_the_serial_kernel() {
    for (m, n, e) in inputs() {
        let a: Tensor<f64, Csr> = Tensor::from_entries([m, n], e.iter().copied()).unwrap();
        let xs: Vec<f64> = (0..n).map(|j| (j % 5) as f64 - 2.0).collect();
        let x = Tensor::from_vec([n], xs.clone()).unwrap();
        let d = dense_matrix(m, n, &e);
        let want: Vec<f64> = (0..m)
            .map(|i| (0..n).map(|j| d[i * n + j] * xs[j]).sum())
            .collect();
        let mut serial = Tensor::zeros([m]);
        spmv(&mut serial, &a, &x).unwrap();
        let mut y = Tensor::from_vec([m], vec![-7.5; m]).unwrap();
        spmv_rows(&mut y, &a, &x).unwrap();
        assert_eq!(y.values(), &want[..], "{m} x {n}");
        assert_eq!(y.values(), serial.values(), "{m} x {n}");
        // The values are multiples of 1/8 with few terms a row: every order sums them exactly.
        let mut y = Tensor::from_vec([m], vec![-7.5; m]).unwrap();
        spmv_nonzeros(&mut y, &a, &x).unwrap();
        assert_eq!(y.values(), &want[..], "nonzero split, {m} x {n}");
        let csc: Tensor<f64, Csc> = Tensor::from_entries([m, n], e.iter().copied()).unwrap();
        let mut y = Tensor::from_vec([m], vec![-7.5; m]).unwrap();
        spmv_columns(&mut y, &csc, &x).unwrap();
        assert_eq!(y.values(), &want[..], "columns, {m} x {n}");
    }
}

#[test]
fn spmm_rows_writes_every_element() {
    for (m, n, e) in inputs() {
        let a: Tensor<f64, Csr> = Tensor::from_entries([m, n], e.iter().copied()).unwrap();
        for cols in [1, 16, 35] {
            let bs: Vec<f64> = (0..n * cols).map(|t| (t % 9) as f64 - 4.0).collect();
            let b = Tensor::from_vec([n, cols], bs.clone()).unwrap();
            let d = dense_matrix(m, n, &e);
            let want: Vec<f64> = (0..m * cols)
                .map(|t| {
                    (0..n)
                        .map(|j| d[t / cols * n + j] * bs[j * cols + t % cols])
                        .sum()
                })
                .collect();
            let mut c = Tensor::from_vec([m, cols], vec![-7.5; m * cols]).unwrap();
            spmm_rows(&mut c, &a, &b).unwrap();
            assert_eq!(c.values(), &want[..], "{m} x {n}, {cols} columns");
        }
    }
}

#[test]
fn minplus_rows_takes_each_rows_minimum() {
    for (m, n, e) in inputs() {
        let a: Tensor<f64, Csr> =
            Tensor::from_entries_with_fill([m, n], e.iter().copied(), f64::INFINITY).unwrap();
        let xs: Vec<f64> = (0..n).map(|j| (j % 11) as f64).collect();
        let x = Tensor::from_vec([n], xs.clone())
            .unwrap()
            .with_fill(f64::INFINITY);
        let mut stored = vec![Vec::new(); m];
        let mut summed = std::collections::BTreeMap::new();
        for ([i, j], v) in &e {
            *summed.entry((*i, *j)).or_insert(0.0) += v;
        }
        for ((i, j), v) in summed {
            stored[i].push(v + xs[j]);
        }
        let want: Vec<f64> = (stored.iter())
            .map(|r| r.iter().copied().fold(f64::INFINITY, f64::min))
            .collect();
        let mut y = Tensor::from_vec([m], vec![-7.5; m])
            .unwrap()
            .with_fill(f64::INFINITY);
        minplus_rows(&mut y, &a, &x).unwrap();
        assert_eq!(y.values(), &want[..], "{m} x {n}");
    }
}
