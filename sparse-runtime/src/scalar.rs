//! The value types kernels are generic over: f32, f64, i32, i64.
//!
//! [`Scalar`] gives generated code what it needs beyond arithmetic: the zero and one, a `wide` SIMD
//! lane type for `CpuVector` schedules, parsing for the file readers, and an atomic add on a slice
//! of values for the `Atomics` race strategy (Senanayake et al. 2020).

use std::fmt::{Debug, Display};
use std::ops::{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::atomic::AtomicCell;

mod sealed {
    pub trait Sealed {}
}

/// A value type of tensors and kernels.
pub trait Scalar:
    sealed::Sealed
    + Copy
    + Default
    + PartialEq
    + PartialOrd
    + Debug
    + Display
    + Send
    + Sync
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + 'static
{
    /// The additive identity: the value of every entry a tensor does not store.
    const ZERO: Self;
    /// The multiplicative identity.
    const ONE: Self;
    /// Whether the type is an integer type (file readers refuse real data for it).
    const IS_INTEGER: bool;

    /// The `wide` SIMD vector of this type.
    type Lanes: Copy
        + Add<Output = Self::Lanes>
        + Sub<Output = Self::Lanes>
        + Mul<Output = Self::Lanes>
        + Send
        + Sync;
    /// The number of lanes in [`Scalar::Lanes`].
    const LANES: usize;

    /// All lanes set to `self`.
    fn splat(self) -> Self::Lanes;
    /// The first [`Scalar::LANES`] values of `chunk` (missing ones are zero).
    fn load(chunk: &[Self]) -> Self::Lanes;
    /// Writes the lanes to the first [`Scalar::LANES`] slots of `out` (fewer if `out` is shorter).
    fn store(lanes: Self::Lanes, out: &mut [Self]);
    /// The values of `src` at the first [`Scalar::LANES`] indices of `at` (missing lanes are
    /// zero): the lanes of a gather, as an SpMV reads `x` at a row's column indices.
    ///
    /// # Panics
    ///
    /// If an index is out of range of `src`. Kernels pass the coordinates of validated tensors,
    /// which are in range of the dimension they index.
    fn gather(src: &[Self], at: &[crate::Idx]) -> Self::Lanes;
    /// The sum of the lanes.
    fn reduce_add(lanes: Self::Lanes) -> Self;

    /// `Σ w[p] · x[crd[p]]` over the positions of `crd` (those of `w` past its end are not
    /// read), in an order of the type's choosing: generated code's plumbing behind
    /// `Gather::dot`.
    ///
    /// # Safety
    /// `w` is at least as long as `crd`, and every element of `crd` is below `x.len()`.
    #[doc(hidden)]
    #[allow(unsafe_code)]
    unsafe fn gather_dot(x: &[Self], crd: &[crate::Idx], w: &[Self]) -> Self;

    /// `out[r]` set to (or, when `add`, added to) the [`Scalar::gather_dot`] of row `r`'s
    /// positions `pos[r]..pos[r + 1]` (clamped to `crd`), for the rows below both `out.len()`
    /// and `pos.len() - 1`: generated code's plumbing behind `Gather::dot_rows`.
    ///
    /// # Safety
    /// `w` is at least as long as `crd`, and every element of `crd` is below `x.len()`.
    #[doc(hidden)]
    #[allow(unsafe_code)]
    unsafe fn gather_dot_rows(
        x: &[Self],
        crd: &[crate::Idx],
        w: &[Self],
        pos: &[crate::Idx],
        out: &mut [Self],
        add: bool,
    );

    /// The atomic cell an `Atomics` kernel adds into (generated code's plumbing).
    type Atomic: AtomicCell<Self>;

    /// Parses a value as written in Matrix Market or FROSTT files; integer types accept only
    /// integers, floating types also accept integers and `inf`/`nan`.
    fn parse_text(text: &str) -> Option<Self>;

    /// The value as an f64, for tolerances in tests and reports.
    fn to_f64(self) -> f64;

    /// `self + other`, or `None` where an integer sum leaves the type's range (floats never do).
    fn checked_add(self, other: Self) -> Option<Self>;

    /// `self + other`, wrapping around for integers.
    fn wrapping_add(self, other: Self) -> Self;

    /// `self * b + c`: what a kernel's `acc += a * b` computes. Rounded once where the target
    /// has fused multiply-add instructions (`target_feature = "fma"`, as `-C target-cpu=native`
    /// enables on current x86-64 processors), as C compilers contract `acc += a * b` by default
    /// and as NVRTC does for the CUDA back end; the product rounded, then the sum, elsewhere.
    /// The order of a kernel's additions is the same either way.
    fn mul_add_contracted(self, b: Self, c: Self) -> Self;

    /// `self / other` as generated kernels compute it: IEEE for floats; for integers, division by
    /// zero gives zero and `MIN / -1` wraps, so no input makes a kernel panic.
    fn divide(self, other: Self) -> Self;

    /// `self % other` as generated kernels compute it (the remainder, with the sign of `self`):
    /// IEEE for floats (NaN for a divisor of zero); for integers, a divisor of zero gives zero
    /// and `MIN % -1` gives zero, so no input makes a kernel panic.
    fn remainder(self, other: Self) -> Self;

    /// The value as an `i64`, converted as `as` converts (floats truncate toward zero and
    /// saturate, NaN becomes 0): a kernel's `as i64`.
    fn to_i64(self) -> i64;

    /// The value as an `i32`, converted as `as` converts (an `i64` wraps): a kernel's `as i32`.
    fn to_i32(self) -> i32;

    /// The value as an `f32`, converted as `as` converts (rounded to nearest): a kernel's
    /// `as f32`.
    fn to_f32(self) -> f32;

    /// An integer literal of a kernel as a value (an `as` conversion): exact for every integer
    /// that fits the type, which is why the compiler keeps integer literals as integers; larger
    /// ones wrap (i32) or round (f32, f64).
    fn from_i64(n: i64) -> Self;

    /// A float literal of a kernel as a value (an `as` conversion): rounded to the nearest f32,
    /// truncated toward zero and saturated for integer types (NaN becomes 0). The compiler refuses
    /// float literals in kernels it knows to be integer-valued; this keeps the generic code total.
    fn from_f64(f: f64) -> Self;
}

macro_rules! impl_scalar {
    ($t:ty, $lanes:ty, $n:literal, $atomic:ty, integer: $int:literal, $checked:expr, $wrapping:expr, $divide:expr, $remainder:expr, mul_add: |$a:ident, $b:ident, $c:ident| $mul_add:expr, dot: $dot:path, rows: $rows:path) => {
        impl sealed::Sealed for $t {}
        impl Scalar for $t {
            const ZERO: Self = 0 as $t;
            const ONE: Self = 1 as $t;
            const IS_INTEGER: bool = $int;
            type Lanes = $lanes;
            const LANES: usize = $n;

            #[inline]
            fn splat(self) -> $lanes {
                <$lanes>::splat(self)
            }

            #[inline]
            fn load(chunk: &[Self]) -> $lanes {
                // A fixed-size array, so a chunk of exactly `LANES` values (what kernels pass)
                // becomes one vector load once inlined; a shorter chunk is padded with zeros.
                let mut lanes = [Self::ZERO; $n];
                let n = chunk.len().min($n);
                lanes[..n].copy_from_slice(&chunk[..n]);
                <$lanes>::new(lanes)
            }

            #[inline]
            fn store(lanes: $lanes, out: &mut [Self]) {
                let n = out.len().min($n);
                out[..n].copy_from_slice(&lanes.to_array()[..n]);
            }

            #[inline]
            fn gather(src: &[Self], at: &[crate::Idx]) -> $lanes {
                let mut lanes = [Self::ZERO; $n];
                for (lane, &k) in lanes.iter_mut().zip(at) {
                    *lane = src[k as usize];
                }
                <$lanes>::new(lanes)
            }

            #[inline]
            fn reduce_add(lanes: $lanes) -> Self {
                lanes.reduce_add()
            }

            type Atomic = $atomic;

            fn parse_text(text: &str) -> Option<Self> {
                text.parse().ok()
            }

            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }

            #[inline]
            fn from_i64(n: i64) -> Self {
                n as $t
            }

            #[inline]
            fn from_f64(f: f64) -> Self {
                f as $t
            }

            #[inline]
            fn checked_add(self, other: Self) -> Option<Self> {
                let add: fn(Self, Self) -> Option<Self> = $checked;
                add(self, other)
            }

            #[inline]
            fn wrapping_add(self, other: Self) -> Self {
                let add: fn(Self, Self) -> Self = $wrapping;
                add(self, other)
            }

            #[inline]
            fn divide(self, other: Self) -> Self {
                let divide: fn(Self, Self) -> Self = $divide;
                divide(self, other)
            }

            #[inline]
            fn remainder(self, other: Self) -> Self {
                let remainder: fn(Self, Self) -> Self = $remainder;
                remainder(self, other)
            }

            #[inline(always)]
            fn mul_add_contracted(self, $b: Self, $c: Self) -> Self {
                let $a = self;
                $mul_add
            }

            #[inline]
            fn to_i64(self) -> i64 {
                self as i64
            }

            #[inline]
            fn to_i32(self) -> i32 {
                self as i32
            }

            #[inline]
            fn to_f32(self) -> f32 {
                self as f32
            }

            #[inline]
            #[allow(unsafe_code)]
            unsafe fn gather_dot(x: &[Self], crd: &[crate::Idx], w: &[Self]) -> Self {
                // SAFETY: the caller's contract is the function's.
                unsafe { $dot(x, crd, w) }
            }

            #[inline]
            #[allow(unsafe_code)]
            unsafe fn gather_dot_rows(
                x: &[Self],
                crd: &[crate::Idx],
                w: &[Self],
                pos: &[crate::Idx],
                out: &mut [Self],
                add: bool,
            ) {
                // SAFETY: the caller's contract is the function's.
                unsafe { $rows(x, crd, w, pos, out, add) }
            }
        }
    };
}

// Without the target feature, `mul_add` would be a call into the C library's software `fma`.
impl_scalar!(f32, wide::f32x8, 8, crate::atomic::AtomicF32, integer: false,
    |a, b| Some(a + b), |a, b| a + b, |a, b| a / b, |a, b| a % b,
    mul_add: |a, b, c| if cfg!(target_feature = "fma") { a.mul_add(b, c) } else { a * b + c },
    dot: crate::dot::f32s, rows: crate::row_dots::f32s);
impl_scalar!(f64, wide::f64x4, 4, crate::atomic::AtomicF64, integer: false,
    |a, b| Some(a + b), |a, b| a + b, |a, b| a / b, |a, b| a % b,
    mul_add: |a, b, c| if cfg!(target_feature = "fma") { a.mul_add(b, c) } else { a * b + c },
    dot: crate::dot::f64s, rows: crate::row_dots::f64s);
impl_scalar!(i32, wide::i32x8, 8, std::sync::atomic::AtomicI32, integer: true,
    i32::checked_add, i32::wrapping_add, |a, b| if b == 0 { 0 } else { a.wrapping_div(b) },
    |a, b| if b == 0 { 0 } else { a.wrapping_rem(b) }, mul_add: |a, b, c| a * b + c,
    dot: crate::dot::in_order, rows: crate::row_dots::each);
impl_scalar!(i64, wide::i64x4, 4, std::sync::atomic::AtomicI64, integer: true,
    i64::checked_add, i64::wrapping_add, |a, b| if b == 0 { 0 } else { a.wrapping_div(b) },
    |a, b| if b == 0 { 0 } else { a.wrapping_rem(b) }, mul_add: |a, b, c| a * b + c,
    dot: crate::dot::in_order, rows: crate::row_dots::each);

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes_round_trip<T: Scalar>(values: &[T]) {
        let lanes = T::load(values);
        let mut out = vec![T::ZERO; T::LANES];
        T::store(lanes, &mut out);
        let n = values.len().min(T::LANES);
        assert_eq!(&out[..n], &values[..n]);
        assert!(out[n..].iter().all(|v| *v == T::ZERO));
        let sum = values[..n].iter().fold(T::ZERO, |a, b| a + *b);
        assert_eq!(T::reduce_add(lanes), sum);
    }

    #[test]
    fn mul_add_contracted_rounds_once_exactly_where_the_target_fuses() {
        // (1 + 2^-30)(1 - 2^-30) = 1 - 2^-60, which rounds to 1 as a product of its own.
        let (a, b) = (1.0 + 2f64.powi(-30), 1.0 - 2f64.powi(-30));
        let fused = if cfg!(target_feature = "fma") {
            -(2f64.powi(-60))
        } else {
            0.0
        };
        assert_eq!(a.mul_add_contracted(b, -1.0), fused);
        let (a, b) = (1.0 + 2f32.powi(-13), 1.0 - 2f32.powi(-13));
        let fused = if cfg!(target_feature = "fma") {
            -(2f32.powi(-26))
        } else {
            0.0
        };
        assert_eq!(a.mul_add_contracted(b, -1.0), fused);
        assert_eq!(Scalar::mul_add_contracted(6i32, 7, -2), 40);
        assert_eq!(Scalar::mul_add_contracted(-6i64, 7, 2), -40);
    }

    #[test]
    fn lanes_load_store_and_reduce() {
        lanes_round_trip::<f64>(&[1.0, 2.0, 3.0]);
        lanes_round_trip::<f64>(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        lanes_round_trip::<f32>(&[0.5; 9]);
        lanes_round_trip::<i32>(&[1, -2, 3, 4, 5, 6, 7, 8]);
        lanes_round_trip::<i64>(&[7]);
    }

    fn gathers<T: Scalar>(src: &[T], at: &[crate::Idx]) {
        let mut out = vec![T::ZERO; T::LANES];
        T::store(T::gather(src, at), &mut out);
        let n = at.len().min(T::LANES);
        for (lane, &k) in out[..n].iter().zip(at) {
            assert_eq!(*lane, src[k as usize]);
        }
        assert!(out[n..].iter().all(|v| *v == T::ZERO));
    }

    #[test]
    fn lanes_gather_at_indices() {
        let src: Vec<f64> = (0..10).map(|v| v as f64 + 0.5).collect();
        gathers::<f64>(&src, &[9, 0, 4, 4]);
        gathers::<f64>(&src, &[3]);
        gathers::<f64>(&src, &[1, 2, 3, 4, 5, 6]);
        gathers::<f32>(&[1.0, 2.0, 3.0], &[2, 1, 0, 2, 1, 0, 2, 1]);
        gathers::<i32>(&[5, -6], &[1, 1, 0]);
        gathers::<i64>(&[5, -6, 7], &[2, 0, 1, 2]);
    }

    #[test]
    fn integer_division_is_total() {
        assert_eq!(7i32.divide(0), 0);
        assert_eq!(i64::MIN.divide(-1), i64::MIN);
        assert_eq!(7i64.divide(2), 3);
        assert!(1.0f64.divide(0.0).is_infinite());
        assert_eq!(7i32.remainder(0), 0);
        assert_eq!((-7i64).remainder(2), -1);
        assert_eq!(i32::MIN.remainder(-1), 0);
        assert!(1.0f64.remainder(0.0).is_nan());
        assert_eq!((-7.5f32).remainder(2.0), -1.5);
    }

    #[test]
    fn conversions_follow_as() {
        assert_eq!(2.9f64.to_i64(), 2);
        assert_eq!((-2.9f32).to_i32(), -2);
        assert_eq!(f64::NAN.to_i32(), 0);
        assert_eq!(1e20f64.to_i32(), i32::MAX);
        assert_eq!((1i64 << 33 | 5).to_i32(), 5);
        assert_eq!(0.1f64.to_f32(), 0.1f32);
        assert_eq!(7i32.to_f32(), 7.0);
    }

    #[test]
    fn integer_sums_report_overflow() {
        assert_eq!(i64::MAX.checked_add(1), None);
        assert_eq!(Scalar::checked_add(i32::MAX, 1), None);
        assert_eq!(Scalar::checked_add(2.0f64, 1.0), Some(3.0));
        assert_eq!(Scalar::wrapping_add(i32::MAX, 1), i32::MIN);
    }

    #[test]
    fn parsing_respects_integer_types() {
        assert_eq!(i32::parse_text("-12"), Some(-12));
        assert_eq!(i32::parse_text("1.5"), None);
        assert_eq!(f64::parse_text("1e3"), Some(1000.0));
        assert_eq!(f32::parse_text("7"), Some(7.0));
        assert_eq!(i64::parse_text("x"), None);
    }

    #[test]
    fn literals_convert_like_as_casts() {
        assert_eq!(f64::from_i64(-3), -3.0);
        assert_eq!(f32::from_i64(1 << 40), 1_099_511_627_776.0);
        assert_eq!(i64::from_i64(i64::MIN), i64::MIN);
        assert_eq!(i32::from_i64(-7), -7);
        assert_eq!(i32::from_i64(1 << 32), 0, "i32 wraps");
        assert_eq!(f64::from_f64(0.1), 0.1);
        assert_eq!(f32::from_f64(0.1), 0.1f32);
        assert_eq!(i32::from_f64(-2.9), -2, "truncates toward zero");
        assert_eq!(i64::from_f64(f64::NAN), 0);
        assert_eq!(i32::from_f64(1e300), i32::MAX, "saturates");
        assert!(f64::from_f64(f64::INFINITY).is_infinite());
    }
}
