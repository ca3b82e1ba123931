//! `coord(p1, ic)`: the tile loop of a split position variable iterates, in coordinate space, the
//! coordinates the tile covers.

use syn::Ident;

use crate::error::{Error, ErrorKind};
use crate::format::level_of;
use crate::syntax::ast::CommandKind;

use super::nest::{access_tensor, accesses_of};
use super::{Relation, State};

impl State<'_> {
    /// `coord(p1, ic)`: the tile loop `p1` of a split position variable `p` over `A(.., i, ..)`
    /// becomes a loop over the coordinates of `i` the tile covers, co-iterating `A` from the
    /// tile's first position. Tiles partition the coordinates (the first from 0, the last to the
    /// extent), so a union with dense operands visits every coordinate once.
    pub(super) fn coord(&mut self, pos: &Ident, coord: &Ident) -> Result<(), Error> {
        let p1 = self.loop_var(pos)?;
        if !self.scheduled.is_position(p1) {
            return Err(Error::new(
                pos.span(),
                ErrorKind::CoordOfCoordinate(pos.to_string()),
            ));
        }
        let unsupported = |what: String| Error::new(pos.span(), ErrorKind::Unsupported(what));
        let tile_of = match self.scheduled.deriving(p1) {
            Some(Relation::Split { parent, inner, .. }) if inner == p1 => {
                self.scheduled.deriving(parent)
            }
            _ => None,
        };
        let Some(Relation::Pos {
            parent: i, access, ..
        }) = tile_of
        else {
            return Err(unsupported(format!(
                "`coord` of `{pos}`, which is not the inner loop of a split `pos` variable"
            )));
        };
        if self.scheduled.deriving(i).is_some() {
            return Err(unsupported(format!(
                "`coord` of `{pos}`, whose `pos` is over a derived (split or collapsed) variable"
            )));
        }
        let other_sparse = accesses_of(&self.program.rhs, usize::MAX)
            .into_iter()
            .filter(|(id, _)| *id != access)
            .find_map(|(id, level_vars)| {
                let t = access_tensor(&self.program.rhs, id);
                let tensor = &self.program.tensors[t];
                let k = level_vars.iter().position(|&x| x == i)?;
                (!level_of(&self.program.iterated_levels(t)[k]).full()).then(|| tensor.name.clone())
            });
        if let Some(tensor) = other_sparse {
            return Err(unsupported(format!(
                "`coord` of `{pos}` while `{tensor}` also iterates a sparse level of `{}`",
                self.program.vars[i]
            )));
        }
        let ic = self.fresh(coord)?;
        self.replace(p1, &[ic]);
        self.scheduled
            .relations
            .push(Relation::Coord { pos: p1, coord: ic });
        Ok(())
    }

    /// The coordinates `coord` recovers for a position tile run from the tile's first nonzero to
    /// the next tile's; the lowering walks them as they are, so a command that would derive a new
    /// variable from them (`split`, `bound`, `pos`, `collapse`, `precompute`) is not supported yet.
    pub(super) fn derives_from_coord_tile(&self, command: &CommandKind) -> Result<(), Error> {
        let vars: Vec<&Ident> = match command {
            CommandKind::Split { var, .. }
            | CommandKind::Bound { var, .. }
            | CommandKind::Pos { var, .. }
            | CommandKind::Precompute { var, .. } => vec![var],
            CommandKind::Collapse { outer, inner, .. } => vec![outer, inner],
            _ => Vec::new(),
        };
        for var in vars {
            let Ok(v) = self.loop_var(var) else { continue };
            if matches!(self.scheduled.deriving(v), Some(Relation::Coord { .. })) {
                let what = format!(
                    "`{}` of `{var}`, the coordinates `coord` recovers for a position tile",
                    command.name()
                );
                return Err(Error::new(var.span(), ErrorKind::Unsupported(what)));
            }
        }
        Ok(())
    }
}
