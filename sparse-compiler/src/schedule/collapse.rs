//! `collapse(i, j, f)` (taco's `fuse`): two directly nested loops become one over their pairs,
//! outer-major.

use syn::Ident;

use crate::error::{Error, ErrorKind};
use crate::notation::{Cin, IndexVar};

use super::nest::below_nest;
use super::{Relation, State};

impl State<'_> {
    /// The collapsed loop iterates the pairs of `outer` and `inner`: only coordinate variables
    /// can be collapsed, as a position variable's range depends on the loops outside it.
    pub(super) fn collapse(
        &mut self,
        outer: &Ident,
        inner: &Ident,
        fused: &Ident,
    ) -> Result<(), Error> {
        let (i, j) = (self.loop_var(outer)?, self.loop_var(inner)?);
        if self.scheduled.is_position(i) {
            return Err(Error::new(
                outer.span(),
                ErrorKind::CollapseOuterPosition(outer.to_string()),
            ));
        }
        if self.scheduled.is_position(j) {
            let what = format!(
                "`collapse` of position variable `{inner}`, whose range depends on `{outer}`; \
                 collapse the coordinate variables, then apply `pos` to the result"
            );
            return Err(Error::new(inner.span(), ErrorKind::Unsupported(what)));
        }
        if !directly_nested(&self.cin, i, j) {
            let kind = ErrorKind::CollapseNotNested {
                outer: outer.to_string(),
                inner: inner.to_string(),
            };
            return Err(Error::new(inner.span(), kind));
        }
        let f = self.fresh(fused)?;
        self.cin = collapse_forall(&self.cin, i, j, f);
        self.scheduled.relations.push(Relation::Collapse {
            outer: i,
            inner: j,
            fused: f,
        });
        Ok(())
    }
}

/// Whether the loop over `inner` is the whole body of the loop over `outer`.
fn directly_nested(cin: &Cin, outer: IndexVar, inner: IndexVar) -> bool {
    match cin {
        Cin::Forall { var, body } if *var == outer => {
            matches!(&**body, Cin::Forall { var, .. } if *var == inner)
        }
        Cin::Forall { body, .. } => directly_nested(body, outer, inner),
        Cin::Where { .. } | Cin::Sequence { .. } => cin.parts().is_some_and(|(a, b)| {
            directly_nested(a, outer, inner) || directly_nested(b, outer, inner)
        }),
        Cin::Assign { .. } => false,
    }
}

/// `cin` with the nest of `outer` directly around `inner` replaced by one loop over `fused`.
fn collapse_forall(cin: &Cin, outer: IndexVar, inner: IndexVar, fused: IndexVar) -> Cin {
    match cin {
        Cin::Forall { .. } if let Some(body) = below_nest(cin, &[outer, inner]) => Cin::Forall {
            var: fused,
            body: Box::new(body.clone()),
        },
        Cin::Forall { var, body } => Cin::Forall {
            var: *var,
            body: Box::new(collapse_forall(body, outer, inner, fused)),
        },
        Cin::Where { .. } | Cin::Sequence { .. } => match cin.parts() {
            Some((a, b)) => cin.with_parts(
                collapse_forall(a, outer, inner, fused),
                collapse_forall(b, outer, inner, fused),
            ),
            None => cin.clone(),
        },
        Cin::Assign { .. } => cin.clone(),
    }
}
