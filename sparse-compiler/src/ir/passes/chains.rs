//! Two chains for a long `min` or `max` reduction: each step of
//!
//! ```text
//! for p in lo..hi { lets; t min= e }
//! ```
//!
//! waits for the step before it (`vminsd` takes four cycles), so a long segment (a dense row of an
//! LP matrix, 1,477 nonzeros) runs at the latency of one instruction, not at the rate the loads
//! allow. A sum cannot be split without changing its rounding, but the minimum of a segment does
//! not depend on how it is grouped, so a segment of at least `MIN_LEN` positions is cut in two
//! halves walked side by side, each into its own accumulator:
//!
//! ```text
//! let len = end - lo;
//! if len >= MIN_LEN {
//!     let half = len / 2; let mut t2 = identity;
//!     for q in 0..half { let p = lo + q; lets; t min= e; let p2 = lo + half + q; lets2; t2 min= e2 }
//!     for p in lo + 2 * half..end { lets; t2 min= e }
//!     t min= t2;
//! } else {
//!     for p in lo..end { lets; t min= e }
//! }
//! ```
//!
//! The result is the loop's bit for bit. Which value wins a tie matters only for zeros of
//! different signs (NaN never wins: `y < x` is false for it), and the update keeps the earlier
//! value on a tie: the first half's accumulator holds the earlier of its ties, the second half's
//! the earlier of its own, and `t min= t2` keeps `t` on a tie, which is the earlier position.
//! The end is clamped to the arrays the body reads at `p`, as a back end clamps a loop's bound,
//! so a corrupted `pos` array shortens the segment instead of making a half read past the end.
//! Only CPU kernels are rewritten, outside `CpuVector` regions; loops of constant length (the
//! short pass's steps) are left alone.

use super::Locals;
use super::segment::{self, Loop};
use crate::ir::{BinOp, Expr, Kernel, Place, ReduceOp, Stmt, Sync, Type, UpdateOp, Var, bin};

/// The shortest segment cut in two: below it the second loop's set-up costs more than the
/// shorter chain saves.
const MIN_LEN: usize = 32;

/// `kernel` with every long `min` or `max` reduction walked as two chains.
pub(super) fn two_chains(kernel: Kernel) -> Kernel {
    segment::rewrite_for_loops(kernel, &mut |l, names| {
        let constant = matches!((&l.lo, &l.hi), (Expr::Index(_), Expr::Index(_)));
        match segment::reduction_ending(&l.body) {
            Some((t, op @ (ReduceOp::Min | ReduceOp::Max))) if !constant => {
                let t = t.clone();
                Ok(split(l, t, op, names))
            }
            _ => Err(Box::new(l)),
        }
    })
}

/// The loop as two chains when its segment is long, as it was otherwise; `t` and `op` are its
/// reduction.
fn split(l: Loop, t: Var, op: ReduceOp, names: &mut Locals) -> Vec<Stmt> {
    let Loop {
        var: p,
        lo,
        hi,
        body,
    } = l;
    let mut out = Vec::new();
    let mut bind = |hint: &str, e: Expr, mutable: bool, ty: Type, out: &mut Vec<Stmt>| {
        let var = names.fresh(hint);
        out.push(Stmt::Let {
            var: var.clone(),
            ty,
            init: e,
            mutable,
        });
        var
    };
    let lo = match lo {
        Expr::Var(_) | Expr::Index(_) => lo,
        e => Expr::Var(bind("__chain_lo", e, false, Type::Index, &mut out)),
    };
    let hi = segment::clamped(&p, hi, &body);
    let end = Expr::Var(bind("__chain_end", hi, false, Type::Index, &mut out));
    let len = bin(BinOp::Sub, end.clone(), lo.clone());
    let long = bin(
        BinOp::Le,
        bin(BinOp::Add, lo.clone(), Expr::Index(MIN_LEN)),
        end.clone(),
    );

    let mut then = Vec::new();
    let half = Expr::Var(bind(
        "__half",
        bin(BinOp::Div, len, Expr::Index(2)),
        false,
        Type::Index,
        &mut then,
    ));
    let t2 = bind(
        "__t2",
        Expr::Value(op.identity()),
        true,
        Type::Value,
        &mut then,
    );
    let q = names.fresh("__q");
    let first_at = bin(BinOp::Add, lo.clone(), Expr::Var(q.clone()));
    let second_at = bin(
        BinOp::Add,
        bin(BinOp::Add, lo.clone(), half.clone()),
        Expr::Var(q.clone()),
    );
    let mut side_by_side = copy(&body, &p, &p, first_at, &t, names);
    let p2 = names.fresh(&format!("{}_2", p.0));
    side_by_side.extend(copy(&body, &p, &p2, second_at, &t2, names));
    then.push(Stmt::For {
        var: q,
        lo: Expr::Index(0),
        hi: half.clone(),
        body: side_by_side,
    });
    let rest_lo = bin(
        BinOp::Add,
        lo.clone(),
        bin(BinOp::Mul, half, Expr::Index(2)),
    );
    then.push(Stmt::For {
        var: p.clone(),
        lo: rest_lo,
        hi: end.clone(),
        body: retarget(body.clone(), &t2),
    });
    then.push(Stmt::Update {
        place: Place::Var(t),
        op: UpdateOp::Reduce(op),
        value: Expr::Var(t2),
        sync: Sync::Owned,
    });
    out.push(Stmt::If {
        cond: long,
        then,
        otherwise: vec![Stmt::For {
            var: p,
            lo,
            hi: end,
            body,
        }],
    });
    out
}

/// `body` at position `at`, declared as `let p_new = at`, with its `let`s renamed where `p_new`
/// is not `p` (a second copy in the same loop body), reducing into `into`.
fn copy(
    body: &[Stmt],
    p: &Var,
    p_new: &Var,
    at: Expr,
    into: &Var,
    names: &mut Locals,
) -> Vec<Stmt> {
    let mut renames: Vec<(Var, Var)> = vec![(p.clone(), p_new.clone())];
    let mut out = vec![Stmt::Let {
        var: p_new.clone(),
        ty: Type::Index,
        init: at,
        mutable: false,
    }];
    let suffix = (p_new != p).then_some("_2");
    for stmt in body {
        match stmt {
            Stmt::Let {
                var,
                ty,
                init,
                mutable,
            } => out.push(segment::copy_let(
                (var, *ty, init, *mutable),
                suffix,
                &mut renames,
                names,
            )),
            Stmt::Update {
                op, value, sync, ..
            } => out.push(Stmt::Update {
                place: Place::Var(into.clone()),
                op: *op,
                value: segment::renamed(value, &renames),
                sync: *sync,
            }),
            other => out.push(other.clone()),
        }
    }
    out
}

/// `body` reducing into `into` instead of its own accumulator.
fn retarget(mut body: Vec<Stmt>, into: &Var) -> Vec<Stmt> {
    if let Some(Stmt::Update { place, .. }) = body.last_mut() {
        *place = Place::Var(into.clone());
    }
    body
}

#[cfg(test)]
mod tests {
    use super::super::printed;
    use quote::quote;

    #[test]
    fn a_min_plus_row_runs_as_two_chains_when_long() {
        let ir = printed(quote! {
            fn minplus; y(i) = A(i,j) + x(j); formats< A: csr >;
            fills< A: inf, x: inf, y: inf >; reduce< j: min >;
        });
        assert!(ir.contains("if __pA1_start + 32 <= __chain_end {"), "{ir}");
        assert!(ir.contains("let mut __t2: value = T(inf);"), "{ir}");
        assert!(ir.contains("for __q in 0..__half {"), "{ir}");
        assert!(ir.contains("__t min= __t2;"), "{ir}");
        assert!(
            ir.contains("for __pA1 in __pA1_start..__chain_end {"),
            "{ir}"
        );
    }

    #[test]
    fn sums_keep_one_chain() {
        let ir = printed(quote! {
            fn spmv; y(i) = A(i,j) * x(j); formats< A: csr >;
        });
        assert!(!ir.contains("__chain_end"), "{ir}");
    }
}
