//! Dense levels: every coordinate in `[0, N)`, position `p_parent * N + i` (Chou et al. 2018);
//! assembled by insert (§1.5).

use super::level::{Assembly, Iteration, Level, LevelEnv, dense_position};
use crate::ir::Expr;

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

    fn full(&self) -> bool {
        true
    }

    fn coord_bounds(&self, env: &LevelEnv) -> Option<(Expr, Expr)> {
        Some((Expr::Index(0), env.at.size()))
    }

    fn coord_access(&self, env: &LevelEnv, parent: &Expr, coord: &Expr) -> Option<Expr> {
        Some(dense_position(env.at, parent, coord))
    }

    fn locate(&self, env: &LevelEnv, parent: &Expr, coord: &Expr) -> Option<Expr> {
        Some(dense_position(env.at, parent, coord))
    }
}
