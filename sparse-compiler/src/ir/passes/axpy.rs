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
//!
//! A loop over rows whose every row is such an axpy into a tile of zeros, stored whole into a
//! dense output indexed by the row,
//!
//! ```text
//! for i in lo..hi {
//!     let s = A.l1.pos[i];
//!     workspace acc: value[W] = 0;
//!     acc[0..W] += axpy(A.vals, B.vals[A.l1.crd[p] * B.l1.size + kb], s..A.l1.pos[i + 1]);
//!     tile t in 0..W { let q = i * C.l1.size + kb + t; C.vals[q] = acc[t]; }
//! }
//! ```
//!
//! becomes one [`Stmt::RowAxpys`], printed as the runtime's `Gather::axpy_runs`, which checks
//! once that the first and last rows of `C` hold the tile where each row checked its own (and
//! each axpy checked the rows of `B` again). Only where the rows are the kernel's own or its
//! iteration's, as for the `dots` pass's runs of rows.

use super::dots::{owns_rows, steps_with};
use crate::ir::visit::{mentions, substitute};
use crate::ir::{
    Array, BinOp, Expr, Kernel, Literal, Place, ReduceOp, Space, Stmt, Sync, TempType, Type, Unit,
    UpdateOp, Var, bin,
};

/// `kernel` with every such loop one gathered axpy, and every loop of such rows one run.
pub(super) fn gathered_rows(mut kernel: Kernel) -> Kernel {
    if super::on_gpu(&kernel) {
        return kernel;
    }
    block(&mut kernel.body);
    row_runs(&mut kernel.body);
    kernel
}

/// Every loop of rows in `stmts` that owns its rows as [`Stmt::RowAxpys`].
fn row_runs(stmts: &mut [Stmt]) {
    for stmt in stmts {
        if let Some(rows) = row_axpys(stmt) {
            *stmt = rows;
        } else if owns_rows(stmt) {
            stmt.bodies_mut().into_iter().for_each(|b| row_runs(b));
        }
    }
}

/// The run of rows the loop `stmt` computes, if it is such a loop: its body is optionally the
/// row `let r = base + v`, then `let s = pos[r]`, hints of the segment from `s`, a tile of
/// zeros, its axpy over `s..pos[r + 1]` and the tile stored at `r * stride + offset`.
fn row_axpys(stmt: &Stmt) -> Option<Stmt> {
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
    let (start, pos_start, body) = match body {
        [
            Stmt::Let {
                var: s,
                ty: Type::Index,
                init: init @ Expr::Load(Array::Pos { .. }, _),
                mutable: false,
            },
            rest @ ..,
        ] => (s, init, rest),
        _ => return None,
    };
    let hints = body
        .iter()
        .take_while(|s| matches!(s, Stmt::Prefetch { .. }))
        .count();
    let [
        Stmt::Workspace {
            var: tile,
            ty: TempType::Value,
            len: Expr::Index(len),
            init: Expr::Value(Literal::Int(0)),
            space: Space::Local,
        },
        Stmt::GatherAxpy {
            acc,
            width,
            vals,
            crd,
            weights,
            stride,
            offset,
            range,
            ahead,
        },
        store,
    ] = &body[hints..]
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
    let segment_end = Expr::Load(
        pos.clone(),
        Box::new(bin(BinOp::Add, r.clone(), Expr::Index(1))),
    );
    let hinted = |s: &Stmt| {
        matches!(s, Stmt::Prefetch { array, from }
            if (array == crd || array == weights) && *from == Expr::Var(start.clone()))
    };
    let (out_stride, out_offset) = stored_tile(store, tile, *width, row)?;
    let locals = [var, row, start, tile];
    let free = |e: &Expr| locals.iter().all(|v| !mentions(v, e));
    let sound = *pos_start == Expr::Load(pos.clone(), Box::new(r.clone()))
        && body[..hints].iter().all(hinted)
        && acc == tile
        && *len == *width
        && range.0 == Expr::Var(start.clone())
        && range.1 == segment_end
        && [stride, offset, out_stride, out_offset]
            .into_iter()
            .all(free);
    sound.then(|| Stmt::RowAxpys {
        width: *width,
        vals: vals.clone(),
        crd: crd.clone(),
        weights: weights.clone(),
        pos,
        at: Box::new((stride.clone(), offset.clone())),
        out_at: Box::new((out_stride.clone(), out_offset.clone())),
        rows: Box::new(rows),
        ahead: *ahead,
    })
}

/// `(stride, offset)` where `store` is `tile t in 0..width { let q = (r * stride + offset) + t;
/// out[q] = acc[t]; }`: the whole tile stored into row `r` of the dense output.
fn stored_tile<'s>(
    store: &'s Stmt,
    acc: &Var,
    width: usize,
    r: &Var,
) -> Option<(&'s Expr, &'s Expr)> {
    let Stmt::Tile {
        var: t,
        width: w,
        body,
    } = store
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
            place: Place::Elem(Array::Vals { param: 0 }, at),
            op: UpdateOp::Set,
            value: Expr::Load(Array::Temp(read), slot),
            sync: Sync::Owned,
        },
    ] = body.as_slice()
    else {
        return None;
    };
    let whole =
        *w == width && read == acc && **slot == Expr::Var(t.clone()) && *at == Expr::Var(q.clone());
    whole.then(|| row_start(init, r, t))?
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
        // Added into C, the tile is not a run of rows: its axpy stays one row's.
        let ir = printed(quote! {
            fn spmm; C(i,k) += A(i,j) * B(j,k); formats<A: csr>;
        });
        let axpy = "__acc[0..32] += axpy(A.vals, B.vals[A.l1.crd[p] * B.l1.size + __kb], \
                    __pA1_start..A.l1.pos[__i + 1], ahead 32);";
        assert!(ir.contains(axpy), "{ir}");
        assert!(ir.contains("__acc_1[0..16] += axpy("), "{ir}");
        assert!(!ir.contains("axpys("), "{ir}");
    }

    #[test]
    fn a_loop_of_spmm_rows_is_one_run_of_axpys() {
        let ir = printed(quote! {
            fn spmm; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
        });
        let run = "C.vals[r * C.l1.size + __kb, 0..32] = axpys(A.vals, B.vals[A.l1.crd[p] * \
                   B.l1.size + __kb], A.l1.pos, r in 0..C.shape[0], ahead 32);";
        assert!(ir.contains(run), "{ir}");
        assert!(ir.contains("0..16] = axpys("), "{ir}");
        assert!(!ir.contains("tile __t"), "{ir}");
        // A row split's rows are its blocks' own: each block's rows are one run.
        let split = printed(quote! {
            fn spmm; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
            schedule<split(i,i0,i1,Down,16).parallelize(i0,CpuThread,NoRaces)>;
        });
        let block = "0..32] = axpys(A.vals, B.vals[A.l1.crd[p] * B.l1.size + __kb], A.l1.pos, \
                     r in 0 + (__i0 * 16 + 0)..0 + (__i0 * 16 + min(16, C.shape[0] - 0 - __i0 * 16)), \
                     ahead 32);";
        assert!(split.contains(block), "{split}");
    }

    #[test]
    fn rows_not_stored_whole_into_the_output_s_own_row_stay_loops() {
        for kernel in [
            // Scaled before it is stored.
            quote! { fn f; C(i,k) = A(i,j) * B(j,k) * 2; formats<A: csr>; },
            // DCSR: the output's row is a stored coordinate, not the loop's.
            quote! { fn f; C(i,k) = A(i,j) * B(j,k); formats<A: dcsr>; },
        ] {
            let ir = printed(kernel);
            assert!(!ir.contains("axpys("), "{ir}");
        }
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
