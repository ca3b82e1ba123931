//! Output assembly: how a generated kernel rebuilds the structure of a sparse output
//! (Chou et al. 2018, the append functions in their one-pass form).
//!
//! A kernel calls [`begin_assembly`], which takes the output's level arrays and values out
//! (cleared, capacity kept, so a kernel run in a loop stops allocating after the first call), then
//! appends coordinates and values in storage order through the returned [`Assembly`], closing each
//! compressed segment with [`Assembly::finish_segment`], and hands it back to
//! [`end_assembly`]. That pads the trailing `pos` entries, and installs the levels only if
//! the runtime validator accepts them: a kernel with a bug returns an error instead of leaving a
//! corrupt tensor behind.
//!
//! Dense output levels carry no assembly data (their size is the shape); singleton levels only
//! `crd`; compressed levels `pos` and `crd`. Range, offset and hashed levels are not assembled by
//! appending (the compiler refuses such outputs), and appending to them is reported as an error.

use sparse_format::{Coord, Format, LevelKind};

use crate::Entries;
use crate::storage::{Idx, Level};
use crate::walk::{logical_coords, walk};
use crate::{FormatError, Scalar, Tensor};

/// The output's levels and values while a kernel rebuilds them; see the module documentation.
///
/// ```
/// use sparse_runtime::__private::{begin_assembly, end_assembly};
/// use sparse_runtime::{Csr, Tensor};
///
/// let mut y = Tensor::<f64, Csr>::zeros([3, 4]);
/// let mut asm = begin_assembly(&mut y);
/// asm.append(1, 2); // row 0: column 2
/// asm.append_value(5.0);
/// asm.finish_segment(1, 0);
/// asm.append(1, 0); // row 2: column 0; row 1 gets an empty segment
/// asm.append_value(7.0);
/// asm.finish_segment(1, 2);
/// end_assembly(&mut y, asm)?;
/// assert_eq!(y.level(1).pos(), &[0, 1, 1, 2]);
/// assert_eq!(y.to_dense(), vec![0.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0, 0.0, 0.0, 0.0]);
/// # Ok::<(), sparse_runtime::FormatError>(())
/// ```
#[derive(Debug)]
pub struct Assembly<T> {
    pub(crate) levels: Vec<Level>,
    pub(crate) vals: Vec<T>,
    /// The first thing that went wrong; later calls are then ignored and
    /// [`end_assembly`] returns it. Recording instead of panicking keeps the kernel's hot
    /// loop free of error paths.
    fault: Option<FormatError>,
}

/// One parallel iteration's part of a row-parallel assembly: the coordinates and values of its
/// rows ([`Assembly::parallel_rows`]).
pub type RowsPart<'a, T> = (&'a mut [Idx], &'a mut [T]);

impl<T: Scalar> Assembly<T> {
    /// Appends coordinate `coord` to the `crd` of compressed or singleton level `level`.
    #[inline]
    pub fn append(&mut self, level: usize, coord: usize) {
        let Ok(coord) = Idx::try_from(coord) else {
            return self.fail(too_large("a coordinate of the assembled output", coord));
        };
        match self.levels.get_mut(level) {
            Some(Level::Compressed { crd, .. } | Level::Singleton { crd }) => crd.push(coord),
            _ => self.fail(not_appendable(level)),
        }
    }

    /// Appends a value to the values array (one per position of the last level, in order).
    #[inline]
    pub fn append_value(&mut self, value: T) {
        self.vals.push(value);
    }

    /// Closes the segment of compressed level `level` under parent position `parent`:
    /// `pos[parent + 1]` becomes the level's current length. Parents since the last closed one that
    /// got no children (skipped rows) get empty segments first. Closing a parent twice, or one
    /// before the last closed, changes nothing.
    #[inline]
    pub fn finish_segment(&mut self, level: usize, parent: usize) {
        match self.levels.get_mut(level) {
            Some(Level::Compressed { pos, crd }) => {
                let Ok(end) = Idx::try_from(crd.len()) else {
                    let fault = too_large("a position of the assembled output", crd.len());
                    return self.fail(fault);
                };
                close_segment(pos, parent, end);
            }
            _ => self.fail(not_appendable(level)),
        }
    }

    /// The number of coordinates appended so far to compressed or singleton level `level` (0 for
    /// other levels): the position the next appended coordinate gets.
    #[inline]
    pub fn len(&self, level: usize) -> usize {
        self.levels.get(level).map_or(0, |l| l.crd().len())
    }

    /// Lays out compressed level `level` (the last) for a parallel fill: `counts[k]` lists, in row
    /// order, the segments parallel iteration `k` closes, each as its parent position (the row)
    /// and how many entries it appends. `pos` becomes their prefix sums, as
    /// [`Assembly::finish_segment`] would have made them (rows no iteration closes, such as the
    /// rows a loop over a sparse input's stored rows skips, get empty segments), `crd` and the
    /// values are sized to the total, and each iteration gets its own contiguous part of both to
    /// fill (generated kernels call it between their count pass and their fill pass).
    pub fn parallel_rows(
        &mut self,
        level: usize,
        counts: &[Vec<(usize, usize)>],
    ) -> Result<Vec<RowsPart<'_, T>>, FormatError> {
        let Some(Level::Compressed { pos, crd }) = self.levels.get_mut(level) else {
            return Err(not_appendable(level));
        };
        let mut end = 0usize;
        let mut totals = Vec::with_capacity(counts.len());
        for segments in counts {
            let start = end;
            for &(parent, n) in segments {
                end = end
                    .checked_add(n)
                    .ok_or_else(|| too_large("the number of appended entries", usize::MAX))?;
                let closed_at = Idx::try_from(end)
                    .map_err(|_| too_large("a position of the assembled output", end))?;
                close_segment(pos, parent, closed_at);
            }
            totals.push(end - start);
        }
        crd.clear();
        crd.resize(end, 0);
        self.vals.clear();
        self.vals.resize(end, T::ZERO);
        let (mut crd_rest, mut vals_rest) = (crd.as_mut_slice(), self.vals.as_mut_slice());
        let mut parts = Vec::with_capacity(totals.len());
        for total in totals {
            let (crd_part, crd_tail) = crd_rest.split_at_mut(total);
            let (vals_part, vals_tail) = vals_rest.split_at_mut(total);
            parts.push((crd_part, vals_part));
            (crd_rest, vals_rest) = (crd_tail, vals_tail);
        }
        Ok(parts)
    }

    /// Whether something went wrong (an index past `u32`, an append to a level that takes none);
    /// [`end_assembly`] will return the error.
    pub fn has_fault(&self) -> bool {
        self.fault.is_some()
    }

    #[cold]
    fn fail(&mut self, fault: FormatError) {
        self.fault.get_or_insert(fault);
    }
}

/// `pos[parent + 1] = end`, after giving the parents since the last closed one empty segments;
/// nothing when `parent` is closed already.
pub(crate) fn close_segment(pos: &mut Vec<Idx>, parent: usize, end: Idx) {
    let closed = pos.last().copied().unwrap_or(0);
    let len = parent.saturating_add(1);
    if pos.len() <= len {
        pos.resize(len, closed);
        pos.push(end);
    }
}

pub(crate) fn too_large(what: &'static str, value: usize) -> FormatError {
    FormatError::TooLarge {
        what,
        value: Some(value),
        limit: Idx::MAX as usize,
    }
}

pub(crate) fn not_appendable(level: usize) -> FormatError {
    FormatError::Unrepresentable {
        format: "the kernel's output",
        level,
        reason: "coordinates were appended to a level that is not compressed or singleton",
    }
}

/// Starts rebuilding `tensor`'s structure (generated kernels call it): the levels and values move
/// into the returned [`Assembly`], cleared but keeping their capacity. Until [`end_assembly`] the
/// tensor has no levels and must not be read; a kernel that panics in between leaves it so.
pub fn begin_assembly<T: Scalar, F: Format>(tensor: &mut Tensor<T, F>) -> Assembly<T> {
    tensor.levels_changed();
    let mut levels = std::mem::take(&mut tensor.levels);
    levels.iter_mut().for_each(clear_level);
    let mut vals = std::mem::take(&mut tensor.vals);
    vals.clear();
    tensor.filled = None;
    tensor.nnz = 0;
    Assembly {
        levels,
        vals,
        fault: None,
    }
}

/// Finishes an assembly: pads every compressed level's `pos` to one more entry than its parent
/// level has positions, validates the result against the format and the shape, and installs it.
/// On error (an overflow, or a structure the validator rejects) the tensor is left empty and
/// valid.
pub fn end_assembly<T: Scalar, F: Format>(
    tensor: &mut Tensor<T, F>,
    assembly: Assembly<T>,
) -> Result<(), FormatError> {
    let Assembly {
        mut levels,
        vals,
        fault,
    } = assembly;
    let checked = match fault {
        Some(fault) => Err(fault),
        None => pad_positions(&mut levels).and_then(|()| {
            crate::validate::validate(F::LEVELS, tensor.shape(), &levels, vals.len())
        }),
    };
    if let Err(e) = checked {
        if let Ok(empty) = Tensor::try_filled(tensor.shape(), tensor.fill) {
            *tensor = empty;
        }
        return Err(e);
    }
    tensor.nnz = count_entries(F::LEVELS, tensor.shape(), &levels, vals.len());
    tensor.levels = levels;
    tensor.levels_changed();
    tensor.vals = vals;
    tensor.filled = None;
    Ok(())
}

/// Starts collecting `tensor`'s new entries as coordinate/value triples (scatter assembly:
/// generated kernels call it for outputs whose levels cannot be appended to in order, such as
/// hashed ones, or whose loops visit a coordinate more than once, such as AᵀA with the rows of
/// A outermost). The triples may come in any order and repeat a coordinate.
pub fn begin_entries<T: Scalar, F: Format>(tensor: &Tensor<T, F>) -> Entries<T> {
    Entries::new(tensor.shape().to_vec())
}

/// [`begin_entries`] for `+=`: the list starts with `tensor`'s stored entries, so the new
/// triples are summed into them when [`end_entries`] packs the list.
pub fn begin_entries_merged<T: Scalar, F: Format>(tensor: &Tensor<T, F>) -> Entries<T> {
    tensor.entries()
}

/// Packs the collected entries into `tensor`'s format and installs the result: the triples are
/// sorted by their level coordinates, repeated coordinates summed, and only the coordinates some
/// triple names are stored (a sum that cancels to zero is kept, as an assembled output keeps it;
/// the fill value is kept).
pub fn end_entries<T: Scalar, F: Format>(
    tensor: &mut Tensor<T, F>,
    entries: Entries<T>,
) -> Result<(), FormatError> {
    *tensor = Tensor::from_entry_list_with_fill(&entries, crate::ExplicitZeros::Keep, tensor.fill)?;
    Ok(())
}

/// Gives `tensor` the structure of `other`'s first levels, values set to its fill (generated kernels call
/// it when the output's nonzeros are among an input's: SDDMM, TTV into a sparse output). The
/// arrays are copied into the existing ones, keeping their capacity, and validated against
/// `tensor`'s format and shape. Where `tensor`'s format has dense levels in place of `other`'s
/// compressed ones (a CSR output of TTV over a CSF tensor), the compressed levels below are
/// spread over the dense parents, positions unchanged. A `tensor` that already holds `other`'s
/// levels (the output of an earlier call) keeps them: they were validated when installed.
pub fn copy_structure<T: Scalar, F: Format, G: Format>(
    tensor: &mut Tensor<T, F>,
    other: &Tensor<T, G>,
) -> Result<(), FormatError> {
    let n = F::LEVELS.len();
    let Some(source) = other.levels.get(..n) else {
        return Err(FormatError::Unrepresentable {
            format: F::NAME,
            level: other.levels.len(),
            reason: "the input has fewer levels than the output whose structure it gives",
        });
    };
    let mut parent_len = 1usize;
    for level in source {
        parent_len = level.positions(parent_len).ok_or(FormatError::TooLarge {
            what: "the number of positions of a level",
            value: None,
            limit: usize::MAX,
        })?;
    }
    if G::LEVELS.get(..n) != Some(F::LEVELS) {
        let converted = crate::pattern::converted_levels(F::LEVELS, tensor.shape(), source)?;
        // As below: the structure an earlier call installed is compared, not rebuilt.
        if !crate::pattern::holds(&converted, &tensor.levels) {
            let levels: Vec<Level> = converted
                .into_iter()
                .map(crate::pattern::Converted::into_level)
                .collect();
            crate::validate::validate(F::LEVELS, tensor.shape(), &levels, parent_len)?;
            tensor.levels = levels;
            tensor.levels_changed();
        }
    } else if tensor.levels.as_slice() == source {
        // The structure an earlier call installed (validated then): a comparison, not a copy
        // and a validation, on every call of a kernel that keeps its output.
    } else if tensor.levels.len() == n {
        crate::validate::validate(F::LEVELS, tensor.shape(), source, parent_len)?;
        tensor.levels.clone_from_slice(source);
        tensor.levels_changed();
    } else {
        crate::validate::validate(F::LEVELS, tensor.shape(), source, parent_len)?;
        tensor.levels = source.to_vec();
        tensor.levels_changed();
    }
    tensor.vals.clear();
    tensor.vals.resize(parent_len, tensor.fill);
    tensor.filled = None;
    tensor.nnz = count_entries(F::LEVELS, tensor.shape(), &tensor.levels, tensor.vals.len());
    Ok(())
}

/// The levels and the values at once, the values mutable: a kernel that computes into an already
/// assembled output reads its `pos`/`crd` while it writes its values, which two separate method
/// calls on the tensor cannot borrow together.
pub fn levels_and_values_mut<T: Scalar, F: Format>(
    tensor: &mut Tensor<T, F>,
) -> (&[Level], &mut [T]) {
    (&tensor.levels, &mut tensor.vals)
}

/// Empties the arrays an assembly rebuilds; a compressed `pos` keeps its leading zero.
fn clear_level(level: &mut Level) {
    match level {
        Level::Compressed { pos, crd } => {
            pos.clear();
            pos.push(0);
            crd.clear();
        }
        Level::Singleton { crd } | Level::Hashed { crd, .. } => crd.clear(),
        Level::Bitmap { present, .. } => present.fill(false),
        Level::Dense { .. } | Level::Range { .. } | Level::Offset => {}
    }
}

/// Extends each compressed `pos` to the parent level's positions + 1 with empty segments for the
/// trailing parents that got no children. Children appended after the last closed segment stay
/// outside every segment, so validation reports them instead of giving them to a wrong parent.
fn pad_positions(levels: &mut [Level]) -> Result<(), FormatError> {
    let mut parent_len = 1usize;
    for level in levels.iter_mut() {
        if let Level::Compressed { pos, .. } = level {
            let closed = pos.last().copied().unwrap_or(0);
            let len = parent_len.saturating_add(1);
            if pos.len() < len {
                pos.resize(len, closed);
            }
        }
        parent_len = level.positions(parent_len).ok_or(FormatError::TooLarge {
            what: "the number of positions of a level",
            value: None,
            limit: usize::MAX,
        })?;
    }
    Ok(())
}

/// The stored entries of a validated hierarchy: every value position, unless blocked dimensions
/// can put positions past the shape's edge, a range level skips the positions of a diagonal
/// outside the matrix, hashed levels have empty buckets, or a bitmap level absent positions, which
/// only a walk tells apart.
pub(crate) fn count_entries(
    specs: &[sparse_format::LevelSpec],
    shape: &[usize],
    levels: &[Level],
    vals_len: usize,
) -> usize {
    let simple = specs.iter().all(|s| {
        matches!(s.coord, Coord::Dim(_) | Coord::Slot)
            && !matches!(
                s.kind,
                LevelKind::Hashed | LevelKind::Range | LevelKind::Bitmap
            )
    });
    if simple {
        return vals_len;
    }
    let mut nnz = 0;
    let mut out = vec![0usize; shape.len()];
    walk(levels, |c, _| {
        nnz += usize::from(logical_coords(specs, c, shape, &mut out));
    });
    nnz
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Coo, Csr, Dcsr, Dense, Problem};

    /// Builds a CSR matrix row by row from `(row, col, value)` in storage order, the way a
    /// generated kernel does: a segment is closed after the last entry of each row that has any.
    fn assemble_csr(y: &mut Tensor<f64, Csr>, entries: &[(usize, usize, f64)]) {
        let mut asm = begin_assembly(y);
        for (e, &(i, j, v)) in entries.iter().enumerate() {
            asm.append(1, j);
            asm.append_value(v);
            if entries.get(e + 1).is_none_or(|next| next.0 != i) {
                asm.finish_segment(1, i);
            }
        }
        end_assembly(y, asm).unwrap();
    }

    #[test]
    fn copy_structure_keeps_a_structure_it_already_holds_and_replaces_another() {
        let b = Tensor::<f64, Csr>::from_entries([3, 4], [([0, 1], 2.0), ([2, 3], 5.0)]).unwrap();
        let c = Tensor::<f64, Csr>::from_entries([3, 4], [([1, 0], 1.0)]).unwrap();
        let mut a = Tensor::<f64, Csr>::from_entries([3, 4], [([1, 2], 7.0)]).unwrap();
        for source in [&b, &b, &c, &b] {
            copy_structure(&mut a, source).unwrap();
            assert_eq!(a.levels(), source.levels());
            assert_eq!(a.values(), vec![0.0; source.nnz()].as_slice());
            assert_eq!(a.nnz(), source.nnz());
        }
    }

    /// A CSR output taking a CSF input's first two levels (TTV): a call with the same input keeps
    /// the converted structure, a call with another input replaces it.
    #[test]
    fn copy_structure_converts_again_only_for_another_input() {
        use crate::Csf;
        let b =
            Tensor::<f64, Csf<3>>::from_entries([4, 3, 2], [([1, 2, 0], 1.0), ([3, 0, 1], 2.0)])
                .unwrap();
        let c = Tensor::<f64, Csf<3>>::from_entries([4, 3, 2], [([0, 1, 1], 3.0)]).unwrap();
        let mut a = Tensor::<f64, Csr>::zeros([4, 3]);
        for (source, pos, crd) in [
            (&b, &[0, 0, 1, 1, 2][..], &[2, 0][..]),
            (&b, &[0, 0, 1, 1, 2], &[2, 0]),
            (&c, &[0, 1, 1, 1, 1], &[1]),
            (&b, &[0, 0, 1, 1, 2], &[2, 0]),
        ] {
            copy_structure(&mut a, source).unwrap();
            assert_eq!(a.level(1).pos(), pos);
            assert_eq!(a.level(1).crd(), crd);
            assert_eq!(a.values(), vec![0.0; crd.len()].as_slice());
            assert_eq!(a.nnz(), crd.len());
        }
    }

    #[test]
    fn csr_with_skipped_rows_matches_its_dense_form() {
        let mut y = Tensor::<f64, Csr>::from_entries([5, 3], [([4, 1], 9.0)]).unwrap();
        // Rows 0, 2 and 4 (the last) have no entries.
        assemble_csr(&mut y, &[(1, 0, 1.0), (1, 2, 2.0), (3, 1, 3.0)]);
        assert_eq!(y.level(1).pos(), &[0, 0, 2, 2, 3, 3]);
        assert_eq!(y.level(1).crd(), &[0, 2, 1]);
        assert_eq!(y.nnz(), 3);
        let mut dense = vec![0.0; 15];
        dense[3] = 1.0;
        dense[5] = 2.0;
        dense[10] = 3.0;
        assert_eq!(y.to_dense(), dense);
    }

    /// Two parallel iterations over stored rows 1 and 3 (rows 0, 2 and 4 skipped): the layout is
    /// the one `finish_segment` gives the same rows.
    #[test]
    fn parallel_rows_give_skipped_rows_empty_segments() {
        let mut y = Tensor::<f64, Csr>::zeros([5, 3]);
        let mut asm = begin_assembly(&mut y);
        let parts = asm.parallel_rows(1, &[vec![(1, 2)], vec![(3, 1)]]).unwrap();
        assert_eq!(
            parts.iter().map(|(c, _)| c.len()).collect::<Vec<_>>(),
            [2, 1]
        );
        for ((crd, vals), (cols, v)) in parts.into_iter().zip([(&[0, 2][..], 1.0), (&[1][..], 3.0)])
        {
            crd.copy_from_slice(&cols.iter().map(|&c| c as Idx).collect::<Vec<_>>());
            vals.fill(v);
        }
        end_assembly(&mut y, asm).unwrap();
        let mut serial = Tensor::<f64, Csr>::zeros([5, 3]);
        assemble_csr(&mut serial, &[(1, 0, 1.0), (1, 2, 1.0), (3, 1, 3.0)]);
        assert_eq!(y.level(1).pos(), &[0, 0, 2, 2, 3, 3]);
        assert_eq!(y.level(1).pos(), serial.level(1).pos());
        assert_eq!(y.to_dense(), serial.to_dense());
    }

    #[test]
    fn assembling_again_reuses_capacity() {
        let mut y = Tensor::<f64, Csr>::zeros([2, 2]);
        assemble_csr(&mut y, &[(0, 0, 1.0), (0, 1, 2.0), (1, 1, 3.0)]);
        let crd_capacity = match y.level(1) {
            Level::Compressed { crd, .. } => crd.capacity(),
            _ => unreachable!(),
        };
        assemble_csr(&mut y, &[(1, 0, 4.0)]);
        assert_eq!(y.to_dense(), vec![0.0, 0.0, 4.0, 0.0]);
        match y.level(1) {
            Level::Compressed { crd, .. } => assert!(crd.capacity() >= crd_capacity),
            _ => unreachable!(),
        }
    }

    #[test]
    fn empty_assembly_gives_an_empty_tensor() {
        let mut y = Tensor::<f64, Dcsr>::from_entries([3, 3], [([1, 1], 1.0)]).unwrap();
        let asm = begin_assembly(&mut y);
        end_assembly(&mut y, asm).unwrap();
        assert_eq!(y.level(0).pos(), &[0, 0]);
        assert_eq!(y.level(1).pos(), &[0]);
        assert_eq!(y.nnz(), 0);
        assert_eq!(y.to_dense(), vec![0.0; 9]);
    }

    #[test]
    fn coo_levels_assemble_compressed_then_singleton() {
        let mut y = Tensor::<i32, Coo<2>>::zeros([2, 3]);
        let mut asm = begin_assembly(&mut y);
        for (i, j, v) in [(0, 2, 5), (1, 0, 6), (1, 1, 7)] {
            asm.append(0, i);
            asm.append(1, j);
            asm.append_value(v);
        }
        asm.finish_segment(0, 0);
        end_assembly(&mut y, asm).unwrap();
        assert_eq!(y.to_dense(), vec![0, 0, 5, 6, 7, 0]);
    }

    #[test]
    fn coordinate_past_u32_sets_the_fault_and_fails() {
        let mut y = Tensor::<f64, Csr>::from_entries([2, 2], [([0, 0], 1.0)]).unwrap();
        let mut asm = begin_assembly(&mut y);
        asm.append(1, Idx::MAX as usize + 1);
        assert!(asm.has_fault());
        asm.append_value(1.0);
        let err = end_assembly(&mut y, asm).unwrap_err();
        assert!(matches!(
            err,
            FormatError::TooLarge {
                value: Some(v),
                ..
            } if v == Idx::MAX as usize + 1
        ));
        // The failed output is empty and valid, not half-built.
        assert_eq!(y.level(1).pos(), &[0, 0, 0]);
        assert_eq!(y.to_dense(), vec![0.0; 4]);
    }

    #[test]
    fn unsorted_columns_are_rejected_by_validation() {
        let mut y = Tensor::<f64, Csr>::zeros([1, 3]);
        let mut asm = begin_assembly(&mut y);
        for j in [2, 0] {
            asm.append(1, j);
            asm.append_value(1.0);
        }
        asm.finish_segment(1, 0);
        let err = end_assembly(&mut y, asm).unwrap_err();
        assert!(matches!(
            err,
            FormatError::Corrupt {
                level: 1,
                problem: Problem::Unsorted {
                    before: 2,
                    after: 0
                },
                ..
            }
        ));
        assert_eq!(y.to_dense(), vec![0.0; 3]);
    }

    #[test]
    fn coordinate_outside_the_shape_is_rejected() {
        let mut y = Tensor::<f64, Csr>::zeros([1, 3]);
        let mut asm = begin_assembly(&mut y);
        asm.append(1, 3);
        asm.append_value(1.0);
        asm.finish_segment(1, 0);
        let err = end_assembly(&mut y, asm).unwrap_err();
        assert!(matches!(
            err,
            FormatError::Corrupt {
                problem: Problem::CrdOutOfBounds { crd: 3, size: 3 },
                ..
            }
        ));
    }

    #[test]
    fn values_without_positions_are_rejected() {
        let mut y = Tensor::<f64, Csr>::zeros([2, 2]);
        let mut asm = begin_assembly(&mut y);
        asm.append_value(1.0);
        let err = end_assembly(&mut y, asm).unwrap_err();
        assert!(matches!(
            err,
            FormatError::Corrupt {
                level: 2,
                problem: Problem::Length {
                    array: "vals",
                    expected: 0,
                    found: 1
                },
                ..
            }
        ));
    }

    #[test]
    fn children_of_an_unclosed_segment_are_rejected() {
        let mut y = Tensor::<f64, Csr>::zeros([2, 2]);
        let mut asm = begin_assembly(&mut y);
        asm.append(1, 0);
        asm.append_value(1.0);
        let err = end_assembly(&mut y, asm).unwrap_err();
        assert!(matches!(
            err,
            FormatError::Corrupt {
                level: 1,
                problem: Problem::Length {
                    array: "crd",
                    expected: 0,
                    found: 1
                },
                ..
            }
        ));
    }

    #[test]
    fn closing_a_segment_twice_changes_nothing() {
        let mut y = Tensor::<f64, Csr>::zeros([2, 2]);
        let mut asm = begin_assembly(&mut y);
        asm.append(1, 1);
        asm.append_value(1.0);
        asm.finish_segment(1, 1);
        asm.finish_segment(1, 1);
        asm.finish_segment(1, 0);
        end_assembly(&mut y, asm).unwrap();
        assert_eq!(y.level(1).pos(), &[0, 0, 1]);
    }

    #[test]
    fn appending_to_a_dense_level_is_a_fault() {
        let mut y = Tensor::<f64, Csr>::zeros([2, 2]);
        let mut asm = begin_assembly(&mut y);
        asm.append(0, 1);
        asm.finish_segment(0, 0);
        asm.append(7, 1);
        let err = end_assembly(&mut y, asm).unwrap_err();
        assert!(matches!(err, FormatError::Unrepresentable { level: 0, .. }));
    }

    /// Triples in any order with repeated coordinates, as AᵀA pushes them row by row of A: each
    /// coordinate is stored once with the sum, and no coordinate that no triple names.
    #[test]
    fn entries_are_sorted_and_repeated_coordinates_summed() {
        let mut y = Tensor::<f64, Csr>::from_entries([3, 3], [([0, 0], 9.0)]).unwrap();
        let mut list = begin_entries(&y);
        for (i, j, v) in [
            (2, 1, 1.0),
            (0, 2, 2.0),
            (2, 1, 3.0),
            (0, 1, 4.0),
            (0, 2, -1.0),
        ] {
            list.push(&[i, j], v).unwrap();
        }
        end_entries(&mut y, list).unwrap();
        assert_eq!(y.level(1).pos(), &[0, 2, 2, 3]);
        assert_eq!(y.level(1).crd(), &[1, 2, 1]);
        assert_eq!(y.nnz(), 3);
        let expected = vec![0.0, 4.0, 1.0, 0.0, 0.0, 0.0, 0.0, 4.0, 0.0];
        assert_eq!(y.to_dense(), expected);
    }

    /// `+=`: the stored entries come first, the new triples add to them or beside them.
    #[test]
    fn merged_entries_add_to_the_stored_ones() {
        let mut y = Tensor::<i64, Dcsr>::from_entries([4, 3], [([1, 1], 5), ([3, 0], 2)]).unwrap();
        let mut list = begin_entries_merged(&y);
        list.push(&[1, 1], 1).unwrap();
        list.push(&[0, 2], 7).unwrap();
        end_entries(&mut y, list).unwrap();
        assert_eq!(y.nnz(), 3);
        assert_eq!(y.to_dense(), vec![0, 0, 7, 0, 6, 0, 0, 0, 0, 2, 0, 0]);
        // An empty list empties the output; an empty merged list leaves it as it was.
        let list = begin_entries_merged(&y);
        end_entries(&mut y, list).unwrap();
        assert_eq!(y.nnz(), 3);
        let list = begin_entries(&y);
        end_entries(&mut y, list).unwrap();
        assert_eq!((y.nnz(), y.to_dense()), (0, vec![0; 12]));
    }

    /// A cancellation is a stored zero; a coordinate nothing wrote is not stored.
    #[test]
    fn a_sum_that_cancels_is_kept_and_coo_outputs_pack_too() {
        let mut y = Tensor::<f32, Coo<2>>::zeros([2, 2]);
        let mut list = begin_entries(&y);
        list.push(&[1, 0], 2.5).unwrap();
        list.push(&[1, 0], -2.5).unwrap();
        list.push(&[0, 1], 1.0).unwrap();
        end_entries(&mut y, list).unwrap();
        assert_eq!(y.nnz(), 2);
        assert_eq!(y.to_dense(), vec![0.0, 1.0, 0.0, 0.0]);
        assert!(begin_entries(&y).push(&[2, 0], 1.0).is_err());
    }

    #[test]
    fn dense_output_values_are_split_from_levels() {
        let mut y = Tensor::<f64, Dense<1>>::zeros([3]);
        let (levels, vals) = levels_and_values_mut(&mut y);
        assert_eq!(levels[0].size(), 3);
        vals[1] = 2.0;
        assert_eq!(y.to_dense(), vec![0.0, 2.0, 0.0]);
    }
}
