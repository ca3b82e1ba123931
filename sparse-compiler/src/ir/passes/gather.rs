//! Gathers: an input's values read at a coordinate just loaded from a level of another input,
//!
//! ```text
//! let j = A.l1.crd[p]; .. x.vals[j] ..
//! ```
//!
//! become `x.vals[A.l1.crd[p]]` as one [`Expr::Gather`], which the CPU back end reads through
//! the runtime's `Gather`: the coordinates of the level are checked against the values once per
//! call (kept in the tensor between calls), not once per read, so the loop has one exit and LLVM
//! unrolls and schedules it as it does a loop over plain slices (SpMV's `x[j]`, a BFS step's
//! `f[j]`, min-plus's `x[j]`).
//!
//! A load is rewritten only where the `let` of its coordinate is in scope and neither the
//! coordinate's local nor the position it was read at has been assigned since: the gather reads
//! `crd[p]` again when the load runs, so `p` must still be the position `j` came from. Only CPU
//! kernels are rewritten, outside `CpuVector` regions and outside the bodies of loops that may
//! stop early (`while`; a `for` loop inside one is rewritten); the values and the coordinates
//! must belong to inputs, which nothing writes while the kernel runs.
//!
//! A coordinate's `let` that no later statement of its block reads once the loads are gathers
//! (SpMV's `let j = A.l1.crd[p]`) is dropped, so the printed kernel does not read `crd[p]` twice.

use crate::ir::visit::{any_stmt, map_operands, mentions, stmt_exprs, stmt_exprs_mut};
use crate::ir::{Array, Expr, Kernel, Param, Place, Region, Stmt, Unit, Var};

/// `kernel` with every load at a coordinate read from an input's level made a gather.
pub(super) fn gathers(mut kernel: Kernel) -> Kernel {
    if super::on_gpu(&kernel) {
        return kernel;
    }
    let mut scope = Vec::new();
    block(&mut kernel.body, &mut scope, &kernel.params, false);
    drop_unread(&mut kernel.body);
    kernel
}

/// `stmts`, at any depth, without the `let`s of coordinates that no later statement of their
/// block reads.
fn drop_unread(stmts: &mut Vec<Stmt>) {
    for stmt in stmts.iter_mut() {
        for body in stmt.bodies_mut() {
            drop_unread(body);
        }
    }
    let mut k = 0;
    while k < stmts.len() {
        let unread = match &stmts[k] {
            Stmt::Let {
                var,
                init: Expr::Load(Array::Crd { .. }, _),
                mutable: false,
                ..
            } => !reads(&stmts[k + 1..], var),
            _ => false,
        };
        if unread {
            stmts.remove(k);
        } else {
            k += 1;
        }
    }
}

/// Whether a statement of `stmts`, at any depth, reads or assigns `var`.
pub(super) fn reads(stmts: &[Stmt], var: &Var) -> bool {
    any_stmt(stmts, &|s| {
        let assigns = matches!(s, Stmt::Update { place: Place::Var(v), .. } if v == var);
        assigns || stmt_exprs(s).into_iter().any(|e| mentions(var, e))
    })
}

/// A coordinate in scope: `var = crd[at]`.
#[derive(Clone)]
struct Coord {
    var: Var,
    crd: Array,
    at: Var,
}

fn input(params: &[Param], param: usize) -> bool {
    params.get(param).is_some_and(|p| !p.output && !p.by_value)
}

/// Rewrites the loads of `stmts` in `scope`; `early_exit` when `stmts` is the body of a loop
/// that may stop early (a `while`), where only nested `for` loops are rewritten: LLVM does not
/// take a gather's checks out of such a loop, and a BFS step's scan got 1.3-1.6 times slower on
/// small matrices with them inside it.
fn block(stmts: &mut [Stmt], scope: &mut Vec<Coord>, params: &[Param], early_exit: bool) {
    for stmt in stmts {
        if matches!(stmt, Stmt::Parallel(r) if r.unit == Unit::CpuVector) {
            // The lanes back end reads its own gathers (`emit/lanes.rs`).
            continue;
        }
        let assigned = assigned_in(stmt);
        let is_while = matches!(stmt, Stmt::While { .. });
        // A `while`'s condition runs again after its body, where what the body assigns is stale:
        // it is not rewritten (and its body is walked as an early exit's).
        if !early_exit && !is_while {
            for e in stmt_exprs_mut(stmt) {
                *e = rewrite(e, scope, params);
            }
        }
        scope.retain(|c| !assigned.contains(&c.var) && !assigned.contains(&c.at));
        let declared = match &*stmt {
            Stmt::For { var, .. } | Stmt::Tile { var, .. } => Some(var.clone()),
            Stmt::Parallel(Region { var, .. }) => Some(var.clone()),
            _ => None,
        };
        let inner_exit = is_while || (early_exit && declared.is_none());
        for body in stmt.bodies_mut() {
            let mut inner = scope.clone();
            if let Some(var) = &declared {
                inner.retain(|c| c.var != *var && c.at != *var);
            }
            block(body, &mut inner, params, inner_exit);
        }
        if let Stmt::Let { var, init, .. } = &*stmt {
            scope.retain(|c| c.var != *var && c.at != *var);
            if let Expr::Load(crd @ Array::Crd { param, .. }, at) = init
                && let Expr::Var(at) = at.as_ref()
                && input(params, *param)
            {
                scope.push(Coord {
                    var: var.clone(),
                    crd: crd.clone(),
                    at: at.clone(),
                });
            }
        }
    }
}

/// `expr` with each load of an input's values at a coordinate in scope made a gather.
fn rewrite(expr: &Expr, scope: &[Coord], params: &[Param]) -> Expr {
    if let Expr::Load(vals @ Array::Vals { param }, index) = expr
        && let Expr::Var(j) = index.as_ref()
        && input(params, *param)
        && let Some(c) = scope.iter().rev().find(|c| c.var == *j)
    {
        return Expr::Gather {
            vals: vals.clone(),
            crd: c.crd.clone(),
            at: Box::new(Expr::Var(c.at.clone())),
        };
    }
    map_operands(expr, &mut |e| rewrite(e, scope, params))
}

/// The locals `stmt` assigns, at any depth.
fn assigned_in(stmt: &Stmt) -> Vec<Var> {
    let mut out = Vec::new();
    collect_assigned(stmt, &mut out);
    out
}

fn collect_assigned(stmt: &Stmt, out: &mut Vec<Var>) {
    if let Stmt::Update {
        place: Place::Var(v),
        ..
    } = stmt
    {
        out.push(v.clone());
    }
    for body in stmt.bodies() {
        body.iter().for_each(|s| collect_assigned(s, out));
    }
}

#[cfg(test)]
mod tests {
    use super::super::printed;
    use quote::quote;

    #[test]
    fn spmv_gathers_x_at_the_row_coordinates() {
        let ir = printed(quote! {
            fn spmv; y(i) = A(i,j) * x(j) * x(j); formats< A: csr >;
        });
        let x = "x.vals[A.l1.crd[__pA1]]";
        assert!(
            ir.contains(&format!("__t += A.vals[__pA1] * {x} * {x};")),
            "{ir}"
        );
        // The coordinate's own `let` is read by nothing left.
        assert!(!ir.contains("let __j"), "{ir}");
    }

    #[test]
    fn a_bfs_step_keeps_plain_reads_inside_its_early_exit_loop() {
        let ir = printed(quote! {
            fn bfs; nx(i) = ((A(i,j) as bool) && (f(j) as bool) && !(v(i) as bool)) as f64;
            formats< A: csr >; reduce< j: || >;
        });
        assert!(ir.contains("f.vals[__j]"), "{ir}");
        assert!(!ir.contains("f.vals[A.l1.crd"), "{ir}");
    }

    #[test]
    fn the_output_and_dense_loops_are_not_gathered() {
        let ir = printed(quote! {
            fn scatter; y(j) += A(i,j) * x(i); formats< A: csr >;
        });
        assert!(!ir.contains("y.vals[A.l1.crd"), "{ir}");
        let dense = printed(quote! {
            fn gemv; y(i) = B(i,j) * x(j);
        });
        assert!(!dense.contains(".crd["), "{dense}");
    }
}
