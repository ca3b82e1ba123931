//! `precompute` workspaces (Senanayake et al. 2020, from Kjolstad et al. 2019): the producer loops
//! fill a dense workspace over the values the consumer's loop takes (storing once, or adding up
//! the sums the schedule moved into the producer), and the consumer reads it back. A workspace of
//! constant length (the inner loop of a split) is a stack array the compiler can keep in
//! registers when the producer is unrolled.

use super::{Lowerer, Temp, Tracker};
use crate::error::Error;
use crate::format::bin;
use crate::ir::{Array, BinOp, Expr, Stmt, TempType, Type};
use crate::notation::{Cin, Expr as NExpr, IndexVar};
use crate::schedule::Relation;

impl Lowerer<'_> {
    /// `consumer where producer` for the workspace `temp` over the loop of `var`.
    pub(super) fn precomputed(
        &mut self,
        temp: usize,
        var: IndexVar,
        consumer: &Cin,
        producer: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let (lo, hi) = self.range_of(var)?;
        let name = self
            .scheduled
            .workspaces
            .get(&temp)
            .cloned()
            .unwrap_or_else(|| "workspace".into());
        let values = self.names.fresh(&name);
        let len = offset(hi, &lo);
        // A storing producer writes every slot the consumer then reads, and a summing one is
        // cleared first, so one workspace per kernel (or per parallel task) serves every use,
        // unless its length depends on the enclosing loops.
        let invariant = matches!(len, Expr::Index(_)) || self.scheduled.deriving(var).is_none();
        let declaration = Stmt::workspace(values.clone(), TempType::Value, len.clone());
        match (invariant, self.scope.in_parallel) {
            (true, true) => self.parallel_locals.push(declaration),
            (true, false) => self.hoisted.push(declaration),
            (false, _) => out.push(declaration),
        }
        if sums_into(producer) {
            out.push(self.clear(&values, len));
        }
        self.temps
            .insert(temp, Temp::Precomputed { values, var, lo });
        let saved = self.scope.clone();
        self.scope.segment_sum = None;
        self.copy_trackers(producer, out);
        let produced = self.stmt(producer, out);
        self.scope.trackers = saved.trackers;
        self.scope.untracked = saved.untracked;
        self.scope.segment_sum = saved.segment_sum;
        produced?;
        self.stmt(consumer, out)
    }

    /// `for k in 0..len { values[k] = 0 }`: a workspace the producer adds into starts from zero
    /// at every use.
    fn clear(&mut self, values: &crate::ir::Var, len: Expr) -> Stmt {
        let k = self
            .names
            .fresh(&format!("{}_slot", values.0.trim_start_matches("__")));
        Stmt::For {
            var: k.clone(),
            lo: Expr::Index(0),
            hi: len,
            body: vec![Stmt::store(
                Array::Temp(values.clone()),
                Expr::Var(k),
                Expr::Value(crate::ir::Literal::Int(0)),
                false,
            )],
        }
    }

    /// The producer visits the positions the consumer visits next: it walks copies of the
    /// trackers, so the consumer's walk starts where the producer's did. A walk whose upper
    /// coordinate the producer does not read (the products of an SpMV tile need only the
    /// positions and the columns) is not walked at all, unless the producer iterates the walked
    /// tensor's levels below the positions (TTV's third level), which are only reached through
    /// the levels above.
    fn copy_trackers(&mut self, producer: &Cin, out: &mut Vec<Stmt>) {
        let mut ids = Vec::new();
        access_ids(&self.effective(producer), &mut ids);
        let relations: Vec<usize> = self.scope.trackers.keys().copied().collect();
        for r in relations {
            if let Relation::Pos { parent, access, .. } = self.scheduled.relations[r] {
                let roots = self.scheduled.underived(parent);
                let outers = &roots[..roots.len() - 1];
                let reads_outer = ids.iter().any(|&id| {
                    id != access
                        && outers
                            .iter()
                            .any(|v| self.accesses[id].level_vars.contains(v))
                });
                let reads_below = ids.contains(&access)
                    && (self.access_level(access, &roots).ok())
                        .is_some_and(|level| level + 1 < self.levels(access).len());
                if !(reads_outer || reads_below) {
                    self.scope.trackers.remove(&r);
                    self.scope.untracked.insert(r);
                    continue;
                }
            }
            let Tracker {
                segment,
                end,
                first,
                uppers,
            } = self.scope.trackers[&r].clone();
            let copy = |lowerer: &mut Self, of: &crate::ir::Var, out: &mut Vec<Stmt>| {
                let var = lowerer
                    .names
                    .fresh(&format!("{}_produced", of.0.trim_start_matches("__")));
                out.push(Stmt::Let {
                    var: var.clone(),
                    ty: Type::Index,
                    init: Expr::Var(of.clone()),
                    mutable: true,
                });
                var
            };
            let tracker = Tracker {
                segment: copy(self, &segment, out),
                end: copy(self, &end, out),
                first,
                uppers: uppers
                    .iter()
                    .map(|(q, end)| (copy(self, q, out), copy(self, end, out)))
                    .collect(),
            };
            self.scope.trackers.insert(r, tracker);
        }
    }

    /// Where the workspace of `temp` holds the value for the current iteration.
    pub(super) fn precomputed_slot(&self, temp: usize) -> Result<(crate::ir::Var, Expr), Error> {
        let Some(Temp::Precomputed { values, var, lo }) = self.temps.get(&temp) else {
            return Err(self.internal("a precomputed workspace without its array"));
        };
        let at = self
            .scope
            .coords
            .get(var)
            .cloned()
            .ok_or_else(|| self.internal("a precomputed workspace read outside its loop"))?;
        Ok((values.clone(), offset(at, lo)))
    }
}

/// Whether the producer adds into the workspace (it holds a sum) rather than storing once.
fn sums_into(producer: &Cin) -> bool {
    match producer {
        Cin::Forall { body, .. } => sums_into(body),
        Cin::Where { consumer, .. } => sums_into(consumer),
        Cin::Sequence { first, second } => sums_into(first) || sums_into(second),
        Cin::Assign { accumulate, .. } => *accumulate,
    }
}

/// The accesses an expression reads.
fn access_ids(e: &NExpr, out: &mut Vec<usize>) {
    match e {
        NExpr::Access { id, .. } => out.push(*id),
        NExpr::Op(_, args) => {
            for a in args {
                access_ids(a, out);
            }
        }
        NExpr::Temp(_) | NExpr::Literal(_) => {}
    }
}

/// `at - lo`, as `at` when `lo` is 0 (so a constant length stays a constant).
fn offset(at: Expr, lo: &Expr) -> Expr {
    match lo {
        Expr::Index(0) => at,
        _ => bin(BinOp::Sub, at, lo.clone()),
    }
}

/// The store (or addition, when it holds a sum) of a producer's value into its workspace slot.
pub(super) fn fill(values: crate::ir::Var, at: Expr, value: Expr, accumulate: bool) -> Stmt {
    Stmt::store(Array::Temp(values), at, value, accumulate)
}
