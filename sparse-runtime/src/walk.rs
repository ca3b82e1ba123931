//! Walking a coordinate hierarchy with the level functions of Chou et al. 2018: the reference
//! semantics of every format, used to unpack tensors (`entries`, `to_dense`) and by the validator.
//!
//! Each level contributes `coord_bounds`/`coord_access` (dense, range) or `pos_bounds`/`pos_access`
//! (compressed, singleton, offset, hashed, bitmap); the walk visits every labeled leaf position once, in
//! storage order, with its level coordinates. It assumes validated levels (every constructor of
//! `Tensor` guarantees them).

use crate::storage::{EMPTY, Level};
use sparse_format::{Coord, LevelSpec};

/// Calls `visit(level_coords, position)` for every labeled position of the last level.
pub(crate) fn walk(levels: &[Level], mut visit: impl FnMut(&[usize], usize)) {
    // With no leaf positions there is nothing to visit, and returning here keeps a huge dense level
    // above an empty one (ELL's slot count over zero rows, in raw parts) from being looped over.
    let leaves = levels
        .iter()
        .try_fold(1usize, |n, level| level.positions(n));
    if leaves == Some(0) {
        return;
    }
    let mut coords = vec![0usize; levels.len()];
    descend(levels, 0, 0, &mut coords, &mut visit);
}

fn descend(
    levels: &[Level],
    k: usize,
    parent: usize,
    coords: &mut [usize],
    visit: &mut impl FnMut(&[usize], usize),
) {
    let Some(level) = levels.get(k) else {
        visit(coords, parent);
        return;
    };
    let mut child = |coords: &mut [usize], c: usize, p: usize| {
        coords[k] = c;
        descend(levels, k + 1, p, coords, visit);
    };
    match level {
        Level::Dense { size } => {
            for c in 0..*size {
                child(coords, c, parent * size + c);
            }
        }
        Level::Range {
            size,
            bound,
            offsets,
        } => {
            let (lo, hi) = range_bounds(*size, *bound, offsets[coords[k - 1]]);
            for c in lo..hi {
                child(coords, c, parent * size + c);
            }
        }
        Level::Compressed { pos, crd } => {
            let lo = pos[parent] as usize;
            let hi = pos[parent + 1] as usize;
            for (p, &c) in (lo..).zip(&crd[lo..hi]) {
                child(coords, c as usize, p);
            }
        }
        Level::Singleton { crd } => child(coords, crd[parent] as usize, parent),
        Level::Offset => {
            let offset = match &levels[k - 1] {
                Level::Range { offsets, .. } => offsets[coords[k - 2]],
                _ => 0,
            };
            let c = coords[k - 1] as i64 + offset;
            child(coords, c as usize, parent);
        }
        Level::Bitmap { size, present } => {
            let base = parent * size;
            for (c, &here) in present[base..base + size].iter().enumerate() {
                if here {
                    child(coords, c, base + c);
                }
            }
        }
        Level::Hashed { buckets, crd } => {
            let base = parent * buckets;
            for (p, &c) in (base..).zip(&crd[base..base + buckets]) {
                if c != EMPTY {
                    child(coords, c as usize, p);
                }
            }
        }
    }
}

/// `coord_bounds` of a range level: the rows `[max(0, -off), min(size, bound - off))` of the
/// diagonal with offset `off`; empty when the diagonal misses the matrix.
pub(crate) fn range_bounds(size: usize, bound: usize, off: i64) -> (usize, usize) {
    let lo = (-off).max(0);
    let hi = (size as i64).min(bound as i64 - off);
    if hi <= lo {
        (0, 0)
    } else {
        (lo as usize, hi as usize)
    }
}

/// Turns level coordinates into logical coordinates; `false` if they fall outside the shape (the
/// padded edge of a blocked dimension).
pub(crate) fn logical_coords(
    specs: &[LevelSpec],
    level: &[usize],
    shape: &[usize],
    out: &mut [usize],
) -> bool {
    out.fill(0);
    for (spec, &c) in specs.iter().zip(level) {
        match spec.coord {
            Coord::Dim(d) => out[d] = c,
            Coord::BlockOuter { dim, block } => out[dim] += c * block,
            Coord::BlockInner { dim, .. } => out[dim] += c,
            Coord::Slot => {}
        }
    }
    out.iter().zip(shape).all(|(c, n)| c < n)
}
