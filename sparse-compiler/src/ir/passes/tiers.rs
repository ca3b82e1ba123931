//! The `tile` pass's tiers, run each over all the rows of the loop around them instead of each
//! row trying every tier in turn:
//!
//! ```text
//! for i in lo..hi {
//!     lets;
//!     let kb = 0;
//!     while kb + 32 <= n { T32; kb += 32 }
//!     while kb + 16 <= n { T16; kb += 16 }
//!     if kb < n { R }
//! }
//! ```
//!
//! becomes
//!
//! ```text
//! let kb = 0;
//! while kb + 32 <= n { for i in lo..hi { lets; T32 } kb += 32 }
//! while kb + 16 <= n { for i in lo..hi { lets; T16 } kb += 16 }
//! if kb < n { for i in lo..hi { lets; R } }
//! ```
//!
//! On a matrix of one or two nonzeros a row, a row's tests of the tiers and the set-up of the
//! loops between them cost as much as its arithmetic: the serial SpMM of 1138_bus (1,458
//! nonzeros over 1,138 rows, 32 columns) took 1.37 times as long with the tiers inside the row
//! loop (BENCHMARKS.md). Outside it they run once per tier.
//!
//! The results do not change. A tier writes the output only at `x * size + c`, `size` the size of
//! the output's dense level and `c` one of the tier's columns (`kb + t`, or `k` from `kb`), so
//! every element of the output belongs to one tier whichever row writes it; within a tier the rows
//! still run in order, so every element receives the same updates in the same order. A tier reads
//! the output only at its own elements (the tile's first load).

use super::tile::{expr_reads_output, reads_output};
use crate::ir::visit::{any_stmt, mentions};
use crate::ir::{Array, BinOp, Expr, Kernel, Place, ReduceOp, Stmt, Sync, Type, UpdateOp, Var};

/// `kernel` with the tiers of every row loop that holds nothing else moved outside it.
pub(super) fn hoist(mut kernel: Kernel) -> Kernel {
    kernel.body = stmts(std::mem::take(&mut kernel.body));
    kernel
}

fn stmts(stmts: Vec<Stmt>) -> Vec<Stmt> {
    stmts.into_iter().flat_map(stmt).collect()
}

fn stmt(stmt: Stmt) -> Vec<Stmt> {
    match stmt {
        Stmt::For { var, lo, hi, body } => {
            let body = stmts(body);
            match tiers_at(&var, &body) {
                Some(at) => hoisted(&var, &lo, &hi, body, at),
                None => vec![Stmt::For { var, lo, hi, body }],
            }
        }
        mut other => {
            for body in other.bodies_mut() {
                *body = stmts(std::mem::take(body));
            }
            vec![other]
        }
    }
}

/// Where the tiers start (the `let kb = 0`) in the body of the loop over `row`, when the body is
/// plain `let`s and hints, then the tiers and nothing after them.
fn tiers_at(row: &Var, body: &[Stmt]) -> Option<usize> {
    let at = body.iter().position(|s| {
        matches!(
            s,
            Stmt::Let {
                ty: Type::Index,
                init: Expr::Index(0),
                mutable: true,
                ..
            }
        )
    })?;
    let (lets, rest) = body.split_at(at);
    let [Stmt::Let { var: kb, .. }, tiers @ ..] = rest else {
        return None;
    };
    let plain = |s: &Stmt| {
        matches!(
            s,
            Stmt::Let { mutable: false, .. } | Stmt::Prefetch { .. } | Stmt::PrefetchGather { .. }
        ) && !reads_output(s)
    };
    let (n, _) = shape(tiers.first()?, kb)?;
    let mut varying = vec![row];
    varying.extend(lets.iter().filter_map(|s| match s {
        Stmt::Let { var, .. } => Some(var),
        _ => None,
    }));
    let invariant = !varying.iter().any(|v| mentions(v, n));
    let tiered = tiers.iter().all(|t| match shape(t, kb) {
        Some((m, width)) => m == n && stepped(t, kb, width),
        None => false,
    });
    let columns = tiers.iter().all(|t| own_columns(t, kb));
    (lets.iter().all(plain) && invariant && tiered && columns).then_some(at)
}

/// `n` and the width `w` of a tier `while kb + w <= n { .. }`, or `n` of a tier `if kb < n { .. }`
/// (with no `else`), which has no width.
fn shape<'s>(tier: &'s Stmt, kb: &Var) -> Option<(&'s Expr, Option<usize>)> {
    let kb = Expr::Var(kb.clone());
    match tier {
        Stmt::While {
            cond: Expr::Binary(BinOp::Le, sum, n),
            ..
        } => match &**sum {
            Expr::Binary(BinOp::Add, a, w) if **a == kb => match **w {
                Expr::Index(w) => Some((n, Some(w))),
                _ => None,
            },
            _ => None,
        },
        Stmt::If {
            cond: Expr::Binary(BinOp::Lt, a, n),
            otherwise,
            ..
        } if **a == kb && otherwise.is_empty() => Some((n, None)),
        _ => None,
    }
}

/// Whether `kb` changes only at the end of a `while` tier, by the tier's `width`, and not at all
/// in an `if` tier.
fn stepped(tier: &Stmt, kb: &Var, width: Option<usize>) -> bool {
    let assigns = |s: &Stmt| matches!(s, Stmt::Update { place: Place::Var(v), .. } if v == kb);
    match (tier, width) {
        (Stmt::While { body, .. }, Some(width)) => {
            let Some((last, before)) = body.split_last() else {
                return false;
            };
            let step = Stmt::Update {
                place: Place::Var(kb.clone()),
                op: UpdateOp::Reduce(ReduceOp::Add),
                value: Expr::Index(width),
                sync: Sync::Owned,
            };
            *last == step && !any_stmt(before, &assigns)
        }
        (Stmt::If { then, .. }, None) => !any_stmt(then, &assigns),
        _ => false,
    }
}

/// Whether every write of the output in `tier` is at a position of the tier's columns from the
/// start of a row of the output's dense level, and every read of it a tile's load from such a
/// position.
fn own_columns(tier: &Stmt, kb: &Var) -> bool {
    let mut ok = true;
    visit(tier, &mut |s, scope| {
        let own = |at: &Expr| matches!(at, Expr::Var(at) if row_start(scope, at, kb));
        ok &= match s {
            Stmt::Update {
                place, value, op, ..
            } => {
                let place_ok = match place {
                    Place::Elem(Array::Vals { param: 0 }, at) => own(at),
                    Place::Elem(_, index) => !expr_reads_output(index),
                    Place::Var(_) => true,
                };
                let value_ok = match (op, value) {
                    (UpdateOp::Set, Expr::Load(Array::Vals { param: 0 }, at)) => own(at),
                    _ => !expr_reads_output(value),
                };
                place_ok && value_ok
            }
            other => !reads_output(other),
        };
    });
    ok
}

/// Whether local `at` is declared in `scope` (the statements around it and the `let`s before it)
/// as `x * size + kb + t`, `t` a tile's variable, or `x * size + k`, `k` a loop from `kb`: a
/// column of the tier from the start of a row of a dense level of the output (`size` its size).
fn row_start(scope: &[&Stmt], at: &Var, kb: &Var) -> bool {
    let declared = |v: &Var| {
        scope.iter().rev().find(|s| match s {
            Stmt::Let { var, .. } | Stmt::For { var, .. } | Stmt::Tile { var, .. } => var == v,
            _ => false,
        })
    };
    let Some(Stmt::Let { init, .. }) = declared(at) else {
        return false;
    };
    let Expr::Binary(BinOp::Add, start, column) = init else {
        return false;
    };
    let Expr::Var(column) = &**column else {
        return false;
    };
    let kb_var = Expr::Var(kb.clone());
    let row = match (declared(column), &**start) {
        (Some(Stmt::Tile { .. }), Expr::Binary(BinOp::Add, row, k)) if **k == kb_var => &**row,
        (Some(Stmt::For { lo, .. }), row) if *lo == kb_var => row,
        _ => return false,
    };
    matches!(
        row,
        Expr::Binary(BinOp::Mul, _, size) if matches!(**size, Expr::LevelSize { param: 0, .. })
    )
}

/// Calls `f` on every statement under `stmt`, with its scope: the statements around it and the
/// `let`s before it in each of them, outermost first.
fn visit<'s>(stmt: &'s Stmt, f: &mut impl FnMut(&'s Stmt, &[&'s Stmt])) {
    fn walk<'s>(
        stmts: &'s [Stmt],
        scope: &mut Vec<&'s Stmt>,
        f: &mut impl FnMut(&'s Stmt, &[&'s Stmt]),
    ) {
        let depth = scope.len();
        for s in stmts {
            f(s, scope);
            scope.push(s);
            if matches!(s, Stmt::Let { .. }) {
                continue;
            }
            for body in s.bodies() {
                walk(body, scope, f);
            }
            scope.pop();
        }
        scope.truncate(depth);
    }
    walk(std::slice::from_ref(stmt), &mut Vec::new(), f);
}

/// The tiers outside the loop over `row`, each holding that loop over `lets` and the tier's body.
fn hoisted(row: &Var, lo: &Expr, hi: &Expr, mut body: Vec<Stmt>, at: usize) -> Vec<Stmt> {
    let tiers = body.split_off(at + 1);
    let kb = body.pop().expect("the tiers start with `let kb`");
    let rows = |inner: Vec<Stmt>| Stmt::For {
        var: row.clone(),
        lo: lo.clone(),
        hi: hi.clone(),
        body: body.iter().cloned().chain(inner).collect(),
    };
    let mut out = vec![kb];
    for tier in tiers {
        out.push(match tier {
            Stmt::While { cond, mut body } => {
                let step = body.pop().expect("a while tier ends with its step");
                Stmt::While {
                    cond,
                    body: vec![rows(body), step],
                }
            }
            Stmt::If { cond, then, .. } => Stmt::If {
                cond,
                then: vec![rows(then)],
                otherwise: Vec::new(),
            },
            _ => unreachable!("tiers_at accepts only while and if tiers"),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::super::printed as ir;
    use super::*;
    use crate::ir::{Literal, bin};

    fn var(name: &str) -> Var {
        Var(name.to_string())
    }

    fn v(name: &str) -> Expr {
        Expr::Var(var(name))
    }

    fn index_let(name: &str, init: Expr) -> Stmt {
        Stmt::Let {
            var: var(name),
            ty: Type::Index,
            init,
            mutable: false,
        }
    }

    /// `for i in 0..m { let kb = 0; while kb + 32 <= n { tile t { let pc = at; C.vals[pc] = value } kb += 32 } after }`.
    fn row_loop(at: Expr, value: Expr, after: Vec<Stmt>) -> Stmt {
        let n = Expr::Dim { param: 0, dim: 1 };
        let tier = Stmt::While {
            cond: bin(BinOp::Le, bin(BinOp::Add, v("kb"), Expr::Index(32)), n),
            body: vec![
                Stmt::Tile {
                    var: var("t"),
                    width: 32,
                    body: vec![
                        index_let("pc", at),
                        Stmt::Update {
                            place: Place::Elem(Array::Vals { param: 0 }, v("pc")),
                            op: UpdateOp::Set,
                            value,
                            sync: Sync::Owned,
                        },
                    ],
                },
                Stmt::Update {
                    place: Place::Var(var("kb")),
                    op: UpdateOp::Reduce(ReduceOp::Add),
                    value: Expr::Index(32),
                    sync: Sync::Owned,
                },
            ],
        };
        let kb = Stmt::Let {
            var: var("kb"),
            ty: Type::Index,
            init: Expr::Index(0),
            mutable: true,
        };
        Stmt::For {
            var: var("i"),
            lo: Expr::Index(0),
            hi: Expr::Dim { param: 0, dim: 0 },
            body: [kb, tier].into_iter().chain(after).collect(),
        }
    }

    fn row_start() -> Expr {
        let row = bin(BinOp::Mul, v("i"), Expr::LevelSize { param: 0, level: 1 });
        bin(BinOp::Add, bin(BinOp::Add, row, v("kb")), v("t"))
    }

    fn one() -> Expr {
        Expr::Value(Literal::Int(1))
    }

    fn hoists(row_loop: Stmt) -> bool {
        matches!(
            stmt(row_loop).as_slice(),
            [Stmt::Let { .. }, Stmt::While { .. }]
        )
    }

    #[test]
    fn spmm_runs_each_tier_over_all_rows() {
        // Each tier's loop of rows is one run of axpys after the `axpy` pass; the columns past
        // the tiers stay a loop of rows.
        let spmm = ir(quote! { fn k; C(i,k) = A(i,j) * B(j,k); formats<A: csr>; });
        let kb = spmm.find("let mut __kb").expect("tiled");
        assert!(kb < spmm.find("axpys(").unwrap(), "{spmm}");
        let all_rows = "axpys(A.vals, B.vals[A.l1.crd[p] * B.l1.size + __kb], A.l1.pos, r in \
                        0..C.shape[0]";
        assert_eq!(spmm.matches(all_rows).count(), 2, "{spmm}");
        assert_eq!(
            spmm.matches("for __i in 0..C.shape[0] {").count(),
            1,
            "{spmm}"
        );
        // The row split: inside each block, and in the unsplit loop below the threshold.
        let split = ir(quote! {
            fn k; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
            schedule<split(i, i0, i1, Down, 16).parallelize(i0, CpuThread, NoRaces)>;
        });
        assert_eq!(
            split.matches("r in 0 + (__i0 * 16 + 0)..").count(),
            2,
            "{split}"
        );
        assert_eq!(split.matches(all_rows).count(), 2, "{split}");
        assert_eq!(split.matches("for __i1 in").count(), 1, "{split}");
        assert_eq!(split.matches("for __i in").count(), 1, "{split}");
    }

    #[test]
    fn tiers_that_write_only_their_own_columns_move_out() {
        assert!(hoists(row_loop(row_start(), one(), Vec::new())));
        // The tile's load of its own elements (an accumulating kernel's first step).
        let own = Expr::Load(Array::Vals { param: 0 }, Box::new(v("pc")));
        assert!(hoists(row_loop(row_start(), own, Vec::new())));
    }

    #[test]
    fn other_row_loops_keep_their_tiers() {
        // A position not within a row of the output's level.
        let loose = bin(BinOp::Add, bin(BinOp::Add, v("i"), v("kb")), v("t"));
        assert!(!hoists(row_loop(loose, one(), Vec::new())));
        // A read of the output elsewhere.
        let elsewhere = Expr::Load(Array::Vals { param: 0 }, Box::new(Expr::Index(0)));
        assert!(!hoists(row_loop(row_start(), elsewhere, Vec::new())));
        // A statement after the tiers.
        let after = index_let("x", v("kb"));
        assert!(!hoists(row_loop(row_start(), one(), vec![after])));
    }
}
