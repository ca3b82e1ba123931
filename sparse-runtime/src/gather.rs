//! Reads of a dense operand at the coordinates a sparse level stores (SpMV's `x[crd[p]]`) without
//! a bounds check per read.
//!
//! The check of `x[j]` is one compare and branch per nonzero, but it is a second exit from the
//! loop, and LLVM neither unrolls nor schedules a loop with two exits as it does one with one: on
//! the cache-resident matrices of the comparison harness a CSR SpMV whose gather was checked took
//! 1.1-1.9 times as long as the same loop without the check (`lp_d2q06c`: 23 µs against 13).
//! A [`Gather`] checks once per tensor, not once per read, that every coordinate of the level is
//! inside the values it reads: the level's largest coordinate is found on first use and kept in the
//! tensor until its levels change. Where one is not, it reads as plain indexing does, checked.
#![allow(unsafe_code)]

use crate::atomic::AtomicCell;
use crate::{Format, Idx, Scalar, Tensor};

/// The values `vals` read at the coordinates of one level of a tensor: [`Gather::at`]`(crd, p)`
/// is `vals[crd[p]]`. Where every coordinate of the level is below `vals.len()` (found when the
/// gather is made), the read of the values is not checked; the tensor and `vals` stay borrowed
/// while the gather lives, so that stays true. Otherwise (a hashed level's empty slots hold
/// `Idx::MAX`) every read is checked, as plain indexing is.
#[derive(Clone, Copy, Debug)]
pub struct Gather<'a, T> {
    pub(crate) crd: &'a [Idx],
    pub(crate) vals: &'a [T],
    pub(crate) in_bounds: bool,
    /// One more than the level's largest coordinate (0 when it has none).
    pub(crate) bound: usize,
}

impl<'a, T: Copy> Gather<'a, T> {
    /// The gather of `vals` at the coordinates `crd` of level `level` of `coords`.
    ///
    /// `crd` is the level's coordinates as the kernel bound them (the same slice, which is
    /// checked): the loop over a segment of them is bounded by that slice's length, so LLVM
    /// drops the check of `crd[p]` in [`Gather::at`] only when it reads the very same slice.
    ///
    /// # Panics
    /// If `crd` is not the coordinates of level `level` of `coords`.
    pub fn new<U: Scalar, F: Format>(
        coords: &'a Tensor<U, F>,
        level: usize,
        crd: &'a [Idx],
        vals: &'a [T],
    ) -> Self {
        assert!(
            std::ptr::eq(crd, coords.level(level).crd()),
            "a gather's coordinates are those of the tensor's level"
        );
        let bound = coords.crd_bound(level);
        Gather {
            crd,
            vals,
            in_bounds: bound <= vals.len(),
            bound,
        }
    }

    /// `vals[crd[p]]`, where `crd` is the coordinates the gather was made with (checked: the
    /// check does not change inside a loop, which LLVM takes out of it, as it does the choice
    /// between a checked and an unchecked read). The read of `crd[p]` is checked too; a loop
    /// over a segment of `crd` bounded by its length lets LLVM drop that check, which it does
    /// only when the loop reads the very slice it is bounded by, not a copy kept in the gather.
    ///
    /// # Panics
    /// If `crd` is not the gather's coordinates, or `p` or (for a level with coordinates past
    /// the values) `crd[p]` is out of bounds.
    #[inline(always)]
    pub fn at(&self, crd: &[Idx], p: usize) -> T {
        assert!(
            std::ptr::eq(crd, self.crd),
            "a gather reads its own coordinates"
        );
        let j = crd[p] as usize;
        if !self.in_bounds {
            return self.vals[j];
        }
        debug_assert!(j < self.vals.len());
        // SAFETY: `crd` is `self.crd` (asserted above), every coordinate of which `new` found
        // below `vals.len()` (`in_bounds`; `Tensor::crd_bound` is one more than the largest,
        // recomputed whenever the tensor's levels change); both slices are borrowed for `'a`,
        // so neither can change while `self` lives.
        unsafe { *self.vals.get_unchecked(j) }
    }
}

impl<T: Scalar> Gather<'_, T> {
    /// `Σ weights[p] · vals[crd[p]]` over the positions `lo..hi` (`hi` clamped to the lengths
    /// of `crd` and `weights`; zero where the range is empty): a whole SpMV row in one call,
    /// summed in an order of the processor's choosing (see `dot.rs`), so floats may round
    /// differently from a loop of [`Gather::at`].
    ///
    /// # Panics
    /// If `crd` is not the gather's coordinates, or (for a level with coordinates past the
    /// values) a coordinate is out of bounds.
    #[inline(always)]
    pub fn dot(&self, crd: &[Idx], weights: &[T], lo: usize, hi: usize) -> T {
        assert!(
            std::ptr::eq(crd, self.crd),
            "a gather reads its own coordinates"
        );
        let hi = hi.min(crd.len()).min(weights.len());
        if lo >= hi {
            return T::ZERO;
        }
        if !self.in_bounds {
            let products = crd[lo..hi].iter().zip(&weights[lo..hi]);
            return products.fold(T::ZERO, |t, (&c, &w)| t + w * self.vals[c as usize]);
        }
        // SAFETY: `lo < hi <= crd.len(), weights.len()`, so both segments are in bounds and of
        // the same length; the segment of `crd` is of `self.crd`, every coordinate of which
        // `new` found below `vals.len()` (`in_bounds`; see `at`).
        unsafe {
            let (crd, weights) = (crd.get_unchecked(lo..hi), weights.get_unchecked(lo..hi));
            T::gather_dot(self.vals, crd, weights)
        }
    }

    /// [`Gather::dot`] of every row `r` in `rows`, the positions `pos[r]..pos[r + 1]`, into
    /// `out[r - first]`: a run of SpMV rows in one call (see `row_dots`). Rows outside
    /// `first..first + out.len()` or past the end of `pos` are skipped.
    ///
    /// # Panics
    /// As [`Gather::dot`].
    #[inline]
    pub fn dot_rows(
        &self,
        crd: &[Idx],
        weights: &[T],
        pos: &[Idx],
        rows: std::ops::Range<usize>,
        out: &mut [T],
        first: usize,
    ) {
        self.rows(crd, weights, pos, rows, out, first, false);
    }

    /// As [`Gather::dot_rows`], adding each row's sum to `out[r - first]`.
    ///
    /// # Panics
    /// As [`Gather::dot`].
    #[inline]
    pub fn dot_rows_add(
        &self,
        crd: &[Idx],
        weights: &[T],
        pos: &[Idx],
        rows: std::ops::Range<usize>,
        out: &mut [T],
        first: usize,
    ) {
        self.rows(crd, weights, pos, rows, out, first, true);
    }

    /// As [`Gather::dot_rows`], into the cells of an output that other threads write elsewhere:
    /// each row's sum is stored into `cells[r]` (added to it when `add`) with a plain move,
    /// for rows no other thread writes meanwhile (the rows a nonzero split's task holds whole).
    /// The rows are summed 64 at a time into a buffer on the stack, as `dot_rows` sums them.
    ///
    /// # Panics
    /// As [`Gather::dot`].
    pub fn dot_rows_cells(
        &self,
        crd: &[Idx],
        weights: &[T],
        pos: &[Idx],
        rows: std::ops::Range<usize>,
        cells: &[T::Atomic],
        add: bool,
    ) {
        const CHUNK: usize = 64;
        let mut buf = [T::ZERO; CHUNK];
        let end = (rows.end).min(cells.len()).min(pos.len().saturating_sub(1));
        let mut r = rows.start;
        while r < end {
            let hi = end.min(r + CHUNK);
            let sums = &mut buf[..hi - r];
            self.rows(crd, weights, pos, r..hi, sums, r, false);
            for (cell, &sum) in cells[r..hi].iter().zip(sums.iter()) {
                if add {
                    cell.add_exclusive(sum);
                } else {
                    cell.set(sum);
                }
            }
            r = hi;
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn rows(
        &self,
        crd: &[Idx],
        weights: &[T],
        pos: &[Idx],
        rows: std::ops::Range<usize>,
        out: &mut [T],
        first: usize,
        add: bool,
    ) {
        assert!(
            std::ptr::eq(crd, self.crd),
            "a gather reads its own coordinates"
        );
        let start = rows.start.max(first);
        let end = (rows.end)
            .min(first.saturating_add(out.len()))
            .min(pos.len().saturating_sub(1));
        if start >= end {
            return;
        }
        let (out, pos) = (&mut out[start - first..end - first], &pos[start..=end]);
        if !self.in_bounds {
            for (r, y) in out.iter_mut().enumerate() {
                let t = self.dot(crd, weights, pos[r] as usize, pos[r + 1] as usize);
                *y = if add { *y + t } else { t };
            }
            return;
        }
        let crd = &crd[..crd.len().min(weights.len())];
        // SAFETY: `crd` is a prefix of `self.crd`, every coordinate of which `new` found below
        // `vals.len()` (`in_bounds`; see `at`), and no longer than `weights`.
        unsafe { T::gather_dot_rows(self.vals, crd, weights, pos, out, add) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Csr, Level};

    fn matrix() -> Tensor<f64, Csr> {
        let entries = [([0, 3], 1.0), ([1, 0], 2.0), ([1, 2], 3.0), ([2, 1], 4.0)];
        Tensor::from_entries([3, 4], entries).unwrap()
    }

    #[test]
    fn reads_the_values_at_each_stored_coordinate() {
        let a = matrix();
        let x = [10.0, 20.0, 30.0, 40.0];
        let g = Gather::new(&a, 1, a.level(1).crd(), &x);
        assert!(g.in_bounds);
        let got: Vec<f64> = (0..4).map(|p| g.at(a.level(1).crd(), p)).collect();
        assert_eq!(got, vec![40.0, 10.0, 30.0, 20.0]);
    }

    /// Rows into shared cells: set or added, more rows than one buffer of 64 (rows of one to
    /// five entries and empty ones), the range clamped to the cells and to `pos`.
    #[test]
    fn rows_into_cells_agree_with_rows_into_a_slice() {
        let entries = (0..150usize)
            .flat_map(|r| (0..r % 6).map(move |k| ([r, (r + 3 * k) % 9], (r + k) as f64 - 70.0)));
        let a = Tensor::<f64, Csr>::from_entries([150, 9], entries).unwrap();
        let x: Vec<f64> = (0..9).map(|j| j as f64 * 0.5 - 2.0).collect();
        let (crd, w, pos) = (a.level(1).crd(), a.values(), a.level(1).pos());
        let g = Gather::new(&a, 1, crd, &x);
        for add in [false, true] {
            let (high, low) = (80, 20);
            for rows in [3..140, 0..150, 140..400, high..low] {
                let mut want: Vec<f64> = (0..150).map(|r| r as f64).collect();
                let mut cells = want.clone();
                if add {
                    g.dot_rows_add(crd, w, pos, rows.clone(), &mut want, 0);
                } else {
                    g.dot_rows(crd, w, pos, rows.clone(), &mut want, 0);
                }
                let shared = crate::atomic::as_atomic(&mut cells);
                g.dot_rows_cells(crd, w, pos, rows.clone(), shared, add);
                assert_eq!(cells, want, "{rows:?}, add {add}");
            }
        }
    }

    #[test]
    fn dots_sum_a_segment_of_products() {
        let a = Tensor::<f64, Csr>::from_entries(
            [2, 6],
            (0..6)
                .map(|j| ([0, j], j as f64 + 1.0))
                .chain([([1, 2], 5.0)]),
        )
        .unwrap();
        let x = [1.0, -2.0, 3.0, -4.0, 5.0, -6.0];
        let g = Gather::new(&a, 1, a.level(1).crd(), &x);
        let crd = a.level(1).crd();
        assert_eq!(
            g.dot(crd, a.values(), 0, 6),
            1.0 - 4.0 + 9.0 - 16.0 + 25.0 - 36.0
        );
        assert_eq!(g.dot(crd, a.values(), 6, 7), 15.0);
        assert_eq!(g.dot(crd, a.values(), 6, 100), 15.0, "the end is clamped");
        assert_eq!(g.dot(crd, a.values(), 7, 3), 0.0, "an empty range");
        assert_eq!(
            g.dot(crd, &a.values()[..2], 0, 6),
            -3.0,
            "clamped to the weights"
        );
        let short = Gather::new(&a, 1, crd, &x[..3]);
        assert!(std::panic::catch_unwind(|| short.dot(crd, a.values(), 0, 6)).is_err());
        assert_eq!(short.dot(crd, a.values(), 6, 7), 15.0);
    }

    #[test]
    fn runs_of_rows_write_each_row_s_sum_at_its_offset() {
        // Rows 0..6 of lengths 0, 1, 2, 5, 0, 3 (columns revisited).
        let lens = [0usize, 1, 2, 5, 0, 3];
        let entries: Vec<([usize; 2], f64)> = (lens.iter().enumerate())
            .flat_map(|(r, &n)| (0..n).map(move |k| ([r, (k * 2 + r) % 6], (k + r) as f64 - 2.0)))
            .collect();
        let a = Tensor::<f64, Csr>::from_entries([6, 6], entries.iter().copied()).unwrap();
        let x = [1.0, -2.0, 3.0, -4.0, 5.0, -6.0];
        let mut want = [0.0; 6];
        for ([r, c], v) in &entries {
            want[*r] += v * x[*c];
        }
        let (pos, crd) = (a.level(1).pos(), a.level(1).crd());
        let g = Gather::new(&a, 1, crd, &x);
        let mut all = [f64::NAN; 6];
        g.dot_rows(crd, a.values(), pos, 0..6, &mut all, 0);
        assert_eq!(all, want);
        // Rows 2..5 into a block that starts at row 2; rows outside the block are skipped.
        let mut block = [100.0; 3];
        g.dot_rows_add(crd, a.values(), pos, 1..9, &mut block, 2);
        assert_eq!(block, [100.0 + want[2], 100.0 + want[3], 100.0 + want[4]]);
        // Values shorter than a coordinate: read checked, as plain indexing.
        let short = Gather::new(&a, 1, crd, &x[..3]);
        let mut one = [0.0];
        short.dot_rows(crd, a.values(), pos, 1..2, &mut one, 1);
        assert_eq!(one[0], want[1]);
        let mut rest = [0.0; 6];
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            short.dot_rows(crd, a.values(), pos, 0..6, &mut rest, 0)
        }));
        assert!(caught.is_err());
    }

    #[test]
    fn values_shorter_than_the_largest_coordinate_are_read_checked() {
        let a = matrix();
        let x = [1.0, 2.0, 3.0];
        let g = Gather::new(&a, 1, a.level(1).crd(), &x);
        assert!(!g.in_bounds);
        assert_eq!(g.at(a.level(1).crd(), 1), 1.0);
        assert!(std::panic::catch_unwind(|| g.at(a.level(1).crd(), 0)).is_err());
    }

    #[test]
    fn a_level_without_coordinates_gathers_nothing() {
        let a = matrix();
        assert!(Gather::<f64>::new(&a, 0, a.level(0).crd(), &[]).in_bounds);
        let empty = Tensor::<f64, Csr>::zeros([0, 0]);
        assert!(Gather::<f64>::new(&empty, 1, empty.level(1).crd(), &[]).in_bounds);
    }

    #[test]
    fn coordinates_of_another_tensor_are_refused() {
        let (a, b) = (matrix(), matrix());
        let x = [0.0; 4];
        assert!(std::panic::catch_unwind(|| Gather::new(&a, 1, b.level(1).crd(), &x)).is_err());
        let g = Gather::new(&a, 1, a.level(1).crd(), &x);
        assert!(std::panic::catch_unwind(|| g.at(b.level(1).crd(), 0)).is_err());
        assert!(std::panic::catch_unwind(|| g.at(a.level(1).crd(), 4)).is_err());
    }

    #[test]
    fn the_bound_follows_a_reassembled_output() {
        // A kernel output rebuilt with a larger coordinate must not keep its old bound.
        let mut y = Tensor::<f64, Csr>::from_entries([2, 8], [([0, 1], 1.0)]).unwrap();
        let bounded = |y: &Tensor<f64, Csr>, n: usize| {
            Gather::new(y, 1, y.level(1).crd(), &vec![0.0; n]).in_bounds
        };
        assert!(bounded(&y, 2));
        let source = Tensor::<f64, Csr>::from_entries([2, 8], [([1, 7], 1.0)]).unwrap();
        crate::assembly::copy_structure(&mut y, &source).unwrap();
        assert!(!bounded(&y, 2));
        assert!(bounded(&y, 8));
        let mut asm = crate::assembly::begin_assembly(&mut y);
        asm.append(1, 5);
        asm.append_value(1.0);
        asm.finish_segment(1, 0);
        crate::assembly::end_assembly(&mut y, asm).unwrap();
        let Level::Compressed { crd, .. } = y.level(1) else {
            panic!("csr");
        };
        assert_eq!(crd, &vec![5]);
        assert!(bounded(&y, 6));
        assert!(!bounded(&y, 5));
    }
}
