//! Loops whose prefetch hints the runtime would skip run without them: a loop whose iterations
//! each give [`Stmt::Prefetch`] hints (a CSR row loop hinting its row's coordinates and values)
//! is preceded by one test of whether the runtime hints those arrays at all
//! ([`Expr::Hinted`]), and a copy of the loop without the hints runs when it does not.
//!
//! The runtime gives no hints for arrays that fit in the caches, but it tests each array's size
//! at every hint: two tests a row, which on a matrix of a few thousand rows of a few nonzeros
//! cost 5-15% of a serial SpMV (1138_bus 1.72 µs with them, 1.46 without; lp_qap12 24.1 against
//! 22.6). Only short loop nests are copied: those with at most three loops inside the row loop
//! and nothing but plain statements, where the tests are a visible part of a row's work.

use super::on_gpu;
use crate::ir::{BinOp, Expr, Kernel, Stmt, any_stmt, bin};

/// The most loops a copied loop's body may hold.
const MAX_INNER_LOOPS: usize = 3;

/// `kernel` with its hinting loops split as the module says.
pub(super) fn unswitch(mut kernel: Kernel) -> Kernel {
    if on_gpu(&kernel) {
        return kernel;
    }
    kernel.body = stmts(kernel.body);
    kernel
}

fn stmts(body: Vec<Stmt>) -> Vec<Stmt> {
    body.into_iter().map(stmt).collect()
}

fn stmt(s: Stmt) -> Stmt {
    match s {
        Stmt::For { var, lo, hi, body } => match hinted_arrays(&body) {
            Some(cond) if copyable(&body) => {
                let plain = body.iter().filter(|s| !is_hint(s)).cloned().collect();
                Stmt::If {
                    cond,
                    then: vec![Stmt::For {
                        var: var.clone(),
                        lo: lo.clone(),
                        hi: hi.clone(),
                        body,
                    }],
                    otherwise: vec![Stmt::For {
                        var,
                        lo,
                        hi,
                        body: plain,
                    }],
                }
            }
            _ => Stmt::For {
                var,
                lo,
                hi,
                body: stmts(body),
            },
        },
        mut other => {
            for body in other.bodies_mut() {
                *body = stmts(std::mem::take(body));
            }
            other
        }
    }
}

fn is_hint(s: &Stmt) -> bool {
    matches!(s, Stmt::Prefetch { .. })
}

/// `hinted(a) || hinted(b) || ..` over the arrays `body` hints directly, if any.
fn hinted_arrays(body: &[Stmt]) -> Option<Expr> {
    (body.iter())
        .filter_map(|s| match s {
            Stmt::Prefetch { array, .. } => Some(Expr::Hinted(array.clone())),
            _ => None,
        })
        .reduce(|a, b| bin(BinOp::Or, a, b))
}

/// Whether a loop with `body` is short and plain enough to copy: no region, `while`, host step,
/// assembly or hint below its own, and at most [`MAX_INNER_LOOPS`] loops.
fn copyable(body: &[Stmt]) -> bool {
    let mut loops = 0;
    count_loops(body, &mut loops);
    let nested_hint = body
        .iter()
        .any(|s| !is_hint(s) && any_stmt(std::slice::from_ref(s), &|t| is_hint(t)));
    let plain = !any_stmt(body, &|s| {
        !matches!(
            s,
            Stmt::Let { .. }
                | Stmt::Update { .. }
                | Stmt::For { .. }
                | Stmt::If { .. }
                | Stmt::Prefetch { .. }
                | Stmt::PrefetchGather { .. }
        )
    });
    plain && !nested_hint && loops <= MAX_INNER_LOOPS
}

fn count_loops(body: &[Stmt], loops: &mut usize) {
    for s in body {
        if matches!(s, Stmt::For { .. }) {
            *loops += 1;
        }
        for b in s.bodies() {
            count_loops(b, loops);
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::super::printed as ir;

    #[test]
    fn a_row_loop_runs_without_its_hints_where_the_runtime_skips_them() {
        // DCSR's rows are not the output's own, so they stay a loop (not a run of rows, which
        // the runtime hints itself: the `dots` pass).
        let spmv = ir(quote! { fn k; y(i) = A(i,j) * x(j); formats<A: dcsr>; });
        assert!(
            spmv.contains("if hinted(A.l1.crd) || hinted(A.vals) {"),
            "{spmv}"
        );
        assert_eq!(spmv.matches("prefetch(A.vals").count(), 1, "{spmv}");
        assert_eq!(spmv.matches("for __pA0 in").count(), 2, "{spmv}");
        // SpMM's row holds its column blocks' loops: one copy, hints tested in it.
        let spmm = ir(quote! { fn k; C(i,k) = A(i,j) * B(j,k); formats<A: csr>; });
        assert!(!spmm.contains("hinted("), "{spmm}");
        assert!(spmm.contains("prefetch(A.vals"), "{spmm}");
    }
}
