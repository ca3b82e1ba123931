//! Rows of a dense matrix gathered into a register tile: the loop the `tile` pass leaves over a
//! row of a sparse matrix,
//!
//! ```text
//! for p in lo..hi {
//!     let j = A.l1.crd[p];
//!     prefetch_gather(B.vals, A.l1.crd[p + d] * B.l1.size);
//!     tile t in 0..W { let q = j * B.l1.size + kb + t; acc[t] += A.vals[p] * B.vals[q]; }
//! }
//! ```
//!
//! becomes one [`Stmt::GatherAxpy`], which the CPU back end prints as the runtime's
//! `Gather::axpy_rows`: it checks once per call, against the level's largest coordinate, that
//! every row of `B` it can read holds the tile, where the loop checks each position's row, and
//! LLVM then kept the loop's bounds and pointers on the stack around the tile's registers. On the
//! cache-resident matrices an SpMM with 32 dense columns took 0.89-0.97 of the loop's time
//! (BENCHMARKS.md, "SpMM rows gathered in one call"). The additions and their order are the
//! loop's, so results do not change.

use crate::ir::visit::mentions;
use crate::ir::{
    Array, BinOp, Expr, Kernel, Place, ReduceOp, Stmt, Sync, Type, Unit, UpdateOp, Var,
};

/// `kernel` with every such loop one gathered axpy.
pub(super) fn gathered_rows(mut kernel: Kernel) -> Kernel {
    if super::on_gpu(&kernel) {
        return kernel;
    }
    block(&mut kernel.body);
    kernel
}

fn block(stmts: &mut [Stmt]) {
    for stmt in stmts {
        if let Some(axpy) = gather_axpy(stmt) {
            *stmt = axpy;
            continue;
        }
        if !matches!(stmt, Stmt::Parallel(region) if region.unit == Unit::CpuVector) {
            stmt.bodies_mut().into_iter().for_each(|b| block(b));
        }
    }
}

/// The axpy the loop `stmt` computes, if it is one.
fn gather_axpy(stmt: &Stmt) -> Option<Stmt> {
    let Stmt::For {
        var: p,
        lo,
        hi,
        body,
    } = stmt
    else {
        return None;
    };
    let (j, crd, rest) = match body.as_slice() {
        [
            Stmt::Let {
                var: j,
                ty: Type::Index,
                init: Expr::Load(crd @ Array::Crd { .. }, at),
                mutable: false,
            },
            rest @ ..,
        ] if **at == Expr::Var(p.clone()) => (j, crd, rest),
        _ => return None,
    };
    let (hint, tile) = match rest {
        [hint @ Stmt::PrefetchGather { .. }, tile] => (Some(hint), tile),
        [tile] => (None, tile),
        _ => return None,
    };
    let Stmt::Tile {
        var: t,
        width,
        body,
    } = tile
    else {
        return None;
    };
    let [
        Stmt::Let {
            var: q,
            ty: Type::Index,
            init,
            mutable: false,
        },
        Stmt::Update {
            place: Place::Elem(Array::Temp(acc), slot),
            op: UpdateOp::Reduce(ReduceOp::Add),
            value: Expr::Binary(BinOp::Mul, a, b),
            sync: Sync::Owned,
        },
    ] = body.as_slice()
    else {
        return None;
    };
    let (stride, offset) = row_start(init, j, t)?;
    let (weights, vals) =
        (loads(a, p).zip(loads(b, q))).or_else(|| loads(b, p).zip(loads(a, q)))?;
    let Array::Crd { param, .. } = crd else {
        return None;
    };
    let free = |e: &Expr| [p, j, t, q].iter().all(|v| !mentions(v, e));
    let sound = *slot == Expr::Var(t.clone())
        && *weights == (Array::Vals { param: *param })
        && !matches!(vals, Array::Vals { param: 0 })
        && free(stride)
        && free(offset);
    let ahead = match hint {
        None => 0,
        Some(hint) => hinted_ahead(hint, p, vals, crd, stride)?,
    };
    sound.then(|| Stmt::GatherAxpy {
        acc: acc.clone(),
        width: *width,
        vals: vals.clone(),
        crd: crd.clone(),
        weights: weights.clone(),
        stride: stride.clone(),
        offset: offset.clone(),
        range: Box::new((lo.clone(), hi.clone())),
        ahead,
    })
}

/// The values array `e` loads at `at`, if it is such a load.
fn loads<'e>(e: &'e Expr, at: &Var) -> Option<&'e Array> {
    match e {
        Expr::Load(array @ Array::Vals { .. }, i) if **i == Expr::Var(at.clone()) => Some(array),
        _ => None,
    }
}

/// `(stride, offset)` where `init` is `(j * stride + offset) + t`: the tile's element `t` of the
/// row of coordinate `j`.
fn row_start<'e>(init: &'e Expr, j: &Var, t: &Var) -> Option<(&'e Expr, &'e Expr)> {
    let Expr::Binary(BinOp::Add, start, tail) = init else {
        return None;
    };
    let Expr::Binary(BinOp::Add, row, offset) = &**start else {
        return None;
    };
    let Expr::Binary(BinOp::Mul, x, y) = &**row else {
        return None;
    };
    let coordinate = |e: &Expr| *e == Expr::Var(j.clone());
    let stride = match (coordinate(x), coordinate(y)) {
        (true, false) => y,
        (false, true) => x,
        _ => return None,
    };
    (**tail == Expr::Var(t.clone())).then_some((&**stride, &**offset))
}

/// How far ahead `hint` fetches rows, if it is the hint of this very gather: the row that
/// position `p + d` reads, from its start.
fn hinted_ahead(hint: &Stmt, p: &Var, vals: &Array, crd: &Array, stride: &Expr) -> Option<usize> {
    let Stmt::PrefetchGather {
        array,
        crd: hinted,
        at,
        offset,
        stride: step,
    } = hint
    else {
        return None;
    };
    let Expr::Binary(BinOp::Add, base, ahead) = at else {
        return None;
    };
    match (&**base, &**ahead) {
        (Expr::Var(v), Expr::Index(d))
            if v == p
                && array == vals
                && hinted == crd
                && *offset == Expr::Index(0)
                && step == stride =>
        {
            Some(*d)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::super::printed;

    #[test]
    fn an_spmm_row_tile_is_one_gathered_axpy() {
        let ir = printed(quote! {
            fn spmm; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
        });
        let axpy = "__acc[0..32] += axpy(A.vals, B.vals[A.l1.crd[p] * B.l1.size + __kb], \
                    __pA1_start..A.l1.pos[__i + 1], ahead 32);";
        assert!(ir.contains(axpy), "{ir}");
        assert!(ir.contains("__acc_1[0..16] += axpy("), "{ir}");
        assert!(!ir.contains("tile __t in"), "{ir}");
        let split = printed(quote! {
            fn spmm; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
            schedule<split(i,i0,i1,Down,16).parallelize(i0,CpuThread,NoRaces)>;
        });
        assert!(split.contains("[0..32] += axpy("), "{split}");
    }

    #[test]
    fn other_tiles_stay_loops() {
        for kernel in [
            // Three factors: MTTKRP's tile.
            quote! {
                fn f; A(i,j) = B(i,k,l) * C(k,j) * D(l,j); formats<A: dense, B: csf>;
            },
            // The row of B scaled first.
            quote! { fn f; C(i,k) = A(i,j) * B(j,k) * B(j,k); formats<A: csr>; },
        ] {
            let ir = printed(kernel);
            assert!(!ir.contains("axpy("), "{ir}");
        }
    }
}
