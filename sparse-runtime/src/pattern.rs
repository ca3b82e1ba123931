//! An input's structure in an output whose upper levels are dense where the input's are
//! compressed (TTV from a CSF tensor into a CSR result: the output's rows are dense, the input's
//! compressed). A dense level enumerates every coordinate the compressed one stores, in the same
//! order, so the compressed levels below keep the input's coordinates and positions; only their
//! `pos` arrays are spread over the dense parents (the parents the input does not store get
//! empty segments). The kernel then writes each value at the input's position.

use sparse_format::{Coord, LevelKind, LevelSpec};

use crate::FormatError;
use crate::storage::{Idx, Level};

/// `source`'s levels stored as `specs` says: a dense spec over a compressed level becomes a dense
/// level, a compressed spec keeps the source's `crd` with `pos` spread over the new parents, and
/// any other spec must match its level with no dense level converted above it. `source` is a
/// validated tensor's.
pub(crate) fn converted_levels(
    specs: &[LevelSpec],
    shape: &[usize],
    source: &[Level],
) -> Result<Vec<Level>, FormatError> {
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
                levels.push(Level::Dense { size });
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
                levels.push(Level::Compressed {
                    pos: spread,
                    crd: crd.clone(),
                });
            }
            (kind, level) if kind == level.kind() && parents.is_none() => {
                source_len = level.positions(source_len).ok_or_else(too_large)?;
                out_len = source_len;
                levels.push(level.clone());
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

    /// The pattern of a CSF tensor's first two levels as CSR: the rows it does not store (at the
    /// start, in a run, at the end) get empty segments, the columns and positions stay.
    #[test]
    fn csf_rows_spread_over_dense_rows() {
        let entries = [([1, 0, 2], 1.0), ([1, 3, 0], 2.0), ([4, 1, 1], 3.0)];
        let b = Tensor::<f64, Csf<3>>::from_entries([6, 4, 3], entries).unwrap();
        let levels = converted_levels(Csr::LEVELS, &[6, 4], &b.levels[..2]).unwrap();
        assert_eq!(levels[0], Level::Dense { size: 6 });
        assert_eq!(levels[1].pos(), &[0, 0, 2, 2, 2, 3, 3]);
        assert_eq!(levels[1].crd(), b.level(1).crd());
    }

    #[test]
    fn the_empty_tensor_gives_empty_rows_and_same_levels_are_copied() {
        let b = Tensor::<f64, Dcsr>::zeros([3, 2]);
        let levels = converted_levels(Csr::LEVELS, &[3, 2], &b.levels).unwrap();
        assert_eq!(levels[1].pos(), &[0, 0, 0, 0]);
        let b = Tensor::<f64, Dcsr>::from_entries([3, 2], [([2, 1], 1.0)]).unwrap();
        assert_eq!(
            converted_levels(Dcsr::LEVELS, &[3, 2], &b.levels).unwrap(),
            b.levels
        );
        // A compressed output level over a dense input level cannot take its structure.
        let c = Tensor::<f64, Csr>::from_entries([3, 2], [([2, 1], 1.0)]).unwrap();
        assert!(converted_levels(Dcsr::LEVELS, &[3, 2], &c.levels).is_err());
    }
}
