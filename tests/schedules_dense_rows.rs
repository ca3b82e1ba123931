//! Kernels whose innermost loop runs along a row of dense operands (SpMM's loop over the columns
//! of `B` and `C`), which the Rust back end prints through slices of those rows: unscheduled, and
//! split into blocks of output rows on threads (the row of `C` then a slice of the iteration's own
//! block). Checked against a dense reference, from an output full of garbage, for column counts
//! around the vector widths and inputs with empty rows, duplicates and a single entry.
mod common;

use common::{assert_close, cases, dense, garbage, tensor};
use sparse::prelude::*;

tensor_kernel! {
    fn spmm; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
}
tensor_kernel! {
    fn spmm_rows16; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
    schedule<split(i, i0, i1, Down, 16).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn spmm_rows3; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
    schedule<split(i, i0, i1, Down, 3).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn spmm_up; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
    schedule<split(i, i0, i1, Up, 4).parallelize(i0, CpuThread, NoRaces)>;
}

type Dense2 = Tensor<f64, Dense<2>>;
type Kernel = fn(&mut Dense2, &Tensor<f64, Csr>, &Dense2) -> Result<(), KernelError>;

/// `C = A B` from dense copies of both.
fn reference(m: usize, n: usize, cols: usize, a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut c = vec![0.0; m * cols];
    for i in 0..m {
        for j in 0..n {
            for k in 0..cols {
                c[i * cols + k] += a[i * n + j] * b[j * cols + k];
            }
        }
    }
    c
}

#[test]
fn spmm_through_row_slices_agrees_with_the_dense_reference() {
    let kernels: [(&str, Kernel); 4] = [
        ("unscheduled", spmm),
        ("row split 16", spmm_rows16),
        ("row split 3", spmm_rows3),
        ("row split up 4", spmm_up),
    ];
    let (m, n) = (37, 29);
    for cols in [1, 5, 16, 32, 33] {
        let b_vals: Vec<f64> = (0..n * cols).map(|p| (p % 7) as f64 - 3.0).collect();
        let b = Tensor::from_dense([n, cols], &b_vals).unwrap();
        for (case, list) in cases([m, n], cols as u64).into_iter().enumerate() {
            let a = tensor::<Csr, 2>([m, n], &list);
            let want = reference(m, n, cols, &dense([m, n], &list), &b_vals);
            for (label, kernel) in kernels {
                let mut c = garbage([m, cols]);
                kernel(&mut c, &a, &b).unwrap();
                eprintln!("{label}, {cols} columns, case {case}");
                assert_close(&c.to_dense(), &want);
            }
        }
    }
}

tensor_kernel! {
    fn minplus_rows3; C(i,k) = A(i,j) + B(j,k); formats<A: csr>;
    fills<A: inf, B: inf, C: inf>; reduce<j: min>;
    schedule<split(i, i0, i1, Down, 3).parallelize(i0, CpuThread, NoRaces)>;
}

/// The min-plus product on threads: each block of rows starts at infinity (a row with no stored
/// entry stays there), from an output full of garbage, against a dense min over the stored
/// entries.
#[test]
fn min_plus_blocks_start_at_infinity() {
    let (m, k) = (8, 5);
    for n in [1, 4, 33] {
        let b_vals: Vec<f64> = (0..k * n).map(|x| (x % 9) as f64 - 2.0).collect();
        let b_entries = (0..k * n).map(|p| ([p / n, p % n], b_vals[p]));
        let b = Tensor::<f64, Dense<2>>::from_entries_with_fill([k, n], b_entries, f64::INFINITY)
            .unwrap();
        for entries in cases([m, k], 61 + n as u64) {
            let mut stored = vec![None; m * k];
            for &([i, j], v) in &entries {
                stored[i * k + j] = Some(stored[i * k + j].unwrap_or(0.0) + v);
            }
            let mut want = vec![f64::INFINITY; m * n];
            for i in 0..m {
                for j in 0..k {
                    if let Some(a) = stored[i * k + j] {
                        for c in 0..n {
                            want[i * n + c] = want[i * n + c].min(a + b_vals[j * n + c]);
                        }
                    }
                }
            }
            let a = Tensor::<f64, Csr>::from_entries_with_fill(
                [m, k],
                entries.iter().copied(),
                f64::INFINITY,
            )
            .unwrap();
            // Every element stored as garbage, with the fill the kernel declares.
            let garbage = (0..m * n).map(|p| ([p / n, p % n], -99.0));
            let mut c =
                Tensor::<f64, Dense<2>>::from_entries_with_fill([m, n], garbage, f64::INFINITY)
                    .unwrap();
            minplus_rows3(&mut c, &a, &b).unwrap();
            assert_eq!(c.to_dense(), want, "width {n}");
        }
    }
}
