//! `split(i, i0, i1, Down|Up, n)`: the loop over `i` becomes two nested loops, one of constant
//! size `n`, related to `i` in the provenance graph.

use syn::Ident;

use crate::error::{Error, ErrorKind};
use crate::format::{level_of, properties};
use crate::notation::IndexVar;

use super::nest::{access_tensor, accesses_of};
use super::{Direction, Relation, State};

impl State<'_> {
    /// `parent = outer * size(inner) + inner`: the loop over `var` becomes `outer` around `inner`.
    pub(super) fn split(
        &mut self,
        var: &Ident,
        outer: &Ident,
        inner: &Ident,
        direction: Direction,
        factor: usize,
    ) -> Result<(), Error> {
        let parent = self.loop_var(var)?;
        self.check_searchable(parent, var)?;
        let (outer, inner) = (self.fresh(outer)?, self.fresh(inner)?);
        let relation = Relation::Split {
            parent,
            outer,
            inner,
            direction,
            factor,
        };
        self.replace(parent, &[outer, inner]);
        self.scheduled.relations.push(relation);
        Ok(())
    }

    /// A coordinate split of a loop over a sparse level runs each tile from the first position
    /// whose coordinate is in it, found by a binary search (`lower/tile.rs`): the level must keep
    /// its coordinates sorted.
    fn check_searchable(&self, v: IndexVar, var: &Ident) -> Result<(), Error> {
        let program = &*self.program;
        for (id, level_vars) in accesses_of(&program.rhs, usize::MAX) {
            let t = access_tensor(&program.rhs, id);
            let levels = program.iterated_levels(t);
            let unordered = (level_vars.iter().zip(levels))
                .position(|(&x, l)| x == v && !level_of(l).full() && !properties(l).ordered);
            if let Some(k) = unordered {
                let what = format!(
                    "a coordinate `split` of `{var}` over level {k} of `{}`, whose coordinates are \
                     not sorted (a tile searches where it starts); use `pos`",
                    program.tensors[t].name
                );
                return Err(Error::new(var.span(), ErrorKind::Unsupported(what)));
            }
        }
        Ok(())
    }
}
