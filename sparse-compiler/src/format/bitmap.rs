//! Bitmap levels: the positions of a dense level, `p = p_parent * N + i`, with a presence byte
//! per position (the sparse bytemap level of Finch: Ahrens et al., "Finch: Sparse and Structured
//! Tensor Programming with Control Flow"). Iterated by position over the parent's `N` slots,
//! skipping the absent ones through `found` (a loop over the level alone tests it per slot, a
//! merge's cursor steps past them); located in O(1) like a dense level. The values of absent
//! positions are zero (`sparse_runtime::validate::check_absent_values`), so a locate that lands on
//! one reads a zero. No assembly: kernels do not write presence bytes, so a bitmap is an input
//! format.

use super::level::{Assembly, Iteration, Level, LevelEnv, bin, dense_position, load};
use crate::ir::{Array, BinOp, Expr, Type};

/// A bitmap level.
pub struct Bitmap;

impl Level for Bitmap {
    fn iteration(&self) -> Iteration {
        Iteration::Position
    }

    fn has_locate(&self) -> bool {
        true
    }

    fn assembly(&self) -> Assembly {
        Assembly::None
    }

    /// Absent positions sit between coordinates.
    fn compact(&self) -> bool {
        false
    }

    fn pos_refusal(&self) -> Option<&'static str> {
        Some(
            "bitmap level (its positions include absent coordinates, each marked by a presence byte)",
        )
    }

    fn pos_bounds(&self, env: &LevelEnv, parent: &Expr) -> Option<(Expr, Expr)> {
        let n = env.at.size();
        Some(match parent {
            Expr::Index(0) => (Expr::Index(0), n),
            _ => {
                let lo = bin(BinOp::Mul, parent.clone(), n.clone());
                (lo.clone(), bin(BinOp::Add, lo, n))
            }
        })
    }

    /// The offset of `p` in its parent's slots: `p - p_parent * N` where the parent's position is
    /// known (a subtraction the loop bounds already computed), else `p - p / N * N`.
    fn pos_access(&self, env: &LevelEnv, p: &Expr) -> Expr {
        let n = env.at.size();
        let start = match &env.parent {
            Some(Expr::Index(0)) => return p.clone(),
            Some(parent) => bin(BinOp::Mul, parent.clone(), n),
            None => bin(BinOp::Mul, bin(BinOp::Div, p.clone(), n.clone()), n),
        };
        bin(BinOp::Sub, p.clone(), start)
    }

    /// Positions are the parent's slots in coordinate order: the slot of coordinate `i`, kept
    /// within `[lo, hi)`. No search, and no need of the presence bytes (a merge's cursor skips
    /// the absent slots from there).
    fn coord_search(&self, env: &LevelEnv, lo: &Expr, hi: &Expr, target: &Expr) -> Option<Expr> {
        let slot = dense_position(env.at, env.parent.as_ref()?, target);
        let slot = bin(BinOp::Min, slot, hi.clone());
        Some(bin(BinOp::Max, lo.clone(), slot))
    }

    fn found(&self, env: &LevelEnv, p: &Expr) -> Option<Expr> {
        let present = Array::Level {
            param: env.at.param,
            level: env.at.level,
            name: "present",
            elem: Type::Bool,
        };
        Some(load(present, p.clone()))
    }

    fn locate(&self, env: &LevelEnv, parent: &Expr, coord: &Expr) -> Option<Expr> {
        Some(dense_position(env.at, parent, coord))
    }
}
