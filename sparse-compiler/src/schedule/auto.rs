//! `schedule<auto>`: the autoscheduler. It chooses commands by the heuristics below and applies
//! each through the same checks as a written schedule, keeping only those that pass.

use proc_macro2::Span;
use syn::Ident;

use crate::format::{level_of, properties};
use crate::notation::{Cin, IndexVar};
use crate::syntax::ast::{Command, CommandKind, Direction, Race, Unit};

use super::State;
use super::nest::{access_tensor, accesses_of, split_nest};

/// The CPU heuristics of Senanayake et al. 2020, decided at compile time (the paper's
/// autoscheduler emits templates for autotuning; a macro must pick one):
/// 1. order: if the innermost loop sums and swapping it with the output loop above makes a dense
///    operand and the output be traversed in memory order (SpMM's `reorder(k, j)`), swap them;
/// 2. vectorize the innermost loop when it runs over the last, dense level of the output and of
///    every tensor it indexes, with nothing summed below it;
/// 3. parallelize the outermost loop, in chunks of rows, when it iterates output coordinates
///    (never a collapsed or position variable, never over an appended output): a `Down` split
///    into tasks of [`AUTO_ROWS_PER_TASK`] rows where every level it iterates is dense; where it
///    iterates a sparse level (a DCSR or CSF operand's rows, a sparse vector), an `Up` split into
///    [`AUTO_SPARSE_TILES`] coordinate tiles, each of which finds its first position in every
///    sparse operand by a binary search (`lower/tile.rs`). The tiles are race-free for the same
///    reason the row chunks are: each owns the output rows of its coordinates. A fixed number of
///    tiles, rather than tiles of a fixed size, keeps the searches' cost independent of the
///    extent (a sparse vector of ten million coordinates would otherwise search 156,250 tiles);
///    below `PARALLEL_MIN_WORK` stored values the tiles run in order on the calling thread,
///    where they cost the searches and nothing else.
pub(super) fn auto_schedule(state: &mut State<'_>, span: Span) -> Vec<String> {
    let mut chosen = Vec::new();
    let outputs = state.program.loop_vars_of(&state.program.output.indices);
    let name = |v: IndexVar, state: &State<'_>| Ident::new(&state.program.vars[v], span);
    if let [.., a, b] = top_nest(&state.cin)[..]
        && outputs.contains(&a)
        && !outputs.contains(&b)
        && innermost_dense(state, a)
    {
        let command = CommandKind::Reorder {
            vars: vec![name(b, state), name(a, state)],
        };
        let text = format!(
            "reorder({}, {})",
            state.program.vars[b], state.program.vars[a]
        );
        try_apply(state, command, text, span, &mut chosen);
    }
    let nest = top_nest(&state.cin);
    let mut parallel = Vec::new();
    if let Some(&first) = nest.first()
        && outputs.contains(&first)
        && !state.program.assembles_output()
        && ordered_levels(state, first)
    {
        let v = state.program.vars[first].clone();
        let (direction, factor, part) = match only_dense_levels(state, first) {
            true => (Direction::Down, AUTO_ROWS_PER_TASK, "row"),
            false => (Direction::Up, AUTO_SPARSE_TILES, "tile"),
        };
        let (outer, inner) = (
            fresh_name(state, &format!("{v}_task")),
            fresh_name(state, &format!("{v}_{part}")),
        );
        let split = CommandKind::Split {
            var: name(first, state),
            outer: Ident::new(&outer, span),
            inner: Ident::new(&inner, span),
            direction,
            factor: (factor, span),
        };
        let text = format!("split({v}, {outer}, {inner}, {direction:?}, {factor})");
        if try_apply(state, split, text, span, &mut chosen) {
            let command = CommandKind::Parallelize {
                var: Ident::new(&outer, span),
                unit: Unit::CpuThread,
                race: Race::NoRaces,
            };
            parallel.push((command, format!("parallelize({outer}, CpuThread, NoRaces)")));
        }
    }
    if let Some(&last) = nest.last()
        && nest.len() > 1
        && outputs.contains(&last)
        && innermost_dense(state, last)
    {
        let command = CommandKind::Parallelize {
            var: name(last, state),
            unit: Unit::CpuVector,
            race: Race::NoRaces,
        };
        let text = format!(
            "parallelize({}, CpuVector, NoRaces)",
            state.program.vars[last]
        );
        try_apply(state, command, text, span, &mut chosen);
    }
    for (command, text) in parallel {
        try_apply(state, command, text, span, &mut chosen);
    }
    chosen
}

/// Rows per rayon task in `auto` schedules: enough work per task to amortize scheduling on
/// short rows, small enough to balance load over many tasks.
const AUTO_ROWS_PER_TASK: usize = 64;

/// Coordinate tiles of a first loop that iterates a sparse level in `auto` schedules: enough for
/// rayon to balance them over the threads of a small machine, few enough that their binary
/// searches (two per sparse operand and tile) stay a small part of the work at the threshold
/// above which threads run.
const AUTO_SPARSE_TILES: usize = 64;

/// The loops of the perfect nest at the top of the statement, outermost first.
fn top_nest(cin: &Cin) -> Vec<IndexVar> {
    split_nest(cin).0
}

/// Whether every access indexed by `v` stores it in its last level, densely: a loop over `v`
/// walks memory contiguously.
fn innermost_dense(state: &State<'_>, v: IndexVar) -> bool {
    let mut all = accesses_of(&state.program.rhs, usize::MAX);
    all.push((0, state.program.output.level_vars.clone()));
    let mut any = false;
    for (id, level_vars) in all {
        let tensor = if id == 0 {
            0
        } else {
            access_tensor(&state.program.rhs, id)
        };
        let levels = state.program.iterated_levels(tensor);
        if let Some(k) = level_vars.iter().position(|&x| x == v) {
            if k + 1 != levels.len() || !level_of(&levels[k]).full() {
                return false;
            }
            any = true;
        }
    }
    any
}

/// Whether every input level that stores `v` is dense: a split loop over `v` counts coordinates,
/// so it cannot iterate a sparse level (that needs `pos`).
fn only_dense_levels(state: &State<'_>, v: IndexVar) -> bool {
    accesses_of(&state.program.rhs, usize::MAX)
        .into_iter()
        .all(|(id, level_vars)| {
            let levels = state
                .program
                .iterated_levels(access_tensor(&state.program.rhs, id));
            (level_vars.iter().zip(levels)).all(|(&x, level)| x != v || level_of(level).full())
        })
}

/// Whether every input level that stores `v` keeps its coordinates sorted, so that a coordinate
/// tile can search where it starts (a hashed level cannot be searched).
fn ordered_levels(state: &State<'_>, v: IndexVar) -> bool {
    accesses_of(&state.program.rhs, usize::MAX)
        .into_iter()
        .all(|(id, level_vars)| {
            let levels = state
                .program
                .iterated_levels(access_tensor(&state.program.rhs, id));
            (level_vars.iter().zip(levels)).all(|(&x, level)| x != v || properties(level).ordered)
        })
}

/// Applies `command` if its preconditions hold, recording `text`; leaves the state unchanged
/// otherwise.
fn try_apply(
    state: &mut State<'_>,
    command: CommandKind,
    text: String,
    span: Span,
    chosen: &mut Vec<String>,
) -> bool {
    let (cin, scheduled, vars) = (
        state.cin.clone(),
        state.scheduled.clone(),
        state.program.vars.len(),
    );
    if state
        .apply(&Command {
            kind: command,
            span,
        })
        .is_ok()
    {
        chosen.push(text);
        return true;
    }
    state.cin = cin;
    state.scheduled = scheduled;
    state.program.vars.truncate(vars);
    false
}

/// `base`, or `base` with a number, whichever no variable or tensor is named yet.
fn fresh_name(state: &State<'_>, base: &str) -> String {
    let taken = |n: &str| {
        state.program.vars.iter().any(|v| v == n)
            || state.program.tensors.iter().any(|t| t.name == n)
    };
    (0..)
        .map(|k| {
            if k == 0 {
                base.to_string()
            } else {
                format!("{base}{k}")
            }
        })
        .find(|n| !taken(n))
        .unwrap_or_default()
}
