//! The nonzero split of SpMV (Senanayake et al. 2020: `collapse`, `pos`, `split` of the positions,
//! the loop over tiles on threads with `Atomics`) on matrices large enough that its thread
//! region's iterations each walk a run of many tiles: rows straddling two runs, runs that start
//! and stop exactly on a row's bounds with empty rows between, one row longer than many runs,
//! and counts of stored values that no tile or run length divides. Every kernel is checked
//! against a dense reference and against the unscheduled kernel, from an output full of garbage.
mod common;

use common::garbage;
use sparse::prelude::*;
use sparse::{Idx, Level};

tensor_kernel! {
    fn serial; y(i) = A(i,j) * x(j); formats<A: csr>;
}
tensor_kernel! {
    fn split16; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 16)
        .parallelize(p0, CpuThread, Atomics)>;
}
tensor_kernel! {
    fn split3; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 3)
        .parallelize(p0, CpuThread, Atomics)>;
}
tensor_kernel! {
    /// Tiles longer than a run's least length: a run is one tile.
    fn split5000; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 5000)
        .parallelize(p0, CpuThread, Atomics)>;
}
tensor_kernel! {
    fn split_up; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Up, 7)
        .parallelize(p0, CpuThread, Atomics)>;
}
tensor_kernel! {
    fn accumulate16; y(i) += A(i,j) * x(j); formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 16)
        .parallelize(p0, CpuThread, Atomics)>;
}

type Vector = Tensor<f64, DenseVec>;
type Kernel = fn(&mut Vector, &Tensor<f64, Csr>, &Vector) -> Result<(), KernelError>;

const COLS: usize = 1 << 17;

/// The entries `(i, j, value)`, in row order, of a `lengths.len() x COLS` matrix whose row `i`
/// holds `lengths[i]` sorted, distinct columns spread over the width. Values are multiples of 1/4
/// and `x` holds small integers, so every sum is exact in any order.
fn entries(lengths: &[usize]) -> Vec<(usize, usize, f64)> {
    let mut out = Vec::new();
    for (i, &len) in lengths.iter().enumerate() {
        let step = COLS / len.max(1);
        let shift = i % step;
        for k in 0..len {
            out.push((i, k * step + shift, (1 + out.len() % 8) as f64 / 4.0));
        }
    }
    out
}

/// The CSR arrays of `entries`, written out directly (tens of thousands of rows).
fn matrix(rows: usize, entries: &[(usize, usize, f64)]) -> Tensor<f64, Csr> {
    let mut pos: Vec<Idx> = vec![0; rows + 1];
    for &(i, ..) in entries {
        pos[i + 1] += 1;
    }
    for i in 0..rows {
        pos[i + 1] += pos[i];
    }
    let crd = entries.iter().map(|&(_, j, _)| j as Idx).collect();
    let vals = entries.iter().map(|&(.., v)| v).collect();
    let levels = vec![Level::Dense { size: rows }, Level::Compressed { pos, crd }];
    Tensor::from_parts(vec![rows, COLS], levels, vals).expect("valid CSR arrays")
}

fn x_values() -> Vec<f64> {
    (0..COLS).map(|j| (j % 5) as f64 - 2.0).collect()
}

/// `y = A x` from the entry list.
fn reference(rows: usize, entries: &[(usize, usize, f64)], x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; rows];
    for &(i, j, v) in entries {
        y[i] += v * x[j];
    }
    y
}

/// The row lengths of the inputs, by name.
fn inputs() -> Vec<(&'static str, Vec<usize>)> {
    let mut boundaries = vec![0, 0, 4096, 0, 0, 4096, 4096, 0, 8192, 0];
    boundaries.extend([0; 5]);
    let mut huge = vec![0; 3];
    huge.extend((0..200).map(|i| i % 9));
    huge.push(100_003);
    huge.extend((0..300).map(|i| i % 4));
    huge.extend([0; 4]);
    let skewed = (0..20_011)
        .map(|r| (3000 / (r % 997 + 1)) % 50 + r % 3)
        .collect();
    vec![
        ("no rows", Vec::new()),
        ("no entries", vec![0; 100]),
        ("one entry, first row", [vec![1], vec![0; 50]].concat()),
        ("one entry, last row", [vec![0; 50], vec![1]].concat()),
        ("runs ending on row bounds, empty rows between", boundaries),
        ("a row longer than many runs", huge),
        ("3 per row, 30,011 rows", vec![3; 30_011]),
        ("skewed lengths", skewed),
    ]
}

#[test]
fn nonzero_splits_agree_with_the_reference_and_the_unscheduled_kernel() {
    let x_dense = x_values();
    let x = Tensor::from_dense([COLS], &x_dense).unwrap();
    let kernels: [(&str, Kernel); 4] = [
        ("split 16", split16),
        ("split 3", split3),
        ("split 5000", split5000),
        ("split up 7", split_up),
    ];
    for (name, lengths) in inputs() {
        let rows = lengths.len();
        let list = entries(&lengths);
        let a = matrix(rows, &list);
        let want = reference(rows, &list, &x_dense);
        let mut unscheduled = garbage([rows]);
        serial(&mut unscheduled, &a, &x).unwrap();
        assert_eq!(unscheduled.to_dense(), want, "unscheduled on {name}");
        for (label, kernel) in kernels {
            let mut y = garbage([rows]);
            kernel(&mut y, &a, &x).unwrap();
            let got = y.to_dense();
            assert_eq!(got, want, "{label} on {name}");
        }
    }
}

#[test]
fn nonzero_split_adds_into_the_output() {
    let x_dense = x_values();
    let x = Tensor::from_dense([COLS], &x_dense).unwrap();
    for (name, lengths) in inputs() {
        let rows = lengths.len();
        let list = entries(&lengths);
        let a = matrix(rows, &list);
        let start: Vec<f64> = (0..rows).map(|i| (i % 3) as f64).collect();
        let want: Vec<f64> = (reference(rows, &list, &x_dense).iter().zip(&start))
            .map(|(p, s)| p + s)
            .collect();
        let mut y = Tensor::from_dense([rows], &start).unwrap();
        accumulate16(&mut y, &a, &x).unwrap();
        assert_eq!(y.to_dense(), want, "{name}");
    }
}
