//! The [`Level`] trait: what the lowerer asks of a level format (seed-formats.md §1.3, §1.5).
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

/// A level format's capabilities and level functions.
pub trait Level {
    /// Its iteration capability.
    fn iteration(&self) -> Iteration;
    /// Whether it has `locate`.
    fn has_locate(&self) -> bool;
    /// Its assembly capability.
    fn assembly(&self) -> Assembly;
    /// `pos_bounds(p_parent) -> [begin, end)` for position iteration.
    fn pos_bounds(&self, at: LevelRef, parent: &Expr) -> Option<(Expr, Expr)>;
    /// `pos_access(p) -> coordinate` for position iteration.
    fn pos_access(&self, at: LevelRef, p: &Expr) -> Expr;
    /// `coord_bounds -> [begin, end)` for value iteration.
    fn coord_bounds(&self, at: LevelRef) -> Option<(Expr, Expr)>;
    /// `locate(p_parent, i) -> p` (also `coord_access` for value iteration).
    fn locate(&self, at: LevelRef, parent: &Expr, coord: &Expr) -> Option<Expr>;
}

/// `a op b` as an IR expression.
pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

/// `array[index]`.
pub fn load(array: Array, index: Expr) -> Expr {
    Expr::Load(array, Box::new(index))
}
