//! The dot product of a segment of a level's values with a dense operand read at the segment's
//! coordinates, `Σ w[p] · x[crd[p]]`: one SpMV row, whole.
//!
//! In order, one position per step, such a row is a chain of dependent additions with a load,
//! a bounds-free gather and a multiply per position. With AVX2 the gather instruction reads four
//! `f64` (eight `f32`) of `x` at once and the row is summed in as many lanes, then the lanes
//! added: on an Intel Xeon's run of the comparison harness's cache-resident matrices (measured
//! in BENCHMARKS.md) a row cost about two thirds of the in-order loop's time. On AMD's
//! processors the gathers lose to the in-order loop, so they run only where they pay
//! ([`gathers_pay`]). The sum's order differs from the in-order loop's, so floats may round
//! differently (as they do under a nonzero split).
//!
//! Everything here rests on one invariant the caller states: every coordinate is inside `x`.
#![allow(unsafe_code)]

use crate::{Idx, Scalar};

/// The sum in order of positions, unchecked.
///
/// # Safety
/// `w` is at least as long as `crd`, and every element of `crd` is below `x.len()`.
#[inline(always)]
pub(crate) unsafe fn in_order<T: Scalar>(x: &[T], crd: &[Idx], w: &[T]) -> T {
    let mut t = T::ZERO;
    let mut p = 0;
    while p < crd.len() {
        // SAFETY: `p < crd.len() <= w.len()`, and `crd[p]` is below `x.len()` (the contract).
        unsafe {
            let c = *crd.get_unchecked(p) as usize;
            debug_assert!(c < x.len());
            t += *w.get_unchecked(p) * *x.get_unchecked(c);
        }
        p += 1;
    }
    t
}

/// The sum in four interleaved partial sums, `(s0 + s1) + (s2 + s3)`, then the last one to three
/// positions in order (segments shorter than eight in order): for floats summed without
/// gathers. In order, a row is one chain of
/// dependent additions, each waiting for the last (three or four cycles); four chains let the
/// processor overlap them, and keep more rows' reads of `x` in flight. On the Zen 3 EPYC the
/// generated SpMV took 0.70-0.93 of the in-order rows' time on nine of the comparison harness's
/// eleven matrices, 1.05 on `lp_qap12` and 1.14 on the uniform one (BENCHMARKS.md, "Four partial
/// sums").
///
/// # Safety
/// `w` is at least as long as `crd`, and every element of `crd` is below `x.len()`.
#[inline(always)]
pub(crate) unsafe fn four_sums<T: Scalar>(x: &[T], crd: &[Idx], w: &[T]) -> T {
    let n = crd.len();
    if n < 8 {
        // SAFETY: the contract.
        return unsafe { in_order(x, crd, w) };
    }
    let mut s = [T::ZERO; 4];
    let mut p = 0;
    while p + 4 <= n {
        for (k, s) in s.iter_mut().enumerate() {
            // SAFETY: `p + k < p + 4 <= n = crd.len() <= w.len()`, and `crd[p + k]` is below
            // `x.len()` (the contract).
            unsafe {
                let c = *crd.get_unchecked(p + k) as usize;
                debug_assert!(c < x.len());
                *s += *w.get_unchecked(p + k) * *x.get_unchecked(c);
            }
        }
        p += 4;
    }
    // SAFETY: the contract, for the positions after `p` (at most `n`).
    let tail = unsafe { in_order(x, crd.get_unchecked(p..), w.get_unchecked(p..)) };
    (s[0] + s[1]) + (s[2] + s[3]) + tail
}

/// Whether gathers from `x` run on AVX2: they pay on this processor ([`gathers_pay`]), and every
/// coordinate fits the gather instruction's signed 32-bit offsets (it does when `x` is shorter
/// than `i32::MAX`, since every coordinate is below `x.len()`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn gathers_apply(x_len: usize) -> bool {
    x_len <= i32::MAX as usize && gathers_pay()
}

/// Whether the processor has AVX2 and FMA, which the lanes here need.
#[cfg(target_arch = "x86_64")]
pub(crate) fn lanes_present() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
}

/// Whether AVX2's gathers beat loads one at a time here: on Intel processors with AVX2 and FMA,
/// yes (a row took about two thirds of the in-order loop's time on a Cascade Lake Xeon, and
/// four rows at a time less); on AMD's, whose gathers are sequenced in microcode, no: on a Zen 3
/// EPYC a hand-written in-order SpMV took 0.54-0.80 of the time of the generated one with
/// gathers on every matrix of the comparison harness, cache-resident or not (BENCHMARKS.md,
/// "Gathers by vendor"). Other vendors are not
/// measured and take the in-order loop. Tested once; the answer is kept.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn gathers_pay() -> bool {
    use std::sync::atomic::{AtomicU8, Ordering};
    // 0: not tested yet; 1: no; 2: yes.
    static PAY: AtomicU8 = AtomicU8::new(0);
    match PAY.load(Ordering::Relaxed) {
        0 => {
            let pay = lanes_present() && intel();
            PAY.store(1 + u8::from(pay), Ordering::Relaxed);
            pay
        }
        known => known == 2,
    }
}

/// Whether the processor's vendor string (CPUID leaf 0) is Intel's.
#[cfg(target_arch = "x86_64")]
#[cold]
fn intel() -> bool {
    // SAFETY: every x86_64 processor has CPUID, and leaf 0 always exists.
    #[allow(unused_unsafe)]
    let id = unsafe { std::arch::x86_64::__cpuid(0) };
    (id.ebx, id.edx, id.ecx) == (0x756e_6547, 0x4965_6e69, 0x6c65_746e) // "GenuineIntel"
}

/// Whether the AVX2 path may run on a segment: gathers apply, and the segment fills the lanes
/// at least once (shorter ones are summed in order: the lanes' set-up and final sum cost more
/// than they save on a row of one to three entries, `1138_bus`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn lanes_apply(lanes: usize, x_len: usize, crd: &[Idx]) -> bool {
    crd.len() >= lanes && gathers_apply(x_len)
}

/// `Σ w[p] · x[crd[p]]` for `f64`.
///
/// # Safety
/// `w` is at least as long as `crd`, and every element of `crd` is below `x.len()`.
#[inline(always)]
pub(crate) unsafe fn f64s(x: &[f64], crd: &[Idx], w: &[f64]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if lanes_apply(4, x.len(), crd) {
        // SAFETY: AVX2 and FMA are present and `x.len() <= i32::MAX` (checked); the rest is
        // the caller's contract.
        return unsafe { x86::f64x4(x, crd, w) };
    }
    // SAFETY: the caller's contract.
    unsafe { four_sums(x, crd, w) }
}

/// `Σ w[p] · x[crd[p]]` for `f32`.
///
/// # Safety
/// `w` is at least as long as `crd`, and every element of `crd` is below `x.len()`.
#[inline(always)]
pub(crate) unsafe fn f32s(x: &[f32], crd: &[Idx], w: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if lanes_apply(8, x.len(), crd) {
        // SAFETY: as in `f64s`.
        return unsafe { x86::f32x8(x, crd, w) };
    }
    // SAFETY: the caller's contract.
    unsafe { four_sums(x, crd, w) }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use crate::Idx;

    /// Four lanes of `f64`, then the tail in order.
    ///
    /// # Safety
    /// The processor has AVX2 and FMA; `w` is at least as long as `crd`; every element of `crd`
    /// is below `x.len()`, which is at most `i32::MAX`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn f64x4(x: &[f64], crd: &[Idx], w: &[f64]) -> f64 {
        let n = crd.len();
        let mut acc = _mm256_setzero_pd();
        let mut p = 0;
        while p + 4 <= n {
            // SAFETY: `p + 4 <= n = crd.len() <= w.len()`, so both loads are in bounds;
            // the four coordinates are below `x.len() <= i32::MAX`, so as the gather's signed
            // offsets (scaled by 8) they address elements of `x`.
            let (v, xs) = unsafe {
                let at = _mm_loadu_si128(crd.as_ptr().add(p).cast());
                (
                    _mm256_loadu_pd(w.as_ptr().add(p)),
                    _mm256_i32gather_pd::<8>(x.as_ptr(), at),
                )
            };
            acc = _mm256_fmadd_pd(v, xs, acc);
            p += 4;
        }
        let pair = _mm_add_pd(_mm256_castpd256_pd128(acc), _mm256_extractf128_pd::<1>(acc));
        let lanes = _mm_cvtsd_f64(_mm_add_sd(pair, _mm_unpackhi_pd(pair, pair)));
        // SAFETY: the contract, for the positions after `p` (at most `n`).
        lanes + unsafe { super::in_order(x, crd.get_unchecked(p..), w.get_unchecked(p..)) }
    }

    /// Eight lanes of `f32`, then the tail in order.
    ///
    /// # Safety
    /// As for [`f64x4`].
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn f32x8(x: &[f32], crd: &[Idx], w: &[f32]) -> f32 {
        let n = crd.len();
        let mut acc = _mm256_setzero_ps();
        let mut p = 0;
        while p + 8 <= n {
            // SAFETY: as in `f64x4`, with eight positions and offsets scaled by 4.
            let (v, xs) = unsafe {
                let at = _mm256_loadu_si256(crd.as_ptr().add(p).cast());
                (
                    _mm256_loadu_ps(w.as_ptr().add(p)),
                    _mm256_i32gather_ps::<4>(x.as_ptr(), at),
                )
            };
            acc = _mm256_fmadd_ps(v, xs, acc);
            p += 8;
        }
        let quad = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps::<1>(acc));
        let pair = _mm_add_ps(quad, _mm_movehl_ps(quad, quad));
        let lanes = _mm_cvtss_f32(_mm_add_ss(pair, _mm_shuffle_ps::<1>(pair, pair)));
        // SAFETY: the contract, for the positions after `p` (at most `n`).
        lanes + unsafe { super::in_order(x, crd.get_unchecked(p..), w.get_unchecked(p..)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Coordinates that revisit `x`, in segments of every length up to 19 (every tail length of
    /// both lane widths, and the in-order path below four).
    fn cases() -> Vec<(Vec<Idx>, Vec<i32>)> {
        (0..20usize)
            .map(|n| {
                let crd = (0..n).map(|p| ((p * 7 + n) % 13) as Idx).collect();
                let w = (0..n).map(|p| (p % 5) as i32 - 2).collect();
                (crd, w)
            })
            .collect()
    }

    fn reference(x: &[i32], crd: &[Idx], w: &[i32]) -> f64 {
        crd.iter()
            .zip(w)
            .map(|(&c, &v)| f64::from(v) * f64::from(x[c as usize]))
            .sum()
    }

    // Small integers, so every order of the sum is exact and the comparison can be exact.
    #[test]
    fn sums_of_every_length_agree_with_the_definition() {
        let x: Vec<i32> = (0..13).map(|j| j * 3 - 17).collect();
        for (crd, w) in cases() {
            let want = reference(&x, &crd, &w);
            let x64: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
            let w64: Vec<f64> = w.iter().map(|&v| f64::from(v)).collect();
            // SAFETY: every coordinate is below 13 = x.len().
            assert_eq!(
                unsafe { f64s(&x64, &crd, &w64) },
                want,
                "f64, {} entries",
                crd.len()
            );
            let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let w32: Vec<f32> = w.iter().map(|&v| v as f32).collect();
            // SAFETY: as above.
            let got = unsafe { f32s(&x32, &crd, &w32) };
            assert_eq!(f64::from(got), want, "f32, {} entries", crd.len());
            // SAFETY: as above.
            let split = unsafe { (four_sums(&x64, &crd, &w64), four_sums(&x32, &crd, &w32)) };
            assert_eq!(
                (split.0, f64::from(split.1)),
                (want, want),
                "four sums, {} entries",
                crd.len()
            );
            // SAFETY: as above.
            let ints = unsafe { in_order(&x, &crd, &w) };
            assert_eq!(f64::from(ints), want, "i32, {} entries", crd.len());
            // The lanes themselves, wherever the processor has them, whether or not they pay
            // here and so are taken above.
            #[cfg(target_arch = "x86_64")]
            if lanes_present() {
                // SAFETY: AVX2 and FMA are present; coordinates as above.
                let (l64, l32) =
                    unsafe { (x86::f64x4(&x64, &crd, &w64), x86::f32x8(&x32, &crd, &w32)) };
                assert_eq!(
                    (l64, f64::from(l32)),
                    (want, want),
                    "lanes, {} entries",
                    crd.len()
                );
            }
        }
    }

    #[test]
    fn weights_longer_than_the_coordinates_are_summed_in_order() {
        let x = [1.0, 2.0, 4.0, 8.0, 16.0];
        let crd: [Idx; 5] = [4, 3, 2, 1, 0];
        let w = [1.0; 6];
        // SAFETY: every coordinate is below 5.
        assert_eq!(unsafe { f64s(&x, &crd, &w) }, 31.0);
    }
}
