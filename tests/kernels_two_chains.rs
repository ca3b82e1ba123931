//! Long `min` and `max` reductions walked as two halves side by side (the `chains` pass),
//! against a scan of each row's stored entries in order, bit for bit: rows of every length from
//! none to past twice the 32 positions where the split starts, zeros of both signs tying for the
//! minimum in either half and in the tail, NaN (never the minimum) and infinities, serially and
//! on a row split over threads.
mod common;

use common::bits;
use sparse::prelude::*;

tensor_kernel! {
    fn minplus; y(i) = A(i,j) + x(j); formats< A: csr >;
    fills< A: inf, x: inf, y: inf >; reduce< j: min >;
}
tensor_kernel! {
    fn minplus_rows; y(i) = A(i,j) + x(j); formats< A: csr >;
    fills< A: inf, x: inf, y: inf >; reduce< j: min >;
    schedule< split(i, i0, i1, Down, 4).parallelize(i0, CpuThread, NoRaces) >;
}
tensor_kernel! {
    fn maxplus; y(i) = A(i,j) + x(j); formats< A: csr >;
    fills< A: -inf, x: -inf, y: -inf >; reduce< j: max >;
}

const COLS: usize = 90;

/// Row `i` holds `i % 83` entries at scattered columns; rows 83.. place zeros of both signs.
fn entries(rows: usize) -> Vec<([usize; 2], f64)> {
    let mut out = Vec::new();
    for i in 0..rows {
        let len = i % 83;
        for k in 0..len {
            let j = (k * 7 + i) % COLS;
            let v = match (i + k) % 13 {
                0 => f64::NAN,
                1 => f64::INFINITY,
                _ => 1.0 + ((i * 31 + k * 17) % 97) as f64,
            };
            out.push(([i, j], v));
        }
    }
    out
}

/// Rows of 40 and 70 entries whose minimum is a zero reached as `+0` at one position and `-0` at
/// another: in the first half and the second, the second half and the tail, and the other way.
fn ties(first_row: usize) -> Vec<([usize; 2], f64)> {
    let mut out = Vec::new();
    let cases = [
        (40, 5, 30),
        (40, 30, 5),
        (71, 40, 70),
        (71, 70, 40),
        (71, 3, 36),
    ];
    for (r, &(len, plus, minus)) in cases.iter().enumerate() {
        for k in 0..len {
            let v = match k {
                _ if k == plus => 0.0,
                _ if k == minus => -0.0,
                _ => 5.0 + k as f64,
            };
            out.push(([first_row + r, k], v));
        }
    }
    out
}

/// x: `-0.0` in the columns the tie rows reach zero through (so `-0 + -0 = -0` and `+0 + -0 = +0`),
/// ordinary values elsewhere, +inf at every eleventh column and a NaN.
fn vector() -> Vec<f64> {
    (0..COLS)
        .map(|j| match j {
            _ if j % 11 == 10 => f64::INFINITY,
            44 => f64::NAN,
            _ if j < 75 => -0.0,
            _ => j as f64,
        })
        .collect()
}

fn reference(
    a: &Tensor<f64, Csr>,
    x: &[f64],
    start: f64,
    better: fn(f64, f64) -> bool,
) -> Vec<f64> {
    let (pos, crd, vals) = (a.level(1).pos(), a.level(1).crd(), a.values());
    (0..a.shape()[0])
        .map(|i| {
            let mut t = start;
            for p in pos[i] as usize..pos[i + 1] as usize {
                let y = vals[p] + x[crd[p] as usize];
                if better(y, t) {
                    t = y;
                }
            }
            t
        })
        .collect()
}

fn operands(fill: f64) -> (Tensor<f64, Csr>, Vec<f64>, Tensor<f64, DenseVec>) {
    let rows = 83 + 5;
    let mut e = entries(83);
    e.extend(ties(83));
    let a = Tensor::from_entries_with_fill([rows, COLS], e, fill).unwrap();
    let x = vector();
    let stored: Vec<([usize; 1], f64)> = (x.iter().enumerate())
        .filter(|(_, v)| **v != fill)
        .map(|(j, &v)| ([j], v))
        .collect();
    let xt = Tensor::from_entries_with_fill([COLS], stored, fill).unwrap();
    (a, xt.to_dense(), xt)
}

#[test]
fn long_minima_match_the_scan_in_order_bit_for_bit() {
    let (a, x, xt) = operands(f64::INFINITY);
    let want = reference(&a, &x, f64::INFINITY, |y, t| y < t);
    let rows = a.shape()[0];
    let mut y = Tensor::filled([rows], f64::INFINITY);
    minplus(&mut y, &a, &xt).unwrap();
    assert_eq!(bits(&y.to_dense()), bits(&want), "serial");
    let mut y = Tensor::filled([rows], f64::INFINITY);
    minplus_rows(&mut y, &a, &xt).unwrap();
    assert_eq!(bits(&y.to_dense()), bits(&want), "rows over threads");
    // The tie rows: +0 first, -0 first, in either half and in the tail.
    let signs: Vec<bool> = want[83..].iter().map(|v| v.is_sign_negative()).collect();
    assert_eq!(signs, vec![false, true, false, true, false]);
}

#[test]
fn long_maxima_match_the_scan_in_order_bit_for_bit() {
    let (a, x, xt) = operands(f64::NEG_INFINITY);
    let want = reference(&a, &x, f64::NEG_INFINITY, |y, t| y > t);
    let mut y = Tensor::filled([a.shape()[0]], f64::NEG_INFINITY);
    maxplus(&mut y, &a, &xt).unwrap();
    assert_eq!(bits(&y.to_dense()), bits(&want));
}
