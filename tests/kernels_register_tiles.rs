//! The register tiles of a dense output's row (SpMM and MTTKRP: the row summed in a local array
//! of 32 or 16 columns across a sparse segment, the columns no tile covers as before), checked
//! against dense references at widths below, at and around the tile widths, serially and on a
//! row split, into `=` and `+=` outputs, called twice into the same output.
mod common;

use common::*;
use sparse::prelude::*;

tensor_kernel! { fn spmm; C(i,k) = A(i,j) * B(j,k); formats<A: csr>; }
tensor_kernel! { fn spmm_acc; C(i,k) += A(i,j) * B(j,k); formats<A: csr>; }
tensor_kernel! {
    fn spmm_rows; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
    schedule<split(i, i0, i1, Down, 4).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn mttkrp; A(i,j) = B(i,k,l) * C(k,j) * D(l,j); formats<B: csf>;
}

/// Widths under, at, between and past the tile widths (16 and 32).
const WIDTHS: [usize; 10] = [1, 15, 16, 17, 31, 32, 33, 48, 50, 64];

/// `C = A B` from the stored entries of `A` only (what a sparse kernel multiplies), in the order
/// of A's columns, so infinities in `B` meet only stored entries.
fn spmm_reference(m: usize, k: usize, n: usize, a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in (0..k).filter(|&j| a[i * k + j] != 0.0) {
            for col in 0..n {
                c[i * n + col] += a[i * k + j] * b[j * n + col];
            }
        }
    }
    c
}

fn dense_operand(rows: usize, cols: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..rows * cols).map(|_| rng.value()).collect()
}

#[test]
fn spmm_at_every_width_serial_split_and_accumulating() {
    let (m, k) = (9, 7);
    for n in WIDTHS {
        let b_vals = dense_operand(k, n, n as u64);
        let b = Tensor::from_dense([k, n], &b_vals).unwrap();
        for entries in cases_with_huge_row([m, k], 5 + n as u64) {
            let a = tensor::<Csr, 2>([m, k], &entries);
            let want = spmm_reference(m, k, n, &dense([m, k], &entries), &b_vals);
            for _ in 0..2 {
                let mut c = garbage([m, n]);
                spmm(&mut c, &a, &b).unwrap();
                assert_same(c.values(), &want, &format!("spmm, width {n}"));
                let mut c = garbage([m, n]);
                spmm_rows(&mut c, &a, &b).unwrap();
                assert_same(c.values(), &want, &format!("spmm on rows, width {n}"));
            }
            let start = dense_operand(m, n, 99);
            let mut c = Tensor::from_dense([m, n], &start).unwrap();
            spmm_acc(&mut c, &a, &b).unwrap();
            let added: Vec<f64> = start.iter().zip(&want).map(|(s, w)| s + w).collect();
            assert_same(c.values(), &added, &format!("spmm +=, width {n}"));
        }
    }
}

#[test]
fn spmm_tiles_carry_infinities_and_nan_of_the_dense_operand() {
    let (m, k, n) = (5, 4, 33);
    let mut b_vals = dense_operand(k, n, 3);
    b_vals[n + 2] = f64::INFINITY;
    b_vals[2 * n + 20] = f64::NAN;
    b_vals[3 * n + 32] = f64::NEG_INFINITY;
    let b = Tensor::from_dense([k, n], &b_vals).unwrap();
    let entries = [
        ([0, 1], 1.5),
        ([1, 2], -2.0),
        ([3, 3], 0.5),
        ([4, 0], 1.0),
        ([4, 1], -1.0),
    ];
    let a = tensor::<Csr, 2>([m, k], &entries);
    let want = spmm_reference(m, k, n, &dense([m, k], &entries), &b_vals);
    let mut c = garbage([m, n]);
    spmm(&mut c, &a, &b).unwrap();
    assert_same(c.values(), &want, "spmm with infinities");
    spmm_rows(&mut c, &a, &b).unwrap();
    assert_same(c.values(), &want, "spmm on rows with infinities");
}

#[test]
fn spmm_tiles_in_single_precision_and_integers() {
    let (m, k, n) = (6, 5, 48);
    let entries = [([0, 0], 2.0), ([2, 4], -3.0), ([2, 1], 1.0), ([5, 2], 4.0)];
    let b_vals: Vec<f64> = (0..k * n).map(|x| (x % 7) as f64 - 3.0).collect();
    let want = spmm_reference(m, k, n, &dense([m, k], &entries), &b_vals);
    let a32 =
        Tensor::<f32, Csr>::from_entries([m, k], entries.map(|(c, v)| (c, v as f32))).unwrap();
    let b32: Vec<f32> = b_vals.iter().map(|&v| v as f32).collect();
    let mut c32 = Tensor::<f32, Dense<2>>::zeros([m, n]);
    spmm(&mut c32, &a32, &Tensor::from_dense([k, n], &b32).unwrap()).unwrap();
    let got: Vec<f64> = c32.values().iter().map(|&v| f64::from(v)).collect();
    assert_same(&got, &want, "f32 spmm");
    let a64 =
        Tensor::<i64, Csr>::from_entries([m, k], entries.map(|(c, v)| (c, v as i64))).unwrap();
    let b64: Vec<i64> = b_vals.iter().map(|&v| v as i64).collect();
    let mut c64 = Tensor::<i64, Dense<2>>::zeros([m, n]);
    spmm(&mut c64, &a64, &Tensor::from_dense([k, n], &b64).unwrap()).unwrap();
    let got: Vec<f64> = c64.values().iter().map(|&v| v as f64).collect();
    assert_same(&got, &want, "i64 spmm");
}

#[test]
fn mttkrp_at_every_width() {
    let (m, kd, ld) = (5, 4, 3);
    for rank in WIDTHS {
        let c_vals = dense_operand(kd, rank, 7 + rank as u64);
        let d_vals = dense_operand(ld, rank, 11 + rank as u64);
        let c = Tensor::from_dense([kd, rank], &c_vals).unwrap();
        let d = Tensor::from_dense([ld, rank], &d_vals).unwrap();
        for entries in cases([m, kd, ld], 13 + rank as u64) {
            let b = tensor::<Csf<3>, 3>([m, kd, ld], &entries);
            let db = dense([m, kd, ld], &entries);
            let mut want = vec![0.0; m * rank];
            for i in 0..m {
                for k in 0..kd {
                    for l in (0..ld).filter(|&l| db[(i * kd + k) * ld + l] != 0.0) {
                        let v = db[(i * kd + k) * ld + l];
                        for j in 0..rank {
                            want[i * rank + j] += v * c_vals[k * rank + j] * d_vals[l * rank + j];
                        }
                    }
                }
            }
            for _ in 0..2 {
                let mut a = garbage([m, rank]);
                mttkrp(&mut a, &b, &c, &d).unwrap();
                assert_same(a.values(), &want, &format!("mttkrp, rank {rank}"));
            }
        }
    }
}
