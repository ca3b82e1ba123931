//! The runtime half of the `Atomics` race strategy: a safe atomic add (or any other reduction
//! operator, by compare-and-swap) into a slice of values.
//!
//! A parallel kernel whose tasks may add into the same output entry borrows the output values
//! mutably once, views them as atomic cells with [`as_atomic`], and shares that view between its
//! rayon tasks. The view reinterprets the memory in place: no copy in, no copy out.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64, Ordering};

use crate::Scalar;

/// An atomic cell holding a `T`, with the same size, alignment and bit validity as `T`.
///
/// # Safety
/// Implementors must have exactly the size of `T`, an alignment no greater than `T`'s, and accept
/// every bit pattern of `T`; [`as_atomic`] relies on this to reinterpret a `&mut [T]`.
pub unsafe trait AtomicCell<T>: Sync + Send {
    /// Atomically adds `value` to the cell (relaxed ordering: kernels only need the sum).
    fn add(&self, value: T);
    /// The current value.
    fn get(&self) -> T;
    /// Overwrites the value (a relaxed store: a plain move on x86).
    fn set(&self, value: T);
    /// Atomically replaces the value `v` by `combine(v)` (a compare-and-swap loop, relaxed): the
    /// `Atomics` strategy of a reduction other than `+` (`min`, `max`, `*`, `||`, `&&`).
    fn combine(&self, combine: impl Fn(T) -> T);
    /// Replaces the value `v` by `combine(v)` without a read-modify-write, for a cell no other
    /// thread writes meanwhile.
    #[inline]
    fn combine_exclusive(&self, combine: impl Fn(T) -> T) {
        self.set(combine(self.get()));
    }
    /// Adds `value` without a read-modify-write, for a cell no other thread writes meanwhile (a
    /// `NoRaces` loop's own output entries): a relaxed load and store, plain moves on x86.
    #[inline]
    fn add_exclusive(&self, value: T)
    where
        T: Scalar,
    {
        self.set(self.get() + value);
    }
}

/// An `f64` that can be added to atomically (a compare-and-swap loop on its bits).
#[repr(transparent)]
#[derive(Debug)]
pub struct AtomicF64(AtomicU64);

/// An `f32` that can be added to atomically (a compare-and-swap loop on its bits).
#[repr(transparent)]
#[derive(Debug)]
pub struct AtomicF32(AtomicU32);

macro_rules! float_cell {
    ($cell:ty, $t:ty) => {
        // SAFETY: a transparent wrapper of an atomic integer of the float's width; every bit
        // pattern is a valid float. Size and alignment are asserted in `as_atomic`.
        unsafe impl AtomicCell<$t> for $cell {
            #[inline]
            fn add(&self, value: $t) {
                // The closure never returns `None`, so `fetch_update` cannot fail.
                let _ = self
                    .0
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |bits| {
                        Some((<$t>::from_bits(bits) + value).to_bits())
                    });
            }

            fn get(&self) -> $t {
                <$t>::from_bits(self.0.load(Ordering::Relaxed))
            }

            #[inline]
            fn set(&self, value: $t) {
                self.0.store(value.to_bits(), Ordering::Relaxed);
            }

            #[inline]
            fn combine(&self, combine: impl Fn($t) -> $t) {
                // The closure never returns `None`, so `fetch_update` cannot fail. A value the
                // combination leaves unchanged is stored back unchanged, which is harmless.
                let _ = self
                    .0
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |bits| {
                        Some(combine(<$t>::from_bits(bits)).to_bits())
                    });
            }
        }
    };
}

float_cell!(AtomicF64, f64);
float_cell!(AtomicF32, f32);

macro_rules! int_cell {
    ($cell:ty, $t:ty) => {
        // SAFETY: std documents that the atomic integer has the size and bit validity of the
        // integer; alignment is asserted in `as_atomic`.
        unsafe impl AtomicCell<$t> for $cell {
            #[inline]
            fn add(&self, value: $t) {
                self.fetch_add(value, Ordering::Relaxed);
            }

            fn get(&self) -> $t {
                self.load(Ordering::Relaxed)
            }

            #[inline]
            fn set(&self, value: $t) {
                self.store(value, Ordering::Relaxed);
            }

            #[inline]
            fn combine(&self, combine: impl Fn($t) -> $t) {
                let _ =
                    self.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| Some(combine(v)));
            }
        }
    };
}

int_cell!(AtomicI32, i32);
int_cell!(AtomicI64, i64);

/// Views `values` as atomic cells for as long as the mutable borrow lasts.
///
/// ```
/// use rayon::prelude::*;
/// use sparse_runtime::__private::{as_atomic, AtomicCell};
///
/// let mut y = vec![0.0f64; 4];
/// let cells = as_atomic(&mut y);
/// (0..1000).into_par_iter().for_each(|k| cells[k % 4].add(1.0));
/// assert_eq!(y, vec![250.0; 4]);
/// ```
pub fn as_atomic<T: Scalar>(values: &mut [T]) -> &[T::Atomic] {
    const {
        assert!(size_of::<T::Atomic>() == size_of::<T>());
        assert!(align_of::<T::Atomic>() <= align_of::<T>());
    }
    let len = values.len();
    let ptr = values.as_mut_ptr().cast::<T::Atomic>();
    // SAFETY: `AtomicCell`'s contract and the assertions above make a `T::Atomic` a valid,
    // aligned reinterpretation of a `T`. The exclusive borrow of `values` is held by the returned
    // shared borrow, so no other access to the memory exists while the cells are in use, and all
    // writes through the cells are atomic.
    unsafe { std::slice::from_raw_parts(ptr, len) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread;

    fn concurrent_sum<T: Scalar>(one: T, expect: T) {
        let mut values = vec![T::ZERO; 3];
        {
            let cells = as_atomic(&mut values);
            thread::scope(|s| {
                for _ in 0..4 {
                    s.spawn(|| {
                        for k in 0..3000 {
                            cells[k % 3].add(one);
                        }
                    });
                }
            });
            assert_eq!(cells[0].get(), expect);
        }
        assert_eq!(values, vec![expect; 3]);
    }

    #[test]
    fn atomic_updates_from_many_threads_keep_the_minimum() {
        let mut values = vec![f64::INFINITY; 2];
        {
            let cells = as_atomic(&mut values);
            thread::scope(|s| {
                for t in 0..4 {
                    s.spawn(move || {
                        for k in 0..2000 {
                            let v = ((k * 7 + t * 13) % 1001) as f64 - 3.0;
                            cells[k % 2].combine(|old| if v < old { v } else { old });
                        }
                    });
                }
            });
        }
        assert_eq!(values, vec![-3.0, -3.0]);
        let mut ints = vec![0i64; 1];
        {
            let cells = as_atomic(&mut ints);
            thread::scope(|s| {
                for t in 0..4 {
                    s.spawn(move || {
                        for k in 0..1000i64 {
                            cells[0].combine(|old: i64| old.max(k * 4 + t));
                        }
                    });
                }
            });
        }
        assert_eq!(ints, vec![3999]);
    }

    #[test]
    fn atomic_adds_from_many_threads_sum_exactly() {
        concurrent_sum::<f64>(0.5, 2000.0);
        concurrent_sum::<f32>(1.0, 4000.0);
        concurrent_sum::<i32>(2, 8000);
        concurrent_sum::<i64>(-1, -4000);
    }
}
