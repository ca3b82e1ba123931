//! The provenance graph (Senanayake et al., "A Sparse Iteration Space Transformation Framework
//! for Sparse Tensor Algebra"): each command that derives index variables records how they
//! relate to the ones they came from, and lowering recovers every derived iteration space's
//! values, bounds and kind (coordinate or position) by walking these relations back to the
//! statement's own variables.

use crate::notation::{IndexVar, Program};

use crate::format::level_of;

use super::nest::{access_level_vars, access_tensor, accesses_of, loops_below};
use super::{BoundKind, Direction, Scheduled};

/// A relation of the provenance graph: how derived index variables relate to the ones they were
/// derived from (Senanayake et al. 2020).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// `parent = outer * size(inner) + inner`, one of the two loops of constant size `factor`.
    Split {
        /// The variable split.
        parent: IndexVar,
        /// The outer loop.
        outer: IndexVar,
        /// The inner loop.
        inner: IndexVar,
        /// Which loop has the constant size.
        direction: Direction,
        /// That size.
        factor: usize,
    },
    /// `pos` iterates the positions of access `access` at the level `parent` indexes.
    Pos {
        /// The coordinate variable.
        parent: IndexVar,
        /// The position variable.
        pos: IndexVar,
        /// The access (by number) whose positions are iterated.
        access: usize,
    },
    /// `fused` iterates the pairs of `outer` and `inner`, outer-major.
    Collapse {
        /// The outer variable.
        outer: IndexVar,
        /// The inner variable.
        inner: IndexVar,
        /// The collapsed variable.
        fused: IndexVar,
    },
    /// `coord` iterates, in coordinate space, the coordinates the tile of position variable `pos`
    /// covers (the inner part of a split position variable): from the tile's first coordinate to
    /// the next tile's.
    Coord {
        /// The position variable replaced.
        pos: IndexVar,
        /// The coordinate variable.
        coord: IndexVar,
    },
    /// `child` iterates the same values as `parent`, in the producer of a `precompute` workspace.
    Precompute {
        /// The consumer's variable.
        parent: IndexVar,
        /// The producer's variable.
        child: IndexVar,
    },
    /// `child` iterates the same coordinates as `parent`, with a constant bound.
    Bound {
        /// The variable bounded.
        parent: IndexVar,
        /// The bounded loop.
        child: IndexVar,
        /// The kind of bound.
        kind: BoundKind,
        /// Its value.
        value: usize,
    },
}

impl Relation {
    /// Whether this relation derives a variable from `v`.
    pub fn derives_from(&self, v: IndexVar) -> bool {
        match *self {
            Relation::Split { parent, .. }
            | Relation::Bound { parent, .. }
            | Relation::Pos { parent, .. }
            | Relation::Precompute { parent, .. }
            | Relation::Coord { pos: parent, .. } => parent == v,
            Relation::Collapse { outer, inner, .. } => outer == v || inner == v,
        }
    }
}

/// Queries of the provenance graph.
impl Scheduled {
    /// Whether the loop over `v` visits each coordinate of the variables it came from at most
    /// once, in order: any loop but a position loop, and positions of one unique level
    /// (`pos(i, ip, B)` with `B`'s rows compressed, which is how the unscheduled kernel walks that
    /// level anyway) or a split of them. Positions of a collapse, or of a level that repeats
    /// coordinates (COO), visit a coordinate once per nonzero.
    pub fn visits_coordinates_once(&self, program: &Program, v: IndexVar) -> bool {
        match self.deriving(v) {
            Some(Relation::Pos { parent, access, .. }) => {
                let levels = program.iterated_levels(access_tensor(&program.rhs, access));
                let vars = access_level_vars(&program.rhs, access);
                let level = vars.iter().position(|&x| x == parent);
                self.deriving(parent).is_none() && level.is_some_and(|k| levels[k].unique)
            }
            Some(Relation::Split { parent, .. } | Relation::Bound { parent, .. }) => {
                self.visits_coordinates_once(program, parent)
            }
            _ => !self.is_position(v),
        }
    }

    /// The relation that derives `v`, if any.
    pub fn deriving(&self, v: IndexVar) -> Option<Relation> {
        self.relations.iter().copied().find(|r| match *r {
            Relation::Split { outer, inner, .. } => outer == v || inner == v,
            Relation::Pos { pos, .. } => pos == v,
            Relation::Collapse { fused, .. } => fused == v,
            Relation::Bound { child, .. } | Relation::Precompute { child, .. } => child == v,
            Relation::Coord { coord, .. } => coord == v,
        })
    }

    /// The split whose inner loop `v` is a coordinate tile over a sparse level (Senanayake et
    /// al. 2020): `v` is the inner part of a split of a variable the statement defines that
    /// indexes a sparse level of some input, the loop over the outer part encloses it, and the
    /// loop over `v` is plain (not parallel, unrolled, or split again). Lowering runs such a loop
    /// as the parent's own loop over the tile's coordinates (`lower/tile.rs`), so it visits the
    /// parent's coordinates once each, in order, as the unscheduled loop does.
    pub fn coordinate_tile(&self, program: &Program, v: IndexVar) -> Option<Relation> {
        let split = self.deriving(v)?;
        let Relation::Split {
            parent,
            outer,
            inner,
            ..
        } = split
        else {
            return None;
        };
        let plain = !self.parallel.contains_key(&v)
            && self.unroll.get(&v).is_none_or(|&n| n <= 1)
            && !(self.relations.iter()).any(|r| r.derives_from(v));
        let encloses = (self.cin.as_ref()).is_some_and(|cin| loops_below(cin, outer).contains(&v));
        let sparse = accesses_of(&program.rhs, usize::MAX)
            .into_iter()
            .any(|(id, level_vars)| {
                let levels = program.iterated_levels(access_tensor(&program.rhs, id));
                (level_vars.iter().zip(levels)).any(|(&x, l)| x == parent && !level_of(l).full())
            });
        let tile = inner == v && plain && encloses && sparse && self.deriving(parent).is_none();
        tile.then_some(split)
    }

    /// Whether `coord` turned tile loop `v` (a split's inner part) into a coordinate loop.
    pub fn coord_tiles(&self, v: IndexVar) -> bool {
        self.relations
            .iter()
            .any(|r| matches!(r, Relation::Coord { pos, .. } if *pos == v))
    }

    /// Whether `coord` brings the tiles of position variable `p` back to coordinate space: `p` is
    /// split and its inner loop replaced by a coordinate loop.
    pub fn coord_recovers(&self, p: IndexVar) -> bool {
        self.relations.iter().any(|r| {
            matches!(*r, Relation::Split { parent, inner, .. } if parent == p && self.coord_tiles(inner))
        })
    }

    /// Whether `v` is the loop over tiles whose inner loop `coord` iterates in coordinate space:
    /// the tiles then cover disjoint coordinate ranges.
    pub fn tiles_coordinates(&self, v: IndexVar) -> bool {
        self.relations.iter().any(|r| {
            matches!(*r, Relation::Split { outer, inner, .. } if outer == v && self.coord_tiles(inner))
        })
    }

    /// The variables `v` was derived from, transitively, that the statement itself defines.
    pub fn underived(&self, v: IndexVar) -> Vec<IndexVar> {
        match self.deriving(v) {
            None => vec![v],
            Some(
                Relation::Split { parent, .. }
                | Relation::Pos { parent, .. }
                | Relation::Bound { parent, .. }
                | Relation::Precompute { parent, .. }
                | Relation::Coord { pos: parent, .. },
            ) => self.underived(parent),
            Some(Relation::Collapse { outer, inner, .. }) => {
                let mut vars = self.underived(outer);
                vars.extend(self.underived(inner));
                vars
            }
        }
    }

    /// Whether `v` is in position space (a `pos` variable or derived from one).
    pub fn is_position(&self, v: IndexVar) -> bool {
        match self.deriving(v) {
            None => false,
            Some(Relation::Pos { .. }) => true,
            Some(Relation::Coord { .. }) => false,
            Some(
                Relation::Split { parent, .. }
                | Relation::Bound { parent, .. }
                | Relation::Precompute { parent, .. },
            ) => self.is_position(parent),
            Some(Relation::Collapse { outer, inner, .. }) => {
                self.is_position(outer) || self.is_position(inner)
            }
        }
    }
}
