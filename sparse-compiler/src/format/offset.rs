//! Offset levels (DIA's columns): the one child of a range level's position, with coordinate
//! `i + offsets[d]` where `i` is the parent coordinate and `d` the grandparent's
//! (Chou et al. 2018). It reads the range level's offsets array; the sum is signed arithmetic
//! cast back to an index, exact because the row is inside the diagonal's range
//! (`range.rs`), so `i + off` is a column in `[0, M)`.

use super::level::{Assembly, Iteration, Level, LevelEnv, LevelRef, bin, load};
use super::range::{index, offsets, signed};
use crate::ir::{BinOp, Expr};

/// An offset level.
pub struct Offset;

impl Level for Offset {
    fn iteration(&self) -> Iteration {
        Iteration::Position
    }

    fn has_locate(&self) -> bool {
        false
    }

    fn assembly(&self) -> Assembly {
        Assembly::None
    }

    fn branchless(&self) -> bool {
        true
    }

    fn compact(&self) -> bool {
        false
    }

    fn pos_bounds(&self, _: &LevelEnv, parent: &Expr) -> Option<(Expr, Expr)> {
        Some((
            parent.clone(),
            bin(BinOp::Add, parent.clone(), Expr::Index(1)),
        ))
    }

    /// The one child is before the tile when its coordinate is: the tile then starts past it.
    fn coord_search(&self, env: &LevelEnv, lo: &Expr, hi: &Expr, target: &Expr) -> Option<Expr> {
        let before = bin(BinOp::Lt, self.pos_access(env, lo), target.clone());
        Some(Expr::Select(
            Box::new(before),
            Box::new(hi.clone()),
            Box::new(lo.clone()),
        ))
    }

    fn pos_access(&self, env: &LevelEnv, _: &Expr) -> Expr {
        let n = env.ancestors.len();
        let (Some(diagonal), Some(row)) = (
            n.checked_sub(2).map(|k| &env.ancestors[k]),
            env.ancestors.last(),
        ) else {
            return Expr::Index(0);
        };
        let range = LevelRef {
            level: env.at.level - 1,
            ..env.at
        };
        let off = load(offsets(range), diagonal.clone());
        index(bin(BinOp::Add, signed(row.clone()), off))
    }
}
