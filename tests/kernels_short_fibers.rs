//! The fibers of a 3-tensor's last level summed as straight-line steps where they hold at most
//! four nonzeros and as a loop otherwise: every length from none to past the step count, against
//! a reference that adds the stored products in order, compared bit for bit (negative zeros,
//! infinities and NaN in the vector), for `+`, `min` and an integer kernel, serially and on a
//! split of the slices over threads.
mod common;

use common::*;
use sparse::prelude::*;

tensor_kernel! { fn ttv; A(i,j) = B(i,j,k) * c(k); formats<A: csr, B: csf>; }
tensor_kernel! { fn ttv_dense_out; A(i,j) = B(i,j,k) * c(k); formats<B: csf>; }
tensor_kernel! {
    fn ttv_par; A(i,j) = B(i,j,k) * c(k); formats<B: csf>;
    schedule<split(i, i0, i1, Down, 2).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn ttv_min; A(i,j) = B(i,j,k) + c(k); formats<A: csr, B: csf>;
    fills<A: inf, B: inf, c: inf>; reduce<k: min>;
}

const SHAPE: [usize; 3] = [4, 6, 12];

/// Entries whose fiber `(i, j)` holds `(i * 6 + j) % 11` nonzeros (none, then 1 to 10), at
/// scattered `k`, with values that include a negative zero.
fn entries() -> Vec<([usize; 3], f64)> {
    let mut rng = Rng::new(17);
    let mut out = Vec::new();
    for i in 0..SHAPE[0] {
        for j in 0..SHAPE[1] {
            let len = (i * 6 + j) % 11;
            for k in (0..SHAPE[2]).filter(|k| (k * 5 + i + j) % 12 < len) {
                let v = if (i + j + k) % 7 == 0 {
                    -0.0
                } else {
                    rng.value()
                };
                out.push(([i, j, k], v));
            }
        }
    }
    out
}

/// `c` with a negative zero, an infinity and a NaN among ordinary values.
fn vector() -> Vec<f64> {
    let mut rng = Rng::new(5);
    (0..SHAPE[2])
        .map(|k| match k {
            2 => -0.0,
            7 => f64::INFINITY,
            9 => f64::NAN,
            _ => rng.value(),
        })
        .collect()
}

/// Each fiber's stored values combined with `c` by `f`, folded from `start` by `op` in the order
/// of `k`; fibers with no stored value give `start`.
fn reference(
    entries: &[([usize; 3], f64)],
    c: &[f64],
    start: f64,
    f: impl Fn(f64, f64) -> f64,
    op: impl Fn(f64, f64) -> f64,
) -> Vec<f64> {
    let mut out = vec![start; SHAPE[0] * SHAPE[1]];
    for &([i, j, k], v) in entries {
        let at = i * SHAPE[1] + j;
        out[at] = op(out[at], f(v, c[k]));
    }
    out
}

/// The entries `b` stores, in its order (a tensor built from entries may leave zeros out).
fn stored(b: &Tensor<f64, Csf<3>>) -> Vec<([usize; 3], f64)> {
    b.iter().map(|(at, v)| ([at[0], at[1], at[2]], v)).collect()
}

/// The stored entries, the tensor, the vector and the vector as a tensor.
type Operands = (
    Vec<([usize; 3], f64)>,
    Tensor<f64, Csf<3>>,
    Vec<f64>,
    Tensor<f64, DenseVec>,
);

fn operands() -> Operands {
    regions_on_small_inputs();
    let b = Tensor::from_entries(SHAPE, entries()).unwrap();
    let e = stored(&b);
    let c = vector();
    let ct = Tensor::from_vec([SHAPE[2]], c.clone()).unwrap();
    (e, b, c, ct)
}

#[test]
fn fiber_sums_of_every_length_match_the_ordered_sum_bit_for_bit() {
    let (e, b, c, ct) = operands();
    let want = reference(&e, &c, 0.0, |v, x| v * x, |a, b| a + b);
    every_ttv_gives(&b, &ct, &want);
}

/// TTV of `b` and `c` into CSR, into a dense output and over threads: each is `want`, bit for bit.
fn every_ttv_gives(b: &Tensor<f64, Csf<3>>, c: &Tensor<f64, DenseVec>, want: &[f64]) {
    let shape = [b.shape()[0], b.shape()[1]];
    let mut a = Tensor::zeros(shape);
    ttv(&mut a, b, c).unwrap();
    assert_eq!(bits(&a.to_dense()), bits(want), "csr output");
    let mut d = garbage(shape);
    ttv_dense_out(&mut d, b, c).unwrap();
    assert_eq!(bits(&d.to_dense()), bits(want), "dense output");
    let mut p = garbage(shape);
    ttv_par(&mut p, b, c).unwrap();
    assert_eq!(bits(&p.to_dense()), bits(want), "slices over threads");
}

#[test]
fn a_fiber_of_negative_zero_products_sums_as_the_loop_does() {
    let e = vec![([0, 0, 0], -0.0), ([0, 0, 1], 0.0), ([0, 1, 0], -1.0)];
    let b = Tensor::from_entries([1, 2, 2], e).unwrap();
    let c = Tensor::from_vec([2], vec![1.0, -1.0]).unwrap();
    let mut a = garbage([1, 2]);
    ttv_dense_out(&mut a, &b, &c).unwrap();
    // +0 + (-0 * 1) = +0, then + (0 * -1) = +0; -1 * 1 = -1.
    assert_eq!(bits(&a.to_dense()), bits(&[0.0, -1.0]));
}

#[test]
fn fiber_minima_of_every_length_match_the_ordered_minimum() {
    let (e, _, c, _) = operands();
    let e: Vec<([usize; 3], f64)> = e.into_iter().map(|(at, v)| (at, v.abs())).collect();
    let b = Tensor::from_entries_with_fill(SHAPE, e, f64::INFINITY).unwrap();
    let e = stored(&b);
    let finite: Vec<([usize; 1], f64)> = (c.iter().enumerate())
        .filter(|(_, v)| v.is_finite())
        .map(|(k, &v)| ([k], v))
        .collect();
    let ct = Tensor::from_entries_with_fill([SHAPE[2]], finite, f64::INFINITY).unwrap();
    let cd = ct.to_dense();
    let min = |a: f64, b: f64| if b < a { b } else { a };
    let want = reference(&e, &cd, f64::INFINITY, |v, x| v + x, min);
    let mut a = Tensor::filled([SHAPE[0], SHAPE[1]], f64::INFINITY);
    ttv_min(&mut a, &b, &ct).unwrap();
    assert_eq!(bits(&a.to_dense()), bits(&want));
}

#[test]
fn integer_fiber_sums_of_every_length() {
    let e: Vec<([usize; 3], i64)> = entries()
        .into_iter()
        .map(|([i, j, k], _)| ([i, j, k], (i * 31 + j * 7 + k) as i64 - 40))
        .collect();
    let b = Tensor::<i64, Csf<3>>::from_entries(SHAPE, e.clone()).unwrap();
    let cv: Vec<i64> = (0..SHAPE[2] as i64).map(|k| 3 - k).collect();
    let ct = Tensor::from_vec([SHAPE[2]], cv.clone()).unwrap();
    let mut want = vec![0i64; SHAPE[0] * SHAPE[1]];
    for ([i, j, k], v) in e {
        want[i * SHAPE[1] + j] += v * cv[k];
    }
    let mut a = Tensor::<i64, Csr>::zeros([SHAPE[0], SHAPE[1]]);
    ttv(&mut a, &b, &ct).unwrap();
    assert_eq!(a.to_dense(), want);
}

/// Runs of 200 fibers of one to five nonzeros (2.75 on average), as TTV's: the runtime sums them
/// four positions at a time under a mask, reading past each fiber's end into the next fibers'
/// values (infinities and NaN among them, by the vector); each fiber's sum is still its ordered
/// sum, bit for bit, whatever it read past its end.
#[test]
fn runs_of_short_fibers_match_the_ordered_sum_bit_for_bit() {
    regions_on_small_inputs();
    let shape = [3, 200, 16];
    let mut rng = Rng::new(29);
    let mut entries = Vec::new();
    for i in 0..shape[0] {
        for j in 0..shape[1] {
            let len = [2, 3, 1, 4, 2, 3, 5, 2][(i + j) % 8];
            for k in (0..shape[2]).filter(|k| (k * 7 + i * 3 + j) % 16 < len) {
                // Thirds and sevenths round, so a sum in another order would differ.
                let v = if (i + j + k) % 9 == 0 {
                    -0.0
                } else {
                    rng.value() / 3.0 + 0.1
                };
                entries.push(([i, j, k], v));
            }
        }
    }
    let b: Tensor<f64, Csf<3>> = Tensor::from_entries(shape, entries).unwrap();
    let c: Vec<f64> = (0..shape[2])
        .map(|k| match k {
            3 => -0.0,
            5 => f64::INFINITY,
            11 => f64::NAN,
            _ => rng.value() / 7.0,
        })
        .collect();
    let mut want = vec![0.0; shape[0] * shape[1]];
    for (at, v) in b.iter() {
        want[at[0] * shape[1] + at[1]] += v * c[at[2]];
    }
    let ct = Tensor::from_vec([shape[2]], c).unwrap();
    every_ttv_gives(&b, &ct, &want);
}
