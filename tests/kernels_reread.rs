//! One tensor read in two index orders in one statement: the reads in one order get a copy of
//! their own, made when the kernel runs, in an order the loops follow (CSR, DCSR and CSF inputs,
//! sparse and dense outputs, `schedule<auto>` and a row-parallel schedule), each against a dense
//! evaluation of the statement written out by hand.
mod common;

use common::*;
use sparse::prelude::*;

tensor_kernel! { fn symmetric_part; C(i,j) = A(i,j) + A(j,i); formats<A: csr, C: csr>; }
tensor_kernel! {
    fn symmetric_part_rows;
    C(i,j) = A(i,j) + A(j,i);
    formats<A: csr, C: csr>;
    schedule<split(i, i0, i1, Down, 4).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! { fn antisymmetric_auto; C(i,j) = A(j,i) - A(i,j); formats<A: csr>; schedule<auto>; }
tensor_kernel! { fn mutual; C(i,j) = A(i,j) * A(j,i); formats<A: dcsr, C: csr>; }
tensor_kernel! { fn mutual_weighted; C(i,j) = A(i,j) * A(j,i) * D(j,i); formats<A: csr, D: csr>; }
tensor_kernel! {
    fn both_contractions;
    J(i,j) = A(i,j,k) * x(k) + A(i,l,j) * x(l);
    formats<A: csf>;
}
tensor_kernel! {
    fn mutual_spmv_auto;
    y(i) = A(i,j) * A(j,i) * x(j);
    formats<A: csr>;
    schedule<auto>;
}

type Entries = Vec<([usize; 2], f64)>;

/// `f(a[i][j], a[j][i])` for every `(i, j)` of an `n x n` dense array.
fn pairs(n: usize, a: &[f64], f: impl Fn(f64, f64) -> f64) -> Vec<f64> {
    (0..n * n)
        .map(|k| f(a[k], a[(k % n) * n + k / n]))
        .collect()
}

fn count(n: usize, a: &[f64], stored: impl Fn(bool, bool) -> bool) -> usize {
    (0..n * n)
        .filter(|&k| stored(a[k] != 0.0, a[(k % n) * n + k / n] != 0.0))
        .count()
}

const SIDES: [usize; 5] = [0, 1, 2, 6, 11];

#[test]
fn a_matrix_plus_its_transpose() {
    for n in SIDES {
        let inputs = cases([n, n], 401 + n as u64);
        for (a, earlier) in inputs.iter().zip(inputs.iter().rev()) {
            let da = dense([n, n], a);
            let want = pairs(n, &da, |x, y| x + y);
            // Stored where either read stores an entry, zeros of cancelling entries included.
            let union = count(n, &da, |x, y| x || y);
            let mut c = Tensor::<f64, Csr>::zeros([n, n]);
            symmetric_part(&mut c, &tensor([n, n], earlier)).unwrap();
            symmetric_part(&mut c, &tensor([n, n], a)).unwrap();
            assert_close(&c.to_dense(), &want);
            assert_eq!(c.nnz(), union);
            let mut rows = Tensor::<f64, Csr>::zeros([n, n]);
            symmetric_part_rows(&mut rows, &tensor([n, n], a)).unwrap();
            assert_eq!(rows.level(1).pos(), c.level(1).pos());
            assert_eq!(rows.level(1).crd(), c.level(1).crd());
            assert_close(rows.values(), c.values());
            let mut d = garbage([n, n]);
            antisymmetric_auto(&mut d, &tensor([n, n], a)).unwrap();
            assert_close(d.values(), &pairs(n, &da, |x, y| y - x));
        }
    }
}

#[test]
fn entries_stored_both_ways_in_dcsr() {
    for n in SIDES {
        for a in cases([n, n], 409 + n as u64) {
            let da = dense([n, n], &a);
            let mut c = Tensor::<f64, Csr>::zeros([n, n]);
            mutual(&mut c, &tensor([n, n], &a)).unwrap();
            assert_close(&c.to_dense(), &pairs(n, &da, |x, y| x * y));
            assert_eq!(c.nnz(), count(n, &da, |x, y| x && y));
        }
    }
}

#[test]
fn the_read_that_needs_a_copy_is_the_one_moved() {
    for n in SIDES {
        for a in cases([n, n], 419 + n as u64) {
            let d: Entries = cases([n, n], 421).pop().unwrap_or_default();
            let (da, dd) = (dense([n, n], &a), dense([n, n], &d));
            let want: Vec<f64> = pairs(n, &da, |x, y| x * y)
                .iter()
                .enumerate()
                .map(|(k, v)| v * dd[(k % n) * n + k / n])
                .collect();
            let mut c = garbage([n, n]);
            mutual_weighted(&mut c, &tensor([n, n], &a), &tensor([n, n], &d)).unwrap();
            assert_close(c.values(), &want);
            let xs: Vec<f64> = (0..n).map(|j| 1.0 + j as f64 / 2.0).collect();
            let mut y = garbage([n]);
            let x = Tensor::from_dense([n], &xs).unwrap();
            mutual_spmv_auto(&mut y, &tensor([n, n], &a), &x).unwrap();
            let both = pairs(n, &da, |x, y| x * y);
            let want: Vec<f64> = (0..n)
                .map(|i| (0..n).map(|j| both[i * n + j] * xs[j]).sum())
                .collect();
            assert_close(y.values(), &want);
        }
    }
}

/// `J(i,j) = Σk A(i,j,k) x(k) + Σl A(i,l,j) x(l)`: the second sum runs inside the loop over `j`,
/// which its read visits against storage order.
#[test]
fn a_three_tensor_contracted_in_two_modes() {
    for (m, n) in [(0, 0), (1, 1), (3, 4), (5, 2)] {
        let xs: Vec<f64> = (0..n).map(|k| 0.5 + k as f64).collect();
        let x = Tensor::from_dense([n], &xs).unwrap();
        for a in cases([m, n, n], 431 + m as u64) {
            let da = dense([m, n, n], &a);
            let at = |i: usize, j: usize, k: usize| da[(i * n + j) * n + k];
            let want: Vec<f64> = (0..m * n)
                .map(|ij| {
                    let (i, j) = (ij / n, ij % n);
                    (0..n)
                        .map(|k| at(i, j, k) * xs[k] + at(i, k, j) * xs[k])
                        .sum()
                })
                .collect();
            let mut out = garbage([m, n]);
            both_contractions(&mut out, &tensor([m, n, n], &a), &x).unwrap();
            assert_close(out.values(), &want);
        }
    }
}

/// The copy has the input's shape, so a read at `(j,i)` of a matrix that is not square is a shape
/// error, never a panic.
#[test]
fn a_rectangular_matrix_read_both_ways_is_a_shape_error() {
    let a = tensor::<Csr, 2>([3, 4], &[([0, 1], 1.0), ([2, 3], 2.0)]);
    let mut c = Tensor::<f64, Csr>::zeros([3, 3]);
    assert!(matches!(
        symmetric_part(&mut c, &a),
        Err(KernelError::ShapeMismatch { .. })
    ));
    let mut d = garbage([3, 4]);
    assert!(matches!(
        antisymmetric_auto(&mut d, &a),
        Err(KernelError::ShapeMismatch { .. })
    ));
}
