//! Early exits in blocks of four: the loop lowering makes of an `||` or `&&` reduction,
//!
//! ```text
//! while p < end { lets; if decisive { t = stop; p = end } else { p += 1 } }
//! ```
//!
//! stops at the first decisive term, but tests each term on its own, and its condition is a chain
//! of `&&`s whose operands the processor must branch over one by one (a masked BFS step asks of
//! each nonzero whether its value is nonzero, whether its column is in the frontier, whether its
//! row is unvisited). Four positions at a time, each term evaluated to 0 or 1 in full, the
//! block's terms combined with `max`, run first:
//!
//! ```text
//! while p + 4 <= end {
//!     lets(p); let p_1 = p + 1; lets(p_1); ..
//!     if max(decisive(p) as index, .., decisive(p_3) as index) != 0 { t = stop; p = end }
//!     else { p += 4 }
//! }
//! while p < end { .. as before .. }
//! ```
//!
//! The result is the same: the exit stores a constant, so which term of the block decided does
//! not matter. Evaluating every operand of an `&&` reads what the short-circuit might have
//! skipped, so only terms that cannot panic (no division of indices) are taken, with reads at
//! positions below `end`, which lowering clamps to the arrays the loop reads at `p`; the other
//! reads are at coordinates a valid tensor keeps in bounds, and are bounds-checked as before.
//! Only CPU kernels are rewritten, outside `CpuVector` regions.

use super::{Locals, segment};
use crate::ir::visit::{declared, map_operands, mentions, operands, stmt_exprs};
use crate::ir::{BinOp, Expr, Kernel, Stmt, Type, Unit, Var, bin};

/// Positions a block tests at once.
const BLOCK: usize = 4;

/// `kernel` with each early-exit loop preceded by its blocks of four.
pub(super) fn in_blocks(mut kernel: Kernel) -> Kernel {
    if super::on_gpu(&kernel) {
        return kernel;
    }
    let mut names = Locals::of(&kernel);
    kernel.body = walk(std::mem::take(&mut kernel.body), &mut names);
    kernel
}

fn walk(stmts: Vec<Stmt>, names: &mut Locals) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    for mut stmt in stmts {
        if matches!(&stmt, Stmt::Parallel(r) if r.unit == Unit::CpuVector) {
            out.push(stmt);
            continue;
        }
        if let Some(blocked) = blocks(&stmt, names) {
            out.push(blocked);
            out.push(stmt);
            continue;
        }
        for body in stmt.bodies_mut() {
            *body = walk(std::mem::take(body), names);
        }
        out.push(stmt);
    }
    out
}

/// An early-exit loop taken apart: its position, end, the `let`s before the test, the decisive
/// condition and the exit (ending with `p = end`).
struct Exit<'s> {
    p: &'s Var,
    end: &'s Var,
    lets: &'s [Stmt],
    decisive: &'s Expr,
    exit: &'s [Stmt],
}

fn exit_loop(stmt: &Stmt) -> Option<Exit<'_>> {
    let Stmt::While {
        cond: Expr::Binary(BinOp::Lt, p, end),
        body,
    } = stmt
    else {
        return None;
    };
    let (Expr::Var(p), Expr::Var(end)) = (p.as_ref(), end.as_ref()) else {
        return None;
    };
    let (
        Stmt::If {
            cond,
            then,
            otherwise,
        },
        lets,
    ) = body.split_last()?
    else {
        return None;
    };
    let step = Stmt::assign(p.clone(), Expr::Index(1), true);
    let stop = Stmt::assign(p.clone(), Expr::Var(end.clone()), false);
    let (last, before) = then.split_last()?;
    let bound: Vec<&Var> = lets.iter().filter_map(declared).collect();
    let pure_lets = lets
        .iter()
        .all(|s| matches!(s, Stmt::Let { mutable: false, init, .. } if plain(init)));
    // The exit must not depend on which position decided.
    let constant_exit = before.iter().all(|s| {
        matches!(s, Stmt::Update { .. })
            && stmt_exprs(s)
                .into_iter()
                .all(|e| !mentions(p, e) && bound.iter().all(|v| !mentions(v, e)))
    });
    let shaped = otherwise.as_slice() == [step] && *last == stop;
    (shaped && pure_lets && constant_exit && plain(cond)).then_some(Exit {
        p,
        end,
        lets,
        decisive: cond,
        exit: then,
    })
}

/// Whether evaluating `e` whole, whatever its `&&`s and `||`s would skip, cannot panic: no
/// division of indices (a value's division by zero gives zero or an IEEE value, and intrinsics
/// do not panic).
fn plain(e: &Expr) -> bool {
    !matches!(e, Expr::Binary(BinOp::Div, ..)) && operands(e).into_iter().all(plain)
}

/// The block loop to run before the early-exit loop `stmt`, where it has that shape.
fn blocks(stmt: &Stmt, names: &mut Locals) -> Option<Stmt> {
    let l = exit_loop(stmt)?;
    let mut body = Vec::new();
    let mut decided = None;
    for k in 0..BLOCK {
        let renames = lane(&l, k, names, &mut body);
        let term = segment::renamed(l.decisive, &renames);
        let term = Expr::Cast(Type::Index, Box::new(eager(&term)));
        decided = Some(match decided {
            None => term,
            Some(d) => bin(BinOp::Max, d, term),
        });
    }
    body.push(Stmt::If {
        cond: bin(BinOp::Ne, decided?, Expr::Index(0)),
        then: l.exit.to_vec(),
        otherwise: vec![Stmt::assign(l.p.clone(), Expr::Index(BLOCK), true)],
    });
    Some(Stmt::While {
        cond: bin(
            BinOp::Le,
            bin(BinOp::Add, Expr::Var(l.p.clone()), Expr::Index(BLOCK)),
            Expr::Var(l.end.clone()),
        ),
        body,
    })
}

/// Lane `k` of a block: `let p_k = p + k` (none for lane 0) and the loop's `let`s at it, renamed
/// (lane 0 keeps the names). Returns the renames that take the loop's condition to the lane.
fn lane(l: &Exit<'_>, k: usize, names: &mut Locals, out: &mut Vec<Stmt>) -> Vec<(Var, Var)> {
    let at = match k {
        0 => l.p.clone(),
        _ => {
            let at = names.fresh(&format!("{}_{k}", l.p.0));
            out.push(Stmt::Let {
                var: at.clone(),
                ty: Type::Index,
                init: bin(BinOp::Add, Expr::Var(l.p.clone()), Expr::Index(k)),
                mutable: false,
            });
            at
        }
    };
    let mut renames = vec![(l.p.clone(), at.clone())];
    let suffix = format!("_{k}");
    for s in l.lets {
        if let Stmt::Let { var, ty, init, .. } = s {
            let suffix = (k > 0).then_some(suffix.as_str());
            out.push(segment::copy_let(
                (var, *ty, init, false),
                suffix,
                &mut renames,
                names,
            ));
        }
    }
    renames
}

/// `e` with every `&&` and `||` evaluated on both sides: `min` and `max` of the operands as
/// 0 or 1.
fn eager(e: &Expr) -> Expr {
    let as_index = |e: &Expr| Expr::Cast(Type::Index, Box::new(eager(e)));
    match e {
        Expr::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
            let both = match op {
                BinOp::And => BinOp::Min,
                _ => BinOp::Max,
            };
            bin(
                BinOp::Ne,
                bin(both, as_index(a), as_index(b)),
                Expr::Index(0),
            )
        }
        other => map_operands(other, &mut |e| eager(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::printed;
    use quote::quote;

    #[test]
    fn a_masked_bfs_step_tests_four_positions_at_a_time() {
        let ir = printed(quote! {
            fn bfs; nx(i) = ((A(i,j) as bool) && (f(j) as bool) && !(v(i) as bool)) as f64;
            formats< A: csr >; reduce< j: || >;
        });
        assert!(ir.contains("while __pA1 + 4 <= __pA1_end {"), "{ir}");
        assert!(ir.contains("let __pA1_3: index = __pA1 + 3;"), "{ir}");
        assert!(ir.contains("__pA1 += 4;"), "{ir}");
        assert!(ir.contains("while __pA1 < __pA1_end {"), "{ir}");
        let blocks = &ir[ir.find("+ 4 <=").unwrap()..ir.find("__pA1 += 4;").unwrap()];
        assert!(
            !blocks.contains("&&"),
            "a block evaluates every operand: {blocks}"
        );
    }

    #[test]
    fn a_sum_and_a_gpu_kernel_are_left_alone() {
        let sum = printed(quote! { fn spmv; y(i) = A(i,j) * x(j); formats< A: csr >; });
        assert!(!sum.contains("while"), "{sum}");
        let gpu = printed(quote! {
            fn bfs; nx(i) = ((A(i,j) as bool) && (f(j) as bool)) as f64;
            formats< A: csr >; reduce< j: || >;
            schedule< split(i,i0,i1,Down,32).parallelize(i0,GpuBlock,NoRaces)
                .parallelize(i1,GpuThread,NoRaces) >;
        });
        assert!(!gpu.contains("+ 4 <="), "{gpu}");
    }
}
