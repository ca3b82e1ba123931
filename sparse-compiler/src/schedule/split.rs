//! `split(i, i0, i1, Down|Up, n)`: the loop over `i` becomes two nested loops, one of constant
//! size `n`, related to `i` in the provenance graph.

use syn::Ident;

use crate::error::Error;

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
}
