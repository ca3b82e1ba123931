//! Dot products: a loop that sums a segment's values times an input gathered at the segment's
//! coordinates,
//!
//! ```text
//! for p in lo..hi { t += A.vals[p] * x.vals[A.l1.crd[p]]; }
//! ```
//!
//! becomes one [`Expr::GatherDot`], `t += dot(A.vals, x.vals[A.l1.crd], lo..hi)`, which the CPU
//! back end computes with the runtime's `Gather::dot`: where AVX2's gathers pay (Intel's
//! processors) it reads four `f64` of `x` per gather instruction and sums the row in as many
//! lanes, where the loop is a chain of dependent additions one position long each. On an Intel
//! Xeon's cache-resident matrices an SpMV row took about two thirds of the loop's time
//! (BENCHMARKS.md, "SpMV rows as dot products").
//!
//! A loop over rows that does nothing but set (or add to) each row's element of a dense output
//! to such a dot product,
//!
//! ```text
//! for i in lo..hi { let mut t = 0; t += dot(A.vals, x.vals[A.l1.crd], A.l1.pos[i]..A.l1.pos[i + 1]); y.vals[i] = t; }
//! ```
//!
//! becomes one [`Stmt::RowDots`], `y.vals[lo..hi] = dots(A.vals, x.vals[A.l1.crd], A.l1.pos)`,
//! which the runtime's `Gather::dot_rows` computes four rows at a time where gathers pay:
//! without a start and an end of its own per row, an SpMV on the cache-resident matrices took
//! 0.64-0.89 of the time of the rows one by one (BENCHMARKS.md, "SpMV rows four at a time").
//! Elsewhere it runs a row loop with nothing in it but the row, summed in order (BENCHMARKS.md,
//! "Gathers by vendor"). Only where the rows are the kernel's own or its iteration's (not inside a region
//! that shares the output). Loops that hint their rows' coordinates and weights ahead are runs
//! too: the runtime hints a run's rows itself when its arrays are larger than the caches, so the
//! test `hints.rs` put before such a loop, whose two loops are then the same run, goes.
//!
//! A loop that sums the products of two inputs' values along a row of each (SDDMM's
//! `Σ_k C(i,k) · D(j,k)`, a dense matrix times a vector),
//!
//! ```text
//! for k in 0..n { let p = i * C.l1.size + k; let q = j * D.l1.size + k; t += C.vals[p] * D.vals[q]; }
//! ```
//!
//! becomes one [`Expr::DenseDot`], `t += dense_dot(C.vals[i * C.l1.size..], D.vals[j *
//! D.l1.size..], n)`, which the runtime sums in eight partial sums instead of one chain of
//! dependent additions: the generated SDDMM on the harness's cache-resident matrices took
//! 0.61-0.69 of its time (BENCHMARKS.md, "SDDMM's rows as dense dot products").
//!
//! The sum's order is no longer the positions' order, so floats may round differently, as
//! under a nonzero split. Loops that give prefetch hints around them (arrays larger than the
//! caches) are rewritten too: with the hints kept, the rows as dot products took 0.95-0.97 of
//! the loop's time on the uniform matrix, 0.71-0.88 on the power law, and the same on the band.

use crate::ir::visit::{mentions, offset_of, substitute};
use crate::ir::{
    Array, BinOp, Expr, Kernel, Literal, OutputAccess, Place, ReduceOp, Stmt, Sync, Type, Unit,
    UpdateOp, Var, bin,
};

/// `kernel` with every such loop a dot product.
pub(super) fn dot_products(mut kernel: Kernel) -> Kernel {
    if super::on_gpu(&kernel) {
        return kernel;
    }
    block(&mut kernel.body);
    row_runs(&mut kernel.body);
    kernel
}

/// Every loop of rows in `stmts` that owns its rows as [`Stmt::RowDots`]; a test of whether to
/// hint (`hints.rs`) whose two loops both became the same run is the run alone.
fn row_runs(stmts: &mut [Stmt]) {
    for stmt in stmts {
        if let Some(rows) = row_dots(stmt) {
            *stmt = rows;
        } else if owns_rows(stmt) {
            stmt.bodies_mut().into_iter().for_each(|b| row_runs(b));
            if let Stmt::If {
                cond,
                then,
                otherwise,
            } = stmt
                && hint_test(cond)
                && then == otherwise
                && matches!(then.as_slice(), [Stmt::RowDots { .. }])
            {
                *stmt = then.remove(0);
            }
        }
    }
}

/// Whether `cond` is `hints.rs`'s test, `hinted(a) || hinted(b) || ..`.
fn hint_test(cond: &Expr) -> bool {
    match cond {
        Expr::Hinted(_) => true,
        Expr::Binary(BinOp::Or, a, b) => hint_test(a) && hint_test(b),
        _ => false,
    }
}

/// Whether the rows of the output that statements nested in `stmt` write are those of the
/// iteration that runs them (not a region whose threads share the output).
pub(super) fn owns_rows(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Parallel(region) => {
            region.unit == Unit::CpuThread && matches!(region.output, OutputAccess::Blocks { .. })
        }
        _ => true,
    }
}

/// The rows of dot products the loop `stmt` computes, if it is such a loop: its body is
/// optionally the row `let r = base + v`, then `let mut t = 0`, optionally `let s = pos[r]`,
/// `t += dot(.., pos[r]..pos[r + 1])` and `out[r] = t` (or `+= t`).
fn row_dots(stmt: &Stmt) -> Option<Stmt> {
    let Stmt::For { var, lo, hi, body } = stmt else {
        return None;
    };
    let (row, rows, body) = match body.as_slice() {
        [
            Stmt::Let {
                var: r,
                ty: Type::Index,
                init,
                mutable: false,
            },
            rest @ ..,
        ] if steps_with(init, var) => {
            let rows = (substitute(init, var, lo), substitute(init, var, hi));
            (r, rows, rest)
        }
        _ => (var, (lo.clone(), hi.clone()), body.as_slice()),
    };
    let (t, body) = match body {
        [
            Stmt::Let {
                var: t,
                ty: Type::Value,
                init,
                mutable: true,
            },
            rest @ ..,
        ] if *init == Expr::Value(Literal::Int(0)) => (t, rest),
        _ => return None,
    };
    let (start, body) = match body {
        [
            Stmt::Let {
                var: s,
                ty: Type::Index,
                init,
                mutable: false,
            },
            rest @ ..,
        ] => (Some((s, init)), rest),
        _ => (None, body),
    };
    let hints = body
        .iter()
        .take_while(|s| matches!(s, Stmt::Prefetch { .. }))
        .count();
    let (hints, body) = body.split_at(hints);
    let [
        Stmt::Update {
            place: Place::Var(sum),
            op: UpdateOp::Reduce(ReduceOp::Add),
            value:
                Expr::GatherDot {
                    vals,
                    crd,
                    weights,
                    range,
                },
            ..
        },
        Stmt::Update {
            place: Place::Elem(Array::Vals { param: 0 }, at),
            op: op @ (UpdateOp::Set | UpdateOp::Reduce(ReduceOp::Add)),
            value: Expr::Var(stored),
            sync: Sync::Owned,
        },
    ] = body
    else {
        return None;
    };
    let Array::Crd { param, level } = crd else {
        return None;
    };
    let pos = Array::Pos {
        param: *param,
        level: *level,
    };
    let r = Expr::Var(row.clone());
    let segment_start = Expr::Load(pos.clone(), Box::new(r.clone()));
    let segment_end = Expr::Load(
        pos.clone(),
        Box::new(bin(BinOp::Add, r.clone(), Expr::Index(1))),
    );
    let starts = match start {
        Some((s, init)) => *init == segment_start && range.0 == Expr::Var(s.clone()),
        None => range.0 == segment_start,
    };
    // Hints for the row's own coordinates and weights, which the runtime gives itself.
    let hinted = |s: &Stmt| {
        matches!(s, Stmt::Prefetch { array, from }
            if (array == crd || array == weights) && *from == range.0)
    };
    let rows_only = sum == t
        && stored == t
        && *at == r
        && starts
        && range.1 == segment_end
        && hints.iter().all(hinted);
    rows_only.then(|| Stmt::RowDots {
        op: *op,
        vals: vals.clone(),
        crd: crd.clone(),
        weights: weights.clone(),
        pos,
        rows: Box::new(rows),
    })
}

/// Whether `e` is `v` plus terms that do not read `v`: it steps by one with `v`.
pub(super) fn steps_with(e: &Expr, v: &Var) -> bool {
    match e {
        Expr::Var(x) => x == v,
        Expr::Binary(BinOp::Add, a, b) => {
            (steps_with(a, v) && !mentions(v, b)) || (steps_with(b, v) && !mentions(v, a))
        }
        _ => false,
    }
}

fn block(stmts: &mut [Stmt]) {
    for stmt in stmts {
        match dot_product(stmt).or_else(|| dense_dot(stmt)) {
            Some(dot) => *stmt = dot,
            None => stmt.bodies_mut().into_iter().for_each(|b| block(b)),
        }
    }
}

/// The update `t += dot(..)` that the loop `stmt` computes, if it is one.
fn dot_product(stmt: &Stmt) -> Option<Stmt> {
    let Stmt::For { var, lo, hi, body } = stmt else {
        return None;
    };
    let [
        Stmt::Update {
            place: place @ Place::Var(_),
            op: op @ UpdateOp::Reduce(ReduceOp::Add),
            value: Expr::Binary(BinOp::Mul, a, b),
            sync,
        },
    ] = body.as_slice()
    else {
        return None;
    };
    let (weights, (vals, crd)) =
        (weight(a, var).zip(gather(b, var))).or_else(|| weight(b, var).zip(gather(a, var)))?;
    let Array::Crd { param, .. } = crd else {
        return None;
    };
    if *weights != (Array::Vals { param: *param }) {
        return None;
    }
    Some(Stmt::Update {
        place: place.clone(),
        op: *op,
        value: Expr::GatherDot {
            vals: vals.clone(),
            crd: crd.clone(),
            weights: weights.clone(),
            range: Box::new((lo.clone(), hi.clone())),
        },
        sync: *sync,
    })
}

/// The update `t += dense_dot(..)` that the loop `stmt` computes, if it is one: a loop over `k`
/// from 0 whose body is `t += a.vals[p] * b.vals[q]`, two inputs' values at positions that step
/// with `k` from bases that do not (`let p = base + k` before it, or `base + k` in the load).
fn dense_dot(stmt: &Stmt) -> Option<Stmt> {
    let Stmt::For { var, lo, hi, body } = stmt else {
        return None;
    };
    let (
        Stmt::Update {
            place: place @ Place::Var(_),
            op: op @ UpdateOp::Reduce(ReduceOp::Add),
            value: Expr::Binary(BinOp::Mul, a, b),
            sync,
        },
        lets,
    ) = body.split_last()?
    else {
        return None;
    };
    if *lo != Expr::Index(0) {
        return None;
    }
    let positions = (lets.iter())
        .map(|s| match s {
            Stmt::Let {
                var: p,
                init,
                mutable: false,
                ..
            } => Some((p, offset_of(init, var)?)),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let row = |e: &Expr| -> Option<(Array, Expr)> {
        let Expr::Load(array @ Array::Vals { param }, at) = e else {
            return None;
        };
        let base = match &**at {
            Expr::Var(p) if p == var => Expr::Index(0),
            Expr::Var(p) => positions.iter().find(|(q, _)| *q == p)?.1.clone(),
            at => offset_of(at, var)?.clone(),
        };
        let steps = mentions(var, &base) || positions.iter().any(|(p, _)| mentions(p, &base));
        (*param != 0 && !steps).then(|| (array.clone(), base))
    };
    let ((a, a_at), (b, b_at)) = (row(a)?, row(b)?);
    Some(Stmt::Update {
        place: place.clone(),
        op: *op,
        value: Expr::DenseDot {
            a,
            b,
            at: Box::new((a_at, b_at)),
            len: Box::new(hi.clone()),
        },
        sync: *sync,
    })
}

/// The values array `e` loads at position `p`, if it is such a load.
fn weight<'e>(e: &'e Expr, p: &Var) -> Option<&'e Array> {
    match e {
        Expr::Load(array @ Array::Vals { .. }, at) if **at == Expr::Var(p.clone()) => Some(array),
        _ => None,
    }
}

/// The values and coordinates of the gather `e` at position `p`, if it is one.
fn gather<'e>(e: &'e Expr, p: &Var) -> Option<(&'e Array, &'e Array)> {
    match e {
        Expr::Gather { vals, crd, at } if **at == Expr::Var(p.clone()) => Some((vals, crd)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::super::printed;

    #[test]
    fn an_sddmm_entry_is_one_dense_dot_product() {
        let ir = printed(quote! {
            fn sddmm; A(i,j) = B(i,j) * C(i,k) * D(j,k);
            formats<A: csr, B: csr, C: dense, D: dense>;
        });
        let dot =
            "__t += dense_dot(C.vals[__i * C.l1.size..], D.vals[__j * D.l1.size..], C.shape[1]);";
        assert_eq!(ir.matches(dot).count(), 2, "with hints and without: {ir}");
        assert!(!ir.contains("for __k"), "{ir}");
        // A dense matrix times a vector: the vector's row starts at 0.
        let gemv = printed(quote! { fn gemv; y(i) = A(i,j) * x(j); formats<A: dense>; });
        assert!(
            gemv.contains("dense_dot(A.vals[__i * A.l1.size..], x.vals[0..], "),
            "{gemv}"
        );
    }

    #[test]
    fn products_that_are_not_two_rows_stay_loops() {
        for kernel in [
            // One factor does not step with `k`.
            quote! { fn f; y(i) = A(i,k) * x(i); formats<A: dense>; },
            // Three factors.
            quote! { fn f; y(i) = A(i,k) * B(i,k) * x(k); formats<A: dense, B: dense>; },
        ] {
            let ir = printed(kernel);
            assert!(!ir.contains("dense_dot"), "{ir}");
        }
    }

    #[test]
    fn an_spmv_row_is_one_dot_product() {
        // DCSR's rows are not the output's: each stays a row, its sum one dot product.
        let ir = printed(quote! {
            fn spmv; y(i) = A(i,j) * x(j); formats<A: dcsr>;
        });
        let dot = "__t += dot(A.vals, x.vals[A.l1.crd], __pA1_start..A.l1.pos[__pA0 + 1]);";
        assert_eq!(ir.matches(dot).count(), 2, "with hints and without: {ir}");
        assert!(!ir.contains("for __pA1"), "{ir}");
    }

    #[test]
    fn a_loop_of_rows_hinted_or_not_is_one_run_of_dot_products() {
        let set = printed(quote! { fn spmv; y(i) = A(i,j) * x(j); formats<A: csr>; });
        let dots = "y.vals[0..y.shape[0]] = dots(A.vals, x.vals[A.l1.crd], A.l1.pos);";
        assert_eq!(set.matches(dots).count(), 1, "{set}");
        assert!(
            !set.contains("hinted("),
            "the runtime hints a run itself: {set}"
        );
        let add = printed(quote! { fn spmv; y(i) += A(i,j) * x(j); formats<A: csr>; });
        let dots = "y.vals[0..y.shape[0]] += dots(A.vals, x.vals[A.l1.crd], A.l1.pos);";
        assert_eq!(add.matches(dots).count(), 1, "{add}");
        // A row split's rows are its iteration's own: each block of 32 is one run.
        let split = printed(quote! {
            fn spmv_rows; y(i) = A(i,j) * x(j); formats<A: csr>;
            schedule<split(i,i0,i1,Down,32).parallelize(i0,CpuThread,NoRaces)>;
        });
        let block = "y.vals[0 + (__i0 * 32 + 0)..0 + (__i0 * 32 + min(32, y.shape[0] - 0 - \
                     __i0 * 32))] = dots(";
        assert_eq!(split.matches(block).count(), 1, "{split}");
    }

    #[test]
    fn rows_that_are_not_the_output_s_own_stay_loops() {
        for kernel in [
            // DCSR: the output's row is a stored coordinate, not the loop's.
            quote! { fn f; y(i) = A(i,j) * x(j); formats<A: dcsr>; },
            // The row's sum is scaled before it is stored.
            quote! { fn f; y(i) = A(i,j) * x(j) * 2; formats<A: csr>; },
        ] {
            let ir = printed(kernel);
            // (A split's serial copy for small inputs is a plain loop of rows.)
            let shared = ir
                .split_once("parallel(")
                .map_or(ir.as_str(), |(_, region)| region);
            assert!(!shared.contains("dots("), "{ir}");
            assert!(shared.contains("dot("), "{ir}");
        }
    }

    #[test]
    fn a_nonzero_split_sums_its_runs_as_dot_products() {
        let ir = printed(quote! {
            fn spmv_nnz; y(i) = A(i,j) * x(j); formats<A: csr>;
            schedule<collapse(i,j,f).pos(f,p,A).split(p,p0,p1,Down,16)
                .parallelize(p0,CpuThread,Atomics)>;
        });
        let dot = "__segment_sum += dot(A.vals, x.vals[A.l1.crd], __p_cursor..__p_run_end);";
        assert!(ir.contains(dot), "{ir}");
    }

    #[test]
    fn other_reductions_and_products_stay_loops() {
        for kernel in [
            quote! { fn f; y(i) = A(i,j) * x(j) * x(j); formats<A: csr>; },
            quote! { fn f; y(i) = A(i,j) + x(j); formats<A: csr>; },
            quote! { fn f; y(i) = min(j, A(i,j) + x(j)); formats<A: csr>; },
        ] {
            let ir = printed(kernel);
            assert!(!ir.contains("dot("), "{ir}");
        }
    }
}
