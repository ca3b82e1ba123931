//! The compute-only twin of a kernel that assembles its output (Kjolstad 2020: taco's
//! separate assemble and compute kernels): the same loops, with the assembly replaced by writes
//! into the output's existing structure. Values land at a cursor that advances in storage order,
//! and each appended coordinate is checked against the stored one, so an output assembled for
//! other inputs is reported (`KernelError::StructureMismatch`) instead of silently overwritten.

use super::Locals;
use crate::ir::visit::{map_operands, stmt_exprs_mut};
use crate::ir::{Array, BinOp, Expr, HostStep, Kernel, Stmt, Type, Unit, Var, any_stmt, bin};

/// The compute-only kernel `<name>_compute`, if `kernel` assembles its output by append in one
/// serial pass (a row-parallel assembly has no single cursor to follow, and lanes never append).
pub fn compute_only(kernel: &Kernel) -> Option<Kernel> {
    if !kernel.body.contains(&Stmt::Host(HostStep::BeginAssembly))
        || any_stmt(
            &kernel.body,
            &|s| matches!(s, Stmt::Parallel(r) if r.unit != Unit::CpuVector),
        )
    {
        return None;
    }
    let appends = |k| {
        any_stmt(
            &kernel.body,
            &|s| matches!(s, Stmt::Append { level, .. } if *level == k),
        )
    };
    let last = (0..8).rev().find(|&k| appends(k))?;
    let rewrite = Rewrite {
        last,
        cursor: Locals::of(kernel).fresh("__compute_cursor"),
    };
    Some(Kernel {
        name: format!("{}_compute", kernel.name),
        body: rewrite.stmts(&kernel.body),
        ..kernel.clone()
    })
}

struct Rewrite {
    /// The output's last level, whose coordinates sit beside the values.
    last: usize,
    cursor: Var,
}

impl Rewrite {
    fn stmts(&self, stmts: &[Stmt]) -> Vec<Stmt> {
        stmts.iter().flat_map(|s| self.stmt(s)).collect()
    }

    fn stmt(&self, stmt: &Stmt) -> Vec<Stmt> {
        let cursor = Expr::Var(self.cursor.clone());
        let values = Array::Vals { param: 0 };
        let crd = Array::Crd {
            param: 0,
            level: self.last,
        };
        match stmt {
            Stmt::Host(HostStep::BeginAssembly) => {
                vec![Stmt::Let {
                    var: self.cursor.clone(),
                    ty: Type::Index,
                    init: Expr::Index(0),
                    mutable: true,
                }]
            }
            Stmt::Append { level, coord } if *level == self.last => {
                let past_end = bin(BinOp::Le, Expr::Len(crd.clone()), cursor.clone());
                let other = bin(
                    BinOp::Ne,
                    Expr::Load(crd, Box::new(cursor)),
                    self.expr(coord),
                );
                let mismatch = bin(BinOp::Or, past_end, other);
                vec![Stmt::If {
                    cond: mismatch,
                    then: vec![Stmt::FailStructureMismatch],
                    otherwise: Vec::new(),
                }]
            }
            Stmt::FinishSegment { level, parent } if *level == self.last => {
                // The stored segment must end where this one did.
                let pos = Array::Pos {
                    param: 0,
                    level: self.last,
                };
                let end = bin(BinOp::Add, self.expr(parent), Expr::Index(1));
                let past_end = bin(BinOp::Le, Expr::Len(pos.clone()), end.clone());
                let other = bin(BinOp::Ne, Expr::Load(pos, Box::new(end)), cursor);
                let mismatch = bin(BinOp::Or, past_end, other);
                vec![Stmt::If {
                    cond: mismatch,
                    then: vec![Stmt::FailStructureMismatch],
                    otherwise: Vec::new(),
                }]
            }
            Stmt::Append { .. } | Stmt::FinishSegment { .. } => Vec::new(),
            Stmt::AppendValue(value) => vec![
                Stmt::store(values, cursor, self.expr(value), false),
                Stmt::assign(self.cursor.clone(), Expr::Index(1), true),
            ],
            Stmt::Host(HostStep::EndAssembly) => {
                let short = bin(BinOp::Ne, cursor, Expr::Len(values));
                vec![Stmt::If {
                    cond: short,
                    then: vec![Stmt::FailStructureMismatch],
                    otherwise: Vec::new(),
                }]
            }
            other => {
                let mut stmt = other.clone();
                for expr in stmt_exprs_mut(&mut stmt) {
                    *expr = self.expr(expr);
                }
                for body in stmt.bodies_mut() {
                    *body = self.stmts(body);
                }
                vec![stmt]
            }
        }
    }

    /// Appended lengths become the cursor (the last level) or 0 (upper levels, whose appends are
    /// dropped, so only conditions that guard dropped statements read them).
    fn expr(&self, e: &Expr) -> Expr {
        match e {
            Expr::AppendedLen { level } if *level == self.last => Expr::Var(self.cursor.clone()),
            Expr::AppendedLen { .. } => Expr::Index(0),
            other => map_operands(other, &mut |e| self.expr(e)),
        }
    }
}
