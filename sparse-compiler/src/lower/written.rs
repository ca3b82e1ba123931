//! Write flags: which output coordinates stored entries produce.
//!
//! A sparse output stores a coordinate only where some operand's stored entries produce a value
//! there (the lattice decides), never merely because a loop visited it. A scalar temporary summed
//! over an inner loop breaks the link between the two: in `G(i,j) = A(i,k) * A(j,k)` with CSR
//! operands the loop over `j` is dense, and the loop over `k` intersects two rows that may share
//! no column, so the temporary can stay at its initial zero without any lattice point writing it.
//! Such a temporary gets a flag, set where a lattice point's body writes it, and the output's
//! append (or a workspace's scatter, or the write of another temporary) is made conditional on
//! the flags its value depends on, combined by each operator's iteration rule (`algebra`).
//!
//! No flag is made where every write is certain: a producer whose loops visit every coordinate of
//! their variables (`Scope::uncovered` is false) and whose values need no other flag writes the
//! temporary in every run. A value that stored entries produce is kept even when it is zero
//! (`x(i) - x(i)`, products that cancel), as in taco and MLIR's sparse compiler.

use super::Lowerer;
use crate::algebra::Iteration;
use crate::error::Error;
use crate::format::bin;
use crate::ir::visit::{mentions, stmt_exprs};
use crate::ir::{BinOp, Expr, Place, Stmt, Type, Var, any_stmt};
use crate::notation::{Cin, Expr as NExpr};

/// The flag of a scalar temporary while its producer is lowered.
#[derive(Clone, Debug)]
pub(super) struct WriteFlag {
    /// The flag: true once a write that stored entries produced has run.
    var: Var,
    /// Whether some write sets the flag (it is conditional, or under a loop that skips
    /// coordinates).
    set: bool,
    /// Whether some write happens in every run of the producer, so the flag would always end up
    /// true.
    certain: bool,
}

impl Lowerer<'_> {
    /// Whether scalar temporaries carry write flags: only where the output's structure is built
    /// from the coordinates the kernel writes (appended or collected entries).
    fn tracks_writes(&self) -> bool {
        self.pattern_source.is_none() && (self.assembles() || self.collects_entries)
    }

    /// Lowers `consumer where producer` for scalar temporary `temp` into `out`, with a write
    /// flag declared before the producer where some run may leave the temporary unwritten and
    /// the consumer's writes depend on it.
    pub(super) fn scalar_where(
        &mut self,
        temp: usize,
        consumer: &Cin,
        producer: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        if !self.tracks_writes() {
            self.producer(producer, consumer, out)?;
            return self.stmt(consumer, out);
        }
        let flag = WriteFlag {
            var: self.names.fresh("t_written"),
            set: false,
            certain: false,
        };
        self.flags.insert(temp, flag);
        // The producer's writes are certain relative to its own loops: the loops around the
        // `where` run it whether or not they skip coordinates.
        let uncovered = std::mem::replace(&mut self.scope.uncovered, false);
        let mut body = Vec::new();
        let lowered = self.producer(producer, consumer, &mut body);
        self.scope.uncovered = uncovered;
        lowered?;
        let Some(flag) = self.flags.remove(&temp) else {
            return Err(self.internal("a write flag lost while its producer was lowered"));
        };
        let var = flag.var.clone();
        if flag.set && !flag.certain {
            self.flags.insert(temp, flag);
        }
        let mut rest = Vec::new();
        let lowered = self.stmt(consumer, &mut rest);
        let read = self.flags.remove(&temp).is_some() && reads(&rest, &var);
        lowered?;
        if read {
            out.push(Stmt::Let {
                var,
                ty: Type::Bool,
                init: Expr::Bool(false),
                mutable: true,
            });
        } else {
            strip_sets(&mut body, &var);
        }
        out.extend(body);
        out.extend(rest);
        Ok(())
    }

    /// After a write of scalar temporary `temp` with value `rhs` (that leaves it unchanged where
    /// `rhs` is `skip`): sets its flag where the write may not happen in every run of the
    /// producer, or where `rhs` needs another flag.
    pub(super) fn note_scalar_write(
        &mut self,
        temp: usize,
        rhs: &NExpr,
        skip: f64,
        out: &mut Vec<Stmt>,
    ) {
        let produced = self.produced_at(rhs, skip);
        let uncertain = self.scope.uncovered || produced.is_some();
        let Some(flag) = self.flags.get_mut(&temp) else {
            return;
        };
        if !uncertain {
            flag.certain = true;
            return;
        }
        flag.set = true;
        let set = Stmt::assign(flag.var.clone(), Expr::Bool(true), false);
        out.push(guarded(produced, vec![set]).remove(0));
    }

    /// The condition under which stored entries produce `e` where it is computed, for a place
    /// that is left at `skip` where nothing is produced: `None` when they always do, and where
    /// `e` is not `skip` with no entry stored (`exp(t)` into a zero fill).
    pub(super) fn produced_at(&self, e: &NExpr, skip: f64) -> Option<Expr> {
        let temp = |t: usize| self.temp_fill(t);
        match e.fill_with(&temp) {
            Some(f) if crate::algebra::same(f, skip) => self.produced(e),
            _ => None,
        }
    }

    /// The condition under which stored entries make `e` differ from its value where none is
    /// stored: `None` when they always do. Every access left in `e` is present (a lattice case
    /// removes the absent ones), so only temporaries with a flag make it conditional; each
    /// operator combines its operands' conditions as it combines their iteration spaces.
    fn produced(&self, e: &NExpr) -> Option<Expr> {
        let temp = |t: usize| self.temp_fill(t);
        match e {
            NExpr::Temp(t) => self.flags.get(t).map(|f| Expr::Var(f.var.clone())),
            NExpr::Access { .. } | NExpr::Literal(_) => None,
            NExpr::Op(_, args) => match e.iteration_with(&temp) {
                Some(Iteration::Sparse { required }) if required.contains(&true) => {
                    let all = (args.iter().zip(&required)).filter(|(_, r)| **r);
                    all.filter_map(|(a, _)| self.produced(a))
                        .reduce(|a, b| bin(BinOp::And, a, b))
                }
                Some(Iteration::Sparse { .. }) => {
                    let variable = args.iter().filter(|a| a.constant().is_none());
                    let any: Option<Vec<Expr>> = variable.map(|a| self.produced(a)).collect();
                    any?.into_iter().reduce(|a, b| bin(BinOp::Or, a, b))
                }
                Some(Iteration::Dense) | None => None,
            },
        }
    }
}

/// `stmts` run only where `cond` holds (always without one).
pub(super) fn guarded(cond: Option<Expr>, stmts: Vec<Stmt>) -> Vec<Stmt> {
    match cond {
        Some(cond) => vec![Stmt::If {
            cond,
            then: stmts,
            otherwise: Vec::new(),
        }],
        None => stmts,
    }
}

/// Whether some statement of `stmts` reads `var`.
fn reads(stmts: &[Stmt], var: &Var) -> bool {
    any_stmt(stmts, &|s| {
        stmt_exprs(s).into_iter().any(|e| mentions(var, e))
    })
}

/// Removes every assignment of `flag` from `stmts`, and the conditionals left empty: the flag
/// turned out to be always set, or nothing reads it.
fn strip_sets(stmts: &mut Vec<Stmt>, flag: &Var) {
    stmts.retain_mut(|s| {
        if let Stmt::Update {
            place: Place::Var(v),
            ..
        } = s
        {
            return v != flag;
        }
        let was_if = matches!(s, Stmt::If { .. });
        for body in s.bodies_mut() {
            strip_sets(body, flag);
        }
        !was_if || !s.bodies().iter().all(|b| b.is_empty())
    });
}
