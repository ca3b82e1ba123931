//! [`Rule::Reread`]: a tensor read in index orders that no one copy can follow.
//!
//! A run-time copy changes the levels every read of a tensor iterates, so a tensor read in two
//! orders (`C(i,j) = A(i,j) + A(j,i)` with `A` in CSR, or `A(i,j,k) * x(k) + A(i,l,j) * x(l)`,
//! whose second term is summed inside the loop over `j`) cannot be fixed by copying it: whatever
//! order the copy takes, one of the reads goes against it. The reads in one of the orders then get
//! a tensor of their own, local to the kernel: a copy of the input made when the kernel runs,
//! which the other rules put in an order the loops follow like any copied input.
//!
//! The split is planned only where the other rules cannot plan the statement as it stands, and
//! only where it makes the statement plannable. Of the orders that could move, the one chosen gives
//! a plan that visits the output in its storage order (so it is appended to, not collected and
//! packed) if any does, then the fewest copies (`A(i,j) * A(j,i) * D(j,i)` with CSR operands
//! moves `A(i,j)`, which alone needs a copy), then the last read.

use super::convert::{collect_accesses, rows_over_compressed};
use super::plan::{Change, Rule, plan_copies, plans_without_splits};
use super::{Expr, IndexVar, Program, concretize};
use crate::format::Coord;

/// The split that [`Rule::Reread`] proposes for `program`, if any.
pub(super) fn reread_splits(program: &Program) -> Vec<Change> {
    let reread: Vec<(usize, Vec<Vec<IndexVar>>)> = (1..program.tensors.len())
        .map(|t| (t, orders(program, t)))
        .filter(|(_, orders)| orders.len() > 1)
        .collect();
    if reread.is_empty() || plans_without_splits(program) {
        return Vec::new();
    }
    let mut best: Option<((bool, usize), Change)> = None;
    for (t, orders) in &reread {
        for indices in orders.iter().rev() {
            let mut trial = program.clone();
            trial.split_reads(*t, indices);
            if plan_copies(&mut trial).is_err() {
                continue;
            }
            // Each copy is a conversion when the kernel runs.
            let copies = trial.copies.iter().count();
            let cost = (!visits_output_in_order(&trial), copies);
            if best.as_ref().is_none_or(|(c, _)| cost < *c) {
                let change = Change::Split {
                    tensor: *t,
                    indices: indices.clone(),
                };
                best = Some((cost, change));
            }
        }
    }
    best.into_iter().map(|(_, change)| change).collect()
}

/// The distinct index lists tensor `t` is read at, in order of appearance.
fn orders(program: &Program, t: usize) -> Vec<Vec<IndexVar>> {
    let mut reads = Vec::new();
    collect_accesses(&program.rhs, t, &mut reads);
    let mut distinct: Vec<Vec<IndexVar>> = Vec::new();
    for r in reads {
        if !distinct.contains(&r) {
            distinct.push(r);
        }
    }
    distinct
}

/// Whether the default loops of `program` reach the output's levels in their order.
fn visits_output_in_order(program: &Program) -> bool {
    let Ok(cin) = concretize(program) else {
        return false;
    };
    let loops = cin.loops();
    let at: Vec<Option<usize>> = (program.output.level_vars.iter())
        .map(|v| loops.iter().position(|l| l == v))
        .collect();
    at.windows(2).all(|w| w[0] <= w[1])
}

impl Program {
    /// Moves the reads of tensor `t` at `indices` to a new tensor, a copy of the same input local
    /// to the kernel, iterated in `t`'s levels (or dense rows over compressed levels where those
    /// do not each store a whole dimension) until a later rule orders them.
    pub(super) fn split_reads(&mut self, t: usize, indices: &[IndexVar]) {
        let source = self.tensors[t].copy_of.unwrap_or(t);
        let mut local = self.tensors[t].clone();
        local.name = self.local_name(source, indices);
        local.copy_of = Some(source);
        self.tensors.push(local);
        let split = self.tensors.len() - 1;
        repoint(&mut self.rhs, t, indices, split);
        let levels = self.iterated_levels(t);
        let levels = match levels.iter().all(|l| matches!(l.coord, Coord::Dim(_))) {
            true => levels.to_vec(),
            false => rows_over_compressed(self.tensors[t].order),
        };
        self.record_copy(split, levels, Rule::Reread);
    }

    /// `A_j_i` for the reads `A(j,i)`, unless a tensor of the statement has that name already.
    fn local_name(&self, source: usize, indices: &[IndexVar]) -> String {
        let vars: Vec<&str> = indices.iter().map(|&v| self.vars[v].as_str()).collect();
        let mut name = format!("{}_{}", self.tensors[source].name, vars.join("_"));
        while self.tensors.iter().any(|t| t.name == name) {
            name.push('_');
        }
        name
    }
}

/// Points the reads of tensor `t` at `indices` to tensor `to`.
fn repoint(e: &mut Expr, t: usize, indices: &[IndexVar], to: usize) {
    match e {
        Expr::Access { access, .. } if access.tensor == t && access.indices == indices => {
            access.tensor = to;
        }
        Expr::Access { .. } | Expr::Temp(_) | Expr::Literal(_) => {}
        Expr::Op(_, args) => {
            for a in args {
                repoint(a, t, indices, to);
            }
        }
    }
}
