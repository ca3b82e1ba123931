//! The [`Level`] trait: what the lowerer asks of a level format (Chou et al. 2018).
//!
//! Each level format implements it in its own file; the lowerer only calls these functions, so a
//! new level format is a new file and no change to the lowerer. Level functions return IR
//! fragments over the level's arrays ([`LevelRef`]).

use crate::ir::{Array, BinOp, Expr};

/// The arrays of one level of one tensor parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelRef {
    /// The parameter.
    pub param: usize,
    /// The level.
    pub level: usize,
}

impl LevelRef {
    /// The level's `pos` array.
    pub fn pos(self) -> Array {
        Array::Pos {
            param: self.param,
            level: self.level,
        }
    }

    /// The level's `crd` array.
    pub fn crd(self) -> Array {
        Array::Crd {
            param: self.param,
            level: self.level,
        }
    }

    /// The level's stored size (dimension, block, slot count or buckets).
    pub fn size(self) -> Expr {
        Expr::LevelSize {
            param: self.param,
            level: self.level,
        }
    }
}

/// What a level function may read besides its own arrays: the coordinates of the levels above
/// (root first), the parent's position where it is known, and, for a range level, the size of the
/// dimension below it.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelEnv {
    /// The level's arrays.
    pub at: LevelRef,
    /// The coordinates of the levels above, root first.
    pub ancestors: Vec<Expr>,
    /// The size of the logical dimension the next level stores, if any.
    pub next_dim: Option<Expr>,
    /// The parent level's position, where the lowerer knows it (`Index(0)` at the root; `None`
    /// where a position is recovered from a split, before the levels above are known).
    pub parent: Option<Expr>,
}

/// How a level's coordinates are iterated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Iteration {
    /// Coordinate value iteration: `coord_bounds` then `coord_access` (dense, range).
    Value,
    /// Coordinate position iteration: `pos_bounds` then `pos_access` (compressed, singleton,
    /// offset, hashed).
    Position,
}

/// How an output level is assembled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assembly {
    /// Random-access insert after `locate` (dense, hashed).
    Insert,
    /// In-order append (compressed, singleton).
    Append,
    /// Not assemblable (range, offset).
    None,
}

/// A level format's capabilities, properties and level functions.
///
/// The lowerer, the schedule checks and the copy planner decide everything about a level through
/// these questions, never through its [`LevelKind`](super::LevelKind).
pub trait Level {
    /// Its iteration capability.
    fn iteration(&self) -> Iteration;
    /// Whether it has `locate`.
    fn has_locate(&self) -> bool;
    /// Its assembly capability.
    fn assembly(&self) -> Assembly;
    /// The `full` property (Chou et al. 2018): every parent holds every coordinate of the
    /// dimension. A full level is located, never iterated by position, and an all-full tensor is
    /// dense (its values are a plain array).
    fn full(&self) -> bool {
        false
    }
    /// The `branchless` property: one child per parent (singleton, offset).
    fn branchless(&self) -> bool {
        false
    }
    /// The `compact` property: no position without a coordinate between two coordinates.
    fn compact(&self) -> bool {
        true
    }
    /// Whether siblings can be declared `ordered` at all (a hashed level's bucket order is not
    /// coordinate order, whatever its declaration says).
    fn can_be_ordered(&self) -> bool {
        true
    }
    /// The level format a sorted copy stores this level's coordinates in, when its own siblings
    /// cannot be ordered (a hashed level's copy is compressed); `None` keeps the level format.
    fn sorted_substitute(&self) -> Option<super::LevelKind> {
        None
    }
    /// Whether `coord_bounds` depend on the coordinates above (a range level's diagonal), so a
    /// loop that iterates the level by value runs within them rather than over the dimension, and
    /// the level cannot be merged with a level iterated by position (it is copied first).
    fn bounded(&self) -> bool {
        false
    }
    /// Whether the children of parent `p` are the segment `crd[pos[p] .. pos[p + 1]]`
    /// (compressed): segments are prefetched row after row, appended per parent, and assembled
    /// by rows in parallel.
    fn segments(&self) -> bool {
        false
    }
    /// Why a `pos` schedule command cannot split this level's positions (what follows "`pos`
    /// over `A`'s"), or `None` when it can.
    fn pos_refusal(&self) -> Option<&'static str> {
        None
    }
    /// `pos_bounds(p_parent) -> [begin, end)` for position iteration; `None` without it.
    fn pos_bounds(&self, _env: &LevelEnv, _parent: &Expr) -> Option<(Expr, Expr)> {
        None
    }
    /// `pos_access(p, ancestors) -> coordinate` for position iteration (the position itself for
    /// levels iterated by value).
    fn pos_access(&self, _env: &LevelEnv, p: &Expr) -> Expr {
        p.clone()
    }
    /// The `found` half of `pos_access`: a condition, where some positions hold no coordinate.
    fn found(&self, _env: &LevelEnv, _p: &Expr) -> Option<Expr> {
        None
    }
    /// `coord_search(lo, hi, i) -> p`: the first position in `[lo, hi)`, part of one parent's
    /// positions, whose coordinate is at least `i`, or `hi` when there is none: where a coordinate
    /// tile starts (Senanayake et al. 2020, `binarySearchAfter`). Only asked of ordered levels;
    /// `None` where the coordinates cannot be searched.
    fn coord_search(
        &self,
        _env: &LevelEnv,
        _lo: &Expr,
        _hi: &Expr,
        _target: &Expr,
    ) -> Option<Expr> {
        None
    }
    /// `coord_bounds(ancestors) -> [begin, end)` for value iteration; `None` without it.
    fn coord_bounds(&self, _env: &LevelEnv) -> Option<(Expr, Expr)> {
        None
    }
    /// `coord_access(p_parent, i) -> p` for value iteration; `None` without it.
    fn coord_access(&self, _env: &LevelEnv, _parent: &Expr, _coord: &Expr) -> Option<Expr> {
        None
    }
    /// `locate(p_parent, i) -> p`; `None` without locate.
    fn locate(&self, _env: &LevelEnv, _parent: &Expr, _coord: &Expr) -> Option<Expr> {
        None
    }
}

/// `p_parent * size + i`: the position of a dense or range level's child.
pub fn dense_position(at: LevelRef, parent: &Expr, coord: &Expr) -> Expr {
    match parent {
        Expr::Index(0) => coord.clone(),
        _ => bin(
            BinOp::Add,
            bin(BinOp::Mul, parent.clone(), at.size()),
            coord.clone(),
        ),
    }
}

/// `a op b` as an IR expression (the level functions build many).
pub use crate::ir::bin;

/// The binary search of `coord_search` over a level's sorted `crd` array.
pub fn search_crd(env: &LevelEnv, lo: &Expr, hi: &Expr, target: &Expr) -> Expr {
    Expr::BinarySearchAfter {
        array: env.at.crd(),
        lo: Box::new(lo.clone()),
        hi: Box::new(hi.clone()),
        target: Box::new(target.clone()),
    }
}

/// `array[index]`.
pub fn load(array: Array, index: Expr) -> Expr {
    Expr::Load(array, Box::new(index))
}
