//! Hashed levels: `W` buckets per parent, slot `p` holding `crd[p]` or the empty marker
//! (Chou et al. 2018). Iterated by position over the parent's buckets, skipping empty ones;
//! the iteration is unordered. Locating into a hash table needs a probe loop, which is not an
//! expression, so `locate` is left out: the lowerer iterates hashed levels, and merges them with
//! other operands through a sorted copy.

use super::LevelKind;
use super::level::{Assembly, Iteration, Level, LevelEnv, bin, load};
use crate::ir::{BinOp, Expr};

/// A hashed level.
pub struct Hashed;

impl Level for Hashed {
    fn iteration(&self) -> Iteration {
        Iteration::Position
    }

    fn has_locate(&self) -> bool {
        true
    }

    fn assembly(&self) -> Assembly {
        Assembly::Insert
    }

    fn compact(&self) -> bool {
        false
    }

    fn can_be_ordered(&self) -> bool {
        false
    }

    fn sorted_substitute(&self) -> Option<LevelKind> {
        Some(LevelKind::Compressed)
    }

    fn pos_refusal(&self) -> Option<&'static str> {
        Some(
            "hashed level (its positions are hash buckets, empty ones among them, in no coordinate order)",
        )
    }

    fn pos_bounds(&self, env: &LevelEnv, parent: &Expr) -> Option<(Expr, Expr)> {
        let w = env.at.size();
        let lo = bin(BinOp::Mul, parent.clone(), w.clone());
        let hi = bin(
            BinOp::Mul,
            bin(BinOp::Add, parent.clone(), Expr::Index(1)),
            w,
        );
        Some((lo, hi))
    }

    fn pos_access(&self, env: &LevelEnv, p: &Expr) -> Expr {
        load(env.at.crd(), p.clone())
    }

    fn found(&self, env: &LevelEnv, p: &Expr) -> Option<Expr> {
        // `sparse_format` has no runtime; the marker is `u32::MAX`, as `sparse_runtime::EMPTY` is.
        let empty = Expr::Index(u32::MAX as usize);
        Some(bin(
            BinOp::Ne,
            Expr::Load(env.at.crd(), Box::new(p.clone())),
            empty,
        ))
    }
}
