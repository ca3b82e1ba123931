//! What the passes that rewrite a reduction over a segment (`short`, `chains`, `exits`) share:
//! the walk over a CPU kernel's `for` loops, the shape of the loop they rewrite, its bound
//! clamped as a back end clamps it, and a loop body's `let`s copied for another position.

use super::Locals;
use crate::ir::visit::{operands, stmt_exprs, substitute};
use crate::ir::{
    Array, BinOp, Expr, Kernel, Place, ReduceOp, Stmt, Sync, Type, Unit, UpdateOp, Var, bin,
};

/// A `for` loop taken apart: its variable, bounds and body.
pub(super) struct Loop {
    pub(super) var: Var,
    pub(super) lo: Expr,
    pub(super) hi: Expr,
    pub(super) body: Vec<Stmt>,
}

/// A rewrite of one `for` loop: its replacement, or the loop given back to be walked into.
pub(super) type LoopRewrite<'r> =
    &'r mut dyn FnMut(Loop, &mut Locals) -> Result<Vec<Stmt>, Box<Loop>>;

/// `kernel` with each `for` loop, at any depth outside `CpuVector` regions, that `rewrite`
/// replaces (`Ok`) replaced, and the others (`Err`, given back) walked into. A GPU kernel is left
/// alone.
pub(super) fn rewrite_for_loops(mut kernel: Kernel, rewrite: LoopRewrite<'_>) -> Kernel {
    if super::on_gpu(&kernel) {
        return kernel;
    }
    let mut names = Locals::of(&kernel);
    kernel.body = walk(std::mem::take(&mut kernel.body), &mut names, rewrite);
    kernel
}

fn walk(stmts: Vec<Stmt>, names: &mut Locals, rewrite: LoopRewrite<'_>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    for stmt in stmts {
        let mut stmt = match stmt {
            Stmt::Parallel(r) if r.unit == Unit::CpuVector => {
                out.push(Stmt::Parallel(r));
                continue;
            }
            Stmt::For { var, lo, hi, body } => match rewrite(Loop { var, lo, hi, body }, names) {
                Ok(replacement) => {
                    out.extend(replacement);
                    continue;
                }
                Err(l) => Stmt::For {
                    var: l.var,
                    lo: l.lo,
                    hi: l.hi,
                    body: l.body,
                },
            },
            other => other,
        };
        for body in stmt.bodies_mut() {
            *body = walk(std::mem::take(body), names, rewrite);
        }
        out.push(stmt);
    }
    out
}

/// The accumulator and operator of the reduction that ends `body`, when the body is pure `let`s
/// and then that one reduction into a local.
pub(super) fn reduction_ending(body: &[Stmt]) -> Option<(&Var, ReduceOp)> {
    let (last, lets) = body.split_last()?;
    if !(lets.iter()).all(|s| matches!(s, Stmt::Let { mutable: false, .. })) {
        return None;
    }
    match last {
        Stmt::Update {
            place: Place::Var(t),
            op: UpdateOp::Reduce(op),
            sync: Sync::Owned,
            ..
        } => Some((t, *op)),
        _ => None,
    }
}

/// `hi` clamped to the length of every input array the body reads at `p`, as a back end clamps
/// a loop's bound: the steps read at `min(lo + q, end - 1)`, which the clamp keeps in bounds, so
/// a corrupted `pos` array shortens the segment there as it does the loop, instead of panicking.
pub(super) fn clamped(p: &Var, hi: Expr, body: &[Stmt]) -> Expr {
    let mut arrays: Vec<Array> = Vec::new();
    for e in body.iter().flat_map(stmt_exprs) {
        loads_at(p, e, &mut arrays);
    }
    arrays
        .into_iter()
        .fold(hi, |bound, array| bin(BinOp::Min, bound, Expr::Len(array)))
}

/// The input arrays `expr` loads from at exactly `p`, added to `found` once each.
fn loads_at(p: &Var, expr: &Expr, found: &mut Vec<Array>) {
    if let Expr::Load(array, index) = expr
        && matches!(index.as_ref(), Expr::Var(v) if v == p)
        && !matches!(array, Array::Vals { param: 0 } | Array::Temp(_))
        && !found.contains(array)
    {
        found.push(array.clone());
    }
    for operand in operands(expr) {
        loads_at(p, operand, found);
    }
}

/// `e` with each `(from, to)` of `renames` substituted, in order.
pub(super) fn renamed(e: &Expr, renames: &[(Var, Var)]) -> Expr {
    renames.iter().fold(e.clone(), |e, (from, to)| {
        substitute(&e, from, &Expr::Var(to.clone()))
    })
}

/// A loop body's `let` copied for another position: its value with `renames` applied (the
/// loop's variable to the copy's, then the earlier copied `let`s), and, with a `suffix`, its
/// variable renamed fresh from `{var}{suffix}` (the rename recorded for the `let`s after it).
pub(super) fn copy_let(
    (var, ty, init, mutable): (&Var, Type, &Expr, bool),
    suffix: Option<&str>,
    renames: &mut Vec<(Var, Var)>,
    names: &mut Locals,
) -> Stmt {
    let init = renamed(init, renames);
    let var = match suffix {
        None => var.clone(),
        Some(suffix) => {
            let fresh = names.fresh(&format!("{}{suffix}", var.0));
            renames.push((var.clone(), fresh.clone()));
            fresh
        }
    };
    Stmt::Let {
        var,
        ty,
        init,
        mutable,
    }
}
