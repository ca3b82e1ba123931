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
        self.crd.get(level).and_then(Option::as_ref).map_or(0, Vec::len)
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

    /// An empty part for one piece.
    fn part(&self) -> Self::Part;

    /// Appends the parts, in piece order.
    fn join(&mut self, parts: Vec<Self::Part>) -> Result<(), KernelError>;
}

impl<T: Scalar> TaskParts for crate::assembly::Assembly<T> {
    type Part = AssemblyPart<T>;

    fn part(&self) -> AssemblyPart<T> {
        let levels = &self.levels;
        let takes = |l: &Level| matches!(l, Level::Compressed { .. } | Level::Singleton { .. });
        AssemblyPart {
            crd: (levels.iter()).map(|l| takes(l).then(Vec::new)).collect(),
            closed: vec![Vec::new(); levels.len()],
            vals: Vec::new(),
            fault: None,
        }
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
                        crd.extend_from_slice(&appended);
                        start
                    }
                    (Level::Singleton { crd }, Some(appended)) => {
                        let start = crd.len();
                        crd.extend_from_slice(&appended);
                        start
                    }
                    (Level::Dense { size }, _) => parent_start * *size,
                    _ => parent_start,
                };
            }
            vals.extend_from_slice(&part.vals);
        }
        Ok(())
    }
}

impl<T: Scalar> TaskParts for Entries<T> {
    type Part = Entries<T>;

    fn part(&self) -> Entries<T> {
        Entries::new(self.shape().to_vec())
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
/// otherwise a few per thread, so that rayon can balance pieces of uneven work, and never more
/// than there are iterations.
#[inline]
pub fn part_count(work: usize, span: usize) -> usize {
    match crate::threads::pieces(work) {
        1 => 1,
        threads => threads.saturating_mul(4).min(span).max(1),
    }
}
