//! A segment's values times rows of a dense matrix gathered at the segment's coordinates, summed
//! into a register tile: `acc[t] += w[p] · rows[crd[p] · stride + offset + t]` for every position
//! `p` of a row of a sparse matrix and every `t < W` (SpMM's `C(i, kb..kb + W)` over row `i` of
//! `A`, reading `B(j, kb..kb + W)` at each of its columns `j`).
//!
//! Written as a loop in the kernel, each position checks that its row of `rows` holds `W`
//! elements before it reads them, and LLVM keeps the loop's bounds and pointers on the stack
//! around the eight 256-bit sums (for `W = 32` `f64`). Here the check is made once per call,
//! against the level's largest coordinate (kept by the [`Gather`]): when the row of the largest
//! coordinate fits, every row does, and the loop reads unchecked (LLVM unrolls it by two with
//! every pointer in a register). On the comparison harness's cache-resident matrices an SpMM
//! took 0.89-0.97 of the loop's time (BENCHMARKS.md, "SpMM rows gathered in one call"). Each
//! element still receives the same additions in the same order.
#![allow(unsafe_code)]

use std::ops::Range;

use crate::gather::Gather;
use crate::{Idx, Scalar};

impl<T: Scalar> Gather<'_, T> {
    /// `acc[t] += weights[p] · vals[crd[p] · stride + offset + t]` for every `p` in `range`
    /// (its end clamped to the lengths of `crd` and `weights`) and `t < W`, in order of `p`,
    /// where the gather's values are a dense matrix's (`at` is `(stride, offset)`). A position
    /// whose row does not hold `W` elements from there (a corrupted tensor) adds nothing; an
    /// `acc` shorter than `W` receives nothing. With `ahead` above zero, each position hints
    /// the row that position `p + ahead` will read, when the values take at least the
    /// runtime's gather-hint size (8 MiB).
    ///
    /// # Panics
    /// If `crd` is not the gather's coordinates.
    #[inline]
    pub fn axpy_rows<const W: usize>(
        &self,
        crd: &[Idx],
        weights: &[T],
        range: Range<usize>,
        at: (usize, usize),
        acc: &mut [T],
        ahead: usize,
    ) {
        assert!(
            std::ptr::eq(crd, self.crd),
            "a gather reads its own coordinates"
        );
        let Some(acc) = acc.first_chunk_mut::<W>() else {
            return;
        };
        let (stride, offset) = at;
        let (lo, hi) = (range.start, range.end.min(crd.len()).min(weights.len()));
        let hints = ahead > 0 && size_of_val(self.vals) >= crate::prefetch::GATHER_HINT_MIN_BYTES;
        let last_row_end = (self.bound.checked_sub(1))
            .map(|c| c.checked_mul(stride)?.checked_add(offset)?.checked_add(W));
        let fits = match last_row_end {
            None => true,
            Some(end) => end.is_some_and(|end| end <= self.vals.len()),
        };
        if fits && !hints {
            for p in lo..hi {
                // SAFETY: `p < hi <= crd.len(), weights.len()`; the row as below.
                unsafe {
                    let (c, w) = (*crd.get_unchecked(p) as usize, *weights.get_unchecked(p));
                    add_row(acc, w, self.row_unchecked::<W>(c * stride + offset));
                }
            }
            return;
        }
        for p in lo..hi {
            if hints {
                crate::prefetch::prefetch_gather(self.vals, crd, p + ahead, 0, stride);
            }
            // SAFETY: `p < hi <= crd.len(), weights.len()`.
            let (c, w) = unsafe { (*crd.get_unchecked(p) as usize, *weights.get_unchecked(p)) };
            let start = c.wrapping_mul(stride).wrapping_add(offset);
            let row = if fits {
                // SAFETY: as below.
                unsafe { self.row_unchecked::<W>(start) }
            } else {
                match self.vals.get(start..).and_then(|s| s.first_chunk::<W>()) {
                    Some(row) => row,
                    None => continue,
                }
            };
            add_row(acc, w, row);
        }
    }

    /// The `W` values from `start`.
    ///
    /// # Safety
    /// `start` is `c * stride + offset` for a coordinate `c` of the gather's level, and the
    /// caller found `(bound - 1) * stride + offset + W <= vals.len()` without overflow: then
    /// `start + W <= vals.len()`, since `c < bound`.
    #[inline(always)]
    unsafe fn row_unchecked<const W: usize>(&self, start: usize) -> &[T; W] {
        debug_assert!(start + W <= self.vals.len());
        // SAFETY: the `W` elements from `start` are inside `vals` (the contract); `[T; W]` has
        // `T`'s alignment.
        unsafe { &*self.vals.as_ptr().add(start).cast::<[T; W]>() }
    }
}

/// `acc[t] += w · row[t]`, one rounding per element where the target fuses.
#[inline(always)]
fn add_row<T: Scalar, const W: usize>(acc: &mut [T; W], w: T, row: &[T; W]) {
    for t in 0..W {
        acc[t] = T::mul_add_contracted(w, row[t], acc[t]);
    }
}

#[cfg(test)]
mod tests {
    use crate::gather::Gather;
    use crate::{Csr, Tensor};

    /// Rows 0..4 of lengths 3, 0, 1, 4 over a 5-column matrix; `B` is 5 x 6, row-major.
    fn matrix() -> Tensor<f64, Csr> {
        let entries = [
            ([0, 4], 2.0),
            ([0, 1], -1.0),
            ([0, 0], 0.5),
            ([2, 3], 3.0),
            ([3, 0], 1.0),
            ([3, 1], 2.0),
            ([3, 2], -2.0),
            ([3, 4], 4.0),
        ];
        Tensor::from_entries([4, 5], entries).unwrap()
    }

    fn b() -> Vec<f64> {
        (0..30).map(|v| (v % 7) as f64 - 3.0).collect()
    }

    /// Columns `kb..kb + w` of row `i` of `A B`, plus `start`, by the definition.
    fn reference(a: &Tensor<f64, Csr>, b: &[f64], i: usize, kb: usize, w: usize) -> Vec<f64> {
        let dense = a.to_dense();
        (kb..kb + w)
            .map(|k| 10.0 + (0..5).map(|j| dense[i * 5 + j] * b[j * 6 + k]).sum::<f64>())
            .collect()
    }

    #[test]
    fn each_row_of_a_times_rows_of_b_adds_into_the_tile() {
        let (a, b) = (matrix(), b());
        let (pos, crd) = (a.level(1).pos(), a.level(1).crd());
        let g = Gather::new(&a, 1, crd, &b);
        for (kb, ahead) in [(0, 0), (2, 0), (2, 32)] {
            for i in 0..4 {
                let mut acc = [10.0; 4];
                let range = pos[i] as usize..pos[i + 1] as usize;
                g.axpy_rows::<4>(crd, a.values(), range, (6, kb), &mut acc, ahead);
                assert_eq!(
                    acc.to_vec(),
                    reference(&a, &b, i, kb, 4),
                    "row {i}, kb {kb}"
                );
            }
        }
    }

    #[test]
    fn rows_past_the_values_add_nothing_and_short_tiles_receive_nothing() {
        let (a, b) = (matrix(), b());
        let (pos, crd) = (a.level(1).pos(), a.level(1).crd());
        // Four rows of B: column 4's row is missing, the others are read checked.
        let short = Gather::new(&a, 1, crd, &b[..24]);
        let mut acc = [0.0; 4];
        let row0 = pos[0] as usize..pos[1] as usize;
        short.axpy_rows::<4>(crd, a.values(), row0.clone(), (6, 0), &mut acc, 0);
        let want: Vec<f64> = (0..4).map(|k| -b[6 + k] + 0.5 * b[k]).collect();
        assert_eq!(acc.to_vec(), want);
        let g = Gather::new(&a, 1, crd, &b);
        let mut three = [1.0; 3];
        g.axpy_rows::<4>(crd, a.values(), row0.clone(), (6, 0), &mut three, 0);
        assert_eq!(three, [1.0; 3]);
        // An end past the coordinates is clamped; an offset past the row's end skips it.
        let mut acc = [0.0; 4];
        g.axpy_rows::<4>(crd, a.values(), 0..100, (6, 0), &mut acc, 0);
        let all: Vec<f64> = (0..4)
            .map(|k| (0..4).map(|i| reference(&a, &b, i, 0, 4)[k] - 10.0).sum())
            .collect();
        assert_eq!(acc.to_vec(), all);
        let mut acc = [0.0; 4];
        g.axpy_rows::<4>(crd, a.values(), row0, (6, 27), &mut acc, 0);
        assert_eq!(acc, [0.0; 4]);
    }

    #[test]
    fn coordinates_of_another_tensor_are_refused() {
        let (a, other, b) = (matrix(), matrix(), b());
        let g = Gather::new(&a, 1, a.level(1).crd(), &b);
        let mut acc = [0.0; 4];
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            g.axpy_rows::<4>(other.level(1).crd(), a.values(), 0..1, (6, 0), &mut acc, 0)
        }));
        assert!(caught.is_err());
    }
}
