//! The rules of the copy planner (`plan`): each looks at the program as planned so far and
//! proposes the inputs to copy, when the kernel runs, into levels it can iterate.
//!
//! Operands that no loop order can visit in storage order (CSR `.*` CSC) are copied with the same
//! level formats, their levels following a loop order concordant with the other tensors. A copy
//! costs a sort of the operand, so it is only planned when nothing else works; formats whose
//! levels do not each store a whole dimension (ELL, DIA, BCSR) are never reordered and the
//! conflict stays an error.

use super::order::{default_order, order_edges, order_skipping};
use super::plan::{Proposal, Rule};
use super::{Cin, Expr, IndexVar, Lhs, Program, concretize};
use crate::error::{Error, ErrorKind, Errors};
use crate::format::{Coord, LevelSpec, level_of, properties};

/// [`Rule::Concordant`]: when no loop order is concordant with every operand, the operands
/// (last first) whose levels can follow an order the others allow, until one exists. Each copy is
/// tried on the program with the earlier ones, and all of them are proposed together.
pub(super) fn concordant_copies(program: &Program) -> Result<Vec<Proposal>, Errors> {
    let vars = loop_vars(program);
    let Err(conflict) = default_order(program, &program.rhs, &vars) else {
        return Ok(Vec::new());
    };
    let mut trial = program.clone();
    let mut proposals = Vec::new();
    for t in (1..program.tensors.len()).rev() {
        if let Some(levels) = concordant_levels(&trial, t, &vars) {
            trial.record_copy(t, levels.clone(), Rule::Concordant);
            proposals.push((t, levels));
            if default_order(&trial, &trial.rhs, &vars).is_ok() {
                return Ok(proposals);
            }
        }
    }
    Err(vec![conflict])
}

/// A partial sum computed by a `where` producer inside the loops of the variables it does not
/// sum runs its own loops innermost; a tensor whose storage order needs one of the sum's
/// variables outside one of the enclosing loops (CSC in `b(i) - A(i,j)*x(j)`) is converted into
/// a copy whose levels follow the enclosing loops first.
///
/// [`Rule::Nested`] proposes one copy at a time: it changes the loops the next conflict is looked
/// for in.
pub(super) fn nested_copies(program: &Program) -> Result<Vec<Proposal>, Errors> {
    let cin = concretize(program)?;
    let Some((t, order)) = nested_conflict(program, &cin, &[]) else {
        return Ok(Vec::new());
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
    Ok(vec![(t, levels)])
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
        Cin::Sequence { first, second } => nested_conflict(program, first, enclosing)
            .or_else(|| nested_conflict(program, second, enclosing)),
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
        Cin::Sequence { .. } => None,
        Cin::Assign { rhs, .. } => Some(rhs),
    }
}

/// Tensor `t`'s level formats with their dimensions in the order `order` visits their variables.
/// Slot, block and range levels cannot be permuted: such a tensor is copied into dense rows over
/// compressed levels in that order.
pub(super) fn levels_in_order(
    program: &Program,
    t: usize,
    order: &[IndexVar],
) -> Option<Vec<LevelSpec>> {
    let tensor = &program.tensors[t];
    let current = program.iterated_levels(t);
    let levels = match current.iter().all(|l| matches!(l.coord, Coord::Dim(_))) {
        true => current.to_vec(),
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
///
/// [`Rule::Slot`] proposes one copy at a time: a copy removes a slot loop, which changes what the
/// next operand's loops enclose.
pub(super) fn slot_copies(program: &Program) -> Vec<Proposal> {
    let whole = |l: &LevelSpec| matches!(l.coord, Coord::Dim(_));
    for t in 1..program.tensors.len() {
        let levels = program.iterated_levels(t);
        if program.copies.get(t).is_some() || levels.iter().all(whole) {
            continue;
        }
        let mut hidden = Vec::new();
        collect_hidden(&program.rhs, t, &mut hidden);
        let Ok(cin) = concretize(program) else {
            continue;
        };
        if repeats_other_terms(program, &cin, &hidden, t, false) {
            return vec![(t, rows_over_compressed(program.tensors[t].order))];
        }
    }
    Vec::new()
}

/// A range level (DIA's rows within a diagonal) is iterated as a bounded dense loop, which cannot
/// also walk another operand's sparse level over the same variable (DIA `.*` COO, or a DIA
/// matrix whose rows meet another DIA's diagonals in a product); such an input is copied, when the
/// kernel runs, into dense rows over compressed levels, as for [`slot_copies`].
///
/// [`Rule::Range`] proposes one copy at a time: a copy turns the operand's sparse levels into
/// dense and compressed ones, which changes what the next operand meets.
pub(super) fn range_copies(program: &Program) -> Vec<Proposal> {
    let mut accesses = Vec::new();
    collect_all(&program.rhs, &mut accesses);
    for t in 1..program.tensors.len() {
        let levels = program.iterated_levels(t);
        let merged = accesses.iter().filter(|a| a.tensor == t).any(|a| {
            (levels.iter().zip(&a.level_vars)).any(|(level, &v)| {
                level_of(level).bounded() && sparse_elsewhere(program, &accesses, t, v)
            })
        });
        if program.copies.get(t).is_none() && merged {
            return vec![(t, rows_over_compressed(program.tensors[t].order))];
        }
    }
    Vec::new()
}

/// Dense rows over compressed levels, for an input of order `order`: what slot, block and range
/// formats are copied into when their own levels cannot be iterated.
pub(super) fn rows_over_compressed(order: usize) -> Vec<LevelSpec> {
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
        Expr::Op(_, args) => {
            for a in args {
                collect_hidden(a, t, out);
            }
        }
    }
}

/// Whether an assignment to the output or a sum inside a loop over one of `hidden` has a term
/// that does not read `t`.
fn repeats_other_terms(
    program: &Program,
    cin: &Cin,
    hidden: &[IndexVar],
    t: usize,
    inside: bool,
) -> bool {
    match cin {
        Cin::Forall { var, body } => {
            repeats_other_terms(program, body, hidden, t, inside || hidden.contains(var))
        }
        Cin::Where {
            consumer: first,
            producer: second,
        }
        | Cin::Sequence { first, second } => {
            repeats_other_terms(program, first, hidden, t, inside)
                || repeats_other_terms(program, second, hidden, t, inside)
        }
        // A temporary assigned once per slot is harmless; a sum or the output is not.
        Cin::Assign {
            lhs,
            accumulate,
            rhs,
            ..
        } => inside && (*accumulate || *lhs == Lhs::Output) && !every_term_reads(program, rhs, t),
    }
}

/// Whether every term of `e` as a sum is zero (the value the loops may skip) where tensor `t`
/// stores nothing (a term that reads `t` under `cos` or `+ 1` is not). A reduction that
/// `reduce<...>` names covers the whole right-hand side: that is then the one term.
fn every_term_reads(program: &Program, e: &Expr, t: usize) -> bool {
    let terms = match program.reduction {
        Some(_) => vec![e],
        None => e.sum_terms(),
    };
    let skip = program.skip_value();
    (terms.into_iter()).all(|term| term.vanishes_without(&|a| a.tensor == t, skip))
}

/// Iterator conversion for unordered levels (Chou et al. 2018): an input whose hashed or
/// unordered level must be merged with another operand's sparse level over the same variable is
/// copied, when the kernel runs, into a sorted format: hashed levels become compressed, unordered
/// ones ordered. (Alone, or against dense operands, an unordered level is iterated as it is.)
///
/// The planner asks again after every other copy: a conversion to a concordant order can bring a
/// hashed level under the same loop as another operand's sparse one (CSC `.*` a hashed matrix),
/// and a converted tensor's copy then gets its levels sorted too.
///
/// [`Rule::Sorted`] proposes every such copy at once: sorting a level keeps it sparse, so one copy
/// does not change what another operand meets.
pub(super) fn sorted_copies(program: &Program) -> Vec<Proposal> {
    let mut accesses = Vec::new();
    collect_all(&program.rhs, &mut accesses);
    let mut proposals = Vec::new();
    for t in 1..program.tensors.len() {
        let levels = program.iterated_levels(t);
        if !levels.iter().all(|l| matches!(l.coord, Coord::Dim(_))) {
            continue;
        }
        // A fill other than zero that does not decide the statement where the tensor stores
        // nothing makes the loops visit coordinates it does not store, merging its level with
        // the whole dimension.
        let fill = program.tensors[t].fill_value();
        let filled = fill != 0.0
            && !(program.rhs).vanishes_without(&|a| a.tensor == t, program.skip_value());
        let merged = accesses.iter().filter(|a| a.tensor == t).any(|a| {
            levels.iter().zip(&a.level_vars).any(|(level, &v)| {
                let unordered = !properties(level).ordered;
                unordered && (filled || sparse_elsewhere(program, &accesses, t, v))
            })
        });
        if merged {
            proposals.push((t, levels.iter().map(|l| sorted(*l)).collect()));
        }
    }
    proposals
}

/// Whether another tensor's access iterates `v` by position (a level without locate).
fn sparse_elsewhere(program: &Program, accesses: &[super::Access], t: usize, v: IndexVar) -> bool {
    accesses.iter().filter(|a| a.tensor != t).any(|a| {
        let levels = program.iterated_levels(a.tensor);
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
        Expr::Op(_, args) => {
            for a in args {
                collect_all(a, out);
            }
        }
    }
}

pub(super) fn loop_vars(program: &Program) -> Vec<IndexVar> {
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

/// The indices of every read of tensor `t` in `e`.
pub(super) fn collect_accesses(e: &Expr, t: usize, out: &mut Vec<Vec<IndexVar>>) {
    match e {
        Expr::Access { access, .. } if access.tensor == t => out.push(access.indices.clone()),
        Expr::Access { .. } | Expr::Temp(_) | Expr::Literal(_) => {}
        Expr::Op(_, args) => {
            for a in args {
                collect_accesses(a, t, out);
            }
        }
    }
}
