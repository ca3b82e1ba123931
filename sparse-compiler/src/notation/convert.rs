//! Operands that no loop order can visit in storage order (CSR `.*` CSC): such an input is
//! converted, when the kernel runs, into a copy with the same level formats whose levels follow a
//! loop order concordant with the other tensors. A copy costs a sort of the operand, so it is only
//! planned when nothing else works; formats whose levels do not each store a whole dimension
//! (ELL, DIA, BCSR) are never converted and the conflict stays an error.

use super::order::{default_order, order_edges, order_skipping};
use super::{Cin, Expr, IndexVar, Lhs, Program, concretize};
use crate::error::{Error, ErrorKind, Errors};
use crate::format::{Coord, FormatType, LevelSpec, level_of, properties};

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

/// A partial sum computed by a `where` producer inside the loops of the variables it does not
/// sum runs its own loops innermost; a tensor whose storage order needs one of the sum's
/// variables outside one of the enclosing loops (CSC in `b(i) - A(i,j)*x(j)`) is converted into
/// a copy whose levels follow the enclosing loops first.
pub fn plan_nested_conversions(program: &mut Program) -> Result<(), Errors> {
    for _ in 0..program.tensors.len() {
        let cin = concretize(program)?;
        let Some((t, order)) = nested_conflict(program, &cin, &[]) else {
            return Ok(());
        };
        let Some(levels) = levels_in_order(program, t, &order) else {
            let tensor = &program.tensors[t];
            let suggestion = format!(
                "store `{}` with its levels in the order of the enclosing loops",
                tensor.name
            );
            let kind = ErrorKind::NoConcordantOrder {
                tensor: tensor.name.clone(),
                suggestion,
            };
            return Err(vec![Error::new(tensor.span, kind)]);
        };
        program.tensors[t].convert_to = Some(FormatType::Custom(levels.clone()));
        relabel(&mut program.rhs, t, &levels);
        program.tensors[t].levels = levels;
    }
    Ok(())
}

/// The first tensor a producer visits against its storage order, with the loop order it needs:
/// the enclosing loops, then the producer's.
fn nested_conflict(
    program: &Program,
    cin: &Cin,
    enclosing: &[IndexVar],
) -> Option<(usize, Vec<IndexVar>)> {
    match cin {
        Cin::Forall { var, body } => {
            let mut enclosing = enclosing.to_vec();
            enclosing.push(*var);
            nested_conflict(program, body, &enclosing)
        }
        Cin::Where { consumer, producer } => {
            let mut inner = Vec::new();
            producer_loops(producer, &mut inner);
            let rhs = producer_rhs(producer)?;
            // The producer's accesses need the enclosing loops, then its own, in their storage
            // order: a producer nested in another sees the outer producer's loops inside the
            // consumer's.
            let mut order = enclosing.to_vec();
            order.extend(inner);
            let at = |v: &IndexVar| order.iter().position(|x| x == v);
            let conflict = order_edges(program, rhs)
                .into_iter()
                .find(|(a, b, _)| matches!((at(a), at(b)), (Some(a), Some(b)) if a > b));
            if let Some((_, _, t)) = conflict {
                return Some((t, order));
            }
            nested_conflict(program, consumer, enclosing)
                .or_else(|| nested_conflict(program, producer, enclosing))
        }
        Cin::Assign { .. } => None,
    }
}

fn producer_loops(cin: &Cin, out: &mut Vec<IndexVar>) {
    if let Cin::Forall { var, body } = cin {
        out.push(*var);
        producer_loops(body, out);
    }
}

fn producer_rhs(cin: &Cin) -> Option<&Expr> {
    match cin {
        Cin::Forall { body, .. } => producer_rhs(body),
        Cin::Where { consumer, .. } => producer_rhs(consumer),
        Cin::Assign { rhs, .. } => Some(rhs),
    }
}

/// Tensor `t`'s level formats with their dimensions in the order `order` visits their variables.
/// Slot, block and range levels cannot be permuted: such a tensor is copied into dense rows over
/// compressed levels in that order.
fn levels_in_order(program: &Program, t: usize, order: &[IndexVar]) -> Option<Vec<LevelSpec>> {
    let tensor = &program.tensors[t];
    let levels = match tensor
        .levels
        .iter()
        .all(|l| matches!(l.coord, Coord::Dim(_)))
    {
        true => tensor.levels.clone(),
        false => rows_over_compressed(tensor.order),
    };
    let mut accesses = Vec::new();
    collect_accesses(&program.rhs, t, &mut accesses);
    let indices = accesses.first()?.clone();
    if accesses.iter().any(|a| *a != indices) {
        return None;
    }
    let rank = |d: usize| {
        order
            .iter()
            .position(|&v| Some(&v) == indices.get(d))
            .unwrap_or(usize::MAX)
    };
    let mut dims: Vec<usize> = (0..tensor.order).collect();
    dims.sort_by_key(|&d| rank(d));
    Some(
        (levels.iter().zip(dims))
            .map(|(l, d)| l.with_coord(Coord::Dim(d)))
            .collect(),
    )
}

/// An input with levels that do not each store a whole dimension (ELL's slots, DIA's diagonals,
/// BCSR's blocks) is iterated through loops over those hidden levels, and whatever the statement
/// computes inside them runs once per slot. When a term of a sum inside such a loop does not read
/// the input (`C(i,j) * x(j) + B(i,j) * x(j)` with `B` in ELL), it would be added once per slot;
/// the input is then copied, when the kernel runs, into dense rows over compressed levels.
pub fn plan_slot_copies(program: &mut Program) {
    for t in 1..program.tensors.len() {
        let tensor = &program.tensors[t];
        let whole = |l: &LevelSpec| matches!(l.coord, Coord::Dim(_));
        if tensor.convert_to.is_some() || tensor.levels.iter().all(whole) {
            continue;
        }
        let mut hidden = Vec::new();
        collect_hidden(&program.rhs, t, &mut hidden);
        let Ok(cin) = concretize(program) else {
            continue;
        };
        if repeats_other_terms(&cin, &hidden, t, false) {
            let levels = rows_over_compressed(tensor.order);
            program.tensors[t].convert_to = Some(FormatType::Custom(levels.clone()));
            relabel(&mut program.rhs, t, &levels);
            program.tensors[t].levels = levels;
        }
    }
}

/// A range level (DIA's rows within a diagonal) is iterated as a bounded dense loop, which cannot
/// also walk another operand's sparse level over the same variable (DIA `.*` COO, or a DIA
/// matrix whose rows meet another DIA's diagonals in a product); such an input is copied, when the
/// kernel runs, into dense rows over compressed levels, as for [`plan_slot_copies`].
pub fn plan_range_copies(program: &mut Program) {
    let mut accesses = Vec::new();
    collect_all(&program.rhs, &mut accesses);
    for t in 1..program.tensors.len() {
        let tensor = &program.tensors[t];
        let merged = accesses.iter().filter(|a| a.tensor == t).any(|a| {
            (tensor.levels.iter().zip(&a.level_vars)).any(|(level, &v)| {
                level_of(level).bounded() && sparse_elsewhere(program, &accesses, t, v)
            })
        });
        if tensor.convert_to.is_none() && merged {
            let levels = rows_over_compressed(tensor.order);
            program.tensors[t].convert_to = Some(FormatType::Custom(levels.clone()));
            relabel(&mut program.rhs, t, &levels);
            program.tensors[t].levels = levels;
        }
    }
}

/// Dense rows over compressed levels, for an input of order `order`: what slot, block and range
/// formats are copied into when their own levels cannot be iterated.
fn rows_over_compressed(order: usize) -> Vec<LevelSpec> {
    (0..order)
        .map(|d| match d {
            0 => LevelSpec::dense(0),
            _ => LevelSpec::compressed(d),
        })
        .collect()
}

/// The variables of tensor `t`'s levels that no logical index names (slots, block parts).
fn collect_hidden(e: &Expr, t: usize, out: &mut Vec<IndexVar>) {
    match e {
        Expr::Access { access, .. } if access.tensor == t => {
            out.extend((access.level_vars.iter()).filter(|v| !access.indices.contains(v)))
        }
        Expr::Access { .. } | Expr::Temp(_) | Expr::Literal(_) => {}
        Expr::Neg(x) => collect_hidden(x, t, out),
        Expr::Binary(_, a, b) => {
            collect_hidden(a, t, out);
            collect_hidden(b, t, out);
        }
    }
}

/// Whether an assignment to the output or a sum inside a loop over one of `hidden` has a term
/// that does not read `t`.
fn repeats_other_terms(cin: &Cin, hidden: &[IndexVar], t: usize, inside: bool) -> bool {
    match cin {
        Cin::Forall { var, body } => {
            repeats_other_terms(body, hidden, t, inside || hidden.contains(var))
        }
        Cin::Where { consumer, producer } => {
            repeats_other_terms(consumer, hidden, t, inside)
                || repeats_other_terms(producer, hidden, t, inside)
        }
        // A temporary assigned once per slot is harmless; a sum or the output is not.
        Cin::Assign {
            lhs,
            accumulate,
            rhs,
        } => inside && (*accumulate || *lhs == Lhs::Output) && !every_term_reads(rhs, t),
    }
}

/// Whether every term of `e` as a sum reads tensor `t`.
fn every_term_reads(e: &Expr, t: usize) -> bool {
    e.sum_terms().into_iter().all(|term| {
        let mut reads = Vec::new();
        collect_accesses(term, t, &mut reads);
        !reads.is_empty()
    })
}

/// Iterator conversion for unordered levels (seed-formats.md §3.5): an input whose hashed or
/// unordered level must be merged with another operand's sparse level over the same variable is
/// copied, when the kernel runs, into a sorted format: hashed levels become compressed, unordered
/// ones ordered. (Alone, or against dense operands, an unordered level is iterated as it is.)
///
/// Runs again after the conversions to a concordant order, which can bring a hashed level under
/// the same loop as another operand's sparse one (CSC `.*` a hashed matrix); a converted tensor's
/// copy then gets its levels sorted too.
pub fn plan_sorted_copies(program: &mut Program) {
    let mut accesses = Vec::new();
    collect_all(&program.rhs, &mut accesses);
    for t in 1..program.tensors.len() {
        let tensor = &program.tensors[t];
        if !tensor
            .levels
            .iter()
            .all(|l| matches!(l.coord, Coord::Dim(_)))
        {
            continue;
        }
        let merged = accesses.iter().filter(|a| a.tensor == t).any(|a| {
            tensor.levels.iter().zip(&a.level_vars).any(|(level, &v)| {
                let unordered = !properties(level).ordered;
                unordered && sparse_elsewhere(program, &accesses, t, v)
            })
        });
        if merged {
            let levels: Vec<_> = tensor.levels.iter().map(|l| sorted(*l)).collect();
            program.tensors[t].convert_to = Some(FormatType::Custom(levels.clone()));
            program.tensors[t].levels = levels;
        }
    }
}

/// Whether another tensor's access iterates `v` by position (a level without locate).
fn sparse_elsewhere(program: &Program, accesses: &[super::Access], t: usize, v: IndexVar) -> bool {
    accesses.iter().filter(|a| a.tensor != t).any(|a| {
        let levels = &program.tensors[a.tensor].levels;
        levels
            .iter()
            .zip(&a.level_vars)
            .any(|(l, &x)| x == v && !level_of(l).full())
    })
}

/// The same level, sorted: a hashed level becomes compressed.
fn sorted(level: LevelSpec) -> LevelSpec {
    let kind = level_of(&level).sorted_substitute().unwrap_or(level.kind);
    LevelSpec {
        kind,
        ordered: true,
        ..level
    }
}

fn collect_all(e: &Expr, out: &mut Vec<super::Access>) {
    match e {
        Expr::Access { access, .. } => out.push(access.clone()),
        Expr::Temp(_) | Expr::Literal(_) => {}
        Expr::Neg(x) => collect_all(x, out),
        Expr::Binary(_, a, b) => {
            collect_all(a, out);
            collect_all(b, out);
        }
    }
}

fn loop_vars(program: &Program) -> Vec<IndexVar> {
    let mut used = program.output.indices.clone();
    program.rhs.collect_loop_vars(&mut used);
    program.loop_vars_of(&used)
}

/// Tensor `t`'s level formats with their dimensions reordered to follow a loop order that the
/// other tensors allow, if `t` is accessed one way only and its levels store whole dimensions.
fn concordant_levels(program: &Program, t: usize, vars: &[IndexVar]) -> Option<Vec<LevelSpec>> {
    let order = order_skipping(program, &program.rhs, vars, Some(t)).ok()?;
    levels_in_order(program, t, &order)
}

/// Points the level variables of tensor `t`'s accesses at its new levels.
fn relabel(e: &mut Expr, t: usize, levels: &[LevelSpec]) {
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

/// The indices of every read of tensor `t` in `e`.
pub(super) fn collect_accesses(e: &Expr, t: usize, out: &mut Vec<Vec<IndexVar>>) {
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
