//! `coord` (Senanayake et al. 2020): the tile loop of a split position variable iterated in
//! coordinate space. A tile of `A`'s positions `[lo, hi)` covers the coordinates from its first
//! position's to the next tile's first (from 0 for the first tile, to the extent for the last), so
//! the tiles partition the coordinates; the loop over them is an ordinary coordinate loop whose
//! lattice co-iterates `A` from `lo` to `hi` only.

use super::Lowerer;
use crate::error::Error;
use crate::format::{bin, level_fns};
use crate::ir::{BinOp, Expr, Stmt, Type};
use crate::notation::{Cin, IndexVar};
use crate::schedule::Relation;

impl Lowerer<'_> {
    /// The loop `coord` made of tile loop `tile` (the inner part of a split position variable).
    pub(super) fn coord_loop(
        &mut self,
        tile: IndexVar,
        body: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let Some(Relation::Split { parent, outer, .. }) = self.scheduled.deriving(tile) else {
            return Err(self.internal("`coord` of a loop that is not a split's inner part"));
        };
        let Some(Relation::Pos {
            parent: i, access, ..
        }) = self.scheduled.deriving(parent)
        else {
            return Err(self.internal("`coord` of a tile that is not of positions"));
        };
        let o = self
            .scope
            .coords
            .get(&outer)
            .cloned()
            .ok_or_else(|| self.unsupported("`coord` of a tile outside the loop over tiles"))?;
        let level = self.access_level(access, &[i])?;
        let spec = self.levels(access)[level];
        if !spec.ordered || !spec.unique {
            return Err(self
                .unsupported("`coord` over a level whose coordinates are not sorted and unique"));
        }
        let (first, last) = self.position_range(i, access)?;
        let (_, size) = self.range_of(tile)?;
        let name = self.program.vars[i].clone();
        // The last tiles of an `Up` split can start past the positions: they are empty, and
        // start (and end) at the extent.
        let start = bin(BinOp::Add, first, bin(BinOp::Mul, o.clone(), size.clone()));
        let start = bin(BinOp::Min, start, last.clone());
        let lo = self.let_fresh(&format!("{name}_tile_lo"), start, out);
        let stop = bin(BinOp::Min, bin(BinOp::Add, lo.clone(), size), last.clone());
        let hi = self.let_fresh(&format!("{name}_tile_hi"), stop, out);
        let env = self.level_env(access, level);
        let fns = level_fns(spec.kind);
        let from = Expr::Select(
            Box::new(bin(BinOp::Eq, o, Expr::Index(0))),
            Box::new(Expr::Index(0)),
            Box::new(Expr::Select(
                Box::new(bin(BinOp::Lt, lo.clone(), last.clone())),
                Box::new(fns.pos_access(&env, &lo)),
                Box::new(self.extent(i)),
            )),
        );
        let to = Expr::Select(
            Box::new(bin(BinOp::Lt, hi.clone(), last)),
            Box::new(fns.pos_access(&env, &hi)),
            Box::new(self.extent(i)),
        );
        let from = self.let_fresh(&format!("{name}_from"), from, out);
        let to = self.let_fresh(&format!("{name}_to"), to, out);
        let saved = self.scope.clone();
        self.scope.tiles.insert((access, level), (lo, hi));
        self.scope.coord_ranges.insert(i, (from, to));
        self.scope.partial = true;
        self.scope.uncovered = true;
        let result = self.forall(i, body, out);
        self.scope = saved;
        result
    }

    /// `let __hint = init;` under a fresh name, which is returned.
    pub(super) fn let_fresh(&mut self, hint: &str, init: Expr, out: &mut Vec<Stmt>) -> Expr {
        let var = self.names.fresh(hint);
        out.push(Stmt::Let {
            var: var.clone(),
            ty: Type::Index,
            init,
            mutable: false,
        });
        Expr::Var(var)
    }
}
