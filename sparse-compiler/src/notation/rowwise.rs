//! [`Rule::RowWise`]: Gustavson's row-wise product for a sparse output whose sums the operands'
//! storage orders put in the wrong place.
//!
//! `G(i,j) = A(k,i) * A(k,j)` (AᵀA) with A in CSR has one concordant loop order, k, i, j: the sum
//! over the rows of A is outermost and each row adds its outer product into entries of G all over
//! the output, which the kernel can only collect as triples and sort. `G(i,j) = A(i,k) * A(j,k)`
//! (A Aᵀ) runs i, j, k: the sum is innermost, but the loop over `j` is dense and merges two rows
//! for every pair of coordinates, stored or not. For a product of sparse operands into a matrix
//! with a compressed level, the order that runs every sum between the output's two loops (i, k, j)
//! is Gustavson's: each row of the result is gathered in a dense workspace over its columns and
//! appended in order. A masked product (the output takes a factor's structure, as triangle
//! counting's `C(i,j) = A(i,j) * A(i,k) * A(k,j)` does) runs the sums innermost instead, one
//! sparse dot product per stored coordinate. The operands whose storage order goes against that
//! order are copied, transposed, when the kernel runs (a tensor read in two orders first gives
//! the discordant reads a tensor of their own). A transposed copy costs a counting sort of one
//! operand, linear in its entries; the scattered triples it replaces are as many as the
//! products, sorted: on AᵀA the copy and the row-wise product are about three times faster
//! (BENCHMARKS.md, "Sparse outputs from any loop order"), so the rule applies whenever it can.

use super::convert::{collect_accesses, levels_in_order, loop_vars};
use super::order::default_order;
use super::plan::{Change, Rule};
use super::{Access, Expr, IndexVar, Program};
use crate::format::level_of;

/// The change [`Rule::RowWise`] proposes for `program`: a split of a discordant read of a tensor
/// read in several orders, or transposed copies of the discordant operands, if they give the
/// row-wise order.
pub(super) fn row_wise_changes(program: &Program) -> Vec<Change> {
    let Some(target) = row_wise_order(program) else {
        return Vec::new();
    };
    let mut discordant = Vec::new();
    collect_discordant(program, &program.rhs, &target, &mut discordant);
    let mut changes = Vec::new();
    let mut trial = program.clone();
    for access in discordant {
        let t = access.tensor;
        let mut reads = Vec::new();
        collect_accesses(&program.rhs, t, &mut reads);
        if reads.iter().any(|r| *r != access.indices) {
            // One change at a time: the copy of the split-off reads comes in the next round.
            let indices = access.indices.clone();
            return vec![Change::Split { tensor: t, indices }];
        }
        if changes
            .iter()
            .any(|c| matches!(c, Change::Copy((u, _)) if *u == t))
        {
            continue;
        }
        let Some(levels) = levels_in_order(program, t, &target) else {
            return Vec::new();
        };
        trial.record_copy(t, levels.clone(), Rule::RowWise);
        changes.push(Change::Copy((t, levels)));
    }
    match !changes.is_empty() && row_wise_order(&trial).is_none() {
        true => changes,
        false => Vec::new(),
    }
}

/// The row-wise loop order (the output's first variable, the sums, the output's second
/// variable) when `program` would not run it by default: a product of sparse operands into an
/// assembled matrix whose default order puts a sum outside the output's first loop, or inside a
/// dense loop over its second. For a masked output, [`masked_order`].
fn row_wise_order(program: &Program) -> Option<Vec<IndexVar>> {
    let out = &program.output;
    let masked = program.pattern_source().is_some();
    if !(program.assembles_output() || masked)
        || out.level_vars.len() != 2
        || !is_product(&program.rhs)
    {
        return None;
    }
    let (first, second) = (out.level_vars[0], out.level_vars[1]);
    let vars = loop_vars(program);
    let sums: Vec<IndexVar> = (vars.iter().copied())
        .filter(|v| !out.level_vars.contains(v))
        .collect();
    let order = default_order(program, &program.rhs, &vars).ok()?;
    let at = |v: IndexVar| order.iter().position(|&x| x == v);
    if masked {
        return masked_order(&sums, first, second, &order);
    }
    let scattered = sums.iter().any(|&s| at(s) < at(first));
    let pairwise = sums.iter().all(|&s| at(s) > at(second)) && !iterates_sparse(program, second);
    if sums.is_empty() || !(scattered || pairwise) {
        return None;
    }
    let mut target = vec![first];
    target.extend(order.iter().copied().filter(|v| sums.contains(v)));
    target.push(second);
    Some(target)
}

/// The order of a masked product (the output takes a factor's structure, as in triangle
/// counting's `C(i,j) = A(i,j) * A(i,k) * A(k,j)`): the output's loops over the mask's stored
/// coordinates, then the sums innermost, one sparse dot product per stored coordinate, when the
/// default order puts a sum outside the output's second loop (which the mask cannot take).
fn masked_order(
    sums: &[IndexVar],
    first: IndexVar,
    second: IndexVar,
    order: &[IndexVar],
) -> Option<Vec<IndexVar>> {
    let at = |v: IndexVar| order.iter().position(|&x| x == v);
    if sums.is_empty() || sums.iter().all(|&s| at(s) > at(second)) {
        return None;
    }
    let mut target = vec![first, second];
    target.extend(order.iter().copied().filter(|v| sums.contains(v)));
    Some(target)
}

/// Whether `e` is a product: every operand of every operator is a factor whose zero makes the
/// whole zero (literals aside), so the sums may run in any order around the output's loops.
fn is_product(e: &Expr) -> bool {
    match e {
        Expr::Access { .. } | Expr::Literal(_) => true,
        Expr::Temp(_) => false,
        Expr::Op(_, args) => {
            let required = e.required_operands();
            (args.iter().enumerate())
                .all(|(k, a)| (required.contains(&k) || a.constant().is_some()) && is_product(a))
        }
    }
}

/// Whether some input iterates `v` at a sparse level (so a loop over it visits only stored
/// coordinates).
fn iterates_sparse(program: &Program, v: IndexVar) -> bool {
    let mut all = Vec::new();
    accesses(&program.rhs, &mut all);
    all.iter().any(|a| {
        let levels = program.iterated_levels(a.tensor);
        (a.level_vars.iter().zip(levels)).any(|(&lv, l)| lv == v && !level_of(l).full())
    })
}

/// The accesses whose sparse levels `order` visits against their storage order.
fn collect_discordant<'e>(
    program: &Program,
    e: &'e Expr,
    order: &[IndexVar],
    out: &mut Vec<&'e Access>,
) {
    let mut all = Vec::new();
    accesses(e, &mut all);
    let at = |v: IndexVar| order.iter().position(|&x| x == v);
    for access in all {
        let levels = program.iterated_levels(access.tensor);
        let vars = &access.level_vars;
        let against = (1..levels.len().min(vars.len()))
            .filter(|&k| !level_of(&levels[k]).full())
            .any(|k| (0..k).any(|above| at(vars[above]) > at(vars[k])));
        if against {
            out.push(access);
        }
    }
}

fn accesses<'e>(e: &'e Expr, out: &mut Vec<&'e Access>) {
    match e {
        Expr::Access { access, .. } => out.push(access),
        Expr::Temp(_) | Expr::Literal(_) => {}
        Expr::Op(_, args) => args.iter().for_each(|a| accesses(a, out)),
    }
}
