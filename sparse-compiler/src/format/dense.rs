//! Dense levels: every coordinate in `[0, N)`, position `p_parent * N + i` (seed-formats.md §1.3).

use super::level::{Assembly, Iteration, Level, LevelRef, bin};
use crate::ir::{BinOp, Expr};

/// A dense level.
pub struct Dense;

impl Level for Dense {
    fn iteration(&self) -> Iteration {
        Iteration::Value
    }

    fn has_locate(&self) -> bool {
        true
    }

    fn assembly(&self) -> Assembly {
        Assembly::Insert
    }

    fn pos_bounds(&self, _: LevelRef, _: &Expr) -> Option<(Expr, Expr)> {
        None
    }

    fn pos_access(&self, _: LevelRef, p: &Expr) -> Expr {
        p.clone()
    }

    fn coord_bounds(&self, at: LevelRef) -> Option<(Expr, Expr)> {
        Some((Expr::Index(0), at.size()))
    }

    fn locate(&self, at: LevelRef, parent: &Expr, coord: &Expr) -> Option<Expr> {
        Some(match parent {
            Expr::Index(0) => coord.clone(),
            _ => bin(
                BinOp::Add,
                bin(BinOp::Mul, parent.clone(), at.size()),
                coord.clone(),
            ),
        })
    }
}
