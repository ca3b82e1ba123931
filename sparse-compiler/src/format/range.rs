//! Range levels (DIA's rows): under diagonal `d` with offset `off = offsets[d]`, the coordinates
//! `[max(0, -off), min(N, M - off))` at positions `p_parent * N + i` (seed-formats.md §1.3). No
//! locate and no assembly: a range level is iterated by value, within those bounds.

use super::level::{Assembly, Iteration, Level, LevelEnv, dense_position, load};
use crate::ir::{Array, Expr, RangeEnd};

/// A range level.
pub struct Range;

impl Range {
    fn bound(env: &LevelEnv, end: RangeEnd) -> Option<Expr> {
        let diagonal = env.ancestors.last()?.clone();
        let offsets = Array::Offsets {
            param: env.at.param,
            level: env.at.level,
        };
        Some(Expr::RangeBound {
            end,
            offset: Box::new(load(offsets, diagonal)),
            rows: Box::new(env.at.size()),
            cols: Box::new(env.next_dim.clone()?),
        })
    }
}

impl Level for Range {
    fn iteration(&self) -> Iteration {
        Iteration::Value
    }

    fn has_locate(&self) -> bool {
        false
    }

    fn assembly(&self) -> Assembly {
        Assembly::None
    }

    fn coord_bounds(&self, env: &LevelEnv) -> Option<(Expr, Expr)> {
        Some((
            Self::bound(env, RangeEnd::Lo)?,
            Self::bound(env, RangeEnd::Hi)?,
        ))
    }

    fn coord_access(&self, env: &LevelEnv, parent: &Expr, coord: &Expr) -> Option<Expr> {
        Some(dense_position(env.at, parent, coord))
    }
}
