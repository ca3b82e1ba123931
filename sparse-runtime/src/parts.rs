//! Per-task parts of an output's assembly (the `AppendParts` and `EntryParts` regions of a
//! generated kernel): each contiguous piece of a parallel loop's iterations appends into a part of
//! its own, with the same calls a serial kernel makes on the whole output, and the parts are
//! joined in piece order afterwards. Joined so, they give exactly the arrays a serial run
//! appends, so a parallel kernel's output equals the serial one's bit for bit.
//!
//! An [`AssemblyPart`] counts positions from its own start: a segment closed under a parent
//! position of a compressed or singleton level is shifted by what the earlier parts appended to
//! that level, one under a dense level's position (a row of CSR, absolute already) is not.

use crate::assembly::{close_segment, not_appendable, too_large};
use crate::storage::{Idx, Level};
use crate::{Entries, FormatError, KernelError, Scalar};

/// One piece's share of an assembly by append; see the module documentation.
#[derive(Debug)]
pub struct AssemblyPart<T> {
    /// Per output level: whether it takes coordinates, and those appended.
    crd: Vec<Option<Vec<Idx>>>,
    /// Per output level: the segments closed, as (parent position, end), in order.
    closed: Vec<Vec<(usize, usize)>>,
    vals: Vec<T>,
    fault: Option<FormatError>,
}

impl<T: Scalar> AssemblyPart<T> {
    /// As [`crate::__private::Assembly::append`].
    #[inline]
    pub fn append(&mut self, level: usize, coord: usize) {
        let Ok(coord) = Idx::try_from(coord) else {
            return self.fail(too_large("a coordinate of the assembled output", coord));
        };
        match self.crd.get_mut(level) {
            Some(Some(crd)) => crd.push(coord),
            _ => self.fail(not_appendable(level)),
        }
    }

    /// As [`crate::__private::Assembly::append_value`].
    #[inline]
    pub fn append_value(&mut self, value: T) {
        self.vals.push(value);
    }

    /// As [`crate::__private::Assembly::finish_segment`], with `parent` counted from the part's
    /// start where the level above is compressed or singleton.
    #[inline]
    pub fn finish_segment(&mut self, level: usize, parent: usize) {
        let end = match self.crd.get(level) {
            Some(Some(crd)) => crd.len(),
            _ => return self.fail(not_appendable(level)),
        };
        let closed = &mut self.closed[level];
        if closed.last().is_none_or(|&(last, _)| last < parent) {
            closed.push((parent, end));
        }
    }

    /// The coordinates appended to `level` by this part.
    #[inline]
    pub fn len(&self, level: usize) -> usize {
        self.crd
            .get(level)
            .and_then(Option::as_ref)
            .map_or(0, Vec::len)
    }

    #[cold]
    fn fail(&mut self, fault: FormatError) {
        self.fault.get_or_insert(fault);
    }
}

/// An assembly (or list of triples) whose parallel loop's pieces each fill a part of their own.
pub trait TaskParts: Sized {
    /// What one piece fills.
    type Part: Send;

    /// The parts of `pieces` pieces, the first holding whatever the kernel collected before (so
    /// joining it back moves it, and copies nothing), the others empty.
    fn parts(&mut self, pieces: usize) -> Vec<Self::Part>;

    /// Appends the parts, in piece order.
    fn join(&mut self, parts: Vec<Self::Part>) -> Result<(), KernelError>;
}

impl<T: Scalar> TaskParts for crate::assembly::Assembly<T> {
    type Part = AssemblyPart<T>;

    /// The first part takes the output's arrays as they are, empty but with the room they kept
    /// from their last assembly, when nothing was appended before the region (so joining it
    /// back moves them, and copies nothing); the others start with a share of that room (a kernel
    /// run in a loop assembles outputs of about the same size), a quarter more than an even share
    /// so that uneven pieces seldom grow theirs.
    fn parts(&mut self, pieces: usize) -> Vec<AssemblyPart<T>> {
        let pieces = pieces.max(1);
        let share = |capacity: usize| capacity / pieces + capacity / (4 * pieces);
        let empty = self.vals.is_empty() && self.levels.iter().all(|l| l.crd().is_empty());
        let fresh = |levels: &[Level], vals: &Vec<T>| AssemblyPart {
            crd: (levels.iter())
                .map(|l| match l {
                    Level::Compressed { crd, .. } | Level::Singleton { crd } => {
                        Some(Vec::with_capacity(share(crd.capacity())))
                    }
                    _ => None,
                })
                .collect(),
            closed: vec![Vec::new(); levels.len()],
            vals: Vec::with_capacity(share(vals.capacity())),
            fault: None,
        };
        let mut parts: Vec<AssemblyPart<T>> = (0..pieces)
            .map(|_| fresh(&self.levels, &self.vals))
            .collect();
        if empty {
            let first = &mut parts[0];
            for (level, crd) in self.levels.iter_mut().zip(&mut first.crd) {
                if let (
                    Level::Compressed { crd: own, .. } | Level::Singleton { crd: own },
                    Some(crd),
                ) = (level, crd)
                {
                    *crd = std::mem::take(own);
                }
            }
            first.vals = std::mem::take(&mut self.vals);
        }
        parts
    }

    /// Each level's coordinates are appended after the earlier parts', each closed segment
    /// shifted by the positions the earlier parts took at its level and its parent's. A part's
    /// fault becomes the assembly's ([`crate::__private::end_assembly`] reports it).
    fn join(&mut self, parts: Vec<AssemblyPart<T>>) -> Result<(), KernelError> {
        for part in parts {
            if let Some(fault) = part.fault {
                return Err(fault.into());
            }
            let (levels, vals) = (&mut self.levels, &mut self.vals);
            // The first position of this part at the level above (0 above the root, and under
            // dense levels, whose positions the part numbers as the whole output does).
            let mut parent_start = 0usize;
            for ((level, crd), closed) in levels.iter_mut().zip(part.crd).zip(&part.closed) {
                parent_start = match (level, crd) {
                    (Level::Compressed { pos, crd }, Some(appended)) => {
                        let start = crd.len();
                        for &(parent, end) in closed {
                            let end = start + end;
                            let end = Idx::try_from(end).map_err(|_| {
                                too_large("a position of the assembled output", end)
                            })?;
                            close_segment(pos, parent_start + parent, end);
                        }
                        append(crd, appended);
                        start
                    }
                    (Level::Singleton { crd }, Some(appended)) => {
                        let start = crd.len();
                        append(crd, appended);
                        start
                    }
                    (Level::Dense { size }, _) => parent_start * *size,
                    _ => parent_start,
                };
            }
            append(vals, part.vals);
        }
        Ok(())
    }
}

/// `to` followed by `from`: `from` itself where `to` is empty (no copy; the first part's arrays
/// go back to the output so).
fn append<X: Copy>(to: &mut Vec<X>, from: Vec<X>) {
    match to.is_empty() {
        true => *to = from,
        false => to.extend_from_slice(&from),
    }
}

impl<T: Scalar> TaskParts for Entries<T> {
    type Part = Entries<T>;

    /// The first part is the list itself (the stored entries of `+=` first), the others empty.
    fn parts(&mut self, pieces: usize) -> Vec<Entries<T>> {
        let shape = self.shape().to_vec();
        let first = std::mem::replace(self, Entries::new(shape.clone()));
        let rest = (1..pieces.max(1)).map(|_| Entries::new(shape.clone()));
        std::iter::once(first).chain(rest).collect()
    }

    fn join(&mut self, parts: Vec<Entries<T>>) -> Result<(), KernelError> {
        for part in parts {
            self.append(part);
        }
        Ok(())
    }
}

/// How many parts a region that stands for `work` stored values cuts its `span` iterations into:
/// one below [`crate::__private::PARALLEL_MIN_WORK`] (the calling thread runs them in order),
/// otherwise two per thread, and never more than there are iterations. Every part but the first
/// is copied when the parts are joined, so fewer parts copy less; two per thread let rayon give
/// a thread whose piece ran short a second one.
#[inline]
pub fn part_count(work: usize, span: usize) -> usize {
    match crate::threads::pieces(work) {
        1 => 1,
        threads => threads.saturating_mul(2).min(span).max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::__private::{Assembly, begin_assembly, end_assembly};
    use crate::{Coo, Csr, Dcsr, Format, Tensor};

    /// Appends rows `(i, [(j, v)])` the way a generated kernel does for `format`: DCSR rows
    /// lazily (children closed under the next row position, then the row coordinate), CSR rows
    /// closed under the row, COO entries with both coordinates.
    fn rows<A: Appender>(asm: &mut A, format: &str, rows: &Rows) {
        for &(i, row) in rows {
            for &(j, v) in row {
                if format == "coo" {
                    asm.append(0, i);
                }
                asm.append(1, j);
                asm.append_value(v);
            }
            match format {
                "dcsr" if !row.is_empty() => {
                    let at = asm.len(0);
                    asm.finish_segment(1, at);
                    asm.append(0, i);
                }
                "csr" => asm.finish_segment(1, i),
                _ => {}
            }
        }
    }

    /// The calls a kernel makes, on a whole assembly or on a part.
    trait Appender {
        fn append(&mut self, level: usize, coord: usize);
        fn append_value(&mut self, value: f64);
        fn finish_segment(&mut self, level: usize, parent: usize);
        fn len(&self, level: usize) -> usize;
    }

    macro_rules! appender {
        ($t:ty) => {
            impl Appender for $t {
                fn append(&mut self, level: usize, coord: usize) {
                    <$t>::append(self, level, coord)
                }
                fn append_value(&mut self, value: f64) {
                    <$t>::append_value(self, value)
                }
                fn finish_segment(&mut self, level: usize, parent: usize) {
                    <$t>::finish_segment(self, level, parent)
                }
                fn len(&self, level: usize) -> usize {
                    <$t>::len(self, level)
                }
            }
        };
    }
    appender!(Assembly<f64>);
    appender!(AssemblyPart<f64>);

    type Rows<'a> = [(usize, &'a [(usize, f64)])];

    /// The rows appended serially, and cut into parts at `cuts` and joined: the same tensor.
    fn serial_and_parts<F: Format>(format: &str, all: &Rows, cuts: &[usize]) {
        let mut serial = Tensor::<f64, F>::zeros([6, 4]);
        let mut asm = begin_assembly(&mut serial);
        rows(&mut asm, format, all);
        if format != "csr" {
            asm.finish_segment(0, 0);
        }
        end_assembly(&mut serial, asm).unwrap();
        let mut joined = Tensor::<f64, F>::from_entries([6, 4], [([5, 3], 9.0)]).unwrap();
        let mut asm = begin_assembly(&mut joined);
        let bounds: Vec<usize> = [0]
            .iter()
            .chain(cuts)
            .chain(&[all.len()])
            .copied()
            .collect();
        let mut parts = asm.parts(bounds.len() - 1);
        for (part, w) in parts.iter_mut().zip(bounds.windows(2)) {
            rows(part, format, &all[w[0]..w[1]]);
        }
        asm.join(parts).unwrap();
        if format != "csr" {
            asm.finish_segment(0, 0);
        }
        end_assembly(&mut joined, asm).unwrap();
        assert_eq!(joined.levels, serial.levels, "{format}, cut at {cuts:?}");
        assert_eq!(joined.values(), serial.values());
        assert_eq!(joined.nnz(), serial.nnz());
    }

    /// Rows 0, 2 and 5 empty; parts that are empty, hold one row, or several.
    #[test]
    fn joined_parts_give_the_serial_arrays() {
        let all: &Rows = &[
            (1, &[(0, 1.0), (2, 2.0)]),
            (3, &[(1, 3.0)]),
            (4, &[(0, 4.0), (1, 5.0), (3, 6.0)]),
        ];
        for cuts in [&[][..], &[0], &[1], &[1, 2], &[0, 0, 3], &[2, 3]] {
            serial_and_parts::<Dcsr>("dcsr", all, cuts);
            serial_and_parts::<Csr>("csr", all, cuts);
            serial_and_parts::<Coo<2>>("coo", all, cuts);
        }
        serial_and_parts::<Dcsr>("dcsr", &[], &[0]);
    }

    #[test]
    fn a_fault_in_a_part_is_returned_by_the_join() {
        let mut y = Tensor::<f64, Csr>::zeros([2, 2]);
        let mut asm = begin_assembly(&mut y);
        let mut parts = asm.parts(1);
        parts[0].append(0, 1);
        assert!(asm.join(parts).is_err());
        let mut parts = asm.parts(2);
        parts[1].append(1, Idx::MAX as usize + 1);
        assert!(asm.join(parts).is_err());
    }

    #[test]
    fn lists_of_triples_are_appended_in_order() {
        let mut list = Entries::<i64>::new([3, 3]);
        list.push(&[2, 2], 1).unwrap();
        let mut parts = list.parts(3);
        assert_eq!(parts[0].len(), 1);
        parts[2].push(&[0, 1], 2).unwrap();
        list.join(parts).unwrap();
        let pairs: Vec<(Vec<usize>, i64)> = list.iter().map(|(c, v)| (c.to_vec(), v)).collect();
        assert_eq!(pairs, [(vec![2, 2], 1), (vec![0, 1], 2)]);
    }

    #[test]
    fn one_part_below_the_threshold_and_never_more_than_the_iterations() {
        assert_eq!(part_count(0, 1000), 1);
        let threads = rayon::current_num_threads();
        let big = crate::__private::PARALLEL_MIN_WORK;
        assert_eq!(part_count(big, 3), if threads > 1 { 3 } else { 1 });
        assert_eq!(part_count(big, 0), 1);
    }
}
