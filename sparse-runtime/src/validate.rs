//! Validation of raw level arrays: do they form a coordinate hierarchy of the declared format?
//!
//! Checks, level by level from the root, exactly what the level functions of Chou et al. 2018
//! read: a shape that fits the index type, `pos` monotone and in range, coordinates inside their
//! dimension, siblings sorted and unique where the level declares it (below a non-unique level,
//! across every copy of the parent), hashed coordinates reachable by linear probing, DIA offsets
//! inside the matrix, and a values array with one value per position of the last level. A hierarchy
//! that passes can be walked, and indexed by generated kernels, without any out-of-bounds access.

use crate::FormatError;
use crate::error::Problem;
use crate::storage::{EMPTY, Idx, Level};
use sparse_format::{Coord, LevelSpec};

/// Checks `levels` (and a values array of `vals_len`) against `specs` and `shape`.
pub fn validate(
    specs: &[LevelSpec],
    shape: &[usize],
    levels: &[Level],
    vals_len: usize,
) -> Result<(), FormatError> {
    if levels.len() != specs.len() {
        let problem = Problem::Length {
            array: "levels",
            expected: specs.len(),
            found: levels.len(),
        };
        return Err(FormatError::Corrupt {
            level: 0,
            position: 0,
            problem,
        });
    }
    check_shape(specs, shape)?;
    let mut parent_len = 1usize;
    let mut groups: Option<Vec<usize>> = None;
    for (k, (spec, level)) in specs.iter().zip(levels).enumerate() {
        let corrupt = |position, problem| FormatError::Corrupt {
            level: k,
            position,
            problem,
        };
        if level.kind() != spec.kind {
            let problem = Problem::WrongKind {
                expected: spec.kind.name(),
                found: level.kind().name(),
            };
            return Err(corrupt(0, problem));
        }
        let extent = coord_extent(spec.coord, shape, level);
        check_level(k, specs, shape, levels, parent_len, extent).map_err(|(p, e)| corrupt(p, e))?;
        groups = check_chained(*spec, level, parent_len, groups.as_deref())
            .map_err(|(p, e)| corrupt(p, e))?;
        parent_len = level.positions(parent_len).ok_or(FormatError::TooLarge {
            what: "the number of positions of a level",
            value: None,
            limit: usize::MAX,
        })?;
    }
    if vals_len != parent_len {
        let problem = Problem::Length {
            array: "vals",
            expected: parent_len,
            found: vals_len,
        };
        return Err(FormatError::Corrupt {
            level: levels.len(),
            position: 0,
            problem,
        });
    }
    Ok(())
}

/// The shape must have one size per dimension the levels store, each fitting the index type (so no
/// coordinate can equal [`EMPTY`] and every size fits an `i64` offset).
fn check_shape(specs: &[LevelSpec], shape: &[usize]) -> Result<(), FormatError> {
    let order = specs
        .iter()
        .filter_map(|s| s.coord.dim())
        .map(|d| d + 1)
        .max()
        .unwrap_or(0);
    if shape.len() != order {
        return Err(FormatError::OrderMismatch {
            expected: order,
            found: shape.len(),
        });
    }
    crate::pack::check_shape(shape)
}

/// Kernels read the values of a bitmap level's absent positions (and of the positions below them)
/// as zeros when they merge or locate, so those values must be zero. Checks `vals` of a hierarchy
/// that passed [`validate`]: every value position the walk does not visit holds zero, when some
/// level is a bitmap (other formats may keep anything in their padding).
pub fn check_absent_values<T: crate::Scalar>(
    levels: &[Level],
    vals: &[T],
) -> Result<(), FormatError> {
    if !levels.iter().any(|l| matches!(l, Level::Bitmap { .. })) {
        return Ok(());
    }
    let mut visited = vec![false; vals.len()];
    crate::walk::walk(levels, |_, p| visited[p] = true);
    match (vals.iter().zip(&visited)).position(|(&v, &seen)| !seen && v != T::ZERO) {
        Some(p) => Err(FormatError::Corrupt {
            level: levels.len(),
            position: p,
            problem: Problem::AbsentNotZero,
        }),
        None => Ok(()),
    }
}

/// Below a non-unique level, siblings are not one segment but every position whose ancestors have
/// the same coordinates (a COO column's siblings are the columns of every copy of its row; Chou et
/// al. 2018, level properties and iterator conversion), so "ordered" and "unique" are checked across those
/// runs. `groups` numbers the parent positions by their ancestors' coordinates (`None`: all differ,
/// which is the case below unique levels); the same numbering of this level's positions is returned.
fn check_chained(
    spec: LevelSpec,
    level: &Level,
    parent_len: usize,
    groups: Option<&[usize]>,
) -> Result<Option<Vec<usize>>, Failure> {
    let parents: Vec<usize> = match level {
        Level::Compressed { pos, .. } if groups.is_some() || !spec.unique => (0..parent_len)
            .flat_map(|p| (0..(pos[p + 1] - pos[p]) as usize).map(move |_| p))
            .collect(),
        Level::Singleton { crd } if groups.is_some() || !spec.unique => (0..crd.len()).collect(),
        _ => return Ok(None),
    };
    let crd = level.crd();
    let key = |q: usize| groups.map_or(parents[q], |g| g[parents[q]]);
    if groups.is_some() {
        let mut start = 0;
        for q in 1..=crd.len() {
            if q == crd.len() || key(q) != key(q - 1) {
                check_siblings(spec, &crd[start..q], start)?;
                start = q;
            }
        }
    }
    if spec.unique {
        return Ok(None);
    }
    let mut ids = Vec::with_capacity(crd.len());
    for q in 0..crd.len() {
        let same = q > 0 && key(q) == key(q - 1) && crd[q] == crd[q - 1];
        ids.push(match ids.last() {
            Some(&id) if same => id,
            Some(&id) => id + 1,
            None => 0,
        });
    }
    Ok(Some(ids))
}

/// The number of distinct coordinates a level can hold.
fn coord_extent(coord: Coord, shape: &[usize], level: &Level) -> usize {
    match coord {
        Coord::Dim(d) => shape[d],
        Coord::BlockOuter { dim, block } => shape[dim].div_ceil(block),
        Coord::BlockInner { block, .. } => block,
        Coord::Slot => level.size(),
    }
}

type Failure = (usize, Problem);

fn check_level(
    k: usize,
    specs: &[LevelSpec],
    shape: &[usize],
    levels: &[Level],
    parent_len: usize,
    extent: usize,
) -> Result<(), Failure> {
    let spec = specs[k];
    match &levels[k] {
        Level::Dense { size } => {
            if spec.coord != Coord::Slot && *size != extent {
                return Err((
                    0,
                    Problem::SizeMismatch {
                        expected: extent,
                        found: *size,
                    },
                ));
            }
            Ok(())
        }
        Level::Bitmap { size, present } => {
            if *size != extent {
                return Err((
                    0,
                    Problem::SizeMismatch {
                        expected: extent,
                        found: *size,
                    },
                ));
            }
            check_len("present", present.len(), parent_len.saturating_mul(*size))
        }
        Level::Compressed { pos, crd } => {
            check_len("pos", pos.len(), parent_len.saturating_add(1))?;
            check_pos(pos, crd.len())?;
            check_coords(crd, extent)?;
            for p in 0..parent_len {
                check_siblings(
                    spec,
                    &crd[pos[p] as usize..pos[p + 1] as usize],
                    pos[p] as usize,
                )?;
            }
            Ok(())
        }
        Level::Singleton { crd } => {
            check_len("crd", crd.len(), parent_len)?;
            check_coords(crd, extent)
        }
        Level::Range {
            size,
            bound,
            offsets,
        } => {
            let rows = shape[spec.coord.dim().unwrap_or(0)];
            let cols = specs
                .get(k + 1)
                .and_then(|s| s.coord.dim())
                .map_or(0, |d| shape[d]);
            if *size != rows {
                return Err((
                    0,
                    Problem::SizeMismatch {
                        expected: rows,
                        found: *size,
                    },
                ));
            }
            if *bound != cols {
                return Err((
                    0,
                    Problem::SizeMismatch {
                        expected: cols,
                        found: *bound,
                    },
                ));
            }
            let parent_extent = coord_extent(specs[k - 1].coord, shape, &levels[k - 1]);
            check_len("offsets", offsets.len(), parent_extent)?;
            match offsets
                .iter()
                .position(|&o| o <= -(rows as i64) || o >= cols as i64)
            {
                Some(d) => Err((d, Problem::OffsetOutOfRange(offsets[d]))),
                None => Ok(()),
            }
        }
        Level::Offset => Ok(()),
        Level::Hashed { buckets, crd } => {
            check_len("crd", crd.len(), parent_len.saturating_mul(*buckets))?;
            if *buckets == 0 {
                return Err((
                    0,
                    Problem::SizeMismatch {
                        expected: 1,
                        found: 0,
                    },
                ));
            }
            check_coords_or_empty(crd, extent)?;
            for (segment, slots) in crd.chunks(*buckets).enumerate() {
                check_hash_segment(slots, segment * buckets)?;
            }
            Ok(())
        }
    }
}

fn check_len(array: &'static str, found: usize, expected: usize) -> Result<(), Failure> {
    if found != expected {
        return Err((
            0,
            Problem::Length {
                array,
                expected,
                found,
            },
        ));
    }
    Ok(())
}

fn check_pos(pos: &[Idx], crd_len: usize) -> Result<(), Failure> {
    if pos[0] != 0 {
        return Err((0, Problem::PosStart(pos[0])));
    }
    let decreasing = match in_order(pos, false) {
        true => None,
        false => pos.windows(2).position(|w| w[0] > w[1]),
    };
    if let Some(p) = decreasing {
        return Err((
            p,
            Problem::PosDecreasing {
                before: pos[p],
                after: pos[p + 1],
            },
        ));
    }
    let last = pos[pos.len() - 1] as usize;
    if last != crd_len {
        return Err((
            pos.len() - 1,
            Problem::Length {
                array: "crd",
                expected: last,
                found: crd_len,
            },
        ));
    }
    Ok(())
}

fn check_coords(crd: &[Idx], extent: usize) -> Result<(), Failure> {
    // The largest coordinate decides, and `max` vectorizes where a search for the first fault
    // does not.
    if crd.iter().max().is_none_or(|&c| (c as usize) < extent) {
        return Ok(());
    }
    match crd.iter().position(|&c| c as usize >= extent) {
        Some(p) => Err((
            p,
            Problem::CrdOutOfBounds {
                crd: crd[p],
                size: extent,
            },
        )),
        None => Ok(()),
    }
}

fn check_coords_or_empty(crd: &[Idx], extent: usize) -> Result<(), Failure> {
    match crd.iter().position(|&c| c != EMPTY && c as usize >= extent) {
        Some(p) => Err((
            p,
            Problem::CrdOutOfBounds {
                crd: crd[p],
                size: extent,
            },
        )),
        None => Ok(()),
    }
}

/// Sorted (strictly if unique) where ordered; duplicate-free where unique.
fn check_siblings(spec: LevelSpec, siblings: &[Idx], start: usize) -> Result<(), Failure> {
    if spec.ordered {
        if in_order(siblings, spec.unique) {
            return Ok(());
        }
        for (i, w) in siblings.windows(2).enumerate() {
            if w[0] > w[1] {
                return Err((
                    start + i + 1,
                    Problem::Unsorted {
                        before: w[0],
                        after: w[1],
                    },
                ));
            }
            if spec.unique && w[0] == w[1] {
                return Err((start + i + 1, Problem::Duplicate(w[1])));
            }
        }
    } else if spec.unique {
        let mut seen: Vec<(Idx, usize)> = siblings.iter().copied().zip(start..).collect();
        seen.sort_unstable();
        if let Some(w) = seen.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err((w[1].1, Problem::Duplicate(w[1].0)));
        }
    }
    Ok(())
}

/// Whether `siblings` ascend (strictly if `strict`). Every pair is compared, without an early
/// exit, so the loop vectorizes: validating each assembled output is on every kernel call's path,
/// and this pass was a sixth of a small TTV's instructions when it stopped at the first fault.
fn in_order(siblings: &[Idx], strict: bool) -> bool {
    let pairs = siblings.iter().zip(siblings.iter().skip(1));
    if strict {
        pairs.fold(true, |ok, (a, b)| ok & (a < b))
    } else {
        pairs.fold(true, |ok, (a, b)| ok & (a <= b))
    }
}

/// Every coordinate is reachable from its home bucket `c % W` without crossing an empty bucket,
/// and appears once.
fn check_hash_segment(slots: &[Idx], base: usize) -> Result<(), Failure> {
    let w = slots.len();
    let mut seen: Vec<(Idx, usize)> = slots
        .iter()
        .copied()
        .zip(0..)
        .filter(|&(c, _)| c != EMPTY)
        .collect();
    seen.sort_unstable();
    if let Some(pair) = seen.windows(2).find(|p| p[0].0 == p[1].0) {
        return Err((base + pair[1].1, Problem::Duplicate(pair[1].0)));
    }
    for (slot, &c) in slots.iter().enumerate() {
        if c == EMPTY {
            continue;
        }
        let mut probe = c as usize % w;
        while probe != slot {
            if slots[probe] == EMPTY {
                return Err((base + slot, Problem::HashMisplaced(c)));
            }
            probe = (probe + 1) % w;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparse_format::{Csr, Format};

    #[test]
    fn csr_with_decreasing_pos_names_level_and_position() {
        let levels = vec![
            Level::Dense { size: 3 },
            Level::Compressed {
                pos: vec![0, 2, 1, 2],
                crd: vec![0, 1],
            },
        ];
        let err = validate(Csr::LEVELS, &[3, 2], &levels, 2).unwrap_err();
        assert_eq!(
            err,
            FormatError::Corrupt {
                level: 1,
                position: 1,
                problem: Problem::PosDecreasing {
                    before: 2,
                    after: 1
                }
            }
        );
    }

    #[test]
    fn empty_bucket_on_the_probe_path_is_found() {
        let slots = [EMPTY, 4, EMPTY, EMPTY];
        // 4 % 4 == 0, whose bucket is empty: locate would stop there and miss it.
        assert_eq!(
            check_hash_segment(&slots, 8),
            Err((9, Problem::HashMisplaced(4)))
        );
    }

    #[test]
    fn kind_mismatch_is_reported() {
        let levels = vec![Level::Dense { size: 1 }, Level::Singleton { crd: vec![0] }];
        let err = validate(Csr::LEVELS, &[1, 1], &levels, 1).unwrap_err();
        assert!(matches!(
            err,
            FormatError::Corrupt {
                level: 1,
                problem: Problem::WrongKind { .. },
                ..
            }
        ));
    }
}
