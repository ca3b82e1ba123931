//! SIMD loop shaping: each `CpuVector` region becomes one a back end prints in lanes, or a plain
//! loop where its body does not fit lanes.
//!
//! A lane region leaves this pass with a body of exactly one [`Stmt::Update`] whose value is built
//! from lane loads (`array[c + v]`, or a gather `array[crd[c + v]]`), loop invariants and `+ - *`:
//! - a store `out[b + v] (+)= value`, where no other iteration writes `out[b + v]`;
//! - or a sum `s += value` into a scalar declared outside, recorded as a [`Reduction`] over lanes.
//!
//! A region whose body is one loop that does not depend on the lane variable (the seed's SpMM
//! schedule: lanes over `j` around a loop over a few nonzeros of the row) has that loop moved
//! outside first: each lane still sees the inner iterations in the same order, so the sums are
//! unchanged, and the lanes then hold a store.

use crate::ir::{
    Array, BinOp, Expr, Kernel, OutputAccess, Place, ReduceOp, Reduction, Region, Scope, Stmt,
    Type, UpdateOp, Var, mentions, substitute,
};

/// `kernel` with every lane region shaped.
pub(super) fn shape(mut kernel: Kernel) -> Kernel {
    kernel.body = stmts(kernel.body, None);
    kernel
}

/// `enclosing`: how the thread region around these statements reaches the output, if any.
fn stmts(stmts: Vec<Stmt>, enclosing: Option<&OutputAccess>) -> Vec<Stmt> {
    stmts.into_iter().map(|s| stmt(s, enclosing)).collect()
}

fn stmt(stmt: Stmt, enclosing: Option<&OutputAccess>) -> Stmt {
    match stmt {
        Stmt::Parallel(region) if region.unit == crate::ir::Unit::CpuVector => {
            lane_region(region, enclosing)
        }
        Stmt::Parallel(mut region) => {
            let body = std::mem::take(&mut region.body);
            region.body = stmts(body, Some(&region.output));
            Stmt::Parallel(region)
        }
        mut other => {
            for body in other.bodies_mut() {
                *body = stmts(std::mem::take(body), enclosing);
            }
            other
        }
    }
}

fn lane_region(region: Region, enclosing: Option<&OutputAccess>) -> Stmt {
    let Region {
        var, lo, hi, body, ..
    } = region;
    // Lanes gather without `prefetch` hints: a hint per lane would cost what it saves.
    let body: Vec<Stmt> = (body.into_iter())
        .filter(|s| !matches!(s, Stmt::PrefetchGather { .. }))
        .collect();
    // Index `let`s before the update (positions the lowerer bound) are inlined into it.
    let split = body.iter().take_while(|s| is_index_let(s)).count();
    let (lets, rest) = body.split_at(split);
    if let Some(swapped) = swap_inner_loop(&var, &lo, &hi, lets, rest) {
        return stmt(swapped, enclosing);
    }
    let shaped = match rest {
        [
            Stmt::Update {
                place, op, value, ..
            },
        ] => {
            let value = inline_lets(lets, value);
            match place {
                Place::Var(sum) => lane_sum(&var, sum, *op, &value),
                Place::Elem(array, index) => {
                    let index = inline_lets(lets, index);
                    lane_store(&var, array, &index, *op, &value, enclosing)
                }
            }
        }
        _ => None,
    };
    match shaped {
        Some((update, output, reductions)) => Stmt::Parallel(Region {
            unit: crate::ir::Unit::CpuVector,
            var,
            lo,
            hi,
            body: vec![update],
            output,
            reductions,
            units: None,
            work: None,
        }),
        None => stmt(Stmt::For { var, lo, hi, body }, enclosing),
    }
}

type Shaped = (Stmt, OutputAccess, Vec<Reduction>);

/// `sum += value` over the lanes: one lane accumulator, reduced into `sum` at the end.
fn lane_sum(var: &Var, sum: &Var, op: UpdateOp, value: &Expr) -> Option<Shaped> {
    let UpdateOp::Reduce(ReduceOp::Add) = op else {
        return None;
    };
    // Lanes with nothing to load would only splat one invariant.
    if !lane_value(var, value) || count_lane_loads(var, value) == 0 {
        return None;
    }
    let reduction = Reduction {
        var: sum.clone(),
        op: ReduceOp::Add,
        scope: Scope::Lanes,
    };
    let update = Stmt::assign(sum.clone(), value.clone(), true);
    Some((update, OutputAccess::Untouched, vec![reduction]))
}

/// `array[b + var] (+)= value` over the lanes.
fn lane_store(
    var: &Var,
    array: &Array,
    index: &Expr,
    op: UpdateOp,
    value: &Expr,
    enclosing: Option<&OutputAccess>,
) -> Option<Shaped> {
    lane_base(var, index)?;
    // Lanes add; other reductions run as a plain loop.
    let adds = matches!(op, UpdateOp::Set | UpdateOp::Reduce(ReduceOp::Add));
    if !adds || !lane_value(var, value) || loads_from(array, value) {
        return None;
    }
    let output = matches!(array, Array::Vals { param: 0 });
    // Inside a thread region, lanes write the output only where the thread owns plain blocks of
    // it: elsewhere its writes go through atomic cells, one element at a time.
    let owned = matches!(enclosing, None | Some(OutputAccess::Blocks { .. }));
    if output && !owned {
        return None;
    }
    let access = match output {
        true => OutputAccess::Scattered,
        false => OutputAccess::Untouched,
    };
    let update = Stmt::Update {
        place: Place::Elem(array.clone(), index.clone()),
        op,
        value: value.clone(),
        sync: crate::ir::Sync::Owned,
    };
    Some((update, access, Vec::new()))
}

/// Whether `value` can be computed in lanes: loads at `c + var` (or gathers at `crd[c + var]`)
/// become lane loads, loop invariants splats, and `+ - *` combine them.
fn lane_value(var: &Var, value: &Expr) -> bool {
    if !mentions(var, value) {
        return true;
    }
    match value {
        Expr::Load(Array::Vals { .. } | Array::Temp(_), index) => match &**index {
            Expr::Load(Array::Crd { .. }, at) => lane_base(var, at).is_some(),
            index => lane_base(var, index).is_some(),
        },
        Expr::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul, a, b) => {
            lane_value(var, a) && lane_value(var, b)
        }
        _ => false,
    }
}

fn count_lane_loads(var: &Var, value: &Expr) -> usize {
    match value {
        _ if !mentions(var, value) => 0,
        Expr::Binary(_, a, b) => count_lane_loads(var, a) + count_lane_loads(var, b),
        _ => 1,
    }
}

/// `b` when `index` is `b + var` or `var` (then `0`), with `b` not mentioning `var`.
pub fn lane_base(var: &Var, index: &Expr) -> Option<Expr> {
    match index {
        Expr::Var(v) if v == var => Some(Expr::Index(0)),
        Expr::Binary(BinOp::Add, b, v) | Expr::Binary(BinOp::Add, v, b)
            if matches!(&**v, Expr::Var(x) if x == var) && !mentions(var, b) =>
        {
            Some((**b).clone())
        }
        _ => None,
    }
}

/// A lane region whose body is a loop that does not depend on the lane variable, with that loop
/// moved outside: `for k { (its lets that do not read var) lanes over var { lets; rest } }`.
fn swap_inner_loop(var: &Var, lo: &Expr, hi: &Expr, lets: &[Stmt], rest: &[Stmt]) -> Option<Stmt> {
    let [
        Stmt::For {
            var: k,
            lo: k_lo,
            hi: k_hi,
            body: inner,
        },
    ] = rest
    else {
        return None;
    };
    let defined: Vec<&Var> = lets
        .iter()
        .filter_map(|s| match s {
            Stmt::Let { var, .. } => Some(var),
            _ => None,
        })
        .collect();
    let independent = |e: &Expr| !mentions(var, e) && defined.iter().all(|d| !mentions(d, e));
    if !independent(k_lo) || !independent(k_hi) || mentions(k, lo) || mentions(k, hi) {
        return None;
    }
    let hoisted = inner
        .iter()
        .take_while(|s| matches!(s, Stmt::Let { init, .. } if is_index_let(s) && independent(init)))
        .count();
    let mut lane_body = lets.to_vec();
    lane_body.extend_from_slice(&inner[hoisted..]);
    let mut k_body = inner[..hoisted].to_vec();
    k_body.push(Stmt::Parallel(Region {
        unit: crate::ir::Unit::CpuVector,
        var: var.clone(),
        lo: lo.clone(),
        hi: hi.clone(),
        body: lane_body,
        output: OutputAccess::Scattered,
        reductions: Vec::new(),
        units: None,
        work: None,
    }));
    Some(Stmt::For {
        var: k.clone(),
        lo: k_lo.clone(),
        hi: k_hi.clone(),
        body: k_body,
    })
}

fn is_index_let(stmt: &Stmt) -> bool {
    matches!(
        stmt,
        Stmt::Let {
            ty: Type::Index,
            mutable: false,
            ..
        }
    )
}

/// `expr` with the variables of `lets` replaced by their values.
fn inline_lets(lets: &[Stmt], expr: &Expr) -> Expr {
    lets.iter().rev().fold(expr.clone(), |e, s| match s {
        Stmt::Let { var, init, .. } => substitute(&e, var, init),
        _ => e,
    })
}

/// Whether `expr` loads from `array`.
fn loads_from(array: &Array, expr: &Expr) -> bool {
    match expr {
        Expr::Load(a, e) => a == array || loads_from(array, e),
        _ => crate::ir::visit::operands(expr)
            .into_iter()
            .any(|e| loads_from(array, e)),
    }
}
