//! `f64` and `f32` rows four at a time in AVX2 lanes: each row's positions four to a vector,
//! the four rows' lanes summed together and stored as one vector of four results. The vector
//! operations of each type are in `lanes.rs`; what is said below of `f64` was measured on it.
//!
//! The values of `x` come into the lanes in one of two ways, chosen by the caller for the
//! processor and the rows (`gathered_rows`): by AVX2's gather ([`GATHERED`]: Intel's `f64`,
//! whose `f32` rows go one by one in eight lanes instead, and AMD's where the rows' values of
//! `x` miss the caches), or loaded one at a time ([`LOADED`]: AMD's elsewhere, where its
//! gathers lose to loads). Loaded, four positions cost six loads (two 8-byte reads of four
//! coordinates, four values) and one of four weights, where a loop over the positions pays
//! three loads each; a row's first vector is masked, so a row of one to four positions costs no
//! branch on its length. On the comparison harness's
//! cache-resident matrices, whose time is the processor's loads, that took 0.74-1.0 of the time
//! of the loop per row on a Zen 5 EPYC, and 0.94-0.99 on its `uniform` and `banded`
//! (BENCHMARKS.md, "SpMV rows in loaded lanes"). Loaded lanes read a whole vector past a row's
//! last positions (masked out of the sum), so rows that end fewer than four positions before
//! the end of `crd` are summed one by one.
//!
//! Everything below [`rows4`] is `#[inline(always)]` rather than a `#[target_feature]`
//! function of its own: the compiler declined to inline a row's lanes into the row loop once
//! they grew, and a call per row (its vector result through memory) took 1.5-2.4 times as long.

use crate::Idx;
use crate::prefetch::{NONE, prefetch_ahead};

use super::lanes::FourLanes;

/// The values of `x` for a vector of positions come by AVX2's gather.
pub(super) const GATHERED: bool = true;

/// The values of `x` for a vector of positions are loaded one at a time into its lanes.
pub(super) const LOADED: bool = false;

/// The products of the positions `p..p + left.min(4)` in the lanes `0..left.min(4)`, the other
/// lanes zero: loaded as a whole vector, what is read past them (weights and values of `x`, an
/// infinity or a NaN among them) masked out of the products.
///
/// # Safety
/// AVX2; `p + 4 <= crd.len() <= w.len()`; every coordinate is below `x.len()`.
#[inline(always)]
unsafe fn masked<T: FourLanes>(x: &[T], crd: &[Idx], w: &[T], p: usize, left: usize) -> T::V {
    // SAFETY: `p + 4 <= crd.len() <= w.len()`; the coordinates are inside `x`; AVX2 is present.
    unsafe {
        let products = T::times(T::read(w.as_ptr().add(p)), T::loaded(x, crd, p));
        T::both(products, T::keep(left))
    }
}

/// The lanes of row `lo..hi` with the values of `x` loaded: its first four positions in one
/// masked vector (a row of one to four costs no branch on its length), then four at a time.
/// The last one to three positions are one more masked vector, or, where `in_row`, a sum in
/// order in lane 0: the masked vector reads `x` past the row, and where the arrays are larger
/// than the caches each such read is a miss of its own.
///
/// # Safety
/// AVX2 and FMA; `lo <= hi` and `hi + 4 <= crd.len() <= w.len()`; every coordinate is below
/// `x.len()`.
#[inline(always)]
unsafe fn loaded_lanes<T: FourLanes>(
    x: &[T],
    crd: &[Idx],
    w: &[T],
    (lo, hi): (usize, usize),
    in_row: bool,
) -> T::V {
    // SAFETY: `lo + 4 <= hi + 4 <= crd.len()`; the rest is the contract.
    let mut acc = unsafe { masked(x, crd, w, lo, hi - lo) };
    let mut p = lo + 4;
    if p >= hi {
        return acc;
    }
    while p + 4 <= hi {
        // SAFETY: `p + 4 <= hi <= crd.len() <= w.len()`; the coordinates are inside `x`; AVX2
        // and FMA are present.
        unsafe {
            acc = T::times_plus(T::read(w.as_ptr().add(p)), T::loaded(x, crd, p), acc);
        }
        p += 4;
    }
    if p == hi {
        return acc;
    }
    // SAFETY: `p < hi`, so `p + 4 <= hi + 4 <= crd.len()`; the rest is the contract.
    unsafe {
        let tail = match in_row {
            true => {
                let sum = crate::dot::in_order(x, crd.get_unchecked(p..hi), w.get_unchecked(p..hi));
                T::single(sum)
            }
            false => masked(x, crd, w, p, hi - p),
        };
        T::plus(acc, tail)
    }
}

/// The lanes of row `lo..hi` with the values of `x` gathered: four positions per gather, then
/// the last one to three in one masked gather (masked-off lanes read nothing and add zero).
///
/// # Safety
/// AVX2 and FMA; `lo <= hi <= crd.len() <= w.len()`; every coordinate is below
/// `x.len() <= i32::MAX`.
#[inline(always)]
unsafe fn gathered_lanes<T: FourLanes>(
    x: &[T],
    crd: &[Idx],
    w: &[T],
    (lo, hi): (usize, usize),
) -> T::V {
    // SAFETY: AVX2 and FMA are present (the contract), as every vector operation below needs.
    let mut acc = unsafe { T::zero() };
    let mut p = lo;
    while p + 4 <= hi {
        // SAFETY: `p + 4 <= hi <= crd.len() <= w.len()`; the coordinates are below
        // `x.len() <= i32::MAX`.
        unsafe {
            acc = T::times_plus(T::read(w.as_ptr().add(p)), T::gathered(x, crd, p), acc);
        }
        p += 4;
    }
    match hi - p {
        0 => acc,
        // SAFETY: `p + left = hi <= crd.len() <= w.len()`; the rest is the contract.
        left => unsafe { T::gathered_tail(x, crd, w, (p, left), acc) },
    }
}

/// The lanes of the row `segment`, after the hints `HINTS` (`prefetch.rs`: none, or the
/// streams of its coordinates and weights). `GATHER` chooses how the values of `x` come.
///
/// # Safety
/// As for [`gathered_lanes`] when `GATHER`, for [`loaded_lanes`] otherwise.
#[inline(always)]
unsafe fn row<T: FourLanes, const GATHER: bool, const HINTS: u8>(
    x: &[T],
    crd: &[Idx],
    w: &[T],
    segment: (usize, usize),
) -> T::V {
    if HINTS != NONE {
        prefetch_ahead(crd, segment.0);
        prefetch_ahead(w, segment.0);
    }
    // SAFETY: the contract. Where the arrays take hints they are larger than the caches, and
    // loaded lanes keep their reads of `x` inside the row (`in_row`, see `loaded_lanes`).
    unsafe {
        match GATHER {
            true => gathered_lanes(x, crd, w, segment),
            false => loaded_lanes(x, crd, w, segment, HINTS != NONE),
        }
    }
}

/// Four rows at a time, the rest one by one, with the hints `HINTS` (`prefetch.rs`: `NONE` or
/// `STREAMS`); `out[r]` is set, or added to when `add`. Each row's start is the end of the row
/// before, clamped as `segment` clamps it, so a row reads one bound of `pos`, not two.
///
/// # Safety
/// AVX2 and FMA; `w` is at least as long as `crd`; every coordinate is below `x.len()`, and
/// below `i32::MAX` when `GATHER`.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn rows4<T: FourLanes, const GATHER: bool, const HINTS: u8>(
    x: &[T],
    crd: &[Idx],
    w: &[T],
    pos: &[Idx],
    out: &mut [T],
    add: bool,
) {
    let rows = out.len().min(pos.len().saturating_sub(1));
    let n = crd.len();
    // SAFETY (of every `end`): called with `r <= rows < pos.len()` (or `pos` is empty and
    // `rows` is 0, and it is not called).
    let end = |r: usize| unsafe { (*pos.get_unchecked(r) as usize).min(n) };
    let mut start = if rows == 0 { 0 } else { end(0) };
    // The segment of the row after the last one taken.
    let mut taken = 0;
    let mut next = || {
        taken += 1;
        let hi = end(taken);
        let segment = (start.min(hi), hi);
        start = hi;
        segment
    };
    // Whether loaded lanes may read a whole vector past every position of rows ending by `hi`.
    let room = |hi: usize| GATHER || hi + 4 <= n;
    // SAFETY (of every `in_order`): called with segments clamped to `crd`, so of `w` too (the
    // contract), whose coordinates are inside `x`.
    let in_order = |(lo, hi): (usize, usize)| unsafe {
        crate::dot::in_order(x, crd.get_unchecked(lo..hi), w.get_unchecked(lo..hi))
    };
    let mut r = 0;
    while r + 4 <= rows {
        let (s0, s1, s2, s3) = (next(), next(), next(), next());
        if !room(s0.1.max(s1.1).max(s2.1).max(s3.1)) {
            // Rows near the end of `crd`.
            for (y, segment) in out[r..r + 4].iter_mut().zip([s0, s1, s2, s3]) {
                let t = in_order(segment);
                *y = if add { *y + t } else { t };
            }
            r += 4;
            continue;
        }
        // SAFETY: each segment is clamped to `lo <= hi <= crd.len()`, and loaded lanes have
        // room past it (checked); the rest is the contract.
        let four = unsafe {
            let (a0, a1) = (
                row::<T, GATHER, HINTS>(x, crd, w, s0),
                row::<T, GATHER, HINTS>(x, crd, w, s1),
            );
            let (a2, a3) = (
                row::<T, GATHER, HINTS>(x, crd, w, s2),
                row::<T, GATHER, HINTS>(x, crd, w, s3),
            );
            T::sums(a0, a1, a2, a3)
        };
        // SAFETY: `r + 4 <= rows <= out.len()`.
        unsafe {
            let at = out.as_mut_ptr().add(r);
            let four = if add {
                T::plus(T::read(at), four)
            } else {
                four
            };
            T::write(at, four);
        }
        r += 4;
    }
    for y in &mut out[r..rows] {
        let segment = next();
        let t = match room(segment.1) {
            // SAFETY: as above.
            true => unsafe { T::sum(row::<T, GATHER, HINTS>(x, crd, w, segment)) },
            false => in_order(segment),
        };
        *y = if add { *y + t } else { t };
    }
}
