//! Dot products: a loop that sums a segment's values times an input gathered at the segment's
//! coordinates,
//!
//! ```text
//! for p in lo..hi { t += A.vals[p] * x.vals[A.l1.crd[p]]; }
//! ```
//!
//! becomes one [`Expr::GatherDot`], `t += dot(A.vals, x.vals[A.l1.crd], lo..hi)`, which the CPU
//! back end computes with the runtime's `Gather::dot`: with AVX2 it reads four `f64` of `x` per
//! gather instruction and sums the row in as many lanes, where the loop is a chain of dependent
//! additions one position long each. On cache-resident matrices an SpMV row took about two
//! thirds of the loop's time (BENCHMARKS.md, "SpMV rows as dot products").
//!
//! The sum's order is no longer the positions' order, so floats may round differently, as
//! under a nonzero split. Loops that give prefetch hints around them (arrays larger than the
//! caches) are rewritten too: with the hints kept, the rows as dot products took 0.95-0.97 of
//! the loop's time on the uniform matrix, 0.71-0.88 on the power law, and the same on the band.

use crate::ir::{Array, BinOp, Expr, Kernel, Place, ReduceOp, Stmt, UpdateOp, Var};

/// `kernel` with every such loop a dot product.
pub(super) fn dot_products(mut kernel: Kernel) -> Kernel {
    if super::on_gpu(&kernel) {
        return kernel;
    }
    block(&mut kernel.body);
    kernel
}

fn block(stmts: &mut [Stmt]) {
    for stmt in stmts {
        match dot_product(stmt) {
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
    fn an_spmv_row_is_one_dot_product() {
        let ir = printed(quote! {
            fn spmv; y(i) = A(i,j) * x(j); formats<A: csr>;
        });
        let dot = "__t += dot(A.vals, x.vals[A.l1.crd], __pA1_start..A.l1.pos[__i + 1]);";
        assert_eq!(ir.matches(dot).count(), 2, "with hints and without: {ir}");
        assert!(!ir.contains("for __pA1"), "{ir}");
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
