//! Operands that no loop order can visit in storage order (CSR `.*` CSC): such an input is
//! converted, when the kernel runs, into a copy with the same level formats whose levels follow a
//! loop order concordant with the other tensors. A copy costs a sort of the operand, so it is only
//! planned when nothing else works; formats whose levels do not each store a whole dimension
//! (ELL, DIA, BCSR) are never converted and the conflict stays an error.

use super::order::{default_order, order_skipping};
use super::{Expr, IndexVar, Program};
use crate::error::Errors;
use crate::format::{Coord, FormatType};

/// Plans the conversions `program` needs, updating the converted tensors' levels.
pub fn plan_conversions(program: &mut Program) -> Result<(), Errors> {
    let vars = loop_vars(program);
    let Err(conflict) = default_order(program, &program.rhs, &vars) else {
        return Ok(());
    };
    for t in (1..program.tensors.len()).rev() {
        if let Some(levels) = concordant_levels(program, t, &vars) {
            program.tensors[t].convert_to = Some(FormatType::Custom(levels.clone()));
            relabel(&mut program.rhs, t, &levels);
            program.tensors[t].levels = levels;
            if default_order(program, &program.rhs, &vars).is_ok() {
                return Ok(());
            }
        }
    }
    Err(vec![conflict])
}

fn loop_vars(program: &Program) -> Vec<IndexVar> {
    let mut used = program.output.indices.clone();
    program.rhs.collect_loop_vars(&mut used);
    program.loop_vars_of(&used)
}

/// Tensor `t`'s level formats with their dimensions reordered to follow a loop order that the
/// other tensors allow, if `t` is accessed one way only and its levels store whole dimensions.
fn concordant_levels(
    program: &Program,
    t: usize,
    vars: &[IndexVar],
) -> Option<Vec<crate::format::LevelSpec>> {
    let tensor = &program.tensors[t];
    if !tensor
        .levels
        .iter()
        .all(|l| matches!(l.coord, Coord::Dim(_)))
    {
        return None;
    }
    let mut accesses = Vec::new();
    collect_accesses(&program.rhs, t, &mut accesses);
    let indices = accesses.first()?.clone();
    if accesses.iter().any(|a| *a != indices) {
        return None;
    }
    let order = order_skipping(program, &program.rhs, vars, Some(t)).ok()?;
    let rank = |d: usize| {
        order
            .iter()
            .position(|&v| Some(&v) == indices.get(d))
            .unwrap_or(usize::MAX)
    };
    let mut dims: Vec<usize> = (0..tensor.order).collect();
    dims.sort_by_key(|&d| rank(d));
    let levels = tensor
        .levels
        .iter()
        .zip(dims)
        .map(|(l, d)| l.with_coord(Coord::Dim(d)))
        .collect();
    Some(levels)
}

/// Points the level variables of tensor `t`'s accesses at its new levels.
fn relabel(e: &mut Expr, t: usize, levels: &[crate::format::LevelSpec]) {
    match e {
        Expr::Access { access, .. } if access.tensor == t => {
            access.level_vars = levels
                .iter()
                .map(|l| {
                    l.coord
                        .dim()
                        .and_then(|d| access.indices.get(d).copied())
                        .unwrap_or(0)
                })
                .collect();
        }
        Expr::Access { .. } | Expr::Temp(_) | Expr::Literal(_) => {}
        Expr::Neg(x) => relabel(x, t, levels),
        Expr::Binary(_, a, b) => {
            relabel(a, t, levels);
            relabel(b, t, levels);
        }
    }
}

fn collect_accesses(e: &Expr, t: usize, out: &mut Vec<Vec<IndexVar>>) {
    match e {
        Expr::Access { access, .. } if access.tensor == t => out.push(access.indices.clone()),
        Expr::Access { .. } | Expr::Temp(_) | Expr::Literal(_) => {}
        Expr::Neg(x) => collect_accesses(x, t, out),
        Expr::Binary(_, a, b) => {
            collect_accesses(a, t, out);
            collect_accesses(b, t, out);
        }
    }
}
