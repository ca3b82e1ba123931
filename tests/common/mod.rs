//! Shared test inputs and dense references for the kernel tests.
#![allow(dead_code)]

use sparse::prelude::*;

/// A small deterministic generator (xorshift64*), so failures reproduce.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// A value in [-2, 2) that is exactly representable, so sums reorder without rounding noise
    /// being the only thing a comparison sees.
    pub fn value(&mut self) -> f64 {
        (self.below(64) as f64 - 32.0) / 16.0
    }
}

/// Makes every row split of this test process run its thread region, even on inputs below the
/// work at which a kernel runs the split's rows as one plain loop: the tests' inputs are small,
/// and the regions' code is what they check. The inputs below call it, so every test built on
/// them checks the regions; `tests/kernels_unsplit.rs` checks the plain loop.
pub fn regions_on_small_inputs() {
    sparse::__private::set_unsplit_below(0);
}

/// Entry lists of a `shape` tensor covering the edge cases every kernel must handle: empty,
/// a single entry, empty first/last/middle slices, duplicates, dense, and random fills.
pub fn cases<const N: usize>(shape: [usize; N], seed: u64) -> Vec<Vec<([usize; N], f64)>> {
    regions_on_small_inputs();
    let mut rng = Rng::new(seed);
    let total: usize = shape.iter().product();
    let mut out = vec![Vec::new()];
    if total == 0 {
        return out;
    }
    let coord = |rng: &mut Rng| -> [usize; N] { std::array::from_fn(|d| rng.below(shape[d])) };
    out.push(vec![(coord(&mut rng), 1.5)]);
    for density in [0.05, 0.3, 0.9] {
        let n = ((total as f64) * density).ceil() as usize;
        out.push((0..n).map(|_| (coord(&mut rng), rng.value())).collect());
    }
    // Duplicates of one coordinate, and unsorted input.
    let c = coord(&mut rng);
    out.push(vec![(c, 1.0), (coord(&mut rng), 2.0), (c, -0.5), (c, 0.25)]);
    // Empty first, last and middle slices of dimension 0 (rows of a matrix).
    if N > 0 && shape[0] >= 3 {
        let mut e: Vec<([usize; N], f64)> = Vec::new();
        for _ in 0..total {
            let c = coord(&mut rng);
            if c[0] != 0 && c[0] != shape[0] - 1 && c[0] != shape[0] / 2 {
                e.push((c, rng.value()));
            }
        }
        e.truncate(total / 2 + 1);
        out.push(e);
    }
    out
}

/// `cases` for a matrix, plus one huge row (every column of one row, the others nearly empty) and
/// two entries far apart with a run of empty rows between them.
pub fn cases_with_huge_row(shape: [usize; 2], seed: u64) -> Vec<Vec<([usize; 2], f64)>> {
    let mut out = cases(shape, seed);
    let [m, n] = shape;
    if m * n == 0 {
        return out;
    }
    let mut rng = Rng::new(seed);
    let mut huge: Vec<([usize; 2], f64)> =
        (0..n).map(|j| ([m / 2, j], rng.value() + 3.0)).collect();
    huge.push(([0, n - 1], 1.0));
    out.push(huge);
    out.push(vec![([0, 0], 2.0), ([m - 1, n / 2], -1.5)]);
    out
}

/// The dense row-major array of an entry list (duplicates summed).
pub fn dense<const N: usize>(shape: [usize; N], entries: &[([usize; N], f64)]) -> Vec<f64> {
    regions_on_small_inputs();
    let mut d = vec![0.0; shape.iter().product()];
    for (c, v) in entries {
        let mut at = 0;
        for k in 0..N {
            at = at * shape[k] + c[k];
        }
        d[at] += v;
    }
    d
}

/// A tensor of format `F` from an entry list.
pub fn tensor<F: Format, const N: usize>(
    shape: [usize; N],
    entries: &[([usize; N], f64)],
) -> Tensor<f64, F> {
    regions_on_small_inputs();
    Tensor::from_entries(shape, entries.iter().copied()).expect("valid test input")
}

/// Asserts two dense arrays agree within 1e-12 relative (to the larger magnitude, floor 1).
#[track_caller]
pub fn assert_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "lengths differ");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let scale = g.abs().max(w.abs()).max(1.0);
        assert!(
            (g - w).abs() <= 1e-12 * scale,
            "element {k}: got {g}, want {w}"
        );
    }
}

/// Asserts two arrays agree where values may be infinite or NaN: equal (infinities included),
/// both NaN, or both finite and within 1e-12 relative (to the larger magnitude, floor 1).
#[track_caller]
pub fn assert_same(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths differ");
    for (k, (&g, &w)) in got.iter().zip(want).enumerate() {
        let close = g == w
            || (g.is_nan() && w.is_nan())
            || (g.is_finite()
                && w.is_finite()
                && (g - w).abs() <= 1e-12 * g.abs().max(w.abs()).max(1.0));
        assert!(close, "{what}: element {k}: got {g}, want {w}");
    }
}

/// A dense output filled with a value no kernel computes, so a kernel that forgets to overwrite or
/// zero a position fails the comparison.
pub fn garbage<const N: usize>(shape: [usize; N]) -> Tensor<f64, Dense<N>> {
    regions_on_small_inputs();
    let len = shape.iter().product();
    Tensor::from_dense(shape, &vec![-777.25; len]).expect("valid shape")
}

/// The bits of each value, every NaN as the one NaN: for comparing results bit for bit, where a
/// zero's sign counts and NaN equals NaN.
pub fn bits(values: &[f64]) -> Vec<u64> {
    values
        .iter()
        .map(|v| {
            if v.is_nan() {
                f64::NAN.to_bits()
            } else {
                v.to_bits()
            }
        })
        .collect()
}
