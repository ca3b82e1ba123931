//! Compressed levels: the children of parent `p` are `crd[pos[p] .. pos[p + 1]]`
//! (Chou et al. 2018); assembled by append (§1.5).

use super::level::{Assembly, Iteration, Level, LevelEnv, bin, load, search_crd};
use crate::ir::{BinOp, Expr};

/// A compressed level.
pub struct Compressed;

impl Level for Compressed {
    fn iteration(&self) -> Iteration {
        Iteration::Position
    }

    fn has_locate(&self) -> bool {
        false
    }

    fn assembly(&self) -> Assembly {
        Assembly::Append
    }

    fn segments(&self) -> bool {
        true
    }

    fn pos_bounds(&self, env: &LevelEnv, parent: &Expr) -> Option<(Expr, Expr)> {
        let next = bin(BinOp::Add, parent.clone(), Expr::Index(1));
        Some((load(env.at.pos(), parent.clone()), load(env.at.pos(), next)))
    }

    fn pos_access(&self, env: &LevelEnv, p: &Expr) -> Expr {
        load(env.at.crd(), p.clone())
    }

    fn coord_search(&self, env: &LevelEnv, lo: &Expr, hi: &Expr, target: &Expr) -> Option<Expr> {
        Some(search_crd(env, lo, hi, target))
    }
}
