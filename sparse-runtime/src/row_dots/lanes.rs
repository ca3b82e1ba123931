//! The vector operations of the row lanes (`x86.rs`), for each type they take: four `f64` in an
//! AVX register, four `f32` in an SSE one. Everything here is `#[inline(always)]`, for the
//! reason `x86.rs` gives.
//!
//! # Safety (of every method)
//! AVX2 and FMA are present, and the slices hold what each method reads.

use std::arch::x86_64::*;

use crate::{Idx, Scalar};

/// A type whose rows go four at a time through the lanes of `x86.rs`: four values to a vector.
pub(crate) trait FourLanes: Scalar {
    /// Four values.
    type V: Copy;

    /// Four zeros.
    unsafe fn zero() -> Self::V;

    /// `t` in lane 0, zeros in the others.
    unsafe fn single(t: Self) -> Self::V;

    /// The four values from `at`. Safety: `at..at + 4` is readable.
    unsafe fn read(at: *const Self) -> Self::V;

    /// Stores the four values at `at`. Safety: `at..at + 4` is writable.
    unsafe fn write(at: *mut Self, v: Self::V);

    /// `x` at the coordinates of positions `p..p + 4`, lane by lane, loaded one value at a time
    /// (the coordinates read as two 8-byte pairs). Safety: `p + 4 <= crd.len()`; every
    /// coordinate is below `x.len()`.
    unsafe fn loaded(x: &[Self], crd: &[Idx], p: usize) -> Self::V;

    /// `x` at the coordinates of positions `p..p + 4` by one AVX2 gather. Safety: `p + 4 <=
    /// crd.len()`; every coordinate is below `x.len() <= i32::MAX`.
    unsafe fn gathered(x: &[Self], crd: &[Idx], p: usize) -> Self::V;

    /// `acc` plus the products of positions `p..p + left` (`left` below 4) in the lanes
    /// `0..left`, by masked loads and a masked gather, which read nothing for the other lanes.
    /// Safety: `p + left <= crd.len() <= w.len()`; coordinates as for [`FourLanes::gathered`].
    unsafe fn gathered_tail(
        x: &[Self],
        crd: &[Idx],
        w: &[Self],
        tail: (usize, usize),
        acc: Self::V,
    ) -> Self::V;

    /// All ones in the lanes below `left.min(4)`, zeros in the others.
    unsafe fn keep(left: usize) -> Self::V;

    /// Lane by lane: `a & b` (bits), `a * b`, `a * b + c` (one rounding), `a + b`.
    unsafe fn both(a: Self::V, b: Self::V) -> Self::V;
    unsafe fn times(a: Self::V, b: Self::V) -> Self::V;
    unsafe fn times_plus(a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    unsafe fn plus(a: Self::V, b: Self::V) -> Self::V;

    /// The sums of four vectors' lanes, as one vector `[Σa0, Σa1, Σa2, Σa3]`.
    unsafe fn sums(a0: Self::V, a1: Self::V, a2: Self::V, a3: Self::V) -> Self::V;

    /// The sum of one vector's lanes.
    unsafe fn sum(a: Self::V) -> Self;
}

/// The two 8-byte pairs of coordinates of positions `p..p + 4`.
///
/// # Safety
/// `p + 4 <= crd.len()`.
#[inline(always)]
unsafe fn pairs(crd: &[Idx], p: usize) -> (u64, u64) {
    debug_assert!(p + 4 <= crd.len(), "a vector past the end of `crd`");
    // SAFETY: `p + 4 <= crd.len()`, so both pairs are inside `crd`.
    unsafe {
        let at = crd.as_ptr().add(p);
        (
            at.cast::<u64>().read_unaligned(),
            at.add(2).cast::<u64>().read_unaligned(),
        )
    }
}

/// The element of `x` at the coordinate in the low (`HIGH` false) or high half of a pair.
///
/// # Safety
/// The coordinate is below `x.len()`.
#[inline(always)]
unsafe fn at<T, const HIGH: bool>(x: &[T], pair: u64) -> *const T {
    let c = if HIGH { pair >> 32 } else { pair & 0xffff_ffff } as usize;
    debug_assert!(c < x.len());
    // SAFETY: `c < x.len()` (the contract).
    unsafe { x.as_ptr().add(c) }
}

impl FourLanes for f64 {
    type V = __m256d;

    #[inline(always)]
    unsafe fn zero() -> __m256d {
        unsafe { _mm256_setzero_pd() }
    }

    #[inline(always)]
    unsafe fn single(t: f64) -> __m256d {
        unsafe { _mm256_setr_pd(t, 0.0, 0.0, 0.0) }
    }

    #[inline(always)]
    unsafe fn read(at: *const f64) -> __m256d {
        unsafe { _mm256_loadu_pd(at) }
    }

    #[inline(always)]
    unsafe fn write(at: *mut f64, v: __m256d) {
        unsafe { _mm256_storeu_pd(at, v) }
    }

    #[inline(always)]
    unsafe fn loaded(x: &[f64], crd: &[Idx], p: usize) -> __m256d {
        // SAFETY: the contract.
        unsafe {
            let (low, high) = pairs(crd, p);
            let pair =
                |c: u64| _mm_loadh_pd(_mm_load_sd(at::<_, false>(x, c)), at::<_, true>(x, c));
            _mm256_insertf128_pd::<1>(_mm256_castpd128_pd256(pair(low)), pair(high))
        }
    }

    #[inline(always)]
    unsafe fn gathered(x: &[f64], crd: &[Idx], p: usize) -> __m256d {
        // SAFETY: `p + 4 <= crd.len()`; the coordinates are below `x.len() <= i32::MAX`, so as
        // signed offsets scaled by 8 they address `x`.
        unsafe {
            let at = _mm_loadu_si128(crd.as_ptr().add(p).cast());
            _mm256_i32gather_pd::<8>(x.as_ptr(), at)
        }
    }

    #[inline(always)]
    unsafe fn gathered_tail(
        x: &[f64],
        crd: &[Idx],
        w: &[f64],
        (p, left): (usize, usize),
        acc: __m256d,
    ) -> __m256d {
        // SAFETY: lanes below `left` are positions inside `crd` and `w`; the masked loads and
        // gather neither read nor fault on the lanes masked off.
        unsafe {
            let keep = _mm_cmpgt_epi32(_mm_set1_epi32(left as i32), _mm_setr_epi32(0, 1, 2, 3));
            let keep64 = _mm256_cvtepi32_epi64(keep);
            let at = _mm_maskload_epi32(crd.as_ptr().add(p).cast(), keep);
            let xs = _mm256_mask_i32gather_pd::<8>(
                _mm256_setzero_pd(),
                x.as_ptr(),
                at,
                _mm256_castsi256_pd(keep64),
            );
            let ws = _mm256_maskload_pd(w.as_ptr().add(p), keep64);
            _mm256_fmadd_pd(ws, xs, acc)
        }
    }

    #[inline(always)]
    unsafe fn keep(left: usize) -> __m256d {
        unsafe {
            _mm256_castsi256_pd(_mm256_cmpgt_epi64(
                _mm256_set1_epi64x(left.min(4) as i64),
                _mm256_setr_epi64x(0, 1, 2, 3),
            ))
        }
    }

    #[inline(always)]
    unsafe fn both(a: __m256d, b: __m256d) -> __m256d {
        unsafe { _mm256_and_pd(a, b) }
    }

    #[inline(always)]
    unsafe fn times(a: __m256d, b: __m256d) -> __m256d {
        unsafe { _mm256_mul_pd(a, b) }
    }

    #[inline(always)]
    unsafe fn times_plus(a: __m256d, b: __m256d, c: __m256d) -> __m256d {
        unsafe { _mm256_fmadd_pd(a, b, c) }
    }

    #[inline(always)]
    unsafe fn plus(a: __m256d, b: __m256d) -> __m256d {
        unsafe { _mm256_add_pd(a, b) }
    }

    #[inline(always)]
    unsafe fn sums(a0: __m256d, a1: __m256d, a2: __m256d, a3: __m256d) -> __m256d {
        unsafe {
            // [a0 01, a1 01, a0 23, a1 23] and the same for rows 2 and 3, then the halves.
            let (h01, h23) = (_mm256_hadd_pd(a0, a1), _mm256_hadd_pd(a2, a3));
            _mm256_add_pd(
                _mm256_permute2f128_pd::<0x20>(h01, h23),
                _mm256_permute2f128_pd::<0x31>(h01, h23),
            )
        }
    }

    #[inline(always)]
    unsafe fn sum(a: __m256d) -> f64 {
        unsafe {
            let pair = _mm_add_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd::<1>(a));
            _mm_cvtsd_f64(_mm_add_sd(pair, _mm_unpackhi_pd(pair, pair)))
        }
    }
}

impl FourLanes for f32 {
    type V = __m128;

    #[inline(always)]
    unsafe fn zero() -> __m128 {
        unsafe { _mm_setzero_ps() }
    }

    #[inline(always)]
    unsafe fn single(t: f32) -> __m128 {
        unsafe { _mm_setr_ps(t, 0.0, 0.0, 0.0) }
    }

    #[inline(always)]
    unsafe fn read(at: *const f32) -> __m128 {
        unsafe { _mm_loadu_ps(at) }
    }

    #[inline(always)]
    unsafe fn write(at: *mut f32, v: __m128) {
        unsafe { _mm_storeu_ps(at, v) }
    }

    #[inline(always)]
    unsafe fn loaded(x: &[f32], crd: &[Idx], p: usize) -> __m128 {
        // SAFETY: the contract.
        unsafe {
            let (low, high) = pairs(crd, p);
            _mm_setr_ps(
                *at::<_, false>(x, low),
                *at::<_, true>(x, low),
                *at::<_, false>(x, high),
                *at::<_, true>(x, high),
            )
        }
    }

    #[inline(always)]
    unsafe fn gathered(x: &[f32], crd: &[Idx], p: usize) -> __m128 {
        // SAFETY: as for `f64`, the offsets scaled by 4.
        unsafe {
            let at = _mm_loadu_si128(crd.as_ptr().add(p).cast());
            _mm_i32gather_ps::<4>(x.as_ptr(), at)
        }
    }

    #[inline(always)]
    unsafe fn gathered_tail(
        x: &[f32],
        crd: &[Idx],
        w: &[f32],
        (p, left): (usize, usize),
        acc: __m128,
    ) -> __m128 {
        // SAFETY: as for `f64`.
        unsafe {
            let keep = _mm_cmpgt_epi32(_mm_set1_epi32(left as i32), _mm_setr_epi32(0, 1, 2, 3));
            let at = _mm_maskload_epi32(crd.as_ptr().add(p).cast(), keep);
            let xs = _mm_mask_i32gather_ps::<4>(
                _mm_setzero_ps(),
                x.as_ptr(),
                at,
                _mm_castsi128_ps(keep),
            );
            let ws = _mm_maskload_ps(w.as_ptr().add(p), keep);
            _mm_fmadd_ps(ws, xs, acc)
        }
    }

    #[inline(always)]
    unsafe fn keep(left: usize) -> __m128 {
        unsafe {
            _mm_castsi128_ps(_mm_cmpgt_epi32(
                _mm_set1_epi32(left.min(4) as i32),
                _mm_setr_epi32(0, 1, 2, 3),
            ))
        }
    }

    #[inline(always)]
    unsafe fn both(a: __m128, b: __m128) -> __m128 {
        unsafe { _mm_and_ps(a, b) }
    }

    #[inline(always)]
    unsafe fn times(a: __m128, b: __m128) -> __m128 {
        unsafe { _mm_mul_ps(a, b) }
    }

    #[inline(always)]
    unsafe fn times_plus(a: __m128, b: __m128, c: __m128) -> __m128 {
        unsafe { _mm_fmadd_ps(a, b, c) }
    }

    #[inline(always)]
    unsafe fn plus(a: __m128, b: __m128) -> __m128 {
        unsafe { _mm_add_ps(a, b) }
    }

    #[inline(always)]
    unsafe fn sums(a0: __m128, a1: __m128, a2: __m128, a3: __m128) -> __m128 {
        // [a0 01, a0 23, a1 01, a1 23], the same for rows 2 and 3, then each row's two halves.
        unsafe { _mm_hadd_ps(_mm_hadd_ps(a0, a1), _mm_hadd_ps(a2, a3)) }
    }

    #[inline(always)]
    unsafe fn sum(a: __m128) -> f32 {
        unsafe {
            let h = _mm_hadd_ps(a, a);
            _mm_cvtss_f32(_mm_hadd_ps(h, h))
        }
    }
}
