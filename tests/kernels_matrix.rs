//! Matrix kernels: sparse additions and products with sparse outputs, SpGEMM, SpMM, SDDMM, the
//! residual, scaled SpMV with scalar tensors, a transpose through formats, against dense references.
mod common;

use common::*;
use sparse::prelude::*;

tensor_kernel! { fn add_csr; A(i,j) = B(i,j) + C(i,j); formats<A: csr, B: csr, C: csr>; }
tensor_kernel! { fn add_csr_coo_dense; A(i,j) = B(i,j) + C(i,j); formats<B: csr, C: coo>; }
tensor_kernel! { fn mul_csr_csc; A(i,j) = B(i,j) * C(i,j); formats<A: csr, B: csr, C: csc>; }
tensor_kernel! { fn spgemm_csr; A(i,j) = B(i,k) * C(k,j); formats<A: csr, B: csr, C: csr>; }
tensor_kernel! { fn spgemm_dcsr; A(i,j) = B(i,k) * C(k,j); formats<A: dcsr, B: dcsr, C: dcsr>; }
tensor_kernel! { fn spmm; A(i,j) = B(i,k) * C(k,j); formats<B: csr>; }
tensor_kernel! { fn sddmm; A(i,j) = B(i,j) * C(i,k) * D(k,j); formats<A: csr, B: csr>; }
tensor_kernel! { fn sddmm_rows; A(i,j) = B(i,j) * C(i,k) * D(j,k); formats<A: csr, B: csr>; }
tensor_kernel! { fn row_scaled; y(i) = d(i) * A(i,j) * x(j); formats<A: csr>; }
tensor_kernel! { fn row_scaled_dcsr; y(i) = 2 * A(i,j) * d(i) * x(j); formats<A: dcsr>; }
tensor_kernel! { fn residual; r(i) = b(i) - A(i,j) * x(j); formats<A: csr>; }
tensor_kernel! { fn residual_csc; r(i) = b(i) - A(i,j) * x(j); formats<A: csc>; }
tensor_kernel! { fn scaled; y(i) = alpha * A(i,j) * x(j) + beta * z(i); formats<A: csr>; }
tensor_kernel! { fn transpose; A(i,j) = B(j,i); formats<A: csr, B: csc>; }
tensor_kernel! { fn accumulate; y(i) += A(i,j) * x(j); formats<A: csr>; }

const SHAPES: [(usize, usize); 4] = [(0, 0), (1, 1), (6, 9), (11, 7)];

fn matmul(m: usize, k: usize, n: usize, b: &[f64], c: &[f64]) -> Vec<f64> {
    let mut a = vec![0.0; m * n];
    for i in 0..m {
        for l in 0..k {
            for j in 0..n {
                a[i * n + j] += b[i * k + l] * c[l * n + j];
            }
        }
    }
    a
}

#[test]
fn elementwise_add_and_multiply() {
    for (m, n) in SHAPES {
        for b in cases([m, n], 41) {
            for c in cases([m, n], 43) {
                let (db, dc) = (dense([m, n], &b), dense([m, n], &c));
                let sum: Vec<f64> = db.iter().zip(&dc).map(|(x, y)| x + y).collect();
                let product: Vec<f64> = db.iter().zip(&dc).map(|(x, y)| x * y).collect();
                let mut a = Tensor::<f64, Csr>::zeros([m, n]);
                add_csr(&mut a, &tensor([m, n], &b), &tensor([m, n], &c)).unwrap();
                assert_close(&a.to_dense(), &sum);
                let mut a = garbage([m, n]);
                add_csr_coo_dense(&mut a, &tensor([m, n], &b), &tensor([m, n], &c)).unwrap();
                assert_close(a.values(), &sum);
                let mut a = Tensor::<f64, Csr>::zeros([m, n]);
                mul_csr_csc(&mut a, &tensor([m, n], &b), &tensor([m, n], &c)).unwrap();
                assert_close(&a.to_dense(), &product);
            }
        }
    }
}

#[test]
fn sparse_matrix_products() {
    for (m, k, n) in [(0, 0, 0), (1, 1, 1), (5, 7, 6), (9, 4, 10)] {
        for b in cases([m, k], 47) {
            for c in cases([k, n], 53).into_iter().take(5) {
                let want = matmul(m, k, n, &dense([m, k], &b), &dense([k, n], &c));
                let mut a = Tensor::<f64, Csr>::zeros([m, n]);
                spgemm_csr(&mut a, &tensor([m, k], &b), &tensor([k, n], &c)).unwrap();
                assert_close(&a.to_dense(), &want);
                let mut a = Tensor::<f64, Dcsr>::zeros([m, n]);
                spgemm_dcsr(&mut a, &tensor([m, k], &b), &tensor([k, n], &c)).unwrap();
                assert_close(&a.to_dense(), &want);
                let mut a = garbage([m, n]);
                spmm(&mut a, &tensor([m, k], &b), &tensor([k, n], &c)).unwrap();
                assert_close(a.values(), &want);
            }
        }
    }
}

#[test]
fn sampled_dense_dense() {
    for (m, k, n) in [(0, 0, 0), (1, 2, 1), (6, 3, 8)] {
        for b in cases([m, n], 59) {
            let c = dense([m, k], &cases([m, k], 61).pop().unwrap_or_default());
            let d = dense([k, n], &cases([k, n], 67).pop().unwrap_or_default());
            let cd = matmul(m, k, n, &c, &d);
            let want: Vec<f64> = dense([m, n], &b)
                .iter()
                .zip(&cd)
                .map(|(x, y)| x * y)
                .collect();
            let mut a = Tensor::<f64, Csr>::zeros([m, n]);
            let ct = Tensor::from_dense([m, k], &c).unwrap();
            let dt = Tensor::from_dense([k, n], &d).unwrap();
            sddmm(&mut a, &tensor([m, n], &b), &ct, &dt).unwrap();
            assert_close(&a.to_dense(), &want);
        }
    }
}

/// Values where NaN and infinities meet a factor that does not change in the sum: zero,
/// infinities of both signs, NaN, and exact finite values.
fn special(k: usize) -> f64 {
    match k % 7 {
        0 => 0.0,
        1 => f64::INFINITY,
        2 => f64::NAN,
        3 => f64::NEG_INFINITY,
        r => r as f64 * 0.25 - 1.0,
    }
}

/// `B(i,j) * Σ_k C(i,k) D(j,k)` (`C` m x k, `D` n x k, row-major), the sum in order; zero where
/// `B(i,j)` is, whatever the sum.
fn sddmm_reference([m, k, n]: [usize; 3], b: &[f64], c: &[f64], d: &[f64]) -> Vec<f64> {
    (0..m * n)
        .map(|p| {
            let (i, j) = (p / n, p % n);
            let sum = (0..k).fold(0.0, |s, l| s + c[i * k + l] * d[j * k + l]);
            if b[p] == 0.0 { 0.0 } else { b[p] * sum }
        })
        .collect()
}

/// SDDMM's rows of `C` and `D` are summed as one dense dot product each, eight partial sums at a
/// time: lengths below, at and past a multiple of eight, against the sums in order (the values
/// are small integers, so every order gives the same sum), on the sampling matrices of `cases`
/// (empty, a single entry, sparse to dense, duplicates summed).
#[test]
fn sddmm_rows_of_any_length_agree_with_the_sums_in_order() {
    let (m, n) = (6, 9);
    for k in [1, 7, 8, 9, 32, 33] {
        let c: Vec<f64> = (0..m * k).map(|p| ((p * 7) % 11) as f64 - 5.0).collect();
        let d: Vec<f64> = (0..n * k).map(|p| ((p * 5) % 13) as f64 - 6.0).collect();
        let (ct, dt) = (
            Tensor::from_dense([m, k], &c).unwrap(),
            Tensor::from_dense([n, k], &d).unwrap(),
        );
        for b in cases([m, n], 97) {
            let want = sddmm_reference([m, k, n], &dense([m, n], &b), &c, &d);
            let mut a = Tensor::<f64, Csr>::zeros([m, n]);
            let bt = Tensor::from_entries([m, n], b.iter().copied()).unwrap();
            sddmm_rows(&mut a, &bt, &ct, &dt).unwrap();
            assert_eq!(a.to_dense(), want, "K = {k}, {} entries", b.len());
        }
    }
}

/// A factor that does not use the summed variable multiplies the sum once, after it: `B(i,j)` in
/// SDDMM, `d(i)` (with a constant) in a row-scaled SpMV. The references compute that form,
/// `f * Σ` with the sum in the loop's order: it equals the per-term sum up to rounding (none
/// with these exact values) and where the sum has no term, when a NaN or infinite factor times
/// the empty sum's zero is NaN. A zero factor gives zero whatever the sum (it skips the sum, as a
/// zero factor skips a term). A row that DCSR does not store is not visited at all.
#[test]
fn factors_outside_the_sum_with_nan_and_infinities() {
    for (m, k, n) in [(0, 0, 0), (3, 0, 2), (5, 3, 4), (7, 4, 6)] {
        let c: Vec<f64> = (0..m * k).map(|p| special(p * 3 + 1)).collect();
        let d: Vec<f64> = (0..n * k).map(|p| special(p + 4)).collect();
        let mut entries = cases([m, n], 79);
        entries.push((0..m * n).map(|p| ([p / n, p % n], special(p))).collect());
        for b in entries {
            let want = sddmm_reference([m, k, n], &dense([m, n], &b), &c, &d);
            let mut a = Tensor::<f64, Csr>::zeros([m, n]);
            let ct = Tensor::from_dense([m, k], &c).unwrap();
            let dt = Tensor::from_dense([n, k], &d).unwrap();
            // Stored zeros of `B` kept: they too skip the sum (a NaN in it included).
            let bt = Tensor::from_entries_with([m, n], b.iter().copied(), ExplicitZeros::Keep);
            sddmm_rows(&mut a, &bt.unwrap(), &ct, &dt).unwrap();
            assert_same(&a.to_dense(), &want, "SDDMM");
        }
    }
    for (m, n) in SHAPES {
        let ds: Vec<f64> = (0..m).map(special).collect();
        let xs: Vec<f64> = (0..n).map(|j| special(j + 4)).collect();
        let (dv, x) = (
            Tensor::from_dense([m], &ds).unwrap(),
            Tensor::from_dense([n], &xs).unwrap(),
        );
        for a in cases([m, n], 83) {
            let da = dense([m, n], &a);
            let rows: Vec<bool> = (0..m)
                .map(|i| a.iter().any(|([r, _], _)| *r == i))
                .collect();
            let sums: Vec<f64> = (0..m)
                .map(|i| {
                    (0..n)
                        .filter(|&j| da[i * n + j] != 0.0)
                        .fold(0.0, |s, j| s + da[i * n + j] * xs[j])
                })
                .collect();
            let scaled = |i: usize, by: f64| {
                if ds[i] == 0.0 {
                    0.0
                } else {
                    ds[i] * by * sums[i]
                }
            };
            let want: Vec<f64> = (0..m).map(|i| scaled(i, 1.0)).collect();
            let mut y = garbage([m]);
            row_scaled(&mut y, &dv, &tensor([m, n], &a), &x).unwrap();
            assert_same(y.values(), &want, "CSR");
            let want: Vec<f64> = (0..m)
                .map(|i| if rows[i] { scaled(i, 2.0) } else { 0.0 })
                .collect();
            let mut y = garbage([m]);
            row_scaled_dcsr(&mut y, &tensor([m, n], &a), &dv, &x).unwrap();
            assert_same(y.values(), &want, "DCSR");
        }
    }
}

#[test]
fn residual_scaled_and_accumulated_spmv() {
    for (m, n) in SHAPES {
        for a in cases([m, n], 71) {
            let da = dense([m, n], &a);
            let xs: Vec<f64> = (0..n).map(|j| 1.0 - j as f64 / 4.0).collect();
            let bs: Vec<f64> = (0..m).map(|i| i as f64 * 0.5).collect();
            let ax: Vec<f64> = (0..m)
                .map(|i| (0..n).map(|j| da[i * n + j] * xs[j]).sum())
                .collect();
            let at = tensor::<Csr, 2>([m, n], &a);
            let x = Tensor::from_dense([n], &xs).unwrap();
            let b = Tensor::from_dense([m], &bs).unwrap();
            let mut r = garbage([m]);
            residual(&mut r, &b, &at, &x).unwrap();
            let want: Vec<f64> = bs.iter().zip(&ax).map(|(b, ax)| b - ax).collect();
            assert_close(r.values(), &want);
            let mut r = garbage([m]);
            residual_csc(&mut r, &b, &tensor([m, n], &a), &x).unwrap();
            assert_close(r.values(), &want);
            let alpha = Tensor::<f64, Dense<0>>::from_dense([], &[2.0]).unwrap();
            let beta = Tensor::<f64, Dense<0>>::from_dense([], &[-0.5]).unwrap();
            let mut y = garbage([m]);
            scaled(&mut y, &alpha, &at, &x, &beta, &b).unwrap();
            let want: Vec<f64> = ax
                .iter()
                .zip(&bs)
                .map(|(ax, z)| 2.0 * ax - 0.5 * z)
                .collect();
            assert_close(y.values(), &want);
            let mut y = Tensor::<f64, Dense<1>>::from_dense([m], &bs).unwrap();
            accumulate(&mut y, &at, &x).unwrap();
            let want: Vec<f64> = ax.iter().zip(&bs).map(|(ax, b)| ax + b).collect();
            assert_close(y.values(), &want);
        }
    }
}

#[test]
fn transpose_through_formats() {
    for (m, n) in SHAPES {
        for b in cases([n, m], 73) {
            let db = dense([n, m], &b);
            let want: Vec<f64> = (0..m * n).map(|k| db[(k % n) * m + k / n]).collect();
            let mut a = Tensor::<f64, Csr>::zeros([m, n]);
            transpose(&mut a, &tensor([n, m], &b)).unwrap();
            assert_close(&a.to_dense(), &want);
        }
    }
}

tensor_kernel! { fn add_into_coo; A(i,j) = B(i,j) + C(i,j); formats<A: coo, B: csr, C: csr>; }
tensor_kernel! { fn ttv_into_coo; A(i,j) = B(i,j,k) * c(k); formats<A: coo, B: csf>; }

#[test]
fn coordinate_list_outputs() {
    for (m, n) in SHAPES {
        for b in cases([m, n], 79) {
            for c in cases([m, n], 83).into_iter().take(3) {
                let want: Vec<f64> = dense([m, n], &b)
                    .iter()
                    .zip(dense([m, n], &c))
                    .map(|(x, y)| x + y)
                    .collect();
                let mut a = Tensor::<f64, Coo<2>>::zeros([m, n]);
                add_into_coo(&mut a, &tensor([m, n], &b), &tensor([m, n], &c)).unwrap();
                assert_close(&a.to_dense(), &want);
            }
        }
    }
    let shape = [4, 3, 5];
    let v = Tensor::from_dense([5], &[1.0, -2.0, 0.5, 3.0, 1.5]).unwrap();
    for b in cases(shape, 89) {
        let mut a = Tensor::<f64, Coo<2>>::zeros([4, 3]);
        ttv_into_coo(&mut a, &tensor::<Csf<3>, 3>(shape, &b), &v).unwrap();
        let db = dense(shape, &b);
        let vs = [1.0, -2.0, 0.5, 3.0, 1.5];
        let want: Vec<f64> = (0..12)
            .map(|ij| (0..5).map(|k| db[ij * 5 + k] * vs[k]).sum())
            .collect();
        assert_close(&a.to_dense(), &want);
    }
}

tensor_kernel! { fn add_into_hash; A(i,j) = B(i,j) + C(i,j); formats<A: hash, B: csr, C: csr>; }
tensor_kernel! { fn spgemm_into_hash; A(i,j) = B(i,k) * C(k,j); formats<A: hash, B: csr, C: csr>; }
tensor_kernel! { fn scale_into_hash_vector; a(i) = b(i) * c(i); formats<a: hash, b: sparse>; }

#[test]
fn hashed_outputs() {
    for (m, n) in SHAPES {
        for b in cases([m, n], 97) {
            for c in cases([m, n], 101).into_iter().take(3) {
                let (db, dc) = (dense([m, n], &b), dense([m, n], &c));
                let want: Vec<f64> = db.iter().zip(&dc).map(|(x, y)| x + y).collect();
                let mut a = Tensor::<f64, HashMat>::zeros([m, n]);
                add_into_hash(&mut a, &tensor([m, n], &b), &tensor([m, n], &c)).unwrap();
                assert_close(&a.to_dense(), &want);
                let mut p = Tensor::<f64, HashMat>::zeros([m, m]);
                let ct = tensor::<Csr, 2>([n, m], &cases([n, m], 103).pop().unwrap_or_default());
                spgemm_into_hash(&mut p, &tensor([m, n], &b), &ct).unwrap();
                assert_close(&p.to_dense(), &matmul(m, n, m, &db, &ct.to_dense()));
            }
        }
    }
    let b = Tensor::<f64, SparseVec>::from_entries([6], [([1], 2.0), ([4], -1.0)]).unwrap();
    let c = Tensor::<f64, Dense<1>>::from_dense([6], &[1.0, 3.0, 1.0, 1.0, 0.5, 1.0]).unwrap();
    let mut a = Tensor::<f64, HashVec>::zeros([6]);
    scale_into_hash_vector(&mut a, &b, &c).unwrap();
    assert_eq!(a.to_dense(), vec![0.0, 6.0, 0.0, 0.0, -0.5, 0.0]);
}

#[test]
fn compute_only_kernels_reuse_the_assembled_structure() {
    let (m, k, n) = (9, 4, 10);
    for b in cases([m, k], 107) {
        let c = cases([k, n], 109).pop().unwrap_or_default();
        let (bt, ct) = (tensor::<Csr, 2>([m, k], &b), tensor::<Csr, 2>([k, n], &c));
        let mut a = Tensor::<f64, Csr>::zeros([m, n]);
        spgemm_csr(&mut a, &bt, &ct).unwrap();
        let structure = (a.level(1).pos().to_vec(), a.level(1).crd().to_vec());
        // The same structure with other values: scale B by 3.
        let b3: Vec<([usize; 2], f64)> = b.iter().map(|&(p, v)| (p, 3.0 * v)).collect();
        spgemm_csr_compute(&mut a, &tensor([m, k], &b3), &ct).unwrap();
        assert_eq!(
            (a.level(1).pos().to_vec(), a.level(1).crd().to_vec()),
            structure
        );
        let want = matmul(m, k, n, &dense([m, k], &b3), &dense([k, n], &c));
        assert_close(&a.to_dense(), &want);
    }
    // An output assembled for other inputs is reported, not overwritten in the wrong places.
    let bt = tensor::<Csr, 2>([2, 2], &[([0, 0], 1.0)]);
    let ct = tensor::<Csr, 2>([2, 2], &[([0, 1], 1.0)]);
    let mut a = Tensor::<f64, Csr>::from_entries([2, 2], [([1, 1], 5.0)]).unwrap();
    let err = spgemm_csr_compute(&mut a, &bt, &ct).unwrap_err();
    assert!(
        matches!(err, KernelError::StructureMismatch { .. }),
        "{err}"
    );
}

// Outputs whose mode order the loops do not follow (their entries are collected and packed), and
// slot formats inside a sum (copied into dense rows over compressed columns): both once compiled
// to kernels that failed at run time or summed a term once per slot.

tensor_kernel! { fn negate_into_csc; A(i,j) = -B(i,j); formats<A: csc, B: dense>; }
tensor_kernel! { fn copy_csc_into_dcsr; A(i,j) = C(i,j); formats<A: dcsr, C: csc>; }
tensor_kernel! { fn copy_hash_into_csr; A(i,j) = C(i,j); formats<A: csr, C: hash>; }
tensor_kernel! { fn spgemm_into_csc; A(i,j) = B(i,k) * C(k,j); formats<A: csc, B: dcsr>; }
tensor_kernel! {
    /// The sum over ELL's slots covers only `B`'s term; the sum over `j` covers both.
    fn ell_in_a_sum_of_two;
    y(i) = C(i,j) * x(j) + B(i,j) * x(j);
    formats<B: ell>;
}
tensor_kernel! {
    fn ell_in_a_sum;
    y(i) = C(i,j) * x(j) + B(i,j) * x(j) + z(i);
    formats<B: ell, z: sparse>;
}

#[test]
fn outputs_against_the_loop_order_and_slot_formats_in_sums() {
    for (m, n) in [(0, 0), (1, 1), (5, 4), (9, 7)] {
        for (k, entries) in cases([m, n], 401).into_iter().enumerate() {
            let other = cases([m, n], 402 + k as u64).pop().unwrap_or_default();
            let (d, e) = (dense([m, n], &entries), dense([m, n], &other));
            let mut a = Tensor::<f64, Csc>::zeros([m, n]);
            negate_into_csc(&mut a, &Tensor::from_dense([m, n], &d).unwrap()).unwrap();
            assert_close(&a.to_dense(), &d.iter().map(|v| -v).collect::<Vec<_>>());
            let mut a = Tensor::<f64, Dcsr>::zeros([m, n]);
            copy_csc_into_dcsr(&mut a, &tensor::<Csc, 2>([m, n], &entries)).unwrap();
            assert_close(&a.to_dense(), &d);
            let mut a = Tensor::<f64, Csr>::zeros([m, n]);
            copy_hash_into_csr(&mut a, &tensor::<HashMat, 2>([m, n], &entries)).unwrap();
            assert_close(&a.to_dense(), &d);
            let c = Tensor::from_dense(
                [n, 3],
                &dense([n, 3], &cases([n, 3], 7).pop().unwrap_or_default()),
            )
            .unwrap();
            let mut a = Tensor::<f64, Csc>::zeros([m, 3]);
            spgemm_into_csc(&mut a, &tensor::<Dcsr, 2>([m, n], &entries), &c).unwrap();
            let dc = c.to_dense();
            let want: Vec<f64> = (0..m * 3)
                .map(|at| (0..n).map(|l| d[at / 3 * n + l] * dc[l * 3 + at % 3]).sum())
                .collect();
            assert_close(&a.to_dense(), &want);
            let xs: Vec<f64> = (0..n).map(|j| 0.5 + j as f64).collect();
            let zs = cases([m], 9).pop().unwrap_or_default();
            let mut y = garbage([m]);
            let x = Tensor::from_dense([n], &xs).unwrap();
            let (b, z) = (
                tensor::<Ell, 2>([m, n], &other),
                tensor::<SparseVec, 1>([m], &zs),
            );
            ell_in_a_sum(&mut y, &Tensor::from_dense([m, n], &d).unwrap(), &x, &b, &z).unwrap();
            let mut y2 = garbage([m]);
            let dense_c = Tensor::from_dense([m, n], &d).unwrap();
            ell_in_a_sum_of_two(&mut y2, &dense_c, &x, &b).unwrap();
            let dz = dense([m], &zs);
            let want: Vec<f64> = (0..m)
                .map(|i| {
                    (0..n)
                        .map(|j| (d[i * n + j] + e[i * n + j]) * xs[j])
                        .sum::<f64>()
                        + dz[i]
                })
                .collect();
            assert_close(y.values(), &want);
            let without_z: Vec<f64> = want.iter().zip(&dz).map(|(w, z)| w - z).collect();
            assert_close(y2.values(), &without_z);
        }
    }
}

// Format pairs that were internal compiler errors: a hashed level located instead of iterated
// (it has no locate the lowerer can emit), DIA's rows (a range level) merged with another sparse
// level, an output with a hashed input's structure, and ELL's term first in a sum of terms over
// `j` (its producer lost the sum over `j`).

tensor_kernel! { fn csc_dot_hash; a = B(i,j) * C(i,j); formats<B: csc, C: hash>; }
tensor_kernel! { fn dia_dot_coo; a = B(i,j) * C(i,j); formats<B: dia, C: coo>; }
tensor_kernel! { fn dcsc_times_dia; A(i,j) = -(D(i,j) * C(i,j)); formats<C: dia, D: dcsc>; }
tensor_kernel! { fn hash_copy; A(i,j) = -B(i,j); formats<A: hash, B: hash>; }
tensor_kernel! {
    fn ell_first_in_a_sum;
    y(i) = B(i,j) * x(j) + C(i,j) * x(j) + z(i);
    formats<B: ell, C: csr>;
}

#[test]
fn format_pairs_that_were_internal_errors() {
    for (m, n) in [(0, 0), (1, 1), (5, 4), (9, 7)] {
        for (k, entries) in cases([m, n], 501).into_iter().enumerate() {
            let other = cases([m, n], 502 + k as u64).pop().unwrap_or_default();
            let (d, e) = (dense([m, n], &entries), dense([m, n], &other));
            let dot: f64 = d.iter().zip(&e).map(|(p, q)| p * q).sum();
            let mut a = garbage([]);
            csc_dot_hash(
                &mut a,
                &tensor::<Csc, 2>([m, n], &entries),
                &tensor::<HashMat, 2>([m, n], &other),
            )
            .unwrap();
            assert_close(a.values(), &[dot]);
            let mut a = garbage([]);
            dia_dot_coo(
                &mut a,
                &tensor::<Dia, 2>([m, n], &entries),
                &tensor::<Coo<2>, 2>([m, n], &other),
            )
            .unwrap();
            assert_close(a.values(), &[dot]);
            let mut a = garbage([m, n]);
            dcsc_times_dia(
                &mut a,
                &tensor::<Dcsc, 2>([m, n], &entries),
                &tensor::<Dia, 2>([m, n], &other),
            )
            .unwrap();
            let product: Vec<f64> = d.iter().zip(&e).map(|(p, q)| -(p * q)).collect();
            assert_close(a.values(), &product);
            let mut a = tensor::<HashMat, 2>([m, n], &entries);
            hash_copy(&mut a, &tensor::<HashMat, 2>([m, n], &other)).unwrap();
            assert_close(&a.to_dense(), &e.iter().map(|v| -v).collect::<Vec<_>>());
            let xs: Vec<f64> = (0..n).map(|j| 0.5 + j as f64).collect();
            let zs: Vec<f64> = (0..m).map(|i| i as f64 - 2.0).collect();
            let (x, z) = (
                Tensor::from_dense([n], &xs).unwrap(),
                Tensor::from_dense([m], &zs).unwrap(),
            );
            let mut y = garbage([m]);
            ell_first_in_a_sum(
                &mut y,
                &tensor::<Ell, 2>([m, n], &entries),
                &x,
                &tensor::<Csr, 2>([m, n], &other),
                &z,
            )
            .unwrap();
            let want: Vec<f64> = (0..m)
                .map(|i| {
                    (0..n)
                        .map(|j| (d[i * n + j] + e[i * n + j]) * xs[j])
                        .sum::<f64>()
                        + zs[i]
                })
                .collect();
            assert_close(y.values(), &want);
        }
    }
}

// ---- bitmap levels: dense rows over bitmap columns, bitmap rows over compressed columns ----

tensor_kernel! { fn spmv_bitmap_rows; y(i) = A(i,j) * x(j); formats<A: (dense, bitmap)>; }
tensor_kernel! { fn spmv_bitmap_over_compressed; y(i) = A(i,j) * x(j); formats<A: (bitmap, compressed)>; }
tensor_kernel! { fn add_bitmap_csr; A(i,j) = B(i,j) + C(i,j); formats<A: csr, B: (dense, bitmap), C: csr>; }
tensor_kernel! { fn mul_bitmap_csr; A(i,j) = B(i,j) * C(i,j); formats<A: csr, B: (dense, bitmap), C: csr>; }

type BitmapRows = sparse::Custom<
    { sparse::encode_levels(&[sparse::LevelSpec::dense(0), sparse::LevelSpec::bitmap(1)]) },
>;
type BitmapOverCompressed = sparse::Custom<
    {
        sparse::encode_levels(&[
            sparse::LevelSpec::bitmap(0),
            sparse::LevelSpec::compressed(1),
        ])
    },
>;

#[test]
fn bitmap_matrices() {
    for (m, n) in SHAPES {
        for a in cases([m, n], 241) {
            let x: Vec<f64> = (0..n).map(|j| j as f64 - 2.5).collect();
            let dx = Tensor::<f64, Dense<1>>::from_dense([n], &x).unwrap();
            let da = dense([m, n], &a);
            let want: Vec<f64> = (0..m)
                .map(|i| (0..n).map(|j| da[i * n + j] * x[j]).sum())
                .collect();
            let mut y = garbage([m]);
            spmv_bitmap_rows(&mut y, &tensor::<BitmapRows, 2>([m, n], &a), &dx).unwrap();
            assert_close(y.values(), &want);
            let mut y = garbage([m]);
            let b = tensor::<BitmapOverCompressed, 2>([m, n], &a);
            spmv_bitmap_over_compressed(&mut y, &b, &dx).unwrap();
            assert_close(y.values(), &want);
            for c in cases([m, n], 251).into_iter().take(4) {
                let (bb, cc) = (
                    tensor::<BitmapRows, 2>([m, n], &a),
                    tensor::<Csr, 2>([m, n], &c),
                );
                let dc = dense([m, n], &c);
                let mut sum = Tensor::<f64, Csr>::zeros([m, n]);
                add_bitmap_csr(&mut sum, &bb, &cc).unwrap();
                let want: Vec<f64> = da.iter().zip(&dc).map(|(x, y)| x + y).collect();
                assert_close(&sum.to_dense(), &want);
                // Absent bitmap slots are skipped, so only stored coordinates reach the output.
                let union = da.iter().zip(&dc).filter(|(x, y)| **x != 0.0 || **y != 0.0);
                assert_eq!(sum.nnz(), union.count());
                let mut product = Tensor::<f64, Csr>::zeros([m, n]);
                mul_bitmap_csr(&mut product, &bb, &cc).unwrap();
                let want: Vec<f64> = da.iter().zip(&dc).map(|(x, y)| x * y).collect();
                assert_close(&product.to_dense(), &want);
            }
        }
    }
}
