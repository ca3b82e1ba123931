//! Sparse outputs store only the coordinates that stored entries produce: `G = A Aᵀ` with CSR
//! operands visits every pair of rows, and stores a pair only where the two rows share a column
//! (serially, row-parallel, into DCSR, COO and CSC, and through the compute-only twin). A value
//! that stored entries produce is kept even when it is zero. Every result is checked against a
//! dense product computed by hand, and its number of stored entries against the nonzeros of that
//! product (the inputs' values are positive, so no sum cancels).
mod common;

use common::*;
use sparse::prelude::*;

tensor_kernel! { fn aat_csr; G(i,j) = A(i,k) * A(j,k); formats<A: csr, G: csr>; }
tensor_kernel! {
    fn aat_csr_rows;
    G(i,j) = A(i,k) * A(j,k);
    formats<A: csr, G: csr>;
    schedule<split(i, i0, i1, Down, 16).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! { fn aat_dcsr; G(i,j) = A(i,k) * A(j,k); formats<A: csr, G: dcsr>; }
tensor_kernel! { fn aat_dcsr_input; G(i,j) = A(i,k) * A(j,k); formats<A: dcsr, G: csr>; }
tensor_kernel! { fn aat_coo; G(i,j) = A(i,k) * A(j,k); formats<A: csr, G: coo>; }
tensor_kernel! { fn aat_csc; G(i,j) = A(i,k) * A(j,k); formats<A: csr, G: csc>; }
tensor_kernel! { fn spmv_sparse; y(i) = A(i,j) * x(j); formats<A: csr, y: sparse>; }
tensor_kernel! { fn spmv_plus_sparse; y(i) = b(i) + A(i,j) * x(j); formats<A: csr, b: sparse, y: sparse>; }
tensor_kernel! { fn difference; z(i) = x(i) - x(i); formats<x: sparse, z: sparse>; }

type Entries = Vec<([usize; 2], f64)>;

/// The test matrices of `m x n` with positive values (duplicates sum to positive values too), so
/// no product or sum cancels: the usual edge cases, a run of empty rows and one full row.
fn matrices(m: usize, n: usize, seed: u64) -> Vec<Entries> {
    let positive = |e: Entries| e.into_iter().map(|(c, v)| (c, v.abs() + 0.25)).collect();
    let mut out: Vec<Entries> = cases([m, n], seed).into_iter().map(positive).collect();
    if m >= 6 && n >= 2 {
        // Rows 1..5 empty, the others with an entry on the diagonal band.
        let run = (0..m).filter(|i| !(1..5).contains(i));
        out.push(run.map(|i| ([i, i % n], 1.0 + i as f64)).collect());
        // One row holding every column, among single entries.
        let mut huge: Entries = (0..n).map(|j| ([m / 2, j], 0.5 + j as f64)).collect();
        huge.extend((0..m).step_by(3).map(|i| ([i, (i * 7) % n], 2.0)));
        out.push(huge);
    }
    out
}

/// `A Aᵀ` of a dense `m x n` array, by three loops.
fn aat(m: usize, n: usize, a: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..m {
            for k in 0..n {
                g[i * m + j] += a[i * n + k] * a[j * n + k];
            }
        }
    }
    g
}

fn nonzeros(d: &[f64]) -> usize {
    d.iter().filter(|v| **v != 0.0).count()
}

/// Runs `kernel` on every test matrix, twice into the same output with different inputs (the
/// previous result's structure must not survive), checking values and stored entries.
fn check_aat<F: Format>(
    kernel: impl Fn(&mut Tensor<f64, F>, &Tensor<f64, Csr>) -> Result<(), KernelError>,
) {
    for (m, n) in [(0, 0), (1, 1), (3, 0), (6, 9), (11, 7), (17, 5)] {
        let inputs = matrices(m, n, 7 + m as u64);
        for (a, earlier) in inputs.iter().zip(inputs.iter().rev()) {
            let mut g = Tensor::<f64, F>::zeros([m, m]);
            for entries in [earlier, a] {
                kernel(&mut g, &tensor([m, n], entries)).unwrap();
            }
            let want = aat(m, n, &dense([m, n], a));
            assert_close(&g.to_dense(), &want);
            assert_eq!(g.nnz(), nonzeros(&want), "{m}x{n}: {a:?}");
        }
    }
}

#[test]
fn a_times_a_transposed_stores_only_shared_columns() {
    check_aat::<Csr>(aat_csr);
    check_aat::<Csr>(aat_csr_rows);
    check_aat::<Dcsr>(aat_dcsr);
    check_aat::<Coo<2>>(aat_coo);
    check_aat::<Csc>(aat_csc);
    check_aat::<Csr>(|g, a| aat_dcsr_input(g, &a.convert().unwrap()));
}

/// The numbers of the issue on a smaller scale: 8 entries in each of 300 rows of 300 columns.
#[test]
fn a_times_a_transposed_of_a_banded_matrix() {
    let (m, per_row) = (300, 8);
    let mut rng = Rng::new(3);
    let a: Entries = (0..m)
        .flat_map(|i| (0..per_row).map(move |k| (i, k)))
        .map(|(i, k)| ([i, (i * 13 + k * 37 + rng.below(5)) % m], 1.0 + k as f64))
        .collect();
    let want = aat(m, m, &dense([m, m], &a));
    let mut g = Tensor::<f64, Csr>::zeros([m, m]);
    aat_csr(&mut g, &tensor([m, m], &a)).unwrap();
    assert_close(&g.to_dense(), &want);
    assert_eq!(g.nnz(), nonzeros(&want));
    assert!(g.nnz() < m * m / 2, "{} entries", g.nnz());
    let mut rows = Tensor::<f64, Csr>::zeros([m, m]);
    aat_csr_rows(&mut rows, &tensor([m, m], &a)).unwrap();
    assert_eq!(rows, g);
    assert_eq!(rows.level(1).pos(), g.level(1).pos());
}

/// The compute-only twin follows the guarded appends: new values into the stored structure, and
/// an error when the inputs' pattern no longer produces it.
#[test]
fn compute_only_twin_follows_the_stored_structure() {
    let a = [([0, 0], 1.0), ([0, 2], 2.0), ([2, 1], 3.0), ([3, 2], 1.0)];
    let mut g = Tensor::<f64, Csr>::zeros([4, 4]);
    aat_csr(&mut g, &tensor([4, 3], &a)).unwrap();
    assert_eq!(g.level(1).pos(), &[0, 2, 2, 3, 5]);
    assert_eq!(g.level(1).crd(), &[0, 3, 2, 0, 3]);
    let doubled: Entries = a.iter().map(|&(c, v)| (c, 2.0 * v)).collect();
    aat_csr_compute(&mut g, &tensor([4, 3], &doubled)).unwrap();
    assert_close(&g.to_dense(), &aat(4, 3, &dense([4, 3], &doubled)));
    assert_eq!(g.nnz(), 5);
    let moved = [([0, 0], 1.0), ([1, 2], 2.0), ([2, 1], 3.0), ([3, 2], 1.0)];
    assert!(matches!(
        aat_csr_compute(&mut g, &tensor([4, 3], &moved)),
        Err(KernelError::StructureMismatch { .. })
    ));
}

/// Products that cancel give an explicit zero, which is stored: stored entries produced it.
#[test]
fn products_that_cancel_are_stored_as_explicit_zeros() {
    let a = tensor::<Csr, 2>(
        [3, 2],
        &[([0, 0], 1.0), ([0, 1], 1.0), ([1, 0], 1.0), ([1, 1], -1.0)],
    );
    let want = vec![2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0];
    let mut g = Tensor::<f64, Csr>::zeros([3, 3]);
    aat_csr(&mut g, &a).unwrap();
    assert_eq!(g.to_dense(), want);
    assert_eq!(g.level(1).pos(), &[0, 2, 4, 4]);
    assert_eq!(g.level(1).crd(), &[0, 1, 0, 1]);
    assert_eq!(g.values(), &[2.0, 0.0, 0.0, 2.0]);
    let mut rows = Tensor::<f64, Csr>::zeros([3, 3]);
    aat_csr_rows(&mut rows, &a).unwrap();
    assert_eq!(rows.level(1).crd(), &[0, 1, 0, 1]);
    assert_eq!(rows.values(), &[2.0, 0.0, 0.0, 2.0]);

    let x = tensor::<SparseVec, 1>([5], &[([1], 2.0), ([4], -3.0)]);
    let mut z = Tensor::<f64, SparseVec>::zeros([5]);
    difference(&mut z, &x).unwrap();
    assert_eq!(z.level(0).crd(), &[1, 4]);
    assert_eq!(z.values(), &[0.0, 0.0]);
}

/// A sum into a sparse vector: an empty row of `A` stores nothing, unless `b` stores its
/// coordinate.
#[test]
fn spmv_into_a_sparse_vector_skips_empty_rows() {
    for (m, n) in [(0, 0), (1, 1), (7, 4), (12, 9)] {
        let xs: Vec<f64> = (0..n).map(|j| 1.0 + j as f64).collect();
        let x = Tensor::from_dense([n], &xs).unwrap();
        for a in matrices(m, n, 31) {
            let da = dense([m, n], &a);
            let ax: Vec<f64> = (0..m)
                .map(|i| (0..n).map(|j| da[i * n + j] * xs[j]).sum())
                .collect();
            let mut y = Tensor::<f64, SparseVec>::zeros([m]);
            spmv_sparse(&mut y, &tensor([m, n], &a), &x).unwrap();
            assert_close(&y.to_dense(), &ax);
            assert_eq!(y.nnz(), nonzeros(&ax));
            let b: Vec<([usize; 1], f64)> = (0..m).step_by(4).map(|i| ([i], 0.5)).collect();
            let db = dense([m], &b);
            spmv_plus_sparse(&mut y, &tensor([m], &b), &tensor([m, n], &a), &x).unwrap();
            let want: Vec<f64> = db.iter().zip(&ax).map(|(b, ax)| b + ax).collect();
            assert_close(&y.to_dense(), &want);
            assert_eq!(y.nnz(), nonzeros(&want));
        }
    }
}
