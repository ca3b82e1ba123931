//! A run of SpMV rows, each a dot product (`dot.rs`): `out[r] = Σ w[p] · x[crd[p]]` over the
//! positions `pos[r]..pos[r + 1]` of every row `r` of the run.
//!
//! Row by row, each row pays for its own start: the lanes' final sum, a tail of one to three
//! positions added in order, the store. On the comparison harness's cache-resident matrices
//! (rows of 2 to 12 entries) that was more than half of an SpMV's time: a loop over the same
//! positions with no rows at all took 0.4-0.55 of it. For `f64`, where AVX2's gathers pay
//! (`dot::gathers_pay`), the rows here go four at a time: each row's tail is one more masked
//! gather into its lanes (no in-order steps), and the four rows' lanes are summed together, two
//! horizontal adds and one store of four results (BENCHMARKS.md, "SpMV rows four at a time").
//! Other types take the rows one by one. A run of rows of two or three positions (TTV's fibers)
//! is summed without a branch on each row's end: `f64` rows four positions at a time under a
//! mask (`four_steps`), other types in one pass over the positions (`one_pass`).
//!
//! Segments are clamped as the caller cannot be trusted to have done: a row's end to the length
//! of `crd`, its start to its end. What rests on the caller is the invariant of `dot.rs`: every
//! coordinate is inside `x`, and `w` is at least as long as `crd`.
#![allow(unsafe_code)]

use crate::{Idx, Scalar};

/// The segment of row `r`, clamped: `(lo, hi)` with `lo <= hi <= n`.
///
/// # Safety
/// `r + 1 < pos.len()`.
#[inline(always)]
pub(crate) unsafe fn segment(pos: &[Idx], r: usize, n: usize) -> (usize, usize) {
    // SAFETY: `r + 1 < pos.len()` (the contract).
    let (lo, hi) = unsafe { (*pos.get_unchecked(r), *pos.get_unchecked(r + 1)) };
    let hi = (hi as usize).min(n);
    ((lo as usize).min(hi), hi)
}

/// Every row, one at a time, summed in order; `out[r]` is set, or added to when `add`. Rows past
/// `pos.len() - 1` are not touched.
///
/// # Safety
/// `w` is at least as long as `crd`, and every element of `crd` is below `x.len()`.
pub(crate) unsafe fn each<T: Scalar>(
    x: &[T],
    crd: &[Idx],
    w: &[T],
    pos: &[Idx],
    out: &mut [T],
    add: bool,
) {
    // SAFETY: the caller's contract, which `in_order` shares.
    unsafe {
        rows_by(x, crd, w, pos, out, add, |x, crd, w| {
            crate::dot::in_order(x, crd, w)
        })
    }
}

/// As [`each`], for `f32`: each row in lanes where AVX2's gathers pay (`dot::gathers_pay`),
/// elsewhere in four partial sums (`dot::four_sums`).
///
/// # Safety
/// As for [`each`].
pub(crate) unsafe fn f32s(
    x: &[f32],
    crd: &[Idx],
    w: &[f32],
    pos: &[Idx],
    out: &mut [f32],
    add: bool,
) {
    #[cfg(target_arch = "x86_64")]
    if crate::dot::gathers_apply(x.len()) {
        // SAFETY: the caller's contract, which `dot::f32s` shares.
        return unsafe {
            rows_by(x, crd, w, pos, out, add, |x, crd, w| {
                crate::dot::f32s(x, crd, w)
            })
        };
    }
    // SAFETY: the caller's contract, which `four_sums` shares.
    unsafe {
        rows_by(x, crd, w, pos, out, add, |x, crd, w| {
            crate::dot::four_sums(x, crd, w)
        })
    }
}

/// As [`each`], for `f64`: a run of short rows by [`four_steps`]; otherwise four rows at a time
/// where AVX2's gathers pay (`dot::gathers_pay`), elsewhere each row in four partial sums
/// (`dot::four_sums`).
///
/// # Safety
/// As for [`each`].
pub(crate) unsafe fn f64s(
    x: &[f64],
    crd: &[Idx],
    w: &[f64],
    pos: &[Idx],
    out: &mut [f64],
    add: bool,
) {
    let rows = out.len().min(pos.len().saturating_sub(1));
    let short = short_rows(crd, pos, rows).filter(|_| !add);
    if short.is_some_and(|positions| positions >= FOUR_STEPS_MIN * rows) {
        // SAFETY: `rows < pos.len()`; the rest is the contract.
        return unsafe { four_steps(x, crd, w, pos, &mut out[..rows]) };
    }
    #[cfg(target_arch = "x86_64")]
    if crate::dot::gathers_apply(x.len()) {
        // SAFETY: AVX2 and FMA are present and `x.len() <= i32::MAX` (checked); the rest is
        // the caller's contract.
        return unsafe { x86::f64x4_rows(x, crd, w, pos, out, add) };
    }
    // SAFETY: the caller's contract, which `four_sums` shares.
    unsafe {
        rows_by(x, crd, w, pos, out, add, |x, crd, w| {
            crate::dot::four_sums(x, crd, w)
        })
    }
}

/// Every row with `dot`, the row loop copied with and without prefetch hints for each row's
/// coordinates and weights, chosen once for the run (see `prefetch.rs`).
///
/// Nothing in a row's loop but its segment, its hints, its sum and its store: the tests of the
/// processor and of the arrays' sizes are made once for the run, not once a row.
///
/// # Safety
/// `dot(x, c, v)` is safe to call when `v` is at least as long as `c` and every element of `c`
/// is below `x.len()`; `w` is at least as long as `crd`, and every element of `crd` is below
/// `x.len()`.
#[inline(always)]
unsafe fn rows_by<T: Scalar>(
    x: &[T],
    crd: &[Idx],
    w: &[T],
    pos: &[Idx],
    out: &mut [T],
    add: bool,
    dot: impl Fn(&[T], &[Idx], &[T]) -> T,
) {
    let rows = out.len().min(pos.len().saturating_sub(1));
    let out = &mut out[..rows];
    if !add && short_rows(crd, pos, rows).is_some() {
        // SAFETY: `rows < pos.len()`; the rest is the contract.
        return unsafe { one_pass(x, crd, w, pos, out) };
    }
    use crate::prefetch::{GATHERS, NONE, STREAMS, prefetch_wanted, row_gathers_wanted};
    let hints = match prefetch_wanted(crd) || prefetch_wanted(w) {
        true if row_gathers_wanted(x, crd, pos, rows) => GATHERS,
        true => STREAMS,
        false => NONE,
    };
    // SAFETY: the contract, passed on.
    unsafe {
        match (hints, add) {
            (NONE, false) => hinted::<T, NONE, false>(x, crd, w, pos, out, &dot),
            (NONE, true) => hinted::<T, NONE, true>(x, crd, w, pos, out, &dot),
            (STREAMS, false) => hinted::<T, STREAMS, false>(x, crd, w, pos, out, &dot),
            (STREAMS, true) => hinted::<T, STREAMS, true>(x, crd, w, pos, out, &dot),
            (_, false) => hinted::<T, GATHERS, false>(x, crd, w, pos, out, &dot),
            (_, true) => hinted::<T, GATHERS, true>(x, crd, w, pos, out, &dot),
        }
    }
}

/// Rows shorter than this on average are summed by [`four_steps`] (`f64`) or [`one_pass`]
/// (TTV's fibers: 2.3); the SpMV rows of the comparison harness's matrices, 3.6 and more, keep a
/// loop per row.
const SHORT_ROWS: usize = 3;

/// The fewest rows a run must have to be summed by [`four_steps`] or [`one_pass`]: TTV's runs
/// (the fibers under one `i`, 173 on the harness's tensor) take them; a row split's blocks of 32
/// rows keep the loop per row, for which neither was measured.
const ONE_PASS_MIN_ROWS: usize = 64;

/// Short `f64` rows averaging at least this many positions are summed by [`four_steps`], shorter
/// ones by [`one_pass`]: rows of mostly one position (`1138_bus` of the comparison harness, 1.3
/// on average) end where the branch predictor expects, and four steps' four reads a row took 1.7
/// of the time of the one pass there, where on TTV's fibers (2.3) they took 0.4 of it.
const FOUR_STEPS_MIN: usize = 2;

/// The positions of the first `rows` rows (their ends clamped to `crd`) when they are a run for
/// [`four_steps`] or [`one_pass`]: at least [`ONE_PASS_MIN_ROWS`] of them, fewer than
/// [`SHORT_ROWS`] positions each on average.
fn short_rows(crd: &[Idx], pos: &[Idx], rows: usize) -> Option<usize> {
    let bound = |r: usize| pos.get(r).map_or(0, |&p| (p as usize).min(crd.len()));
    let positions = bound(rows).saturating_sub(bound(0));
    (rows >= ONE_PASS_MIN_ROWS && positions < SHORT_ROWS * rows).then_some(positions)
}

/// The rows of `out` in one pass over their positions, each row's sum in order: where rows hold
/// two or three positions (the fibers of a sparse 3-tensor, TTV's), a loop per row costs more
/// in its start and its exit than in its arithmetic. Here one loop walks the positions; each adds
/// into the running sum and stores it as its row's result, and the position that ends a row
/// resets the sum and moves to the next row. Rows with no positions are closed by an inner loop
/// that is rarely entered. On the Zen 3 EPYC, TTV's 34,560 fibers of 2.3 nonzeros took 0.87 of
/// the time of a loop per fiber (BENCHMARKS.md, "TTV's fibers as one pass").
///
/// `pos` may be anything: the row index is kept below `out.len()`, so a `pos` that is not
/// ascending gives wrong sums, never an access out of bounds.
///
/// # Safety
/// As for [`rows_by`], and `out.len() < pos.len()`.
#[inline(always)]
unsafe fn one_pass<T: Scalar>(x: &[T], crd: &[Idx], w: &[T], pos: &[Idx], out: &mut [T]) {
    let rows = out.len();
    let Some(last) = rows.checked_sub(1) else {
        return;
    };
    let n = crd.len();
    // SAFETY (of every `bound`): called with `r <= rows < pos.len()`.
    let bound = |r: usize| unsafe { (*pos.get_unchecked(r) as usize).min(n) };
    let (lo, hi) = (bound(0), bound(rows));
    let (mut f, mut end, mut sum) = (0usize, bound(1), T::ZERO);
    for p in lo..hi.max(lo) {
        while end <= p && f < last {
            out[f] = sum;
            sum = T::ZERO;
            f += 1;
            end = bound(f + 1);
        }
        // SAFETY: `p < hi <= n = crd.len() <= w.len()` and `crd[p] < x.len()` (the contract);
        // `f <= last < out.len()`.
        unsafe {
            let c = *crd.get_unchecked(p) as usize;
            debug_assert!(c < x.len());
            sum += *w.get_unchecked(p) * *x.get_unchecked(c);
            *out.get_unchecked_mut(f) = sum;
        }
        if p + 1 == end && f < last {
            sum = T::ZERO;
            f += 1;
            end = bound(f + 1);
        }
    }
    out[f] = sum;
    out[f + 1..].fill(T::ZERO);
}

/// The `f64` rows of `out` for a run of [`short_rows`], each row's first four positions in one
/// vector: the four weights are loaded together, the four values of `x` one by one, and the
/// products of the positions past the row's end are masked to zero, so that a row of one to
/// four positions costs no branch on its length (past four, the rest is a plain loop). Rows of
/// two or three positions end at unpredictable places, and a branch on each row's end costs
/// more than its arithmetic: on the Zen 3 EPYC, TTV's 34,611 fibers of 2.3 nonzeros took
/// 0.4-0.55 of the time of [`one_pass`] (BENCHMARKS.md, "TTV's fibers four positions at a
/// time"). The masking is a vector `and`, where a scalar select of a loaded value would be
/// compiled to the very branch it replaces. The four lanes are added in order (a masked lane
/// adds `+0.0`, which changes no sum that starts from `+0.0`), so every row's sum is the
/// ordered sum of its positions, bit for bit, as [`one_pass`]'s.
///
/// A row that starts fewer than four positions from the end of `crd` takes the plain loop, so
/// every read is inside `crd` and `w`, and `pos` may be anything (segments are clamped).
///
/// # Safety
/// As for [`rows_by`], and `out.len() < pos.len()`.
#[inline(always)]
unsafe fn four_steps(x: &[f64], crd: &[Idx], w: &[f64], pos: &[Idx], out: &mut [f64]) {
    use wide::f64x4;
    let n = crd.len();
    let steps = f64x4::new([0.0, 1.0, 2.0, 3.0]);
    // SAFETY (of every `product`): called with `p < n = crd.len() <= w.len()`; `crd[p]` is
    // below `x.len()` (the contract).
    let product = |p: usize| unsafe {
        let c = *crd.get_unchecked(p) as usize;
        debug_assert!(c < x.len());
        *w.get_unchecked(p) * *x.get_unchecked(c)
    };
    for (r, y) in out.iter_mut().enumerate() {
        // SAFETY: `r + 1 <= out.len() < pos.len()`.
        let (lo, hi) = unsafe { segment(pos, r, n) };
        let (mut sum, mut p) = (0.0, lo);
        if lo + 4 <= n {
            // SAFETY: `lo + 4 <= n = crd.len() <= w.len()`, and every coordinate is below
            // `x.len()` (the contract).
            let (ws, xs) = unsafe {
                let at = |q: usize| {
                    let c = *crd.get_unchecked(lo + q) as usize;
                    debug_assert!(c < x.len());
                    c
                };
                (
                    f64x4::new([0, 1, 2, 3].map(|q| *w.get_unchecked(lo + q))),
                    f64x4::new([0, 1, 2, 3].map(|q| *x.get_unchecked(at(q)))),
                )
            };
            let kept = steps.simd_lt(f64x4::splat((hi - lo) as i64 as f64));
            let [t0, t1, t2, t3] = ((ws * xs) & kept).to_array();
            sum = (((0.0 + t0) + t1) + t2) + t3;
            p = lo + 4;
        }
        while p < hi {
            sum += product(p);
            p += 1;
        }
        *y = sum;
    }
}

/// The row loop of [`rows_by`], with the hints `HINTS` (`prefetch.rs`: none, the streams of
/// `crd` and `w`, or those and the gathers from `x` of the positions ahead) and setting or
/// adding, for `out`'s rows.
///
/// # Safety
/// As for [`rows_by`], and `out.len() < pos.len()`.
#[inline(always)]
unsafe fn hinted<T: Scalar, const HINTS: u8, const ADD: bool>(
    x: &[T],
    crd: &[Idx],
    w: &[T],
    pos: &[Idx],
    out: &mut [T],
    dot: &impl Fn(&[T], &[Idx], &[T]) -> T,
) {
    for (r, y) in out.iter_mut().enumerate() {
        // SAFETY: `r + 1 <= out.len() < pos.len()`; the segment is clamped to `crd.len()`, so
        // it is of `crd` and (the contract) of `w`, with coordinates inside `x`.
        let t = unsafe {
            let (lo, hi) = segment(pos, r, crd.len());
            if HINTS != crate::prefetch::NONE {
                crate::prefetch::prefetch_ahead(crd, lo);
                crate::prefetch::prefetch_ahead(w, lo);
            }
            if HINTS == crate::prefetch::GATHERS {
                crate::prefetch::prefetch_row_gathers(x, crd, lo, hi);
            }
            dot(x, crd.get_unchecked(lo..hi), w.get_unchecked(lo..hi))
        };
        *y = if ADD { *y + t } else { t };
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::segment;
    use crate::Idx;

    /// The lanes of row `lo..hi`: four positions per gather, then the last one to three in one
    /// masked gather (masked-off lanes read nothing and add zero).
    ///
    /// # Safety
    /// AVX2 and FMA; `lo <= hi <= crd.len() <= w.len()`; every coordinate is below
    /// `x.len() <= i32::MAX`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn lanes(x: &[f64], crd: &[Idx], w: &[f64], lo: usize, hi: usize) -> __m256d {
        let mut acc = _mm256_setzero_pd();
        let mut p = lo;
        while p + 4 <= hi {
            // SAFETY: `p + 4 <= hi <= crd.len() <= w.len()`; the coordinates are below
            // `x.len() <= i32::MAX`, so as signed offsets scaled by 8 they address `x`.
            unsafe {
                let at = _mm_loadu_si128(crd.as_ptr().add(p).cast());
                let xs = _mm256_i32gather_pd::<8>(x.as_ptr(), at);
                acc = _mm256_fmadd_pd(_mm256_loadu_pd(w.as_ptr().add(p)), xs, acc);
            }
            p += 4;
        }
        let left = (hi - p) as i32;
        if left > 0 {
            let keep = _mm_cmpgt_epi32(_mm_set1_epi32(left), _mm_setr_epi32(0, 1, 2, 3));
            let keep64 = _mm256_cvtepi32_epi64(keep);
            // SAFETY: lanes below `left` are positions before `hi`, in bounds as above; the
            // masked loads and gather neither read nor fault on the lanes masked off.
            unsafe {
                let at = _mm_maskload_epi32(crd.as_ptr().add(p).cast(), keep);
                let xs = _mm256_mask_i32gather_pd::<8>(
                    _mm256_setzero_pd(),
                    x.as_ptr(),
                    at,
                    _mm256_castsi256_pd(keep64),
                );
                let ws = _mm256_maskload_pd(w.as_ptr().add(p), keep64);
                acc = _mm256_fmadd_pd(ws, xs, acc);
            }
        }
        acc
    }

    /// The lanes of row `r` of `pos`, its segment clamped to `crd`, after prefetch hints for
    /// its coordinates and weights when `hint`.
    ///
    /// # Safety
    /// As for [`f64x4_rows`], and `r + 1 < pos.len()`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn row(x: &[f64], crd: &[Idx], w: &[f64], pos: &[Idx], r: usize, hint: bool) -> __m256d {
        // SAFETY: the contract; `segment` clamps the row to `crd`, no longer than `w`.
        unsafe {
            let (lo, hi) = segment(pos, r, crd.len());
            if hint {
                crate::prefetch::prefetch_ahead(crd, lo);
                crate::prefetch::prefetch_ahead(w, lo);
            }
            lanes(x, crd, w, lo, hi)
        }
    }

    /// Four rows at a time, the rest one by one, each row hinted ahead when its arrays are
    /// larger than the caches (see `prefetch.rs`).
    ///
    /// # Safety
    /// AVX2 and FMA; `w` is at least as long as `crd`; every coordinate is below
    /// `x.len() <= i32::MAX`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn f64x4_rows(
        x: &[f64],
        crd: &[Idx],
        w: &[f64],
        pos: &[Idx],
        out: &mut [f64],
        add: bool,
    ) {
        let rows = out.len().min(pos.len().saturating_sub(1));
        let hint = crate::prefetch::prefetch_wanted(crd) || crate::prefetch::prefetch_wanted(w);
        let mut r = 0;
        while r + 4 <= rows {
            // SAFETY: rows `r..r + 4` are below `rows`, so `r + 4 < pos.len()`.
            let sums = unsafe {
                let (a0, a1) = (
                    row(x, crd, w, pos, r, hint),
                    row(x, crd, w, pos, r + 1, hint),
                );
                let (a2, a3) = (
                    row(x, crd, w, pos, r + 2, hint),
                    row(x, crd, w, pos, r + 3, hint),
                );
                // [a0 01, a1 01, a0 23, a1 23] and the same for rows 2 and 3, then the halves.
                let (h01, h23) = (_mm256_hadd_pd(a0, a1), _mm256_hadd_pd(a2, a3));
                _mm256_add_pd(
                    _mm256_permute2f128_pd::<0x20>(h01, h23),
                    _mm256_permute2f128_pd::<0x31>(h01, h23),
                )
            };
            // SAFETY: `r + 4 <= rows <= out.len()`.
            unsafe {
                let at = out.as_mut_ptr().add(r);
                let sums = if add {
                    _mm256_add_pd(_mm256_loadu_pd(at), sums)
                } else {
                    sums
                };
                _mm256_storeu_pd(at, sums);
            }
            r += 4;
        }
        for (r, y) in out.iter_mut().enumerate().take(rows).skip(r) {
            // SAFETY: `r < rows`, so `r + 1 < pos.len()`.
            let t = unsafe {
                let lanes = row(x, crd, w, pos, r, hint);
                let pair = _mm_add_pd(
                    _mm256_castpd256_pd128(lanes),
                    _mm256_extractf128_pd::<1>(lanes),
                );
                _mm_cvtsd_f64(_mm_add_sd(pair, _mm_unpackhi_pd(pair, pair)))
            };
            *y = if add { *y + t } else { t };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of every length up to 13 (every tail length, several full chunks), empty rows
    /// among them, then a row whose end is past `crd` and one whose start is past its end.
    fn matrix() -> (Vec<Idx>, Vec<Idx>, Vec<i32>) {
        let mut pos = vec![0];
        let (mut crd, mut w) = (Vec::new(), Vec::new());
        for len in (0..14usize).chain([0, 1, 0, 5, 2]) {
            for p in 0..len {
                crd.push(((p * 5 + len) % 11) as Idx);
                w.push((p % 7) as i32 - 3);
            }
            pos.push(crd.len() as Idx);
        }
        let n = crd.len() as Idx;
        pos.extend([n + 9, n - 2]);
        (pos, crd, w)
    }

    /// The rows by the definition, in `f64` (small integers: every order of a sum is exact).
    fn reference(x: &[i32], pos: &[Idx], crd: &[Idx], w: &[i32]) -> Vec<f64> {
        let end = |p: Idx| (p as usize).min(crd.len());
        (0..pos.len() - 1)
            .map(|r| {
                let (lo, hi) = (end(pos[r]), end(pos[r + 1]));
                (lo..hi.max(lo))
                    .map(|p| f64::from(w[p]) * f64::from(x[crd[p] as usize]))
                    .sum()
            })
            .collect()
    }

    #[test]
    fn every_row_agrees_with_the_definition_set_or_added() {
        let (pos, crd, w) = matrix();
        let x: Vec<i32> = (0..11).map(|j| j * 3 - 14).collect();
        let want = reference(&x, &pos, &crd, &w);
        let (x64, w64): (Vec<f64>, Vec<f64>) = (
            x.iter().map(|&v| f64::from(v)).collect(),
            w.iter().map(|&v| f64::from(v)).collect(),
        );
        for add in [false, true] {
            // One output longer than the rows: its last value is not touched.
            let before: Vec<f64> = (0..pos.len()).map(|r| r as f64 * 100.0).collect();
            let expected: Vec<f64> = (0..pos.len())
                .map(|r| match want.get(r) {
                    Some(v) if add => before[r] + v,
                    Some(v) => *v,
                    None => before[r],
                })
                .collect();
            let mut got = before.clone();
            // SAFETY: every coordinate is below 11 = x.len(); `w` is as long as `crd`.
            unsafe { f64s(&x64, &crd, &w64, &pos, &mut got, add) };
            assert_eq!(got, expected, "f64, add {add}");
            let mut got = before.clone();
            // SAFETY: as above.
            unsafe { each(&x64, &crd, &w64, &pos, &mut got, add) };
            assert_eq!(got, expected, "f64 one by one, add {add}");
            #[cfg(target_arch = "x86_64")]
            if crate::dot::lanes_present() {
                let mut got = before.clone();
                // SAFETY: AVX2 and FMA are present; coordinates as above, below `i32::MAX`.
                unsafe { x86::f64x4_rows(&x64, &crd, &w64, &pos, &mut got, add) };
                assert_eq!(got, expected, "f64 four rows at a time, add {add}");
            }
            let (x32, w32): (Vec<f32>, Vec<f32>) = (
                x.iter().map(|&v| v as f32).collect(),
                w.iter().map(|&v| v as f32).collect(),
            );
            let mut floats: Vec<f32> = before.iter().map(|&v| v as f32).collect();
            // SAFETY: as above.
            unsafe { f32s(&x32, &crd, &w32, &pos, &mut floats, add) };
            let floats: Vec<f64> = floats.into_iter().map(f64::from).collect();
            assert_eq!(floats, expected, "f32, add {add}");
            let mut ints: Vec<i32> = before.iter().map(|&v| v as i32).collect();
            // SAFETY: as above.
            unsafe { each(&x, &crd, &w, &pos, &mut ints, add) };
            let ints: Vec<f64> = ints.into_iter().map(f64::from).collect();
            assert_eq!(ints, expected, "i32, add {add}");
        }
    }

    #[test]
    fn rows_stop_at_the_end_of_the_output_or_of_pos() {
        let (pos, crd, w) = matrix();
        let x = vec![2.0; 11];
        let w: Vec<f64> = w.iter().map(|&v| f64::from(v)).collect();
        for len in 0..7 {
            let mut out = vec![f64::NAN; len];
            // SAFETY: every coordinate is below 11; `w` is as long as `crd`.
            unsafe { f64s(&x, &crd, &w, &pos[..4], &mut out, false) };
            let rows = len.min(3);
            assert_eq!(out[..rows], [0.0, -6.0, -10.0][..rows], "{out:?}");
            assert!(out[rows..].iter().all(|v| v.is_nan()), "{out:?}");
            #[cfg(target_arch = "x86_64")]
            if crate::dot::lanes_present() {
                let mut lanes = vec![f64::NAN; len];
                // SAFETY: AVX2 and FMA are present; coordinates as above.
                unsafe { x86::f64x4_rows(&x, &crd, &w, &pos[..4], &mut lanes, false) };
                assert_eq!(lanes[..rows], out[..rows], "four rows at a time");
                assert!(lanes[rows..].iter().all(|v| v.is_nan()), "{lanes:?}");
            }
        }
    }

    /// Rows of none to three positions (the fibers of a 3-tensor): empty rows first, in runs
    /// and last, and a last row whose end is past `crd`.
    fn short_matrix() -> (Vec<Idx>, Vec<Idx>, Vec<i32>) {
        let mut pos = vec![0];
        let (mut crd, mut w) = (Vec::new(), Vec::new());
        let lens = [0, 0, 1, 2, 3, 0, 0, 0, 2, 1, 1, 3, 2, 0, 1, 0, 0];
        for (r, &len) in lens.iter().cycle().take(5 * lens.len()).enumerate() {
            for p in 0..len {
                crd.push(((p * 5 + r) % 11) as Idx);
                w.push(((p + r) % 7) as i32 - 3);
            }
            pos.push(crd.len() as Idx);
        }
        crd.extend([4, 9]);
        w.extend([5, -2]);
        pos.push(crd.len() as Idx + 6);
        (pos, crd, w)
    }

    #[test]
    fn short_rows_are_summed_in_one_pass_as_the_definition_says() {
        let (pos, crd, w) = short_matrix();
        assert!(short_rows(&crd, &pos, pos.len() - 1).is_some());
        assert!(short_rows(&crd, &pos, 32).is_none(), "a row split's block");
        let x: Vec<i32> = (0..11).map(|j| j * 3 - 14).collect();
        let want = reference(&x, &pos, &crd, &w);
        let (x64, w64): (Vec<f64>, Vec<f64>) = (
            x.iter().map(|&v| f64::from(v)).collect(),
            w.iter().map(|&v| f64::from(v)).collect(),
        );
        for rows in 0..pos.len() {
            let mut got = vec![f64::NAN; rows];
            // SAFETY: every coordinate is below 11 = x.len(); `w` is as long as `crd`;
            // `rows < pos.len()`.
            unsafe { one_pass(&x64, &crd, &w64, &pos, &mut got) };
            assert_eq!(got, want[..rows], "{rows} rows");
            let mut got = vec![f64::NAN; rows];
            // SAFETY: as above.
            unsafe { four_steps(&x64, &crd, &w64, &pos, &mut got) };
            assert_eq!(got, want[..rows], "{rows} rows, four steps");
        }
        let mut ints = vec![7; want.len() + 1];
        // SAFETY: as above.
        unsafe { each(&x, &crd, &w, &pos, &mut ints, false) };
        assert_eq!(ints.pop(), Some(7), "past the rows");
        assert!(
            ints.iter().zip(&want).all(|(&i, &v)| f64::from(i) == v),
            "{ints:?}"
        );
        let mut floats = vec![0f32; want.len()];
        let (x32, w32): (Vec<f32>, Vec<f32>) = (
            x.iter().map(|&v| v as f32).collect(),
            w.iter().map(|&v| v as f32).collect(),
        );
        // SAFETY: as above.
        unsafe { f32s(&x32, &crd, &w32, &pos, &mut floats, false) };
        assert!(
            floats.iter().zip(&want).all(|(&f, &v)| f64::from(f) == v),
            "{floats:?}"
        );
    }

    /// A `pos` that goes down or past `crd` gives wrong sums, but reads and writes nothing out
    /// of bounds.
    #[test]
    fn short_rows_of_a_corrupt_pos_stay_in_bounds() {
        let crd: Vec<Idx> = vec![0, 1, 2, 0, 1];
        let w = vec![1.0; 5];
        let x = vec![1.0, 2.0, 3.0];
        for pos in [
            vec![0, 5, 1, 1, 1, 2],
            vec![3, 0, 0, 9, 9, 9],
            vec![0, 0, 0, 0, 0, 90],
            vec![5, 4, 3, 2, 1, 0],
        ] {
            let mut out = vec![f64::NAN; 5];
            // SAFETY: every coordinate is below 3 = x.len(); `w` is as long as `crd`;
            // `out.len() < pos.len()`.
            unsafe { one_pass(&x, &crd, &w, &pos, &mut out) };
            assert!(out.iter().all(|v| v.is_finite()), "{pos:?}: {out:?}");
            let mut out = vec![f64::NAN; 5];
            // SAFETY: as above.
            unsafe { four_steps(&x, &crd, &w, &pos, &mut out) };
            assert!(out.iter().all(|v| v.is_finite()), "{pos:?}: {out:?}");
        }
    }

    /// Four steps read past a row's end: what they read there, an infinite weight or `x`
    /// value, a NaN, must not reach the row's sum; rows longer than four and rows too close to
    /// the end of `crd` for a vector agree with the definition.
    #[test]
    fn four_steps_keep_what_they_read_past_a_row_out_of_its_sum() {
        let x = vec![1.0, 2.0, f64::INFINITY, 4.0];
        // Rows of positions: [0], [1 2] (an infinite weight), [3] (a NaN weight, an infinite
        // `x`), [], [4..10] (six), [10 11], [12], [13].
        let crd: Vec<Idx> = vec![0, 1, 1, 2, 1, 0, 1, 3, 1, 0, 3, 1, 3, 0];
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        let w = vec![
            2.0, 3.0, inf, nan, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0,
        ];
        let pos: Vec<Idx> = vec![0, 1, 3, 4, 4, 10, 12, 13, 14];
        let mut out = vec![f64::NAN; pos.len() - 1];
        // SAFETY: every coordinate is below 4 = x.len(); `w` is as long as `crd`;
        // `out.len() < pos.len()`.
        unsafe { four_steps(&x, &crd, &w, &pos, &mut out) };
        let want = [2.0, f64::INFINITY, f64::NAN, 0.0, 31.0, 38.0, 32.0, 9.0];
        assert_eq!(out[..2], want[..2], "{out:?}");
        assert!(out[2].is_nan(), "a NaN weight in the row is the row's");
        assert_eq!(out[3..], want[3..], "{out:?}");
        // The empty row alone: its vector reads the next row's positions.
        let mut one = [f64::NAN];
        // SAFETY: as above.
        unsafe { four_steps(&x, &crd, &w, &pos[3..5], &mut one) };
        assert_eq!(one, [0.0]);
        let mut first = [f64::NAN];
        // SAFETY: as above.
        unsafe { four_steps(&x, &crd, &w, &pos[..2], &mut first) };
        assert_eq!(first, [2.0], "the infinity and NaN after the row stay out");
    }

    /// A run of rows averaging between two and three positions (TTV's fibers) takes four steps
    /// through [`f64s`]; one of rows averaging under two takes the one pass. Both agree with the
    /// definition.
    #[test]
    fn short_runs_through_f64s_agree_with_the_definition() {
        for lens in [[1, 2, 3, 4, 2, 0, 5], [1, 1, 2, 1, 0, 1, 3]] {
            let mut pos = vec![0];
            let (mut crd, mut w) = (Vec::new(), Vec::new());
            for r in 0..100 {
                for p in 0..lens[r % lens.len()] {
                    crd.push(((p * 3 + r) % 11) as Idx);
                    w.push(((p + 2 * r) % 9) as i32 - 4);
                }
                pos.push(crd.len() as Idx);
            }
            let rows = pos.len() - 1;
            assert!(short_rows(&crd, &pos, rows).is_some());
            let x: Vec<i32> = (0..11).map(|j| 7 - j * 2).collect();
            let want = reference(&x, &pos, &crd, &w);
            let (x64, w64): (Vec<f64>, Vec<f64>) = (
                x.iter().map(|&v| f64::from(v)).collect(),
                w.iter().map(|&v| f64::from(v)).collect(),
            );
            let mut got = vec![f64::NAN; rows];
            // SAFETY: every coordinate is below 11 = x.len(); `w` is as long as `crd`.
            unsafe { f64s(&x64, &crd, &w64, &pos, &mut got, false) };
            assert_eq!(got, want, "{lens:?}");
        }
    }

    /// Arrays past the prefetch threshold take the hinted copy of the row loop (and the four
    /// rows at a time give hints): the rows must not change.
    #[test]
    fn rows_of_arrays_larger_than_the_caches_agree_with_the_definition() {
        let n = crate::prefetch::PREFETCH_MIN_BYTES / size_of::<Idx>() + 7;
        let crd: Vec<Idx> = (0..n).map(|p| ((p * 7) % 101) as Idx).collect();
        let w: Vec<i32> = (0..n).map(|p| (p % 5) as i32 - 2).collect();
        // Rows of 0 to 12 entries, cycling, up to the end.
        let mut pos = vec![0 as Idx];
        while (*pos.last().unwrap() as usize) < n {
            let next = (*pos.last().unwrap() as usize + pos.len() % 13).min(n);
            pos.push(next as Idx);
        }
        let x: Vec<i32> = (0..101).map(|j| j % 9 - 4).collect();
        let want = reference(&x, &pos, &crd, &w);
        let (x64, w64): (Vec<f64>, Vec<f64>) = (
            x.iter().map(|&v| f64::from(v)).collect(),
            w.iter().map(|&v| f64::from(v)).collect(),
        );
        let mut got = vec![0.0; want.len()];
        // SAFETY: every coordinate is below 101 = x.len(); `w` is as long as `crd`.
        unsafe { f64s(&x64, &crd, &w64, &pos, &mut got, false) };
        assert_eq!(got, want, "f64");
        let mut ints = vec![0; want.len()];
        // SAFETY: as above.
        unsafe { each(&x, &crd, &w, &pos, &mut ints, false) };
        assert!(
            ints.iter().zip(&want).all(|(&i, &v)| f64::from(i) == v),
            "i32"
        );
        #[cfg(target_arch = "x86_64")]
        if crate::dot::lanes_present() {
            let mut lanes = vec![0.0; want.len()];
            // SAFETY: AVX2 and FMA are present; coordinates as above.
            unsafe { x86::f64x4_rows(&x64, &crd, &w64, &pos, &mut lanes, false) };
            assert_eq!(lanes, want, "four rows at a time");
        }
    }

    /// Rows scattered over an `x` past the gathers' hint threshold take the copy of the row loop
    /// that hints them: the rows must not change.
    #[test]
    fn rows_whose_gathers_are_hinted_agree_with_the_definition() {
        use crate::prefetch::{PREFETCH_MIN_BYTES, ROW_GATHER_HINT_MIN_BYTES, row_gathers_wanted};
        let n = ROW_GATHER_HINT_MIN_BYTES / size_of::<i32>();
        let positions = PREFETCH_MIN_BYTES / size_of::<Idx>() + 5;
        // Rows of 3 to 17 entries, the last one shorter, at columns spread over all of `x`.
        let mut pos = vec![0 as Idx];
        while (*pos.last().unwrap() as usize) < positions {
            let next = (*pos.last().unwrap() as usize + 3 + pos.len() % 15).min(positions);
            pos.push(next as Idx);
        }
        let crd: Vec<Idx> = (0..positions)
            .map(|p| ((p * 2_654_435) % n) as Idx)
            .collect();
        let w: Vec<i32> = (0..positions).map(|p| (p % 5) as i32 - 2).collect();
        let x: Vec<i32> = (0..n).map(|j| (j % 9) as i32 - 4).collect();
        let rows = pos.len() - 1;
        assert!(row_gathers_wanted(&x, &crd, &pos, rows), "the hinted copy");
        let want = reference(&x, &pos, &crd, &w);
        let mut ints = vec![0; rows];
        // SAFETY: every coordinate is below `n` = x.len(); `w` is as long as `crd`.
        unsafe { each(&x, &crd, &w, &pos, &mut ints, false) };
        assert!(ints.iter().zip(&want).all(|(&i, &v)| f64::from(i) == v));
        let (x64, w64): (Vec<f64>, Vec<f64>) = (
            x.iter().map(|&v| f64::from(v)).collect(),
            w.iter().map(|&v| f64::from(v)).collect(),
        );
        assert!(row_gathers_wanted(&x64, &crd, &pos, rows));
        let mut got = vec![1.0; rows];
        // SAFETY: as above.
        unsafe { f64s(&x64, &crd, &w64, &pos, &mut got, true) };
        let added: Vec<f64> = want.iter().map(|v| v + 1.0).collect();
        assert_eq!(got, added, "added to");
    }
}
