//! A run of SpMV rows, each a dot product (`dot.rs`): `out[r] = Σ w[p] · x[crd[p]]` over the
//! positions `pos[r]..pos[r + 1]` of every row `r` of the run.
//!
//! Row by row, each row pays for its own start: the lanes' final sum, a tail of one to three
//! positions added in order, the store. On the comparison harness's cache-resident matrices
//! (rows of 2 to 12 entries) that was more than half of an SpMV's time: a loop over the same
//! positions with no rows at all took 0.4-0.55 of it. For `f64`, where the processor has AVX2
//! and FMA, the rows here go four at a time (`x86.rs`): each row's tail is one more masked
//! vector in its lanes (summed in order instead where loaded lanes run past the caches), and
//! the four rows' lanes are summed together, two horizontal adds and one store of four results
//! (BENCHMARKS.md, "SpMV rows four at a time" and "SpMV rows in loaded lanes"); so do `f32`
//! rows where the processor's gathers do not pay (AMD; "`f32` rows four at a time"). Other
//! types take the rows one by one. A run of rows of two
//! or three positions (TTV's fibers) is summed without a branch on each row's end: `f64` rows
//! four positions at a time under a mask (`four_steps`), other types in one pass over the
//! positions (`one_pass`).
//!
//! Segments are clamped as the caller cannot be trusted to have done: a row's end to the length
//! of `crd`, its start to its end. What rests on the caller is the invariant of `dot.rs`: every
//! coordinate is inside `x`, and `w` is at least as long as `crd`.
#![allow(unsafe_code)]

use crate::prefetch::{GATHERS, NONE, STREAMS};
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

/// As [`each`], for `f32`: each row in eight lanes where AVX2's gathers pay (`dot::gathers_pay`:
/// Intel); elsewhere, with AVX2 and FMA, four rows at a time in four lanes as `f64`'s rows go,
/// the values of `x` loaded one by one, but for runs of short rows; otherwise each row in four
/// partial sums (`dot::four_sums`). On a Zen 5 EPYC the lanes took 0.76-0.95 of the time of the
/// rows in four partial sums on the comparison harness's matrices but `1138_bus` (short rows,
/// unchanged), serial or in a row split; gathered instead of loaded, they took 1.13-1.19 of the
/// loaded lanes' time on ten random columns a row (`x` of 2 and 4 MB) and 0.93-0.96 on
/// `powerlaw` (BENCHMARKS.md, "`f32` rows four at a time").
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
    #[cfg(target_arch = "x86_64")]
    if crate::dot::lanes_present() {
        let rows = out.len().min(pos.len().saturating_sub(1));
        if add || short_rows(crd, pos, rows).is_none() {
            // SAFETY: AVX2 and FMA are present; the rest is the caller's contract.
            return unsafe { in_lanes(x, crd, w, pos, out, add, false) };
        }
    }
    // SAFETY: the caller's contract, which `four_sums` shares.
    unsafe {
        rows_by(x, crd, w, pos, out, add, |x, crd, w| {
            crate::dot::four_sums(x, crd, w)
        })
    }
}

/// As [`each`], for `f64`: a run of short rows by [`four_steps`]; otherwise four rows at a time
/// in AVX2 lanes where the processor has AVX2 and FMA (`x86.rs`: the values of `x` gathered or
/// loaded one by one, [`gathered_rows`]), and without them each row in four partial sums
/// (`dot::four_sums`). The lanes give the hints of the streams of `crd` and
/// `w` past the caches, never those of the gathers from `x` (`prefetch::row_gathers_wanted`):
/// on a Zen 5 EPYC those took the comparison harness's `powerlaw` to 1.6-1.7 times the time
/// without them, and `uniform` to 1.0-1.07, where on a Zen 3 EPYC they had paid.
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
    if crate::dot::lanes_present() {
        let gathered = gathered_rows(x, crd, pos, rows, short.is_some());
        // Short rows (under two positions on average) loaded one by one take `one_pass`, in
        // `rows_by`.
        if gathered || short.is_none() {
            // SAFETY: AVX2 and FMA are present, and `x.len() <= i32::MAX` where gathered
            // (checked); the rest is the caller's contract.
            return unsafe { in_lanes(x, crd, w, pos, out, add, gathered) };
        }
    }
    // SAFETY: the caller's contract, which `four_sums` shares.
    unsafe {
        rows_by(x, crd, w, pos, out, add, |x, crd, w| {
            crate::dot::four_sums(x, crd, w)
        })
    }
}

/// Whether the lanes of a run of `rows` rows gather their values of `x` (AVX2's gather) rather
/// than load them one by one: always where gathers pay (`dot::gathers_pay`: Intel), and
/// elsewhere where the rows are not short and read an `x` of at least [`GATHERED_X_MIN_BYTES`]
/// at scattered places (`prefetch::scattered`), each value a miss of the core's caches. On a
/// Zen 5 EPYC the gathers keep more of those misses in flight: loaded lanes took 1.11-1.29 of
/// the gathered lanes' time on the comparison harness's `uniform` and `powerlaw` (serial, row
/// split and nonzero split), where on its `banded` (rows within a window of `x`) the gathers
/// took 1.5-1.7 of the loaded lanes' time, and 1.2-1.6 on its cache-resident matrices
/// (BENCHMARKS.md, "Gathered lanes where `x` misses").
#[cfg(target_arch = "x86_64")]
fn gathered_rows(x: &[f64], crd: &[Idx], pos: &[Idx], rows: usize, short: bool) -> bool {
    let missed = || {
        size_of_val(x) >= GATHERED_X_MIN_BYTES && crate::prefetch::scattered::<f64>(crd, pos, rows)
    };
    crate::dot::gathers_apply(x.len()) || (x.len() <= i32::MAX as usize && !short && missed())
}

/// The rows of `pos` four at a time in AVX2 lanes (`x86.rs`), the values of `x` gathered or
/// loaded, with the hints of the streams of `crd` and `w` where they are larger than the caches.
///
/// # Safety
/// AVX2 and FMA are present, and `x.len() <= i32::MAX` where `gathered`; the rest as for
/// [`each`].
#[cfg(target_arch = "x86_64")]
unsafe fn in_lanes<T: lanes::FourLanes>(
    x: &[T],
    crd: &[Idx],
    w: &[T],
    pos: &[Idx],
    out: &mut [T],
    add: bool,
    gathered: bool,
) {
    use crate::prefetch::prefetch_wanted;
    use x86::{GATHERED, LOADED, rows4};
    // SAFETY: the contract.
    unsafe {
        match (gathered, prefetch_wanted(crd) || prefetch_wanted(w)) {
            (true, false) => rows4::<T, GATHERED, NONE>(x, crd, w, pos, out, add),
            (true, true) => rows4::<T, GATHERED, STREAMS>(x, crd, w, pos, out, add),
            (false, false) => rows4::<T, LOADED, NONE>(x, crd, w, pos, out, add),
            (false, true) => rows4::<T, LOADED, STREAMS>(x, crd, w, pos, out, add),
        }
    }
}

/// The size of `x` from which rows that read it at scattered places gather it on processors
/// whose gathers do not pay everywhere: 1 MiB, a Zen 5 core's second-level cache. CSR SpMV of
/// ten random columns a row on a Zen 5 EPYC, loaded lanes' time against gathered lanes': `x` of
/// 0.8 MB 0.87-0.91, 2 MB 1.10-1.14, 4 MB 1.17-1.19 (serial and row split).
#[cfg(target_arch = "x86_64")]
const GATHERED_X_MIN_BYTES: usize = 1 << 20;

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
    use crate::prefetch::{prefetch_wanted, row_gathers_wanted};
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
            if HINTS != NONE {
                crate::prefetch::prefetch_ahead(crd, lo);
                crate::prefetch::prefetch_ahead(w, lo);
            }
            if HINTS == GATHERS {
                crate::prefetch::prefetch_row_gathers(x, crd, lo, hi);
            }
            dot(x, crd.get_unchecked(lo..hi), w.get_unchecked(lo..hi))
        };
        *y = if ADD { *y + t } else { t };
    }
}

#[cfg(target_arch = "x86_64")]
mod lanes;
#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(test)]
mod tests;
