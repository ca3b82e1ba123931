//! Singleton levels: the one child of parent `p` is `crd[p]`, at position `p`
//! (Chou et al. 2018); assembled by append (§1.5).

use super::level::{Assembly, Iteration, Level, LevelEnv, bin, load, search_crd};
use crate::ir::{BinOp, Expr};

/// A singleton level.
pub struct Singleton;

impl Level for Singleton {
    fn iteration(&self) -> Iteration {
        Iteration::Position
    }

    fn has_locate(&self) -> bool {
        false
    }

    fn assembly(&self) -> Assembly {
        Assembly::Append
    }

    fn branchless(&self) -> bool {
        true
    }

    fn pos_bounds(&self, _: &LevelEnv, parent: &Expr) -> Option<(Expr, Expr)> {
        Some((
            parent.clone(),
            bin(BinOp::Add, parent.clone(), Expr::Index(1)),
        ))
    }

    fn pos_access(&self, env: &LevelEnv, p: &Expr) -> Expr {
        load(env.at.crd(), p.clone())
    }

    fn coord_search(&self, env: &LevelEnv, lo: &Expr, hi: &Expr, target: &Expr) -> Option<Expr> {
        Some(search_crd(env, lo, hi, target))
    }
}
