//! `pos(i, p, A)`: the loop over coordinate variable `i` iterates the positions of `A`'s level
//! that `i` indexes instead, moving it to position space.

use syn::Ident;

use crate::error::{Error, ErrorKind};
use crate::format::level_of;
use crate::notation::{Access, Expr, IndexVar};

use super::nest::{access_level_vars, accesses_of};
use super::{Relation, State};

impl State<'_> {
    /// `i` must be a coordinate variable, not split or bounded, and `A` an input with a level
    /// that `i` indexes (a contiguous run of levels for a collapsed `i`) which has positions to
    /// iterate. Where the statement can be nonzero outside `A`'s entries, a loop over them would
    /// skip terms; that error waits until every command ran, as `coord` can still repair it.
    pub(super) fn pos(&mut self, var: &Ident, pos: &Ident, tensor: &Ident) -> Result<(), Error> {
        let i = self.loop_var(var)?;
        if self.scheduled.is_position(i) {
            return Err(Error::new(
                var.span(),
                ErrorKind::PosOfPosition(var.to_string()),
            ));
        }
        // A precomputed copy of a variable iterates what the variable does.
        let mut original = i;
        while let Some(Relation::Precompute { parent, .. }) = self.scheduled.deriving(original) {
            original = parent;
        }
        if matches!(
            self.scheduled.deriving(original),
            Some(Relation::Split { .. } | Relation::Bound { .. })
        ) {
            let what = "`pos` of a split or bounded coordinate variable (a position tile inside a coordinate tile)";
            return Err(Error::new(var.span(), ErrorKind::Unsupported(what.into())));
        }
        let Some(t) = (1..self.program.tensors.len())
            .find(|&t| tensor == self.program.tensors[t].name.as_str())
        else {
            return Err(Error::new(
                tensor.span(),
                ErrorKind::NotAnInput(tensor.to_string()),
            ));
        };
        let roots = self.scheduled.underived(i);
        let precomputed = matches!(
            self.scheduled.deriving(i),
            Some(Relation::Precompute { .. })
        ) || (self.scheduled.relations.iter())
            .any(|r| matches!(r, Relation::Precompute { parent, .. } if *parent == i));
        if precomputed && roots.len() > 1 {
            let what = format!(
                "`pos` of `{var}`, a collapsed variable already precomputed over; put `pos` before \
                 `precompute`, as in `collapse(i, j, f).pos(f, p, A).precompute(.., p, pw, W)`"
            );
            return Err(Error::new(var.span(), ErrorKind::Unsupported(what)));
        }
        let (access, level) = self.indexing_level(t, &roots).ok_or_else(|| {
            Error::new(
                tensor.span(),
                ErrorKind::PosNotIndexing {
                    var: var.to_string(),
                    tensor: tensor.to_string(),
                },
            )
        })?;
        let levels = self.program.iterated_levels(t);
        if roots.len() > 1 && !self.contiguous(access, level, &roots) {
            return Err(Error::new(
                var.span(),
                ErrorKind::CollapseNotContiguous {
                    tensor: tensor.to_string(),
                },
            ));
        }
        if level_of(&levels[level]).full() {
            return Err(Error::new(
                var.span(),
                ErrorKind::PosOnDense {
                    tensor: tensor.to_string(),
                    var: var.to_string(),
                },
            ));
        }
        if let Some(why) = level_of(&levels[level]).pos_refusal() {
            let what = format!("`pos` over `{tensor}`'s {why}");
            return Err(Error::new(var.span(), ErrorKind::Unsupported(what)));
        }
        let p = self.fresh(pos)?;
        if !self.visits_every_term(access, &roots) {
            let kind = ErrorKind::PosNotAnnihilating {
                var: var.to_string(),
                tensor: tensor.to_string(),
            };
            (self.partial_positions).push((p, Error::new(tensor.span(), kind)));
        }
        self.replace(i, &[p]);
        self.scheduled.relations.push(Relation::Pos {
            parent: i,
            pos: p,
            access,
        });
        Ok(())
    }

    /// Whether a loop over `roots` that visits only the entries of access `access` (`pos`) skips
    /// nothing: every term of the statement is zero wherever the access is, except, when `roots`
    /// are all summed over, terms that do not use them (they are added outside that loop).
    fn visits_every_term(&self, access: usize, roots: &[IndexVar]) -> bool {
        let Some(read) = self.program.rhs.find_access(access) else {
            return false;
        };
        let outputs = self.program.loop_vars_of(&self.program.output.indices);
        let summed = roots.iter().all(|r| !outputs.contains(r));
        let skip = self.program.skip_value();
        // A reduction `reduce<...>` names covers the whole right-hand side: one term.
        let terms = match self.program.reduction {
            Some(_) => vec![&self.program.rhs],
            None => self.program.rhs.sum_terms(),
        };
        terms.into_iter().all(|term| {
            let mut used = Vec::new();
            term.collect_vars(&mut used);
            annihilated_by(term, read, skip)
                || (summed
                    && self.program.reduction.is_none()
                    && !used.iter().any(|v| roots.contains(v)))
        })
    }

    /// The first access of tensor `t` and the deepest of its levels that one of `roots` indexes.
    fn indexing_level(&self, t: usize, roots: &[IndexVar]) -> Option<(usize, usize)> {
        let accesses = accesses_of(&self.program.rhs, t);
        accesses.into_iter().find_map(|(id, level_vars)| {
            let level = level_vars.iter().rposition(|v| roots.contains(v))?;
            Some((id, level))
        })
    }

    /// Whether the collapsed `roots` are the levels `level - roots.len() + 1 ..= level` of the
    /// access, in order.
    fn contiguous(&self, access: usize, level: usize, roots: &[IndexVar]) -> bool {
        let vars = access_level_vars(&self.program.rhs, access);
        level + 1 >= roots.len() && vars.get(level + 1 - roots.len()..=level) == Some(roots)
    }
}

/// Whether `expr` is `skip` (zero, or the identity of the statement's reduction) wherever
/// `tensor` read as `access` is: a loop may then visit only that access's entries (`pos`) and skip
/// nothing. By the operator's algebra: decided when an operand whose fill absorbs it is (a factor
/// of a product), or when every operand that is not a literal is (each term of a sum).
fn annihilated_by(expr: &Expr, access: &Access, skip: f64) -> bool {
    expr.vanishes_without(&|a| a == access, skip)
}
