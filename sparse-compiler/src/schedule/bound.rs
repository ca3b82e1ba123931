//! `bound(i, ib, n, kind)`: the loop over `i` gets a constant bound, a promise about its extent
//! (an upper bound) or a statement of where it starts (a lower bound).

use proc_macro2::Span;
use syn::Ident;

use crate::error::{Error, ErrorKind};
use crate::notation::IndexVar;

use super::nest::accesses_of;
use super::{BoundKind, Direction, Relation, State};

impl State<'_> {
    /// The loop over `var` becomes a loop over `bound`, which iterates the same coordinates.
    pub(super) fn bound(
        &mut self,
        var: &Ident,
        bound: &Ident,
        value: (usize, Span),
        kind: BoundKind,
    ) -> Result<(), Error> {
        let parent = self.loop_var(var)?;
        let upper = matches!(kind, BoundKind::MaxExact | BoundKind::MaxConstraint);
        if upper && !self.bounds_extent(parent) {
            let what = format!(
                "an upper `bound` of `{var}`, which another command derived (the bound \
                 promises something about an extent, and only the statement's own \
                 variables have one); bound that variable before transforming it"
            );
            return Err(Error::new(var.span(), ErrorKind::Unsupported(what)));
        }
        if matches!(kind, BoundKind::MinExact | BoundKind::MinConstraint) {
            self.check_lower_bound(parent, var, value)?;
        }
        let child = self.fresh(bound)?;
        self.replace(parent, &[child]);
        self.scheduled.relations.push(Relation::Bound {
            parent,
            child,
            kind,
            value: value.0,
        });
        Ok(())
    }

    /// Whether an upper bound on `v` promises something about an extent the inputs decide: `v`
    /// is the statement's own variable, or the part of a `split` whose extent follows from its
    /// parent's (the outer part of a `Down` split, as the GPU schedules bound the outer part of a
    /// split dense loop to make it a constant). The other part's extent is the factor already,
    /// and positions and collapses have no extent a user could promise.
    fn bounds_extent(&self, v: IndexVar) -> bool {
        match self.scheduled.deriving(v) {
            None => true,
            Some(Relation::Split {
                outer, direction, ..
            }) => (v == outer) == (direction == Direction::Down),
            Some(_) => false,
        }
    }

    /// A lower bound (`MinExact`, `MinConstraint`) states where `v`'s loop starts; it cannot
    /// skip iterations. Every loop starts at 0 except a position loop under a known parent
    /// (which starts at that parent's first position, known only at run time), so the bound
    /// must be 0 and the loop must be one of those.
    fn check_lower_bound(
        &self,
        v: IndexVar,
        var: &Ident,
        value: (usize, Span),
    ) -> Result<(), Error> {
        if !self.starts_at_zero(v) {
            let what = format!(
                "a lower bound on `{var}`, whose loop starts at a position known only at run time"
            );
            return Err(Error::new(var.span(), ErrorKind::Unsupported(what)));
        }
        if value.0 != 0 {
            return Err(Error::new(
                value.1,
                ErrorKind::LowerBound {
                    var: var.to_string(),
                    value: value.0,
                },
            ));
        }
        Ok(())
    }

    /// Whether the loop over `v` starts at 0: a position loop only when it covers a root level
    /// or a collapse of levels from the root.
    fn starts_at_zero(&self, v: IndexVar) -> bool {
        match self.scheduled.deriving(v) {
            Some(Relation::Pos { parent, access, .. }) => {
                let roots = self.scheduled.underived(parent);
                let level_vars = accesses_of(&self.program.rhs, usize::MAX)
                    .into_iter()
                    .find(|(id, _)| *id == access)
                    .map(|(_, vars)| vars)
                    .unwrap_or_default();
                roots.len() > 1 || level_vars.first() == Some(&roots[0])
            }
            Some(Relation::Precompute { parent, .. }) => self.starts_at_zero(parent),
            _ => true,
        }
    }
}
