//! Loops on GPU units (Senanayake et al. §5.5): each becomes a region whose iterations map to CUDA
//! blocks, warps or threads. Every statement of a GPU kernel runs on each thread that reaches it,
//! so what the regions decide here is only what the CUDA back end cannot see for itself: how the
//! output is written (plain stores, or atomic sums under `Atomics`), which running sums the
//! threads of a warp or block combine (`Temporary`, `ParallelReduction`), and how many warps or
//! threads the block holds.

use super::Lowerer;
use super::races::{make_output_sums_atomic, shared_by_iterations};
use crate::error::{Error, ErrorKind};
use crate::ir::{
    Array, Expr, OutputAccess, Place, ReduceOp, Reduction, Region, Scope, Stmt, Unit as IrUnit,
    UpdateOp, Var,
};
use crate::notation::IndexVar;
use crate::schedule::{Parallel, Race, Unit};

impl Lowerer<'_> {
    /// The statements of a loop on a GPU unit: its region, and for a `Temporary` or
    /// `ParallelReduction` whose iterations sum into one output entry, the running sum the
    /// region reduces into and the one update of the output after it.
    pub(super) fn gpu_region(
        &mut self,
        v: IndexVar,
        var: Var,
        (lo, hi): (Expr, Expr),
        body: Vec<Stmt>,
        tag: Parallel,
    ) -> Result<Vec<Stmt>, Error> {
        if self.assembles() || self.collects_entries {
            let what = format!(
                "a GPU kernel that assembles sparse output `{}`: on the GPU, outputs are dense or \
                 take their structure from an input",
                self.program.tensors[0].name
            );
            return Err(Error::new(tag.span, ErrorKind::Unsupported(what)));
        }
        let unit = match tag.unit {
            Unit::GpuBlock => IrUnit::GpuBlock,
            Unit::GpuWarp => IrUnit::GpuWarp,
            _ => IrUnit::GpuThread,
        };
        let mut locals = std::mem::take(&mut self.parallel_locals);
        locals.extend(body);
        let mut reductions = Vec::new();
        let (mut before, mut after) = (Vec::new(), Vec::new());
        match tag.race {
            Race::Temporary | Race::ParallelReduction => {
                let at = (&var, tag.span);
                reductions = self.gpu_reductions(at, &mut locals, &mut before, &mut after)?;
            }
            race => {
                if let Some(what) = shared_by_iterations(&locals, false) {
                    let what = format!(
                        "parallelizing `{}` on the GPU: {what}",
                        self.program.vars[v]
                    );
                    return Err(Error::new(tag.span, ErrorKind::Unsupported(what)));
                }
                if race == Race::Atomics {
                    make_output_sums_atomic(&mut locals);
                }
            }
        }
        let units = match unit {
            IrUnit::GpuBlock => None,
            _ => Some(self.scheduled.constant_extent(v).ok_or_else(|| {
                let what = format!(
                    "`{}` on GPU warps or threads has no constant extent; split it by a constant",
                    self.program.vars[v]
                );
                Error::new(tag.span, ErrorKind::Unsupported(what))
            })?),
        };
        before.push(Stmt::Parallel(Region {
            unit,
            var,
            lo,
            hi,
            body: locals,
            output: OutputAccess::Scattered,
            reductions,
            units,
            work: None,
        }));
        before.extend(after);
        Ok(before)
    }

    /// Under `Temporary` or `ParallelReduction`: the running sums the threads of a warp combine.
    /// Where the threads sum into one output entry, taco's scalar temporary: they sum into a
    /// register declared before the region (`before`), combined once and added to the entry
    /// after it (`after`). A partial the threads add straight into the output is added
    /// atomically.
    fn gpu_reductions(
        &mut self,
        (var, span): (&Var, proc_macro2::Span),
        locals: &mut Vec<Stmt>,
        before: &mut Vec<Stmt>,
        after: &mut Vec<Stmt>,
    ) -> Result<Vec<Reduction>, Error> {
        // Warps combine partials with shuffles; a whole block has no such primitive here, so
        // without a warp loop the partials go to the output atomically instead.
        let warps = (self.scheduled.parallel.values()).any(|p| p.unit == Unit::GpuWarp);
        if warps && let Some(entry) = one_output_entry(locals, var) {
            let sum = self.names.fresh("partial");
            *locals = sum_into(std::mem::take(locals), &sum);
            before.push(Stmt::Let {
                var: sum.clone(),
                ty: crate::ir::Type::Value,
                init: self.identity_value(),
                mutable: true,
            });
            let place = Place::Elem(Array::Vals { param: 0 }, entry);
            let mut update = Stmt::update_with(place, Expr::Var(sum), Some(self.reduction()));
            if (self.scheduled.parallel.values()).any(|p| p.race == Race::Atomics) {
                make_output_sums_atomic(std::slice::from_mut(&mut update));
            }
            after.push(update);
        }
        let sums = running_sums(locals);
        if !warps && !sums.is_empty() {
            let what = "a running sum combined across a whole GPU block; parallelize a \
                        `GpuWarp` loop around the `GpuThread` loop"
                .to_string();
            return Err(Error::new(span, ErrorKind::Unsupported(what)));
        }
        make_output_sums_atomic(locals);
        Ok(sums
            .into_iter()
            .map(|var| Reduction {
                op: reduction_of(locals, &var).unwrap_or(ReduceOp::Add),
                var,
                scope: Scope::Warp,
            })
            .collect())
    }

    /// Whether a loop nested in `v`'s runs on GPU warps or threads and walks positions of the
    /// same tracked relation: then each thread walks its own part, so the tracker is declared
    /// inside that loop, not here. (A warp or thread loop over a dense index, as in SDDMM, leaves
    /// the tracker where the positions are walked.)
    pub(super) fn gpu_loop_below(&self, v: IndexVar, relation: usize) -> bool {
        let Some(cin) = &self.scheduled.cin else {
            return false;
        };
        crate::schedule::nest::loops_below(cin, v)
            .into_iter()
            .any(|x| {
                let gpu = (self.scheduled.parallel.get(&x))
                    .is_some_and(|p| matches!(p.unit, Unit::GpuWarp | Unit::GpuThread));
                gpu && self.tracked_pos(x).is_some_and(|(r, ..)| r == relation)
            })
    }
}

/// The one output entry every output update of `body` sums into, when it does not depend on the
/// loop variable `var` or on anything `body` declares.
fn one_output_entry(body: &[Stmt], var: &Var) -> Option<Expr> {
    let mut entries = Vec::new();
    let mut declared = vec![var.clone()];
    collect_output_entries(body, &mut declared, &mut entries)?;
    let first = entries.first()?.clone();
    let invariant = !declared.iter().any(|d| crate::ir::mentions(d, &first));
    (invariant && entries.iter().all(|e| *e == first)).then_some(first)
}

/// Every output update's index; `None` when one overwrites instead of summing.
fn collect_output_entries(
    stmts: &[Stmt],
    declared: &mut Vec<Var>,
    entries: &mut Vec<Expr>,
) -> Option<()> {
    for stmt in stmts {
        if let Some(var) = crate::ir::visit::declared(stmt) {
            declared.push(var.clone());
        }
        if let Stmt::Update {
            place: Place::Elem(Array::Vals { param: 0 }, index),
            op,
            ..
        } = stmt
        {
            if *op == UpdateOp::Set {
                return None;
            }
            entries.push(index.clone());
        }
        for body in stmt.bodies() {
            collect_output_entries(body, declared, entries)?;
        }
    }
    Some(())
}

/// `stmts` with every update of the output turned into a sum into `sum`.
fn sum_into(stmts: Vec<Stmt>, sum: &Var) -> Vec<Stmt> {
    stmts
        .into_iter()
        .map(|stmt| match stmt {
            Stmt::Update {
                place: Place::Elem(Array::Vals { param: 0 }, _),
                value,
                op,
                ..
            } => Stmt::Update {
                place: Place::Var(sum.clone()),
                op,
                value,
                sync: crate::ir::Sync::Owned,
            },
            mut other => {
                for body in other.bodies_mut() {
                    *body = sum_into(std::mem::take(body), sum);
                }
                other
            }
        })
        .collect()
}

/// The scalars `body` sums into without declaring them: the running sums of the loop around.
fn running_sums(body: &[Stmt]) -> Vec<Var> {
    fn walk(stmts: &[Stmt], declared: &mut Vec<Var>, found: &mut Vec<Var>) {
        for stmt in stmts {
            if let Some(var) = crate::ir::visit::declared(stmt) {
                declared.push(var.clone());
            }
            if let Stmt::Update {
                place: Place::Var(var),
                op: UpdateOp::Reduce(_),
                ..
            } = stmt
                && !declared.contains(var)
                && !found.contains(var)
            {
                found.push(var.clone());
            }
            for body in stmt.bodies() {
                walk(body, declared, found);
            }
        }
    }
    let mut found = Vec::new();
    walk(body, &mut Vec::new(), &mut found);
    found
}

/// The operator `body`'s updates of `var` combine with.
fn reduction_of(body: &[Stmt], var: &Var) -> Option<ReduceOp> {
    body.iter().find_map(|s| match s {
        Stmt::Update {
            place: Place::Var(v),
            op: UpdateOp::Reduce(op),
            ..
        } if v == var => Some(*op),
        other => other
            .bodies()
            .into_iter()
            .find_map(|b| reduction_of(b, var)),
    })
}
