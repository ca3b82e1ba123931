//! `reorder(a, b, ...)`: the listed loops of one perfect nest take this relative order, as long as
//! every tensor is still visited in the order of its levels.

use std::collections::BTreeSet;

use proc_macro2::Span;
use syn::Ident;

use crate::error::{Error, ErrorKind};
use crate::notation::{Cin, IndexVar, order_edges};

use super::nest::below_nest;
use super::{Relation, State};

impl State<'_> {
    /// The loops named, which must lie in one perfect nest (other loops may sit between them),
    /// take the slots they hold in the order written. Every tensor must still be visited in the
    /// order of its levels, and an appended output in the order of its coordinates.
    pub(super) fn reorder(&mut self, names: &[Ident], span: Span) -> Result<(), Error> {
        for (k, name) in names.iter().enumerate() {
            if names[..k].contains(name) {
                return Err(Error::new(
                    name.span(),
                    ErrorKind::ReorderTwice(name.to_string()),
                ));
            }
        }
        let vars = names
            .iter()
            .map(|n| self.loop_var(n))
            .collect::<Result<Vec<_>, _>>()?;
        let nest = perfect_nest(&self.cin, &vars).ok_or_else(|| {
            let across = vars.iter().all(|v| self.cin.loops().contains(v))
                && crosses_where(&self.cin, &vars);
            let kind = if across {
                ErrorKind::ReorderAcrossReduction
            } else {
                ErrorKind::ReorderNotAdjacent
            };
            Error::new(span, kind)
        })?;
        let mut order = nest.clone();
        let mut slots: Vec<usize> = vars
            .iter()
            .filter_map(|v| nest.iter().position(|x| x == v))
            .collect();
        slots.sort_unstable();
        for (slot, v) in slots.into_iter().zip(&vars) {
            order[slot] = *v;
        }
        for (a, b, t) in order_edges(self.program, &self.program.rhs) {
            if self.binds_after(&order, a, b) {
                let tensor = self.program.tensors[t].name.clone();
                return Err(Error::new(span, ErrorKind::ReorderModeOrder { tensor }));
            }
        }
        if self.appends_out_of_order(&order) {
            let tensor = self.program.tensors[0].name.clone();
            return Err(Error::new(span, ErrorKind::ReorderAppendOrder(tensor)));
        }
        self.cin = reorder_nest(&self.cin, &nest, &order);
        Ok(())
    }

    /// Whether loop order `order` binds `a` only after the first loop over `b`, whose level needs
    /// `a` bound first: the first loop deriving from `b` is above the first deriving from `a`, or
    /// above a loop that derives from `a` alone. A split of `a` binds it only in its inner loop:
    /// `split(k, k0, k1, ..).reorder(k0, l, k1)` leaves `k` unknown in the loop over `l`. A loop
    /// that fuses both (`collapse`) binds them together.
    fn binds_after(&self, order: &[IndexVar], a: IndexVar, b: IndexVar) -> bool {
        let derives = |y: IndexVar, x: IndexVar| self.scheduled.underived(y).contains(&x);
        let first = |x: IndexVar| order.iter().position(|&y| derives(y, x));
        let Some(pb) = first(b) else {
            return false;
        };
        let a_alone = order.iter().rposition(|&y| derives(y, a) && !derives(y, b));
        first(a).is_some_and(|pa| pa > pb) || a_alone.is_some_and(|pa| pa > pb)
    }

    /// Whether loop order `order` puts the inner part of a split output coordinate outside its
    /// outer part: the coordinates then come out of order, which an output assembled by append
    /// cannot take.
    fn appends_out_of_order(&self, order: &[IndexVar]) -> bool {
        let outputs = self.program.loop_vars_of(&self.program.output.indices);
        let at = |v: IndexVar| order.iter().position(|&x| x == v);
        self.program.assembles_output()
            && self.scheduled.relations.iter().any(|r| match *r {
                Relation::Split {
                    parent,
                    outer,
                    inner,
                    ..
                } => {
                    let output =
                        (self.scheduled.underived(parent).iter()).any(|v| outputs.contains(v));
                    output && matches!((at(outer), at(inner)), (Some(o), Some(i)) if i < o)
                }
                _ => false,
            })
    }
}

/// The run of directly nested loops, outermost first, that contains exactly the loops in `vars`
/// plus any loops between them; `None` if a `where` or a branch separates them.
fn perfect_nest(cin: &Cin, vars: &[IndexVar]) -> Option<Vec<IndexVar>> {
    match cin {
        Cin::Forall { var, .. } if vars.contains(var) => {
            let mut nest = Vec::new();
            let mut node = cin;
            let mut left: BTreeSet<IndexVar> = vars.iter().copied().collect();
            while let Cin::Forall { var, body } = node {
                if left.is_empty() {
                    break;
                }
                left.remove(var);
                nest.push(*var);
                node = body;
            }
            left.is_empty().then_some(nest)
        }
        Cin::Forall { body, .. } => perfect_nest(body, vars),
        Cin::Where { .. } | Cin::Sequence { .. } => {
            (cin.parts()).and_then(|(a, b)| perfect_nest(a, vars).or_else(|| perfect_nest(b, vars)))
        }
        Cin::Assign { .. } => None,
    }
}

/// Whether the loops of `vars` are on one path but separated by a `where`.
fn crosses_where(cin: &Cin, vars: &[IndexVar]) -> bool {
    fn path(cin: &Cin, vars: &[IndexVar], seen: usize, crossed: bool) -> bool {
        match cin {
            Cin::Forall { var, body } => {
                let seen = seen + usize::from(vars.contains(var));
                if seen == vars.len() {
                    return crossed;
                }
                path(body, vars, seen, crossed)
            }
            Cin::Where { .. } | Cin::Sequence { .. } => {
                let crossed = crossed || seen > 0;
                (cin.parts()).is_some_and(|(a, b)| {
                    path(a, vars, seen, crossed) || path(b, vars, seen, crossed)
                })
            }
            Cin::Assign { .. } => false,
        }
    }
    path(cin, vars, 0, false)
}

/// `cin` with the loops of `nest`, found where [`below_nest`] finds them, put in `order`.
fn reorder_nest(cin: &Cin, nest: &[IndexVar], order: &[IndexVar]) -> Cin {
    match cin {
        Cin::Forall { .. } if let Some(body) = below_nest(cin, nest) => {
            Cin::forall_over(order, body.clone())
        }
        Cin::Forall { var, body } => Cin::Forall {
            var: *var,
            body: Box::new(reorder_nest(body, nest, order)),
        },
        Cin::Where { .. } | Cin::Sequence { .. } => match cin.parts() {
            Some((a, b)) => {
                cin.with_parts(reorder_nest(a, nest, order), reorder_nest(b, nest, order))
            }
            None => cin.clone(),
        },
        Cin::Assign { .. } => cin.clone(),
    }
}
