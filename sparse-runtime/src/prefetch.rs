//! Software prefetch for the sequential reads of generated loops.
//!
//! A CSR row is a short loop (seven nonzeros on a 3-D stencil), and the next row's column indices
//! and values start where it ends. The hardware prefetcher follows such streams, but it does not
//! run far ahead and restarts at every page boundary, so a kernel made of short loops waits on
//! memory at most rows. Asking for the data a fixed distance ahead at the start of each loop hides
//! that wait: on the benchmarks' 3-D stencil it made a one-thread CSR SpMV 1.6x faster.
//!
//! Generated code calls [`prefetch_ahead`] before a loop that reads an input's coordinates or
//! values at its loop variable. Nothing here changes what a program computes.
//!
//! An array that fits in a core's caches gains nothing from the hints: called again and again on
//! a small matrix (an iterative solver's SpMV), a kernel finds its arrays in the cache, and the
//! two hints per row are pure cost, 10-15% of a CSR SpMV's time on matrices of a few thousand
//! rows. [`prefetch_ahead`] therefore gives hints only for arrays of at least
//! `PREFETCH_MIN_BYTES` (2 MiB).
#![allow(unsafe_code)]

use crate::Idx;

/// How far past a loop's first element [`prefetch_ahead`] asks for data, in bytes: sixteen cache
/// lines. Measured on the stencil SpMV (one thread, 4,096,000 rows): 8 lines 25.3 ms, 16 lines
/// 18.7 ms, 32 lines 18.1-19.0 ms, 64 lines 20.2 ms, none 30.3 ms; on two threads 16 lines were
/// 2-3% faster than 32 and 5% faster than 64.
pub const PREFETCH_DISTANCE_BYTES: usize = 1024;

/// The size below which [`prefetch_ahead`] gives no hints for an array: 2 MiB, a core's
/// second-level cache on recent Xeons. Measured on a CSR SpMV with 8 uniform random columns a
/// row (2-core shared Xeon, one thread, fastest call with hints / without): 16,000 rows (values
/// 1 MiB) 1.05, 64,000 rows (4 MiB) 0.95, 256,000 rows 0.83, 1,000,000 rows 0.75.
pub const PREFETCH_MIN_BYTES: usize = 2 << 20;

/// The size below which [`prefetch_gather`] gives no hints for the array it gathers from: 8 MiB.
/// A gathered array of a few MiB stays in the second- and last-level caches from call to call,
/// whose latency the out-of-order core hides without help: with `B` of 2.2 MiB (SpMM of
/// `lp_woodw` and `lp_qap12`, 32 columns) the hints made one- and two-thread SpMM 8-12% slower
/// (paired runs, 0.88-0.92 without them); from memory they made it faster (`BENCHMARKS.md`).
pub const GATHER_HINT_MIN_BYTES: usize = 8 << 20;

/// Whether [`prefetch_ahead`] gives hints for `slice`: it takes at least `PREFETCH_MIN_BYTES`
/// (2 MiB). Generated code tests it once before a loop whose iterations each hint `slice`, and
/// runs a copy of the loop without the hints when it is false (on a matrix of a few thousand
/// rows, the two tests a row cost 5-15% of an SpMV's time).
#[inline(always)]
pub fn prefetch_wanted<T>(slice: &[T]) -> bool {
    size_of_val(slice) >= PREFETCH_MIN_BYTES
}

/// Hints the processor to bring `slice[from + d]` into the cache, `d` being
/// `PREFETCH_DISTANCE_BYTES` worth of elements, when `slice` takes at least
/// `PREFETCH_MIN_BYTES` (2 MiB); an address past the end of the slice is fine (the hint is
/// dropped or fetches a line nobody reads). Does nothing on targets other than x86_64.
///
/// The size test costs one compare of a loop-invariant length, which LLVM hoists out of the loop
/// around the call where it can.
///
/// No bounds check on purpose: on a matrix whose gathers from `x` are the limit (random columns,
/// short rows), a `slice.get(..)` before each hint cost 7-8% of an SpMV's time, the unchecked hint
/// nothing measurable (scratch A/B, interleaved rounds on two threads).
#[inline(always)]
pub fn prefetch_ahead<T>(slice: &[T], from: usize) {
    if !prefetch_wanted(slice) {
        return;
    }
    let ahead = PREFETCH_DISTANCE_BYTES / size_of::<T>().max(1);
    prefetch(slice.as_ptr().wrapping_add(from.wrapping_add(ahead)));
}

/// Hints the processor to bring `values[offset + crd[at] * stride..]` into the cache: the element
/// (for a matrix gathered by rows, the row of `stride` elements, up to `ROW_LINES` (4) cache lines
/// of it) that a gather will read `at - p` iterations after the one at position `p` reads
/// `values[offset + crd[p] * stride]`. Nothing happens when `at` is past the end of `crd`, or
/// when `values` takes less than `GATHER_HINT_MIN_BYTES`, 8 MiB (it stays in the caches from call
/// to call); an element past the end of `values` is fine, as for [`prefetch_ahead`].
///
/// The hardware prefetcher cannot follow a gather whose addresses come from another array (random
/// columns of a graph's adjacency matrix): each read of `values` waits on memory, and only as
/// many overlap as the core keeps in flight. Asking for them well ahead overlaps more.
#[inline(always)]
pub fn prefetch_gather<T>(values: &[T], crd: &[Idx], at: usize, offset: usize, stride: usize) {
    if size_of_val(values) < GATHER_HINT_MIN_BYTES {
        return;
    }
    if let Some(&c) = crd.get(at) {
        let element = offset.wrapping_add((c as usize).wrapping_mul(stride));
        let first = values.as_ptr().wrapping_add(element);
        let bytes = stride.saturating_mul(size_of::<T>());
        let lines = bytes.div_ceil(LINE).clamp(1, ROW_LINES);
        for line in 0..lines {
            prefetch(first.cast::<u8>().wrapping_add(line * LINE));
        }
    }
}

/// The hints of a run of SpMV rows (`row_dots`): none, ...
pub(crate) const NONE: u8 = 0;
/// ... the streams of its coordinates and weights ([`prefetch_ahead`]), ...
pub(crate) const STREAMS: u8 = 1;
/// ... or those and the values its gathers read [`GATHER_AHEAD`] positions ahead
/// ([`prefetch_row_gathers`]).
pub(crate) const GATHERS: u8 = 2;

/// How many positions ahead [`prefetch_row_gathers`] hints a gather: about two rows of 30
/// positions, six of ten. Measured on a CSR SpMV of `uniform` and `powerlaw` (the comparison
/// harness's, ten random columns a row, `x` of 8 MB) on the Zen 3 EPYC, time against none: 16
/// positions 0.76-0.97, 32 0.76-0.96, 64 0.67-0.93, 128 0.68-0.96 (one and two threads).
pub const GATHER_AHEAD: usize = 64;

/// The size of `x` from which a run of SpMV rows whose gathers are scattered hints them: 6 MiB.
/// Below it (CSR SpMV of ten random columns a row, `x` of 0.8, 2 and 4 MB, Zen 3 EPYC with a 32
/// MiB last-level cache) the hints moved the time by -8% to +12%, as noise does; from 8 MB
/// they took it to 0.86 (one thread) and 0.93 (two) on `uniform`, and to 0.65-0.80 with `x` of
/// 16 MB.
pub const ROW_GATHER_HINT_MIN_BYTES: usize = 6 << 20;

/// Whether a run of `rows` SpMV rows over `crd` and `pos` should hint its gathers from `x`
/// (the rows summed one by one: `f32`, integers, and `f64` without AVX2; the `f64` lanes of
/// `row_dots/x86.rs` do not, since on a Zen 5 EPYC these hints cost): `x` takes at least
/// [`ROW_GATHER_HINT_MIN_BYTES`], and the rows read it at [`scattered`] places.
pub(crate) fn row_gathers_wanted<T>(x: &[T], crd: &[Idx], pos: &[Idx], rows: usize) -> bool {
    size_of_val(x) >= ROW_GATHER_HINT_MIN_BYTES && scattered::<T>(crd, pos, rows)
}

/// Whether a run of `rows` SpMV rows over `crd` and `pos` reads an `x` of `T` at scattered
/// places: of up to four pairs of successive rows spread over the run, most read values of `x`
/// more than [`WIDE_BYTES`] apart (between the smallest and the largest of the two rows' first
/// and last coordinates). A row of a graph with random columns does; the rows of a banded or
/// stencil matrix read `x` in a window, or in streams the hardware follows, and there the hints
/// of their gathers only cost (1.08-1.17 of the time on the comparison harness's `banded`,
/// whose rows read ten random columns within 2,000).
pub(crate) fn scattered<T>(crd: &[Idx], pos: &[Idx], rows: usize) -> bool {
    if rows < 2 {
        return false;
    }
    let ends = |r: usize| {
        let (lo, hi) = (*pos.get(r)? as usize, *pos.get(r + 1)? as usize);
        let (first, last) = (crd.get(lo)?, crd.get(hi.checked_sub(1)?)?);
        (lo < hi).then_some((*first as usize, *last as usize))
    };
    let wide = WIDE_BYTES / size_of::<T>().max(1);
    let (mut pairs, mut far) = (0, 0);
    for r in (0..4).map(|k| k * (rows - 1) / 4) {
        if let (Some(a), Some(b)) = (ends(r), ends(r + 1)) {
            pairs += 1;
            let reads = [a.0, a.1, b.0, b.1];
            let (low, high) = (reads.iter().min(), reads.iter().max());
            far += usize::from(high.zip(low).is_some_and(|(h, l)| h - l > wide));
        }
    }
    far * 2 > pairs
}

/// Two rows whose reads of `x` lie further apart than this (a Zen 3 core's second-level cache,
/// 512 KiB) read it at scattered places for [`scattered`].
const WIDE_BYTES: usize = 512 << 10;

/// Hints the values of `x` that the positions [`GATHER_AHEAD`] past `lo..hi` gather (none past
/// the end of `crd`): called once per row before its dot product, it asks for the rows' gathers
/// two or so rows ahead, which the hardware prefetcher cannot predict.
#[inline(always)]
pub(crate) fn prefetch_row_gathers<T>(x: &[T], crd: &[Idx], lo: usize, hi: usize) {
    let end = hi.saturating_add(GATHER_AHEAD).min(crd.len());
    let ahead = crd.get(lo.saturating_add(GATHER_AHEAD)..end).unwrap_or(&[]);
    for &c in ahead {
        prefetch(x.as_ptr().wrapping_add(c as usize));
    }
}

/// A cache line's bytes, on the x86_64 processors the hints are for.
const LINE: usize = 64;

/// The most cache lines [`prefetch_gather`] asks for from one row: a row of 32 `f64` (SpMM with
/// 32 columns). A longer row is read long enough for the hardware prefetcher to follow it.
pub const ROW_LINES: usize = 4;

#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn prefetch<T>(at: *const T) {
    use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: the intrinsic needs SSE, which every x86_64 target has. It is LLVM's
    // `llvm.prefetch`, which "does not modify the behavior of the program" and "cannot trap": any
    // address is allowed, including one outside every allocation, and nothing is dereferenced.
    // `at` was formed with `wrapping_add`, which is defined for any offset.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(at.cast::<i8>()) }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn prefetch<T>(_at: *const T) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefetch_ahead_is_a_no_op_on_any_index() {
        let values: Vec<f64> = (0..1000).map(f64::from).collect();
        let before = values.clone();
        for from in [0, 1, 127, 128, 500, 999, 1000, 5000, usize::MAX] {
            prefetch_ahead(&values, from);
        }
        prefetch_ahead::<u32>(&[], 0);
        prefetch_ahead(&[(); 4], usize::MAX);
        assert_eq!(values, before);
    }

    #[test]
    fn prefetch_gather_is_a_no_op_on_any_position_and_coordinate() {
        // Large enough to be hinted.
        let values: Vec<f64> = (0..GATHER_HINT_MIN_BYTES / 8).map(|v| v as f64).collect();
        let before = values.clone();
        let crd = [0, 99, 100, 7_000_000, Idx::MAX];
        for at in [0, 1, 2, 3, 4, 5, 1000, usize::MAX] {
            for (offset, stride) in [(0, 0), (0, 1), (50, 64), (usize::MAX, usize::MAX)] {
                prefetch_gather(&values, &crd, at, offset, stride);
                prefetch_gather(&values[..100], &crd, at, offset, stride);
            }
        }
        prefetch_gather::<f64>(&[], &crd, 4, 0, 1);
        prefetch_gather(&values, &[], 0, 0, 1);
        assert_eq!(values, before);
    }

    /// Rows of `len` coordinates each, row `r`'s `k`-th at `at(r, k)`, as `pos` and `crd`.
    fn rows(count: usize, len: usize, at: impl Fn(usize, usize) -> usize) -> (Vec<Idx>, Vec<Idx>) {
        let pos = (0..=count).map(|r| (r * len) as Idx).collect();
        let crd = (0..count * len)
            .map(|p| at(p / len, p % len) as Idx)
            .collect();
        (pos, crd)
    }

    #[test]
    fn row_gathers_are_hinted_for_scattered_rows_of_a_large_x_only() {
        let large = vec![0.0f64; ROW_GATHER_HINT_MIN_BYTES / 8];
        let n = large.len();
        // Ten columns spread over all of `x`, different in every row (a random graph's rows).
        let (pos, spread) = rows(100, 10, |r, k| (k * n / 10 + r * 7919) % n);
        assert!(row_gathers_wanted(&large, &spread, &pos, 100));
        assert!(
            !row_gathers_wanted(&large[..n - 1], &spread, &pos, 100),
            "x too small"
        );
        assert!(!row_gathers_wanted(&large, &spread, &pos, 1), "one row");
        // Ten columns within 2,000 of the row, rows next to each other (`banded`).
        let (_, band) = rows(100, 10, |r, k| r * 50 + k * 200);
        assert!(!row_gathers_wanted(&large, &band, &pos, 100));
        // Rows of one column each, random: scattered too.
        let (one, single) = rows(100, 1, |r, _| (r * 104_729) % n);
        assert!(row_gathers_wanted(&large, &single, &one, 100));
        // Empty rows and a `pos` past the end of `crd` decide nothing and read nothing outside.
        let empty = vec![0 as Idx; 101];
        assert!(!row_gathers_wanted(&large, &spread, &empty, 100));
        let past: Vec<Idx> = (0..=100).map(|r| (r * 1000) as Idx).collect();
        assert!(!row_gathers_wanted(&large, &spread, &past, 100));
    }

    #[test]
    fn prefetch_row_gathers_is_a_no_op_on_any_row() {
        let x: Vec<f64> = (0..1000).map(f64::from).collect();
        let before = x.clone();
        let crd = [0, 999, 5_000_000, Idx::MAX];
        for (lo, hi) in [
            (0, 4),
            (3, 1),
            (0, 0),
            (2, usize::MAX),
            (usize::MAX, usize::MAX),
        ] {
            prefetch_row_gathers(&x, &crd, lo, hi);
            prefetch_row_gathers(&x, &[], lo, hi);
        }
        assert_eq!(x, before);
    }
}
