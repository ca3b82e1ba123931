//! Unroll-and-jam, how `unroll` lowers a loop whose body walks one inner loop and keeps what that
//! loop computes to itself (a CSR row: a running sum over the row's nonzeros, stored once after
//! it). The lanes' inner loops run together as one [`Stmt::Jammed`], so each turn of it holds one
//! addition of every lane's sum, which do not wait on each other. One row alone is a chain of
//! dependent additions, and on short rows that chain, not memory, sets the pace. Every lane still
//! adds its terms in its own order, so results are the same bit for bit as without the schedule.
//!
//! Anything else (stores or branches inside the inner loop, sums shared between lanes, a lane
//! that reads what another writes) is unrolled without jamming.

use super::names::Namer;
use crate::ir::{Array, Expr, JammedLoop, Stmt, Type, Var};

/// One group of an unrolled loop with its lanes jammed: each lane's statements before its inner
/// loop, then the inner loops together, then each lane's statements after it. `lanes` are the
/// lanes' bodies (each declaring its lane variable first) with the same variable names; `None`
/// when the lanes cannot be walked together.
pub(super) fn jam(lanes: &[Vec<Stmt>], names: &mut Namer) -> Option<Vec<Stmt>> {
    let first = lanes.first()?;
    if lanes.len() < 2 || !jammable(first) {
        return None;
    }
    let mut before = Vec::new();
    let mut loops = Vec::new();
    let mut after = Vec::new();
    for (k, lane) in lanes.iter().enumerate() {
        let lane = match k {
            0 => lane.clone(),
            _ => rename_declared(lane, names),
        };
        let at = lane.iter().position(|s| matches!(s, Stmt::For { .. }))?;
        let Stmt::For { var, lo, hi, body } = &lane[at] else {
            return None;
        };
        // Lanes are consecutive turns of the loop, and a prefetch hint already covers the reads of
        // the turns after its own, so the first lane's hints cover the others.
        let hints_covered = |s: &&Stmt| k == 0 || !matches!(s, Stmt::Prefetch { .. });
        before.extend(lane[..at].iter().filter(hints_covered).cloned());
        let lo = bound_var(lo, &format!("{}_lo", hint(var)), names, &mut before);
        let hi = bound_var(hi, &format!("{}_end", hint(var)), names, &mut before);
        loops.push(JammedLoop {
            var: var.clone(),
            lo,
            hi,
            body: body.clone(),
        });
        after.extend_from_slice(&lane[at + 1..]);
    }
    before.push(Stmt::Jammed { loops });
    before.extend(after);
    Some(before)
}

/// Whether a lane body has the shape a jam needs: statements without loops or stores, one inner
/// loop of `let`s, assignments and hints, then statements that may store; every assignment is
/// to a variable the body declares, and nothing before the stores reads an array they write.
fn jammable(body: &[Stmt]) -> bool {
    let loops = body
        .iter()
        .filter(|s| matches!(s, Stmt::For { .. }))
        .count();
    let Some(at) = body.iter().position(|s| matches!(s, Stmt::For { .. })) else {
        return false;
    };
    let Stmt::For {
        body: inner,
        lo,
        hi,
        ..
    } = &body[at]
    else {
        return false;
    };
    let (head, tail) = (&body[..at], &body[at + 1..]);
    let shapes = loops == 1
        && head.iter().all(|s| is_let(s) || is_hint(s))
        && inner
            .iter()
            .all(|s| is_let(s) || is_hint(s) || is_assign(s))
        && tail
            .iter()
            .all(|s| is_let(s) || is_assign(s) || is_store(s));
    if !shapes {
        return false;
    }
    let declared = declared_vars(body);
    let assigned_outside = (inner.iter().chain(tail))
        .any(|s| matches!(s, Stmt::Assign { var, .. } if !declared.contains(var)));
    let stored: Vec<&Array> = (tail.iter())
        .filter_map(|s| match s {
            Stmt::Store { array, .. } => Some(array),
            _ => None,
        })
        .collect();
    let reads = |e: &Expr| e.any(&|e| matches!(e, Expr::Load(a, _) if stored.contains(&a)));
    let reads_stored = reads(lo)
        || reads(hi)
        || (head.iter().chain(inner)).any(|s| exprs(s).into_iter().any(reads));
    !assigned_outside && !reads_stored
}

fn is_let(s: &Stmt) -> bool {
    matches!(s, Stmt::Let { .. })
}

fn is_assign(s: &Stmt) -> bool {
    matches!(s, Stmt::Assign { .. })
}

fn is_store(s: &Stmt) -> bool {
    matches!(s, Stmt::Store { .. })
}

fn is_hint(s: &Stmt) -> bool {
    matches!(s, Stmt::Prefetch { .. } | Stmt::PrefetchGather { .. })
}

/// The variables `body` declares (`let`s and the inner loop's variable), at any depth.
fn declared_vars(body: &[Stmt]) -> Vec<Var> {
    let mut out = Vec::new();
    for s in body {
        match s {
            Stmt::Let { var, .. } => out.push(var.clone()),
            Stmt::For { var, body, .. } => {
                out.push(var.clone());
                out.extend(declared_vars(body));
            }
            _ => {}
        }
    }
    out
}

/// The expressions of one statement of a jammable body (not those of nested statements).
fn exprs(s: &Stmt) -> Vec<&Expr> {
    match s {
        Stmt::Let { init, .. } => vec![init],
        Stmt::Assign { value, .. } => vec![value],
        Stmt::Store { index, value, .. } => vec![index, value],
        Stmt::Prefetch { from, .. } => vec![from],
        Stmt::PrefetchGather {
            at, offset, stride, ..
        } => vec![at, offset, stride],
        _ => Vec::new(),
    }
}

/// `body` with every variable it declares given a fresh name, so that lanes can share a scope.
fn rename_declared(body: &[Stmt], names: &mut Namer) -> Vec<Stmt> {
    let renames: Vec<(Var, Var)> = (declared_vars(body).into_iter())
        .map(|old| {
            let new = names.fresh(hint(&old));
            (old, new)
        })
        .collect();
    body.iter().map(|s| rename_stmt(s, &renames)).collect()
}

fn rename_stmt(s: &Stmt, renames: &[(Var, Var)]) -> Stmt {
    let var = |v: &Var| {
        (renames.iter())
            .find(|(old, _)| old == v)
            .map_or_else(|| v.clone(), |(_, new)| new.clone())
    };
    let expr = |e: &Expr| {
        (renames.iter()).fold(e.clone(), |e, (old, new)| {
            e.substitute(old, &Expr::Var(new.clone()))
        })
    };
    match s {
        Stmt::Let {
            var: v,
            ty,
            init,
            mutable,
        } => Stmt::Let {
            var: var(v),
            ty: *ty,
            init: expr(init),
            mutable: *mutable,
        },
        Stmt::Assign {
            var: v,
            value,
            accumulate,
        } => Stmt::Assign {
            var: var(v),
            value: expr(value),
            accumulate: *accumulate,
        },
        Stmt::Store {
            array,
            index,
            value,
            accumulate,
        } => Stmt::Store {
            array: array.clone(),
            index: expr(index),
            value: expr(value),
            accumulate: *accumulate,
        },
        Stmt::Prefetch { array, from } => Stmt::Prefetch {
            array: array.clone(),
            from: expr(from),
        },
        Stmt::PrefetchGather {
            array,
            crd,
            at,
            offset,
            stride,
        } => Stmt::PrefetchGather {
            array: array.clone(),
            crd: crd.clone(),
            at: expr(at),
            offset: expr(offset),
            stride: expr(stride),
        },
        Stmt::For {
            var: v,
            lo,
            hi,
            body,
        } => Stmt::For {
            var: var(v),
            lo: expr(lo),
            hi: expr(hi),
            body: body.iter().map(|s| rename_stmt(s, renames)).collect(),
        },
        // `jammable` admits no other statement.
        other => other.clone(),
    }
}

/// `bound` in a new variable declared in `out`: one of its own, as a backend may shadow it.
fn bound_var(bound: &Expr, name: &str, names: &mut Namer, out: &mut Vec<Stmt>) -> Var {
    let var = names.fresh(name);
    out.push(Stmt::Let {
        var: var.clone(),
        ty: Type::Index,
        init: bound.clone(),
        mutable: false,
    });
    var
}

/// A generated name without its `__`, to ask the namer for a relative of it.
fn hint(var: &Var) -> &str {
    var.0.trim_start_matches("__")
}
