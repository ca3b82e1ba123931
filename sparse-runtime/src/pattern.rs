//! An input's structure in an output whose upper levels are dense where the input's are
//! compressed (TTV from a CSF tensor into a CSR result: the output's rows are dense, the input's
//! compressed). A dense level enumerates every coordinate the compressed one stores, in the same
//! order, so the compressed levels below keep the input's coordinates and positions; only their
//! `pos` arrays are spread over the dense parents (the parents the input does not store get
//! empty segments). The kernel then writes each value at the input's position.

use sparse_format::{Coord, LevelKind, LevelSpec};

use crate::FormatError;
use crate::storage::{Idx, Level};

/// One level of `source` as the output stores it: the compressed levels keep the input's
/// coordinates, borrowed until the output needs its own copy (`into_level`), so that a kernel
/// called again with the same input compares its output's structure instead of rebuilding and
/// revalidating it.
#[derive(Debug)]
pub(crate) enum Converted<'a> {
    /// A dense level that enumerates what a compressed one stored.
    Dense { size: usize },
    /// The input's coordinates with `pos` spread over the new parents.
    Spread { pos: Vec<Idx>, crd: &'a [Idx] },
    /// The input's level as it is.
    Same(&'a Level),
}

impl Converted<'_> {
    /// Whether `held` is this level.
    pub(crate) fn is(&self, held: &Level) -> bool {
        match (self, held) {
            (Self::Dense { size }, Level::Dense { size: s }) => size == s,
            (Self::Spread { pos, crd }, Level::Compressed { pos: p, crd: c }) => {
                pos == p && crd == &c.as_slice()
            }
            (Self::Same(level), held) => *level == held,
            _ => false,
        }
    }

    /// The level, owning its arrays.
    pub(crate) fn into_level(self) -> Level {
        match self {
            Self::Dense { size } => Level::Dense { size },
            Self::Spread { pos, crd } => Level::Compressed {
                pos,
                crd: crd.to_vec(),
            },
            Self::Same(level) => level.clone(),
        }
    }
}

/// Whether `held` are the levels `converted` describes.
pub(crate) fn holds(converted: &[Converted<'_>], held: &[Level]) -> bool {
    converted.len() == held.len() && converted.iter().zip(held).all(|(c, h)| c.is(h))
}

/// `source`'s levels stored as `specs` says: a dense spec over a compressed level becomes a dense
/// level, a compressed spec keeps the source's `crd` with `pos` spread over the new parents, and
/// any other spec must match its level with no dense level converted above it. `source` is a
/// validated tensor's.
pub(crate) fn converted_levels<'a>(
    specs: &[LevelSpec],
    shape: &[usize],
    source: &'a [Level],
) -> Result<Vec<Converted<'a>>, FormatError> {
    // The output position of each source position of the level above (none: the same).
    let mut parents: Option<Vec<usize>> = None;
    let (mut source_len, mut out_len) = (1usize, 1usize);
    let mut levels = Vec::with_capacity(specs.len());
    for (k, (spec, level)) in specs.iter().zip(source).enumerate() {
        let at = |p: usize| parents.as_ref().map_or(p, |m| m[p]);
        match (spec.kind, level) {
            (LevelKind::Dense, Level::Compressed { pos, crd }) => {
                let Coord::Dim(dim) = spec.coord else {
                    return Err(unconvertible(k));
                };
                let size = shape.get(dim).copied().ok_or_else(|| unconvertible(k))?;
                let mut next = Vec::with_capacity(crd.len());
                for p in 0..source_len {
                    let base = at(p).checked_mul(size).ok_or_else(too_large)?;
                    let children = &crd[pos[p] as usize..pos[p + 1] as usize];
                    next.extend(children.iter().map(|&c| base + c as usize));
                }
                out_len = out_len.checked_mul(size).ok_or_else(too_large)?;
                source_len = crd.len();
                parents = Some(next);
                levels.push(Converted::Dense { size });
            }
            (LevelKind::Compressed, Level::Compressed { pos, crd }) => {
                let mut spread: Vec<Idx> = Vec::with_capacity(out_len + 1);
                spread.push(0);
                for p in 0..source_len {
                    let closed = spread.last().copied().unwrap_or(0);
                    spread.resize(at(p) + 1, closed);
                    spread.push(pos[p + 1]);
                }
                let closed = spread.last().copied().unwrap_or(0);
                spread.resize(out_len + 1, closed);
                (source_len, out_len) = (crd.len(), crd.len());
                parents = None;
                levels.push(Converted::Spread { pos: spread, crd });
            }
            (kind, level) if kind == level.kind() && parents.is_none() => {
                source_len = level.positions(source_len).ok_or_else(too_large)?;
                out_len = source_len;
                levels.push(Converted::Same(level));
            }
            _ => return Err(unconvertible(k)),
        }
    }
    Ok(levels)
}

fn unconvertible(level: usize) -> FormatError {
    FormatError::Unrepresentable {
        format: "the kernel's output",
        level,
        reason: "the input whose structure the output takes stores this level in a way the \
                 output's level cannot take over",
    }
}

fn too_large() -> FormatError {
    FormatError::TooLarge {
        what: "the number of positions of a level",
        value: None,
        limit: usize::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Csf, Csr, Dcsr, Format, Tensor};

    fn owned(converted: Vec<Converted<'_>>) -> Vec<Level> {
        converted.into_iter().map(Converted::into_level).collect()
    }

    /// A structure compares equal to its own conversion and to no other: another input's
    /// coordinates, positions or sizes.
    #[test]
    fn held_levels_are_recognised_only_when_they_are_the_conversion() {
        let b =
            Tensor::<f64, Csf<3>>::from_entries([6, 4, 3], [([1, 0, 2], 1.0), ([4, 1, 1], 3.0)])
                .unwrap();
        let held = owned(converted_levels(Csr::LEVELS, &[6, 4], &b.levels[..2]).unwrap());
        let again = converted_levels(Csr::LEVELS, &[6, 4], &b.levels[..2]).unwrap();
        assert!(holds(&again, &held));
        let others = [
            [([1, 1, 2], 1.0), ([4, 1, 1], 3.0)],
            [([2, 0, 2], 1.0), ([4, 1, 1], 3.0)],
            [([1, 0, 2], 1.0), ([1, 1, 1], 3.0)],
        ];
        for entries in others {
            let c = Tensor::<f64, Csf<3>>::from_entries([6, 4, 3], entries).unwrap();
            let other = converted_levels(Csr::LEVELS, &[6, 4], &c.levels[..2]).unwrap();
            assert!(!holds(&other, &held), "{entries:?}");
        }
        let wider = converted_levels(Csr::LEVELS, &[7, 4], &b.levels[..2]).unwrap();
        assert!(!holds(&wider, &held));
        assert!(!holds(&again[..1], &held));
    }

    /// The pattern of a CSF tensor's first two levels as CSR: the rows it does not store (at the
    /// start, in a run, at the end) get empty segments, the columns and positions stay.
    #[test]
    fn csf_rows_spread_over_dense_rows() {
        let entries = [([1, 0, 2], 1.0), ([1, 3, 0], 2.0), ([4, 1, 1], 3.0)];
        let b = Tensor::<f64, Csf<3>>::from_entries([6, 4, 3], entries).unwrap();
        let levels = owned(converted_levels(Csr::LEVELS, &[6, 4], &b.levels[..2]).unwrap());
        assert_eq!(levels[0], Level::Dense { size: 6 });
        assert_eq!(levels[1].pos(), &[0, 0, 2, 2, 2, 3, 3]);
        assert_eq!(levels[1].crd(), b.level(1).crd());
    }

    #[test]
    fn the_empty_tensor_gives_empty_rows_and_same_levels_are_copied() {
        let b = Tensor::<f64, Dcsr>::zeros([3, 2]);
        let levels = owned(converted_levels(Csr::LEVELS, &[3, 2], &b.levels).unwrap());
        assert_eq!(levels[1].pos(), &[0, 0, 0, 0]);
        let b = Tensor::<f64, Dcsr>::from_entries([3, 2], [([2, 1], 1.0)]).unwrap();
        assert_eq!(
            owned(converted_levels(Dcsr::LEVELS, &[3, 2], &b.levels).unwrap()),
            b.levels
        );
        // A compressed output level over a dense input level cannot take its structure.
        let c = Tensor::<f64, Csr>::from_entries([3, 2], [([2, 1], 1.0)]).unwrap();
        assert!(converted_levels(Dcsr::LEVELS, &[3, 2], &c.levels).is_err());
    }
}
