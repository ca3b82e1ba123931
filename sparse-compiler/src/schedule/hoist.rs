//! Factors that a sum does not need inside it move out of it (Kjolstad 2020 §6.2, a `where`
//! temporary "to hoist loop invariant code"; taco's scalar reductions do the same): in
//! `A(i,j) = B(i,j) * t where ∀k t += C(i,k) * D(j,k)`, SDDMM multiplies by `B(i,j)` once per
//! entry instead of once per `k`.
//!
//! The rewrite applies to every scalar temporary that sums a product, once the loop order is
//! final (after `finalize` has made the sums over the innermost loops scalar temporaries): the
//! factors that use none of the producer's loops (nor a variable they derive from) and read no
//! temporary form a product that the consumer applies to the temporary, `Σ_k f·g = f·Σ_k g`.
//! It needs the factor's operator to distribute over the reduction's ([`Op::distributes_over`]:
//! `*` over `+` only). The hoisted form is what taco computes, and it differs from the per-term
//! form only as floating point does: in rounding and overflow (`f·(a+b)` against `f·a + f·b`),
//! and where the sum has no term, when a NaN or infinite `f` times the empty sum's zero gives
//! NaN. A factor that is zero still skips the sum's loops (lowering finds it in the consumer).

use crate::algebra::Op;
use crate::notation::{Cin, Expr, IndexVar, Lhs};

/// `cin` with the invariant factors of every scalar sum's product moved into its consumer;
/// `roots(v)` lists the variables loop `v` iterates (itself, or those it was derived from).
pub fn hoist_invariant_factors(cin: Cin, roots: &dyn Fn(IndexVar) -> Vec<IndexVar>) -> Cin {
    match cin {
        Cin::Forall { var, body } => Cin::Forall {
            var,
            body: Box::new(hoist_invariant_factors(*body, roots)),
        },
        Cin::Sequence { first, second } => Cin::Sequence {
            first: Box::new(hoist_invariant_factors(*first, roots)),
            second: Box::new(hoist_invariant_factors(*second, roots)),
        },
        Cin::Where { consumer, producer } => {
            let consumer = hoist_invariant_factors(*consumer, roots);
            let producer = hoist_invariant_factors(*producer, roots);
            match split_sum(&producer, roots) {
                // The consumer sees the sum as its producer leaves it: no other write changes it.
                Some((t, invariant, producer)) if !writes_temp(&consumer, t) => {
                    let scaled = Expr::Op(Op::Mul, vec![invariant, Expr::Temp(t)]);
                    Cin::where_of(scale_reads(consumer, t, &scaled), producer)
                }
                _ => Cin::where_of(consumer, producer),
            }
        }
        Cin::Assign { .. } => cin,
    }
}

/// For a producer `∀.. t op= f·g` whose product has factors `f` that none of its loops change:
/// the temporary, the product of those factors, and the producer summing the rest.
fn split_sum(
    producer: &Cin,
    roots: &dyn Fn(IndexVar) -> Vec<IndexVar>,
) -> Option<(usize, Expr, Cin)> {
    let loops: Vec<IndexVar> = (producer.loops().into_iter())
        .flat_map(|v| std::iter::once(v).chain(roots(v)))
        .collect();
    let (vars, assign) = perfect_nest(producer)?;
    let Cin::Assign {
        lhs: Lhs::Scalar(t),
        accumulate: true,
        op,
        rhs,
    } = assign
    else {
        return None;
    };
    let factor_op = Op::Mul;
    if vars.is_empty() || !factor_op.distributes_over(*op) || rhs.reads_temp(*t) {
        return None;
    }
    let mut factors = Vec::new();
    flatten(rhs, factor_op, &mut factors);
    let (invariant, varying): (Vec<Expr>, Vec<Expr>) = factors
        .into_iter()
        .partition(|f| f.next_temp_free() && loops.iter().all(|&v| !f.uses(v)));
    let invariant = product(invariant, factor_op)?;
    let varying = product(varying, factor_op)?;
    let assign = Cin::Assign {
        lhs: Lhs::Scalar(*t),
        accumulate: true,
        op: *op,
        rhs: varying,
    };
    Some((*t, invariant, Cin::forall_over(&vars, assign)))
}

/// The loops of a producer that is a perfect nest around one assignment, and the assignment.
fn perfect_nest(cin: &Cin) -> Option<(Vec<IndexVar>, &Cin)> {
    let mut vars = Vec::new();
    let mut node = cin;
    while let Cin::Forall { var, body } = node {
        vars.push(*var);
        node = body;
    }
    matches!(node, Cin::Assign { .. }).then_some((vars, node))
}

/// The operands of the tree of `op` at the top of `e`, left to right.
fn flatten(e: &Expr, op: Op, out: &mut Vec<Expr>) {
    match e {
        Expr::Op(o, args) if *o == op => args.iter().for_each(|a| flatten(a, op, out)),
        _ => out.push(e.clone()),
    }
}

/// The factors combined by `op` from the left; `None` for no factor.
fn product(factors: Vec<Expr>, op: Op) -> Option<Expr> {
    factors.into_iter().reduce(|a, b| Expr::Op(op, vec![a, b]))
}

/// Whether `cin` assigns temporary `t`.
fn writes_temp(cin: &Cin, t: usize) -> bool {
    match cin {
        Cin::Forall { body, .. } => writes_temp(body, t),
        Cin::Where { .. } | Cin::Sequence { .. } => cin
            .parts()
            .is_some_and(|(a, b)| writes_temp(a, t) || writes_temp(b, t)),
        Cin::Assign { lhs, .. } => match lhs {
            Lhs::Scalar(u) | Lhs::Workspace { temp: u, .. } | Lhs::Precomputed { temp: u, .. } => {
                *u == t
            }
            Lhs::Output => false,
        },
    }
}

/// `cin` with every read of temporary `t` replaced by `with`.
fn scale_reads(cin: Cin, t: usize, with: &Expr) -> Cin {
    match cin {
        Cin::Forall { var, body } => Cin::Forall {
            var,
            body: Box::new(scale_reads(*body, t, with)),
        },
        Cin::Where { consumer, producer } => Cin::where_of(
            scale_reads(*consumer, t, with),
            scale_reads(*producer, t, with),
        ),
        Cin::Sequence { first, second } => Cin::Sequence {
            first: Box::new(scale_reads(*first, t, with)),
            second: Box::new(scale_reads(*second, t, with)),
        },
        Cin::Assign {
            lhs,
            accumulate,
            op,
            rhs,
        } => Cin::Assign {
            lhs,
            accumulate,
            op,
            rhs: substitute(rhs, t, with),
        },
    }
}

fn substitute(e: Expr, t: usize, with: &Expr) -> Expr {
    match e {
        Expr::Temp(u) if u == t => with.clone(),
        Expr::Op(op, args) => Expr::Op(
            op,
            args.into_iter().map(|a| substitute(a, t, with)).collect(),
        ),
        other => other,
    }
}
