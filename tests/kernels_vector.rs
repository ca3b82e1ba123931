//! Sparse vector kernels: union (`+`, `-`), intersection (`*`, `/`), three operands, SpMSpV.
mod common;

use common::*;
use sparse::prelude::*;

tensor_kernel! { fn vadd; a(i) = b(i) + c(i); formats<a: sparse, b: sparse, c: sparse>; }
tensor_kernel! { fn vsub; a(i) = b(i) - c(i); formats<a: sparse, b: sparse, c: sparse>; }
tensor_kernel! { fn vmul; a(i) = b(i) * c(i); formats<a: sparse, b: sparse, c: sparse>; }
tensor_kernel! { fn vmix; a(i) = b(i) + c(i) * d(i); formats<a: sparse, b: sparse, c: sparse, d: sparse>; }
tensor_kernel! { fn vmix_dense; a(i) = (b(i) - c(i)) * d(i); formats<b: sparse, c: sparse, d: sparse>; }
tensor_kernel! { fn vadd_dense_sparse; a(i) = b(i) + c(i); formats<c: sparse>; }
tensor_kernel! { fn spmspv; y(i) = A(i,j) * x(j); formats<A: csr, x: sparse>; }
tensor_kernel! { fn vdiv; a(i) = b(i) / c(i); formats<b: sparse>; }

fn vectors(n: usize, seed: u64) -> Vec<Vec<([usize; 1], f64)>> {
    cases([n], seed)
}

fn sv(n: usize, e: &[([usize; 1], f64)]) -> Tensor<f64, SparseVec> {
    tensor::<SparseVec, 1>([n], e)
}

fn dv(n: usize, e: &[([usize; 1], f64)]) -> Tensor<f64, Dense<1>> {
    tensor::<Dense<1>, 1>([n], e)
}

type VecKernel = fn(
    &mut Tensor<f64, SparseVec>,
    &Tensor<f64, SparseVec>,
    &Tensor<f64, SparseVec>,
) -> Result<(), KernelError>;

fn binary(kernel: VecKernel, op: fn(f64, f64) -> f64) {
    for n in [0, 1, 9, 40] {
        for b in vectors(n, 3 + n as u64) {
            for c in vectors(n, 5 + n as u64).into_iter().take(4) {
                let mut a = Tensor::<f64, SparseVec>::zeros([n]);
                kernel(&mut a, &sv(n, &b), &sv(n, &c)).unwrap();
                let (db, dc) = (dense([n], &b), dense([n], &c));
                let want: Vec<f64> = db.iter().zip(&dc).map(|(x, y)| op(*x, *y)).collect();
                assert_close(&a.to_dense(), &want);
            }
        }
    }
}

#[test]
fn union_and_intersection() {
    binary(vadd, |x, y| x + y);
    binary(vsub, |x, y| x - y);
    binary(vmul, |x, y| x * y);
}

#[test]
fn three_operands_mixed() {
    for n in [0, 1, 17] {
        for (k, b) in vectors(n, 11).into_iter().enumerate() {
            let (cs, ds) = (vectors(n, 13), vectors(n, 17));
            let c = &cs[k % cs.len()];
            let d = &ds[(k + 1) % ds.len()];
            let (db, dc, dd) = (dense([n], &b), dense([n], c), dense([n], d));
            let mut a = Tensor::<f64, SparseVec>::zeros([n]);
            vmix(&mut a, &sv(n, &b), &sv(n, c), &sv(n, d)).unwrap();
            let want: Vec<f64> = (0..n).map(|i| db[i] + dc[i] * dd[i]).collect();
            assert_close(&a.to_dense(), &want);
            let mut a = garbage([n]);
            vmix_dense(&mut a, &sv(n, &b), &sv(n, c), &sv(n, d)).unwrap();
            let want: Vec<f64> = (0..n).map(|i| (db[i] - dc[i]) * dd[i]).collect();
            assert_close(a.values(), &want);
        }
    }
}

#[test]
fn dense_plus_sparse() {
    for n in [0, 1, 23] {
        for b in vectors(n, 19) {
            for c in vectors(n, 23) {
                let mut a = garbage([n]);
                vadd_dense_sparse(&mut a, &dv(n, &b), &sv(n, &c)).unwrap();
                let want: Vec<f64> = dense([n], &b)
                    .iter()
                    .zip(dense([n], &c))
                    .map(|(x, y)| x + y)
                    .collect();
                assert_close(a.values(), &want);
            }
        }
    }
}

#[test]
fn sparse_over_dense_division() {
    for n in [0, 1, 12] {
        for b in vectors(n, 29) {
            let cs: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
            let c = Tensor::<f64, Dense<1>>::from_dense([n], &cs).unwrap();
            let mut a = garbage([n]);
            vdiv(&mut a, &sv(n, &b), &c).unwrap();
            let want: Vec<f64> = dense([n], &b).iter().zip(&cs).map(|(x, y)| x / y).collect();
            assert_close(a.values(), &want);
        }
    }
}

#[test]
fn sparse_matrix_sparse_vector() {
    for (m, n) in [(0, 0), (1, 1), (6, 11), (12, 4)] {
        for a in cases([m, n], 31) {
            for x in vectors(n, 37) {
                let mut y = garbage([m]);
                spmspv(&mut y, &tensor::<Csr, 2>([m, n], &a), &sv(n, &x)).unwrap();
                let (da, dx) = (dense([m, n], &a), dense([n], &x));
                let want: Vec<f64> = (0..m)
                    .map(|i| (0..n).map(|j| da[i * n + j] * dx[j]).sum())
                    .collect();
                assert_close(y.values(), &want);
            }
        }
    }
}

#[test]
fn integer_division_by_zero_gives_zero_instead_of_panicking() {
    let b = Tensor::<i64, SparseVec>::from_entries([4], [([0], 7), ([1], 9), ([3], -8)]).unwrap();
    let c = Tensor::<i64, Dense<1>>::from_dense([4], &[2, 0, 5, 4]).unwrap();
    let mut a = Tensor::<i64, Dense<1>>::from_dense([4], &[1, 1, 1, 1]).unwrap();
    vdiv(&mut a, &b, &c).unwrap();
    assert_eq!(a.values(), &[3, 0, 0, -2]);
}

tensor_kernel! { fn hash_plus_sparse; a(i) = b(i) + c(i); formats<a: sparse, b: hash, c: sparse>; }
tensor_kernel! { fn spmv_hash_vector; y(i) = A(i,j) * x(j); formats<A: csr, x: hash>; }
tensor_kernel! {
    fn unordered_times_csr;
    A(i,j) = B(i,j) * C(i,j);
    formats<A: csr, B: (dense, compressed(unordered)), C: csr>;
}

#[test]
fn unordered_operands_are_merged_through_a_sorted_copy() {
    for n in [0, 1, 13] {
        for b in vectors(n, 113) {
            for c in vectors(n, 127).into_iter().take(3) {
                let bh = tensor::<HashVec, 1>([n], &b);
                let mut a = Tensor::<f64, SparseVec>::zeros([n]);
                hash_plus_sparse(&mut a, &bh, &sv(n, &c)).unwrap();
                let want: Vec<f64> = dense([n], &b)
                    .iter()
                    .zip(dense([n], &c))
                    .map(|(x, y)| x + y)
                    .collect();
                assert_close(&a.to_dense(), &want);
            }
        }
    }
    for (m, n) in [(0, 0), (4, 7), (9, 3)] {
        for a in cases([m, n], 131) {
            for x in vectors(n, 137).into_iter().take(3) {
                let mut y = garbage([m]);
                spmv_hash_vector(
                    &mut y,
                    &tensor::<Csr, 2>([m, n], &a),
                    &tensor::<HashVec, 1>([n], &x),
                )
                .unwrap();
                let (da, dx) = (dense([m, n], &a), dense([n], &x));
                let want: Vec<f64> = (0..m)
                    .map(|i| (0..n).map(|j| da[i * n + j] * dx[j]).sum())
                    .collect();
                assert_close(y.values(), &want);
            }
            type Unordered = sparse::Custom<
                {
                    sparse::encode_levels(&[
                        sparse::LevelSpec::dense(0),
                        sparse::LevelSpec::compressed(1).unordered(),
                    ])
                },
            >;
            let mut p = Tensor::<f64, Csr>::zeros([m, n]);
            let c = cases([m, n], 139).pop().unwrap_or_default();
            unordered_times_csr(
                &mut p,
                &tensor::<Unordered, 2>([m, n], &a),
                &tensor([m, n], &c),
            )
            .unwrap();
            let want: Vec<f64> = dense([m, n], &a)
                .iter()
                .zip(dense([m, n], &c))
                .map(|(x, y)| x * y)
                .collect();
            assert_close(&p.to_dense(), &want);
        }
    }
}

// ---- bitmap vectors (a presence byte per coordinate) ----

tensor_kernel! { fn bitvec_plus_sparse; a(i) = b(i) + c(i); formats<a: sparse, b: bitvec, c: sparse>; }
tensor_kernel! { fn bitvec_times_sparse; a(i) = b(i) * c(i); formats<a: sparse, b: bitvec, c: sparse>; }
tensor_kernel! { fn bitvec_times_bitvec; a(i) = b(i) * c(i); formats<b: bitvec, c: bitvec>; }
tensor_kernel! { fn bitvec_minus_dense; a(i) = b(i) - c(i); formats<b: bitvec>; }
tensor_kernel! { fn spmv_bitvec; y(i) = A(i,j) * x(j); formats<A: csr, x: bitvec>; }

fn bv(n: usize, e: &[([usize; 1], f64)]) -> Tensor<f64, BitVec> {
    tensor::<BitVec, 1>([n], e)
}

/// `op` of every pair of test vectors, `b` a bitmap and `c` sparse, bitmap or dense.
fn bitmap_pairs(
    op: fn(f64, f64) -> f64,
    mut run: impl FnMut(usize, &[([usize; 1], f64)], &[([usize; 1], f64)]) -> Vec<f64>,
) {
    for n in [0, 1, 9, 40] {
        for b in vectors(n, 211 + n as u64) {
            for c in vectors(n, 223 + n as u64).into_iter().take(4) {
                let got = run(n, &b, &c);
                let (db, dc) = (dense([n], &b), dense([n], &c));
                let want: Vec<f64> = db.iter().zip(&dc).map(|(x, y)| op(*x, *y)).collect();
                assert_close(&got, &want);
            }
        }
    }
}

#[test]
fn bitmap_vectors_against_sparse_bitmap_and_dense_ones() {
    bitmap_pairs(
        |x, y| x + y,
        |n, b, c| {
            let mut a = Tensor::<f64, SparseVec>::zeros([n]);
            bitvec_plus_sparse(&mut a, &bv(n, b), &sv(n, c)).unwrap();
            // Absent slots are skipped, not merged as zeros: one entry per stored coordinate.
            let (db, dc) = (dense([n], b), dense([n], c));
            let union = (0..n).filter(|&i| db[i] != 0.0 || dc[i] != 0.0).count();
            assert_eq!(a.nnz(), union);
            a.to_dense()
        },
    );
    bitmap_pairs(
        |x, y| x * y,
        |n, b, c| {
            let mut a = Tensor::<f64, SparseVec>::zeros([n]);
            bitvec_times_sparse(&mut a, &bv(n, b), &sv(n, c)).unwrap();
            a.to_dense()
        },
    );
    bitmap_pairs(
        |x, y| x * y,
        |n, b, c| {
            let mut a = garbage([n]);
            bitvec_times_bitvec(&mut a, &bv(n, b), &bv(n, c)).unwrap();
            a.values().to_vec()
        },
    );
    bitmap_pairs(
        |x, y| x - y,
        |n, b, c| {
            let mut a = garbage([n]);
            bitvec_minus_dense(&mut a, &bv(n, b), &dv(n, c)).unwrap();
            a.values().to_vec()
        },
    );
}

#[test]
fn sparse_matrix_times_bitmap_vector() {
    for (m, n) in [(0, 0), (1, 1), (4, 7), (9, 3)] {
        for a in cases([m, n], 229) {
            for x in vectors(n, 233).into_iter().take(4) {
                let mut y = garbage([m]);
                spmv_bitvec(&mut y, &tensor::<Csr, 2>([m, n], &a), &bv(n, &x)).unwrap();
                let (da, dx) = (dense([m, n], &a), dense([n], &x));
                let want: Vec<f64> = (0..m)
                    .map(|i| (0..n).map(|j| da[i * n + j] * dx[j]).sum())
                    .collect();
                assert_close(y.values(), &want);
            }
        }
    }
}
