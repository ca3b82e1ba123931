//! Range levels (DIA's rows): under diagonal `d` with offset `off = offsets[d]`, the coordinates
//! `[max(0, -off), min(N, M - off))` at positions `p_parent * N + i` (Chou et al. 2018). No
//! locate and no assembly: a range level is iterated by value, within those bounds.
//!
//! The bounds are ordinary signed IR arithmetic, so a backend needs no knowledge of DIA. Validated
//! tensors have `-N < off < M` (`sparse_runtime::validate`), so `-off` and `M - off` cannot
//! overflow, the lower bound is in `[0, N)` and the upper one in `(0, N]`: both casts back to an
//! index are exact, and no clamp is needed.

use super::level::{Assembly, Iteration, Level, LevelEnv, LevelRef, bin, dense_position, load};
use crate::ir::{Array, BinOp, Expr, Type};

/// A range level.
pub struct Range;

/// The range level's signed `offsets` array, one per diagonal (the offset level below reads it
/// too).
pub(super) fn offsets(at: LevelRef) -> Array {
    Array::Level {
        param: at.param,
        level: at.level,
        name: "offsets",
        elem: Type::Signed,
    }
}

/// `expr` as a signed integer.
pub(super) fn signed(expr: Expr) -> Expr {
    Expr::Cast(Type::Signed, Box::new(expr))
}

/// A signed `expr` as an index.
pub(super) fn index(expr: Expr) -> Expr {
    Expr::Cast(Type::Index, Box::new(expr))
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

    fn compact(&self) -> bool {
        false
    }

    fn bounded(&self) -> bool {
        true
    }

    fn pos_refusal(&self) -> Option<&'static str> {
        Some("range level (DIA's rows within a diagonal, iterated by value, not by position)")
    }

    fn coord_bounds(&self, env: &LevelEnv) -> Option<(Expr, Expr)> {
        let diagonal = env.ancestors.last()?.clone();
        let off = load(offsets(env.at), diagonal);
        let cols = env.next_dim.clone()?;
        let lo = bin(
            BinOp::Max,
            Expr::Neg(Box::new(off.clone())),
            Expr::Signed(0),
        );
        let hi = bin(
            BinOp::Min,
            bin(BinOp::Sub, signed(cols), off),
            signed(env.at.size()),
        );
        Some((index(lo), index(hi)))
    }

    fn coord_access(&self, env: &LevelEnv, parent: &Expr, coord: &Expr) -> Option<Expr> {
        Some(dense_position(env.at, parent, coord))
    }
}
