//! Short segments: a loop that reduces over a few positions (a fiber of a 3-tensor, a short row
//! of a matrix) costs mostly the mispredicted exit of the loop, not its arithmetic. The
//! processor guesses how many times the loop runs; where segments are short and their lengths
//! vary, the guess is wrong once a segment, and every wrong guess throws away the work in flight
//! (TTV on a 3-tensor whose fibers hold 2.3 nonzeros on average spends most of its time there).
//!
//! A loop whose body is pure `let`s and one reduction into a local,
//!
//! ```text
//! for p in lo..hi { lets; t op= e }
//! ```
//!
//! becomes a fixed number of steps for a segment of at most `W` positions, the loop as it was
//! for a longer one:
//!
//! ```text
//! let end = hi;
//! if end <= lo + W && lo < end {
//!     for q in 0..W { let p = min(lo + q, end - 1); lets; t op= (lo + q < end ? e : identity) }
//! } else {
//!     for p in lo..end { lets; t op= e }
//! }
//! ```
//!
//! The steps past the segment's end read the segment's last position again (the reads of its last
//! iteration, so nothing new can be out of bounds) and combine the operator's identity, which
//! leaves every accumulator exactly as it was: `-0.0` for `+` (`x + -0.0` is `x` for every `x`,
//! `-0.0` and NaN included, where `+0.0` would turn `-0.0` into `+0.0`), `1` for `*`, `+inf` for
//! `min` and `-inf` for `max` (an integer type's extremes). The reductions happen in the same
//! order as before, so the results do not change. A back end prints the steps as a loop of
//! constant length, which unrolls into straight-line code with a select where the branch was.
//!
//! Only loops over the fibers of a level below the second are rewritten (see `deep`), and only
//! in CPU kernels, outside `CpuVector` regions (the `lanes` pass shapes those).
//! `||` and `&&` are left alone: their update turns any nonzero accumulator into one, so their
//! identity is not exact for an accumulator that does not start at one of them; user operators
//! are left alone too, since nothing proves that their declared identity is exact.

use super::Locals;
use super::segment::{self, Loop};
use crate::ir::{
    Array, BinOp, Expr, Kernel, Literal, Place, ReduceOp, Stmt, Type, UpdateOp, Var, bin,
    visit::operands,
};

/// The most positions a segment may hold to run as straight-line steps.
const WIDTH: usize = 4;

/// `kernel` with every candidate loop rewritten.
pub(super) fn short_segments(kernel: Kernel) -> Kernel {
    segment::rewrite_for_loops(kernel, &mut |l, names| match identity_of(&l.body)
        .filter(|_| deep(&l.hi) && !gathered_dot(&l.var, &l.body))
    {
        Some(identity) => Ok(rewritten(l, identity, names)),
        None => Err(Box::new(l)),
    })
}

/// Whether a loop ending at `hi` runs over a segment of a level below the second of a tensor
/// (the fibers of a CSF 3-tensor's last level), where the segment ends at a `pos` array of that
/// level. Those fibers are short and vary in length in the tensors this targets; the rows of a
/// matrix are left alone: where most rows hold one nonzero (a power network's matrix), the loop's
/// exit is guessed right, and four steps a row cost 2.5 times the loop.
fn deep(hi: &Expr) -> bool {
    let here = matches!(hi, Expr::Load(Array::Pos { level, .. }, _) if *level >= 2);
    here || operands(hi).into_iter().any(deep)
}

/// Whether `body` is a dot product's step, `let j = B.lk.crd[p]; t += B.vals[p] * c.vals[j]`
/// (TTV's fiber): the `dots` pass makes a loop of such fibers one run of dot products, which
/// the runtime sums without a branch on each fiber's end where they are short (`row_dots`).
/// On the Zen 3 EPYC, with TTV's fibers of 2.3 nonzeros, four straight-line steps a fiber took
/// 1.3 times the time of a plain loop per fiber, the runtime's one pass 0.87 of it and its
/// masked vectors of four positions 0.4-0.55 (BENCHMARKS.md, "TTV's fibers as one pass" and
/// "TTV's fibers four positions at a time").
fn gathered_dot(p: &Var, body: &[Stmt]) -> bool {
    let [
        Stmt::Let {
            var: j,
            init: Expr::Load(Array::Crd { param, .. }, at),
            ..
        },
        Stmt::Update {
            place: Place::Var(_),
            op: UpdateOp::Reduce(ReduceOp::Add),
            value: Expr::Binary(BinOp::Mul, a, b),
            ..
        },
    ] = body
    else {
        return false;
    };
    let position = Expr::Var(p.clone());
    let weight = Expr::Load(Array::Vals { param: *param }, Box::new(position.clone()));
    let gathered = |e: &Expr| {
        matches!(e, Expr::Load(Array::Vals { param: q }, k)
            if *q != *param && **k == Expr::Var(j.clone()))
    };
    **at == position && ((**a == weight && gathered(b)) || (**b == weight && gathered(a)))
}

/// The exact identity of the reduction that ends `body`, if the body is `let`s and then that
/// one reduction into a local.
fn identity_of(body: &[Stmt]) -> Option<Literal> {
    match segment::reduction_ending(body)?.1 {
        ReduceOp::Add => Some(Literal::Float(-0.0)),
        ReduceOp::Mul => Some(Literal::Int(1)),
        op @ (ReduceOp::Min | ReduceOp::Max) => Some(op.identity()),
        ReduceOp::Or | ReduceOp::And | ReduceOp::User { .. } => None,
    }
}

/// The loop `for p in lo..hi { body }` as straight-line steps for a short segment and the loop
/// for a long one.
fn rewritten(l: Loop, identity: Literal, names: &mut Locals) -> Vec<Stmt> {
    let Loop {
        var: p,
        lo,
        hi,
        body,
    } = l;
    let mut out = Vec::new();
    let mut bind = |hint: &str, e: Expr, out: &mut Vec<Stmt>| match e {
        Expr::Var(_) | Expr::Index(_) => e,
        e => {
            let var = names.fresh(hint);
            out.push(Stmt::Let {
                var: var.clone(),
                ty: Type::Index,
                init: e,
                mutable: false,
            });
            Expr::Var(var)
        }
    };
    let lo = bind("__seg_lo", lo, &mut out);
    let end = bind("__seg_end", segment::clamped(&p, hi, &body), &mut out);
    let q = names.fresh("__q");
    let at = bin(BinOp::Add, lo.clone(), Expr::Var(q.clone()));
    let last = bin(BinOp::Sub, end.clone(), Expr::Index(1));
    let mut steps = vec![Stmt::Let {
        var: p.clone(),
        ty: Type::Index,
        init: bin(BinOp::Min, at.clone(), last),
        mutable: false,
    }];
    steps.extend(body.iter().cloned());
    if let Some(Stmt::Update { value, .. }) = steps.last_mut() {
        // The value is computed outside the select, so that nothing but the select depends on
        // whether the step is inside the segment: its reads may not be moved under a branch.
        let v = names.fresh("__v");
        let e = std::mem::replace(value, Expr::Var(v.clone()));
        let inside = bin(BinOp::Lt, at, end.clone());
        *value = Expr::Select(
            Box::new(inside),
            Box::new(Expr::Var(v.clone())),
            Box::new(Expr::Value(identity)),
        );
        let update = steps.pop();
        steps.push(Stmt::Let {
            var: v,
            ty: Type::Value,
            init: e,
            mutable: false,
        });
        steps.extend(update);
    }
    let short = bin(
        BinOp::And,
        bin(
            BinOp::Le,
            end.clone(),
            bin(BinOp::Add, lo.clone(), Expr::Index(WIDTH)),
        ),
        bin(BinOp::Lt, lo.clone(), end.clone()),
    );
    out.push(Stmt::If {
        cond: short,
        then: vec![Stmt::For {
            var: q,
            lo: Expr::Index(0),
            hi: Expr::Index(WIDTH),
            body: steps,
        }],
        otherwise: vec![Stmt::For {
            var: p,
            lo,
            hi: end,
            body,
        }],
    });
    out
}

#[cfg(test)]
mod tests {
    use super::super::printed;
    use quote::quote;

    #[test]
    fn a_fiber_sum_runs_as_steps_when_short_and_as_the_loop_otherwise() {
        let ir = printed(quote! {
            fn ttv2; A(i,j) = B(i,j,k) * c(k) * c(k); formats< A: csr, B: csf, c: dense >;
        });
        assert!(
            ir.contains("if __seg_end <= __pB2_start + 4 && __pB2_start < __seg_end"),
            "{ir}"
        );
        assert!(ir.contains("for __q in 0..4 {"), "{ir}");
        assert!(
            ir.contains("let __pB2: index = min(__pB2_start + __q, __seg_end - 1);"),
            "{ir}"
        );
        assert!(
            ir.contains("__t += __pB2_start + __q < __seg_end ? "),
            "{ir}"
        );
        assert!(ir.contains(": T(-0.0);"), "{ir}");
        assert!(ir.contains("for __pB2 in __pB2_start..__seg_end {"), "{ir}");
    }

    /// TTV's fibers are dot products: the `dots` pass makes the loop over them one run, which
    /// the runtime sums in one pass, so they get no steps.
    #[test]
    fn fibers_that_are_dot_products_are_one_run() {
        let ir = printed(quote! {
            fn ttv; A(i,j) = B(i,j,k) * c(k); formats< A: csr, B: csf, c: dense >;
        });
        assert!(!ir.contains("for __q in 0..4 {"), "{ir}");
        let run =
            "A.vals[__pB1_start..B.l1.pos[__pB0 + 1]] = dots(B.vals, c.vals[B.l2.crd], B.l2.pos);";
        assert!(ir.contains(run), "{ir}");
    }

    #[test]
    fn a_min_reduction_pads_with_infinity() {
        let ir = printed(quote! {
            fn ttv_min; A(i,j) = B(i,j,k) + c(k); formats< A: csr, B: csf >;
            fills< A: inf, B: inf, c: inf >; reduce< k: min >;
        });
        assert!(ir.contains(": T(inf)"), "{ir}");
        assert!(ir.contains("for __q in 0..4 {"), "{ir}");
    }

    #[test]
    fn the_rows_of_a_matrix_keep_their_loops() {
        let spmv = printed(quote! {
            fn spmv; y(i) = A(i,j) * x(j); formats< A: csr >;
        });
        assert!(!spmv.contains("__q"), "{spmv}");
    }

    #[test]
    fn or_reductions_and_user_operators_keep_their_loops() {
        let bfs = printed(quote! {
            fn bfs; nx(i) = ((A(i,j) as bool) && (f(j) as bool)) as f64;
            formats< A: csr >; reduce< j: || >;
        });
        assert!(!bfs.contains("__q"), "{bfs}");
    }
}
