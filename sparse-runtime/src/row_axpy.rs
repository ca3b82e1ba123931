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
use crate::row_dots::segment;
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
        let hints = self.hints(ahead);
        let fits = self.rows_fit::<W>(at);
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

    /// For every row `r` of `rows` (its end clamped to `pos.len() - 1`), the `W` elements of
    /// `out` from `r · out_stride + out_offset - first` set to the sums [`Gather::axpy_rows`]
    /// makes from a tile of zeros over the positions `pos[r]..pos[r + 1]` (`at` as there, `out_at`
    /// is `(out_stride, out_offset, first)`: `first` is the element of the output that `out[0]`
    /// is). A row of `out` that does not hold `W` elements there is skipped. Each row hints its
    /// coordinates and weights ahead as the runtime's `prefetch_ahead` does.
    ///
    /// Row by row, each row of a matrix of a few thousand rows pays again for what this checks
    /// once: that the rows of the dense input and of the output hold the tile.
    ///
    /// # Panics
    /// If `crd` is not the gather's coordinates.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn axpy_runs<const W: usize>(
        &self,
        crd: &[Idx],
        weights: &[T],
        pos: &[Idx],
        rows: Range<usize>,
        at: (usize, usize),
        out: &mut [T],
        out_at: (usize, usize, usize),
        ahead: usize,
    ) {
        assert!(
            std::ptr::eq(crd, self.crd),
            "a gather reads its own coordinates"
        );
        let (start, end) = (rows.start, rows.end.min(pos.len().saturating_sub(1)));
        if start >= end {
            return;
        }
        let (stride, offset) = at;
        let n = crd.len().min(weights.len());
        let out_len = out.len();
        let out_row = |r: usize| {
            let (out_stride, out_offset, first) = out_at;
            let e = r.checked_mul(out_stride)?.checked_add(out_offset)?;
            e.checked_sub(first)
                .filter(|e| W <= out_len.saturating_sub(*e))
        };
        // The first and the last row hold the tile, and so every row between (`out_row` grows
        // with `r`).
        let out_fits = out_row(start).is_some() && out_row(end - 1).is_some();
        if !(out_fits && self.rows_fit::<W>(at) && !self.hints(ahead)) {
            for r in start..end {
                // SAFETY: `r < end <= pos.len() - 1`.
                let (lo, hi) = unsafe { segment(pos, r, n) };
                hint_segment(crd, weights, lo);
                let mut acc = [T::ZERO; W];
                self.axpy_rows::<W>(crd, weights, lo..hi, at, &mut acc, ahead);
                if let Some(row) = out_row(r).and_then(|e| out[e..].first_chunk_mut::<W>()) {
                    *row = acc;
                }
            }
            return;
        }
        let (out_stride, out_offset, first) = out_at;
        for r in start..end {
            // SAFETY: `r < end <= pos.len() - 1`.
            let (lo, hi) = unsafe { segment(pos, r, n) };
            hint_segment(crd, weights, lo);
            let mut acc = [T::ZERO; W];
            for p in lo..hi {
                // SAFETY: `p < hi <= crd.len(), weights.len()`; the row as in `axpy_rows`.
                unsafe {
                    let (c, w) = (*crd.get_unchecked(p) as usize, *weights.get_unchecked(p));
                    add_row(&mut acc, w, self.row_unchecked::<W>(c * stride + offset));
                }
            }
            // SAFETY: `start <= r < end`, and the rows `start` and `end - 1` of `out` hold the
            // tile without overflow (`out_fits`), so row `r`, between them, does too.
            unsafe {
                let e = r * out_stride + out_offset - first;
                *out.as_mut_ptr().add(e).cast::<[T; W]>() = acc;
            }
        }
    }

    /// Whether rows are hinted `ahead` positions ahead: asked for, and the values take at
    /// least the runtime's gather-hint size (8 MiB).
    #[inline(always)]
    fn hints(&self, ahead: usize) -> bool {
        ahead > 0 && size_of_val(self.vals) >= crate::prefetch::GATHER_HINT_MIN_BYTES
    }

    /// Whether the row of the level's largest coordinate holds the tile (`at` as in
    /// [`Gather::axpy_rows`]), and so every row of the level's coordinates does.
    #[inline(always)]
    fn rows_fit<const W: usize>(&self, (stride, offset): (usize, usize)) -> bool {
        let last_row_end = (self.bound.checked_sub(1))
            .map(|c| c.checked_mul(stride)?.checked_add(offset)?.checked_add(W));
        match last_row_end {
            None => true,
            Some(end) => end.is_some_and(|end| end <= self.vals.len()),
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

/// The hints a row loop gives before a segment that starts at `lo`.
#[inline(always)]
fn hint_segment<T>(crd: &[Idx], weights: &[T], lo: usize) {
    crate::prefetch::prefetch_ahead(crd, lo);
    crate::prefetch::prefetch_ahead(weights, lo);
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

    /// Rows `rows` of `A B` (`B` 5 x 6, columns `kb..kb + 4`) as `axpy_runs` stores them into
    /// an output of `out_len` elements whose row `r` starts at `r * 7 + 1 - first`, the rest
    /// left at -1.
    fn runs(
        b: &[f64],
        rows: std::ops::Range<usize>,
        kb: usize,
        first: usize,
        out_len: usize,
    ) -> Vec<f64> {
        let a = matrix();
        let (pos, crd) = (a.level(1).pos(), a.level(1).crd());
        let g = Gather::new(&a, 1, crd, b);
        let mut out = vec![-1.0; out_len];
        g.axpy_runs::<4>(
            crd,
            a.values(),
            pos,
            rows,
            (6, kb),
            &mut out,
            (7, 1, first),
            0,
        );
        out
    }

    /// As [`runs`], by the definition: rows that do not fit are left alone.
    fn runs_reference(
        b: &[f64],
        rows: std::ops::Range<usize>,
        kb: usize,
        first: usize,
        out_len: usize,
    ) -> Vec<f64> {
        let a = matrix();
        let mut out = vec![-1.0; out_len];
        for r in rows.start..rows.end.min(4) {
            let Some(e) = (r * 7 + 1).checked_sub(first).filter(|e| e + 4 <= out_len) else {
                continue;
            };
            let sums = reference(&a, b, r, kb, 4);
            for (t, sum) in sums.iter().enumerate() {
                out[e + t] = sum - 10.0;
            }
        }
        out
    }

    #[test]
    fn runs_of_rows_store_each_row_s_tile() {
        let b = b();
        // Every row; a block of rows whose output starts at row 1; rows past `pos`; a row of
        // the output before `first` and one past its end (both skipped, the others stored).
        for (rows, kb, first, len) in [
            (0..4, 0, 0, 30),
            (0..4, 2, 0, 30),
            (1..3, 1, 8, 14),
            (2..9, 0, 0, 30),
            (0..4, 0, 8, 14),
            (3..3, 0, 0, 30),
        ] {
            assert_eq!(
                runs(&b, rows.clone(), kb, first, len),
                runs_reference(&b, rows.clone(), kb, first, len),
                "rows {rows:?}, kb {kb}, first {first}"
            );
        }
    }

    #[test]
    fn runs_of_rows_read_short_values_and_corrupted_bounds_checked() {
        // Column 4's row of B is missing: row 0 and row 3 (which read it) take the checked
        // path, which skips that entry.
        let b = b();
        let out = runs(&b[..24], 0..4, 0, 0, 30);
        let want: Vec<f64> = (0..4).map(|k| -b[6 + k] + 0.5 * b[k]).collect();
        assert_eq!(out[1..5], want[..]);
        let a = matrix();
        // Bounds that fall back and run past the coordinates: each segment is clamped.
        let pos: Vec<crate::Idx> = vec![0, 3, 2, 20, 8];
        let crd = a.level(1).crd();
        let g = Gather::new(&a, 1, crd, &b);
        let mut out = vec![-1.0; 28];
        g.axpy_runs::<4>(crd, a.values(), &pos, 0..4, (6, 0), &mut out, (7, 0, 0), 0);
        let row = |lo: usize, hi: usize| -> Vec<f64> {
            (0..4)
                .map(|k| {
                    (lo..hi)
                        .map(|p| a.values()[p] * b[crd[p] as usize * 6 + k])
                        .sum()
                })
                .collect()
        };
        assert_eq!(out[0..4], row(0, 3)[..]);
        assert_eq!(
            out[7..11],
            [0.0; 4],
            "a segment that ends before it starts is empty"
        );
        assert_eq!(
            out[14..18],
            row(2, 8)[..],
            "an end past the coordinates is clamped"
        );
        assert_eq!(out[21..25], [0.0; 4]);
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
