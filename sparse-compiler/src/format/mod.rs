//! Formats in the compiler: which levels each tensor has (resolved from the `formats<...>` clause)
//! and, per level format, the level functions of Chou et al. 2018 as IR fragments.
//!
//! A tensor's format is resolved to a list of [`LevelSpec`]s shared with the runtime (the
//! `sparse-format` crate), and to the Rust type the generated signature names.

mod bitmap;
mod compressed;
mod dense;
mod hashed;
mod level;
mod offset;
mod range;
mod resolve;
mod singleton;

pub use level::{Assembly, Iteration, Level, LevelEnv, LevelRef, bin, load};
pub use resolve::resolve_formats;
pub use sparse_format::{Coord, LevelKind, LevelSpec, Properties};

use proc_macro2::Span;

/// The resolved format of one tensor of the statement.
#[derive(Clone, Debug)]
pub struct TensorFormat {
    /// The levels, root first.
    pub levels: Vec<LevelSpec>,
    /// The runtime type the generated signature names.
    pub rust_type: FormatType,
    /// Where the format was written (the tensor's first access when it defaulted to dense).
    pub span: Span,
}

/// The runtime type of a format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatType {
    /// A named format type of `sparse_runtime`, with its const arguments: `Csr`, `Coo<3>`.
    Named {
        /// The type's name.
        type_name: &'static str,
        /// Its const generic arguments.
        type_args: Vec<usize>,
    },
    /// `Custom<{ encode_levels(&[...]) }>` for an explicit level list.
    Custom(Vec<LevelSpec>),
}

/// The level format of a level: what every decision about it asks.
pub fn level_of(spec: &LevelSpec) -> &'static dyn Level {
    level_fns(spec.kind)
}

/// All five properties of a level (Chou et al. 2018): the fixed ones from its level format,
/// the configurable ones as declared (a level that cannot be ordered never is).
pub fn properties(spec: &LevelSpec) -> Properties {
    let level = level_of(spec);
    Properties {
        full: level.full(),
        ordered: spec.ordered && level.can_be_ordered(),
        unique: spec.unique,
        branchless: level.branchless(),
        compact: level.compact(),
    }
}

/// The keywords of every level format, as level lists spell them.
pub fn level_keywords() -> impl Iterator<Item = &'static str> {
    LevelKind::ALL.into_iter().map(LevelKind::name)
}

/// The level functions of a level format.
pub fn level_fns(kind: LevelKind) -> &'static dyn Level {
    match kind {
        LevelKind::Dense => &dense::Dense,
        LevelKind::Compressed => &compressed::Compressed,
        LevelKind::Singleton => &singleton::Singleton,
        LevelKind::Range => &range::Range,
        LevelKind::Offset => &offset::Offset,
        LevelKind::Hashed => &hashed::Hashed,
        LevelKind::Bitmap => &bitmap::Bitmap,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinOp, Expr, Var};

    /// The runtime's declarations (`sparse_format`) and the compiler's level files describe the
    /// same level formats: properties, locate and assembly agree for every kind.
    #[test]
    fn level_files_agree_with_the_declarations() {
        for kind in LevelKind::ALL {
            let spec = LevelSpec::new(kind, 0);
            let level = level_of(&spec);
            assert_eq!(properties(&spec), spec.properties(), "{kind:?}");
            assert_eq!(level.has_locate(), kind.has_locate(), "{kind:?}");
            assert_eq!(
                level.assembly() != Assembly::None,
                kind.is_assemblable(),
                "{kind:?}"
            );
            assert_eq!(level.can_be_ordered(), spec.ordered, "{kind:?}");
        }
    }

    /// Where a coordinate tile starts: a binary search over sorted `crd` (compressed, singleton),
    /// the slot of the coordinate kept within the range (bitmap), none for unordered levels.
    #[test]
    fn coord_search_of_each_level_that_has_one() {
        let var = |name: &str| Expr::Var(Var(name.to_string()));
        let at = LevelRef { param: 1, level: 1 };
        let env = LevelEnv {
            at,
            ancestors: vec![var("i")],
            next_dim: None,
            parent: Some(var("q")),
        };
        let (lo, hi, t) = (var("lo"), var("hi"), var("t"));
        let search = Expr::BinarySearchAfter {
            array: at.crd(),
            lo: Box::new(lo.clone()),
            hi: Box::new(hi.clone()),
            target: Box::new(t.clone()),
        };
        for kind in [LevelKind::Compressed, LevelKind::Singleton] {
            let found = level_fns(kind).coord_search(&env, &lo, &hi, &t);
            assert_eq!(found.as_ref(), Some(&search), "{kind:?}");
        }
        let slot = bin(BinOp::Add, bin(BinOp::Mul, var("q"), at.size()), t.clone());
        let kept = bin(BinOp::Max, lo.clone(), bin(BinOp::Min, slot, hi.clone()));
        let bitmap = level_fns(LevelKind::Bitmap);
        assert_eq!(bitmap.coord_search(&env, &lo, &hi, &t), Some(kept));
        assert_eq!(
            level_fns(LevelKind::Hashed).coord_search(&env, &lo, &hi, &t),
            None
        );
        assert_eq!(
            level_fns(LevelKind::Dense).coord_search(&env, &lo, &hi, &t),
            None
        );
    }

    /// A bitmap level's coordinate is its position's offset under the parent: from the parent's
    /// position where known, else by division; its slots are skipped through the presence bytes.
    #[test]
    fn bitmap_level_functions() {
        let var = |name: &str| Expr::Var(Var(name.to_string()));
        let bitmap = level_of(&LevelSpec::bitmap(1));
        let at = LevelRef { param: 1, level: 1 };
        let env = |parent: Option<Expr>| LevelEnv {
            at,
            ancestors: vec![var("i")],
            next_dim: None,
            parent,
        };
        let (p, n) = (var("p"), at.size());
        let known = env(Some(var("i")));
        assert_eq!(
            bitmap.pos_access(&known, &p),
            bin(BinOp::Sub, p.clone(), bin(BinOp::Mul, var("i"), n.clone()))
        );
        let divided = bin(BinOp::Mul, bin(BinOp::Div, p.clone(), n.clone()), n.clone());
        assert_eq!(
            bitmap.pos_access(&env(None), &p),
            bin(BinOp::Sub, p.clone(), divided)
        );
        assert_eq!(bitmap.pos_access(&env(Some(Expr::Index(0))), &p), p);
        let lo = bin(BinOp::Mul, var("i"), n.clone());
        assert_eq!(
            bitmap.pos_bounds(&known, &var("i")),
            Some((lo.clone(), bin(BinOp::Add, lo, n)))
        );
        let present = crate::ir::Array::Level {
            param: 1,
            level: 1,
            name: "present",
            elem: crate::ir::Type::Bool,
        };
        assert_eq!(bitmap.found(&known, &p), Some(load(present, p.clone())));
        assert!(bitmap.pos_refusal().is_some() && !bitmap.full() && !bitmap.compact());
    }
}
