//! Scheduling (seed-schedules.md Part A): the commands of the `schedule<...>` clause applied to
//! concrete index notation, the provenance graph of derived index variables, and the loop tags
//! (parallel units, race strategies, unrolling, bounds) that lowering reads. Every precondition
//! that the statement alone decides is checked here, spanned on the offending command; the ones
//! that need a loop's iteration lattice (co-iteration under `parallelize`) are checked by lowering
//! with the span recorded here.
//!
//! After the commands, `finalize` introduces the temporaries the final loop order calls for.

mod command;
mod finalize;

pub use command::{BoundKind, Direction, Race, Unit};
pub use finalize::finalize;

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::Span;
use syn::Ident;

use crate::error::{Error, ErrorKind, Errors};
use crate::format::level_of;
use crate::notation::{Access, Cin, Expr, IndexVar, Program, order_edges};
use crate::syntax::ast::{self, BinOp};
use command::{Command, parse_command};

/// A relation of the provenance graph: how derived index variables relate to the ones they were
/// derived from (seed-schedules.md A.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// `parent = outer * size(inner) + inner`, one of the two loops of constant size `factor`.
    Split {
        /// The variable split.
        parent: IndexVar,
        /// The outer loop.
        outer: IndexVar,
        /// The inner loop.
        inner: IndexVar,
        /// Which loop has the constant size.
        direction: Direction,
        /// That size.
        factor: usize,
    },
    /// `pos` iterates the positions of access `access` at the level `parent` indexes.
    Pos {
        /// The coordinate variable.
        parent: IndexVar,
        /// The position variable.
        pos: IndexVar,
        /// The access (by number) whose positions are iterated.
        access: usize,
    },
    /// `fused` iterates the pairs of `outer` and `inner`, outer-major.
    Collapse {
        /// The outer variable.
        outer: IndexVar,
        /// The inner variable.
        inner: IndexVar,
        /// The collapsed variable.
        fused: IndexVar,
    },
    /// `coord` iterates, in coordinate space, the coordinates the tile of position variable `pos`
    /// covers (the inner part of a split position variable): from the tile's first coordinate to
    /// the next tile's.
    Coord {
        /// The position variable replaced.
        pos: IndexVar,
        /// The coordinate variable.
        coord: IndexVar,
    },
    /// `child` iterates the same values as `parent`, in the producer of a `precompute` workspace.
    Precompute {
        /// The consumer's variable.
        parent: IndexVar,
        /// The producer's variable.
        child: IndexVar,
    },
    /// `child` iterates the same coordinates as `parent`, with a constant bound.
    Bound {
        /// The variable bounded.
        parent: IndexVar,
        /// The bounded loop.
        child: IndexVar,
        /// The kind of bound.
        kind: BoundKind,
        /// Its value.
        value: usize,
    },
}

/// A parallel loop's tag.
#[derive(Clone, Copy, Debug)]
pub struct Parallel {
    /// The hardware.
    pub unit: Unit,
    /// The race strategy.
    pub race: Race,
    /// The `parallelize` command, for errors found while lowering.
    pub span: Span,
}

/// A scheduled statement: the concrete notation and what lowering needs to know about its loops.
#[derive(Clone, Debug, Default)]
pub struct Scheduled {
    /// The statement.
    pub cin: Option<Cin>,
    /// The provenance graph.
    pub relations: Vec<Relation>,
    /// Parallel loops.
    pub parallel: BTreeMap<IndexVar, Parallel>,
    /// Unrolled loops and their factors.
    pub unroll: BTreeMap<IndexVar, usize>,
    /// The commands `schedule<auto>` chose, as text (empty otherwise).
    pub chosen: Vec<String>,
    /// The name the user gave each `precompute` workspace, by temporary number.
    pub workspaces: BTreeMap<usize, String>,
    /// Gathers to prefetch ahead, by the tensor (its index in the program) they read.
    pub prefetch: BTreeMap<usize, Prefetch>,
}

/// A `prefetch(x, d)` command: where a loop over a compressed level's positions reads `x` at the
/// coordinate it reads from `crd`, ask first for the element it will read `d` positions later.
#[derive(Clone, Copy, Debug)]
pub struct Prefetch {
    /// How many positions ahead.
    pub distance: usize,
    /// The command, for the error when no loop gathers from the tensor.
    pub span: Span,
}

impl Scheduled {
    /// Whether the loop over `v` visits each coordinate of the variables it came from at most
    /// once, in order: any loop but a position loop, and positions of one unique level
    /// (`pos(i, ip, B)` with `B`'s rows compressed, which is how the unscheduled kernel walks that
    /// level anyway) or a split of them. Positions of a collapse, or of a level that repeats
    /// coordinates (COO), visit a coordinate once per nonzero.
    pub fn visits_coordinates_once(&self, program: &Program, v: IndexVar) -> bool {
        match self.deriving(v) {
            Some(Relation::Pos { parent, access, .. }) => {
                let tensor = &program.tensors[access_tensor(&program.rhs, access)];
                let vars = access_level_vars(&program.rhs, access);
                let level = vars.iter().position(|&x| x == parent);
                self.deriving(parent).is_none() && level.is_some_and(|k| tensor.levels[k].unique)
            }
            Some(Relation::Split { parent, .. } | Relation::Bound { parent, .. }) => {
                self.visits_coordinates_once(program, parent)
            }
            _ => !self.is_position(v),
        }
    }

    /// The relation that derives `v`, if any.
    pub fn deriving(&self, v: IndexVar) -> Option<Relation> {
        self.relations.iter().copied().find(|r| match *r {
            Relation::Split { outer, inner, .. } => outer == v || inner == v,
            Relation::Pos { pos, .. } => pos == v,
            Relation::Collapse { fused, .. } => fused == v,
            Relation::Bound { child, .. } | Relation::Precompute { child, .. } => child == v,
            Relation::Coord { coord, .. } => coord == v,
        })
    }

    /// Whether `coord` turned tile loop `v` (a split's inner part) into a coordinate loop.
    pub fn coord_tiles(&self, v: IndexVar) -> bool {
        self.relations
            .iter()
            .any(|r| matches!(r, Relation::Coord { pos, .. } if *pos == v))
    }

    /// Whether `coord` brings the tiles of position variable `p` back to coordinate space: `p` is
    /// split and its inner loop replaced by a coordinate loop.
    pub fn coord_recovers(&self, p: IndexVar) -> bool {
        self.relations.iter().any(|r| {
            matches!(*r, Relation::Split { parent, inner, .. } if parent == p && self.coord_tiles(inner))
        })
    }

    /// Whether `v` is the loop over tiles whose inner loop `coord` iterates in coordinate space:
    /// the tiles then cover disjoint coordinate ranges.
    pub fn tiles_coordinates(&self, v: IndexVar) -> bool {
        self.relations.iter().any(|r| {
            matches!(*r, Relation::Split { outer, inner, .. } if outer == v && self.coord_tiles(inner))
        })
    }

    /// The variables `v` was derived from, transitively, that the statement itself defines.
    pub fn underived(&self, v: IndexVar) -> Vec<IndexVar> {
        match self.deriving(v) {
            None => vec![v],
            Some(
                Relation::Split { parent, .. }
                | Relation::Pos { parent, .. }
                | Relation::Bound { parent, .. }
                | Relation::Precompute { parent, .. }
                | Relation::Coord { pos: parent, .. },
            ) => self.underived(parent),
            Some(Relation::Collapse { outer, inner, .. }) => {
                let mut vars = self.underived(outer);
                vars.extend(self.underived(inner));
                vars
            }
        }
    }

    /// Whether `v` is in position space (a `pos` variable or derived from one).
    pub fn is_position(&self, v: IndexVar) -> bool {
        match self.deriving(v) {
            None => false,
            Some(Relation::Pos { .. }) => true,
            Some(Relation::Coord { .. }) => false,
            Some(
                Relation::Split { parent, .. }
                | Relation::Bound { parent, .. }
                | Relation::Precompute { parent, .. },
            ) => self.is_position(parent),
            Some(Relation::Collapse { outer, inner, .. }) => {
                self.is_position(outer) || self.is_position(inner)
            }
        }
    }
}

/// Applies the `schedule<...>` clause (if any) to `cin`, then finalizes the statement.
pub fn schedule(
    program: &mut Program,
    cin: Cin,
    clause: Option<&ast::Schedule>,
) -> Result<Scheduled, Errors> {
    let mut state = State {
        program,
        cin,
        scheduled: Scheduled::default(),
        parallelized: None,
        partial_positions: Vec::new(),
    };
    match clause {
        None => {}
        Some(ast::Schedule::Auto(span)) => {
            state.scheduled.chosen = auto_schedule(&mut state, *span);
        }
        Some(ast::Schedule::Commands(commands)) => {
            for c in commands {
                let command = parse_command(c).map_err(|e| vec![e])?;
                state.apply(command, c.span).map_err(|e| vec![e])?;
            }
        }
    }
    if let Some((_, error)) =
        (state.partial_positions.iter()).find(|(p, _)| !state.scheduled.coord_recovers(*p))
    {
        return Err(vec![error.clone()]);
    }
    let State {
        program,
        cin,
        mut scheduled,
        ..
    } = state;
    let outputs = program.loop_vars_of(&program.output.indices);
    let output_like = |v: IndexVar| {
        let roots = scheduled.underived(v);
        let once = !scheduled.is_position(v) || scheduled.visits_coordinates_once(program, v);
        once && roots.iter().all(|r| outputs.contains(r))
    };
    let touches_output = |v: IndexVar| scheduled.underived(v).iter().any(|r| outputs.contains(r));
    // A scalar declared outside a thread-parallel loop would be shared by its tasks; around a
    // vector loop it is what the lanes reduce into.
    let fixed = |v: IndexVar| {
        scheduled
            .parallel
            .get(&v)
            .is_some_and(|p| p.unit != Unit::CpuVector)
    };
    scheduled.cin = Some(finalize(
        program,
        cin,
        &output_like,
        &touches_output,
        &fixed,
    ));
    Ok(scheduled)
}

/// The CPU heuristics of seed-schedules.md A.12, decided at compile time (the paper's
/// autoscheduler emits templates for autotuning; a macro must pick one):
/// 1. order: if the innermost loop sums and swapping it with the output loop above makes a dense
///    operand and the output be traversed in memory order (SpMM's `reorder(k, j)`), swap them;
/// 2. vectorize the innermost loop when it runs over the last, dense level of the output and of
///    every tensor it indexes, with nothing summed below it;
/// 3. parallelize the outermost loop, in chunks of rows, when it iterates output coordinates
///    (never a collapsed or position variable, never over an appended output).
fn auto_schedule(state: &mut State<'_>, span: Span) -> Vec<String> {
    let mut chosen = Vec::new();
    let outputs = state.program.loop_vars_of(&state.program.output.indices);
    let name = |v: IndexVar, state: &State<'_>| Ident::new(&state.program.vars[v], span);
    if let [.., a, b] = top_nest(&state.cin)[..]
        && outputs.contains(&a)
        && !outputs.contains(&b)
        && innermost_dense(state, a)
    {
        let command = Command::Reorder {
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
        && only_dense_levels(state, first)
    {
        let v = state.program.vars[first].clone();
        let (outer, inner) = (
            fresh_name(state, &format!("{v}_task")),
            fresh_name(state, &format!("{v}_row")),
        );
        let split = Command::Split {
            var: name(first, state),
            outer: Ident::new(&outer, span),
            inner: Ident::new(&inner, span),
            direction: Direction::Down,
            factor: (AUTO_ROWS_PER_TASK, span),
        };
        let text = format!("split({v}, {outer}, {inner}, Down, {AUTO_ROWS_PER_TASK})");
        if try_apply(state, split, text, span, &mut chosen) {
            let command = Command::Parallelize {
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
        let command = Command::Parallelize {
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
        let levels = &state.program.tensors[tensor].levels;
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
            let levels = &state.program.tensors[access_tensor(&state.program.rhs, id)].levels;
            (level_vars.iter().zip(levels)).all(|(&x, level)| x != v || level_of(level).full())
        })
}

fn access_tensor(e: &Expr, id: usize) -> usize {
    e.find_access(id).map_or(0, |a| a.tensor)
}

/// Applies `command` if its preconditions hold, recording `text`; leaves the state unchanged
/// otherwise.
fn try_apply(
    state: &mut State<'_>,
    command: Command,
    text: String,
    span: Span,
    chosen: &mut Vec<String>,
) -> bool {
    let (cin, scheduled, vars) = (
        state.cin.clone(),
        state.scheduled.clone(),
        state.program.vars.len(),
    );
    if state.apply(command, span).is_ok() {
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

struct State<'p> {
    program: &'p mut Program,
    cin: Cin,
    scheduled: Scheduled,
    /// The first `parallelize`, after which only `parallelize` may follow.
    parallelized: Option<Span>,
    /// Position variables over an access where the statement is not zero wherever the access is,
    /// with the error to give unless `coord` brings their tiles back to coordinate space.
    partial_positions: Vec<(IndexVar, Error)>,
}

impl State<'_> {
    fn apply(&mut self, command: Command, span: Span) -> Result<(), Error> {
        // `prefetch` transforms no loop, so it may follow `parallelize`.
        let transforms = !matches!(
            command,
            Command::Parallelize { .. } | Command::Prefetch { .. }
        );
        if self.parallelized.is_some() && transforms {
            let name = command_name(&command);
            return Err(Error::new(
                span,
                ErrorKind::AfterParallelize(name.to_string()),
            ));
        }
        self.derives_from_coord_tile(&command)?;
        match command {
            Command::Split {
                var,
                outer,
                inner,
                direction,
                factor,
            } => {
                let parent = self.loop_var(&var)?;
                let (outer, inner) = (self.fresh(&outer)?, self.fresh(&inner)?);
                let relation = Relation::Split {
                    parent,
                    outer,
                    inner,
                    direction,
                    factor: factor.0,
                };
                self.replace(parent, &[outer, inner]);
                self.scheduled.relations.push(relation);
                Ok(())
            }
            Command::Pos { var, pos, tensor } => self.pos(&var, &pos, &tensor),
            Command::Coord { pos, coord } => self.coord(&pos, &coord),
            Command::Collapse {
                outer,
                inner,
                fused,
            } => self.collapse(&outer, &inner, &fused),
            Command::Reorder { vars } => self.reorder(&vars, span),
            Command::Precompute {
                expr,
                var,
                workspace_var,
                workspace,
            } => self.precompute(&expr, &var, &workspace_var, &workspace, span),
            Command::Bound {
                var,
                bound,
                value,
                kind,
            } => {
                let parent = self.loop_var(&var)?;
                let upper = matches!(kind, BoundKind::MaxExact | BoundKind::MaxConstraint);
                if upper && self.scheduled.deriving(parent).is_some() {
                    let what = format!(
                        "an upper `bound` of `{var}`, which another command derived (the bound \
                         promises something about an extent, and only the statement's own \
                         variables have one); bound that variable before transforming it"
                    );
                    return Err(Error::new(var.span(), ErrorKind::Unsupported(what)));
                }
                if matches!(kind, BoundKind::MinExact | BoundKind::MinConstraint) {
                    self.check_lower_bound(parent, &var, value)?;
                }
                let child = self.fresh(&bound)?;
                self.replace(parent, &[child]);
                self.scheduled.relations.push(Relation::Bound {
                    parent,
                    child,
                    kind,
                    value: value.0,
                });
                Ok(())
            }
            Command::Unroll { var, factor } => {
                let v = self.loop_var(&var)?;
                self.scheduled.unroll.insert(v, factor.0);
                Ok(())
            }
            Command::Parallelize { var, unit, race } => self.parallelize(&var, unit, race, span),
            Command::Prefetch { tensor, distance } => self.prefetch(&tensor, distance.0, span),
            Command::Assemble { tensor, insert } => {
                if tensor != self.program.tensors[0].name.as_str() {
                    return Err(Error::new(
                        tensor.span(),
                        ErrorKind::NotAnInput(tensor.to_string()),
                    ));
                }
                let sparse = self.program.tensors[0]
                    .levels
                    .iter()
                    .any(|l| !level_of(l).full());
                if insert && sparse {
                    return Err(Error::new(
                        span,
                        ErrorKind::Unsupported("`Insert` assembly of a sparse output".into()),
                    ));
                }
                Ok(())
            }
        }
    }

    /// `prefetch(x, d)`: `x` must be a dense input, named once. Whether a loop gathers from it is
    /// known only while lowering, which reports a hint that applies nowhere.
    fn prefetch(&mut self, tensor: &Ident, distance: usize, span: Span) -> Result<(), Error> {
        let Some(t) = (0..self.program.tensors.len())
            .find(|&t| tensor == self.program.tensors[t].name.as_str())
        else {
            let name = tensor.to_string();
            return Err(Error::new(tensor.span(), ErrorKind::UnknownTensor(name)));
        };
        let declared = &self.program.tensors[t];
        let dense = declared.levels.iter().all(|l| level_of(l).full());
        if t == 0 || !dense {
            let name = tensor.to_string();
            return Err(Error::new(tensor.span(), ErrorKind::PrefetchNotDense(name)));
        }
        let hint = Prefetch { distance, span };
        if self.scheduled.prefetch.insert(t, hint).is_some() {
            let name = tensor.to_string();
            return Err(Error::new(tensor.span(), ErrorKind::PrefetchTwice(name)));
        }
        Ok(())
    }

    /// A variable with a loop in the current statement.
    fn loop_var(&self, name: &Ident) -> Result<IndexVar, Error> {
        let v = self.program.vars.iter().position(|x| name == x.as_str());
        match v.filter(|&v| self.cin.loops().contains(&v)) {
            Some(v) => Ok(v),
            None => Err(Error::new(
                name.span(),
                ErrorKind::UnknownIndex(name.to_string()),
            )),
        }
    }

    /// A new variable named `name`, which must not exist yet.
    fn fresh(&mut self, name: &Ident) -> Result<IndexVar, Error> {
        let taken = self.program.vars.iter().any(|x| name == x.as_str())
            || self.program.tensors.iter().any(|t| name == t.name.as_str());
        if taken {
            return Err(Error::new(
                name.span(),
                ErrorKind::ReusedIndex(name.to_string()),
            ));
        }
        self.program.vars.push(name.to_string());
        Ok(self.program.vars.len() - 1)
    }

    /// Replaces the loop over `v` by nested loops over `with`.
    fn replace(&mut self, v: IndexVar, with: &[IndexVar]) {
        self.cin = replace_forall(&self.cin, v, with);
    }

    /// `precompute(expr, i, iw, W)` (seed-schedules.md A.3): the innermost loop `∀i out += rhs`
    /// becomes `(∀i out += rhs[expr := W(i)]) where (∀iw W(iw) = expr)`, `iw` iterating what `i`
    /// does. Only the innermost loop can be precomputed: a workspace over an outer loop would hold
    /// the sums of the loops inside it, a placement this command does not choose.
    fn precompute(
        &mut self,
        expr: &ast::Expr,
        var: &Ident,
        workspace_var: &Ident,
        workspace: &Ident,
        span: Span,
    ) -> Result<(), Error> {
        if !self.statement_contains(expr) {
            return Err(Error::new(span, ErrorKind::PrecomputeNotFound));
        }
        let i = self.loop_var(var)?;
        let named = |n: &str| {
            self.program.tensors.iter().any(|t| t.name == n)
                || self.program.vars.iter().any(|v| v == n)
                || self.scheduled.workspaces.values().any(|w| w == n)
        };
        if named(&workspace.to_string()) {
            return Err(Error::new(
                workspace.span(),
                ErrorKind::ReusedIndex(workspace.to_string()),
            ));
        }
        let iw = self.fresh(workspace_var)?;
        let target = expr_text(expr);
        let t = self.cin.next_temp();
        if let Some(tensor) = self.sparse_level_of(i) {
            let what = format!(
                "`precompute` over `{var}`, which iterates a sparse level of `{tensor}` (the \
                 producer would have to iterate it too); precompute over its position variable, \
                 from `pos({var}, ..., {tensor})`"
            );
            return Err(Error::new(var.span(), ErrorKind::Unsupported(what)));
        }
        self.cin = self
            .precompute_nest(i, iw, &target, t)
            .map_err(|what| Error::new(var.span(), what))?;
        self.scheduled.relations.push(Relation::Precompute {
            parent: i,
            child: iw,
        });
        self.scheduled.workspaces.insert(t, workspace.to_string());
        Ok(())
    }

    /// The statement with `precompute`'s `where`: the loops from the first one that only the
    /// precomputed expression reads (the sums it holds) or from `i`, down to the assignment, move
    /// into the producer (`i` renamed `iw`, adding into `W` when it sums), and the consumer keeps
    /// only `i`:
    ///
    /// `∀i ∀k ∀l ∀j A += B*D*C` with `precompute(B*D, j, jw, W)` becomes
    /// `∀i ∀k ((∀j A += W(j)*C) where (∀l ∀jw W(jw) += B*D))`.
    ///
    /// A sum moves into the workspace only when the expression is a factor of the right-hand side
    /// (the sum distributes over the product), and every loop below the `where` must be such a
    /// sum or `i`.
    fn precompute_nest(
        &self,
        i: IndexVar,
        iw: IndexVar,
        target: &str,
        t: usize,
    ) -> Result<Cin, ErrorKind> {
        let (nest, body) = split_nest(&self.cin);
        let Cin::Assign {
            lhs: crate::notation::Lhs::Output,
            accumulate,
            rhs,
        } = body
        else {
            let what = "`precompute` of a statement that already has a `where`";
            return Err(ErrorKind::Unsupported(what.into()));
        };
        let (consumed, produced, _) =
            replace_subexpr(self.program, rhs, target, t).ok_or(ErrorKind::PrecomputeNotFound)?;
        let mut rest = self.program.loop_vars_of(&self.program.output.indices);
        consumed.collect_loop_vars(&mut rest);
        let summed = |v: IndexVar| {
            v != i
                && self
                    .scheduled
                    .underived(v)
                    .iter()
                    .all(|r| !rest.contains(r))
        };
        let cut = nest
            .iter()
            .position(|&v| v == i || summed(v))
            .ok_or_else(|| {
                ErrorKind::Unsupported(
                    "`precompute` over a loop the statement does not have".into(),
                )
            })?;
        let below = &nest[cut..];
        if let Some(&v) = below.iter().find(|&&v| v != i && !summed(v)) {
            let what = format!(
                "`precompute` over `{}` with the loop over `{}` inside it, which the rest of the \
                 statement reads (a workspace over `{}` cannot hold it); reorder so that `{}` is \
                 inside every such loop",
                self.program.vars[i],
                self.program.vars[v],
                self.program.vars[i],
                self.program.vars[i]
            );
            return Err(ErrorKind::Unsupported(what));
        }
        let sums = below.len() > 1;
        if sums && !is_factor(self.program, rhs, target) {
            let what = "`precompute` that moves a sum into the workspace, of an expression that is \
                        not a factor of the right-hand side (the sum would not distribute over \
                        the rest)";
            return Err(ErrorKind::Unsupported(what.into()));
        }
        let consumer = Cin::Forall {
            var: i,
            body: Box::new(Cin::Assign {
                lhs: crate::notation::Lhs::Output,
                accumulate: *accumulate,
                rhs: consumed,
            }),
        };
        let producer_loops: Vec<IndexVar> =
            below.iter().map(|&v| if v == i { iw } else { v }).collect();
        let producer = Cin::forall_over(
            &producer_loops,
            Cin::Assign {
                lhs: crate::notation::Lhs::Precomputed { temp: t, var: i },
                accumulate: sums,
                rhs: produced,
            },
        );
        Ok(Cin::forall_over(
            &nest[..cut],
            Cin::where_of(consumer, producer),
        ))
    }

    /// `coord(p1, ic)`: the tile loop `p1` of a split position variable `p` over `A(.., i, ..)`
    /// becomes a loop over the coordinates of `i` the tile covers, co-iterating `A` from the
    /// tile's first position. Tiles partition the coordinates (the first from 0, the last to the
    /// extent), so a union with dense operands visits every coordinate once.
    fn coord(&mut self, pos: &Ident, coord: &Ident) -> Result<(), Error> {
        let p1 = self.loop_var(pos)?;
        if !self.scheduled.is_position(p1) {
            return Err(Error::new(
                pos.span(),
                ErrorKind::CoordOfCoordinate(pos.to_string()),
            ));
        }
        let unsupported = |what: String| Error::new(pos.span(), ErrorKind::Unsupported(what));
        let tile_of = match self.scheduled.deriving(p1) {
            Some(Relation::Split { parent, inner, .. }) if inner == p1 => {
                self.scheduled.deriving(parent)
            }
            _ => None,
        };
        let Some(Relation::Pos {
            parent: i, access, ..
        }) = tile_of
        else {
            return Err(unsupported(format!(
                "`coord` of `{pos}`, which is not the inner loop of a split `pos` variable"
            )));
        };
        if self.scheduled.deriving(i).is_some() {
            return Err(unsupported(format!(
                "`coord` of `{pos}`, whose `pos` is over a derived (split or collapsed) variable"
            )));
        }
        let other_sparse = accesses_of(&self.program.rhs, usize::MAX)
            .into_iter()
            .filter(|(id, _)| *id != access)
            .find_map(|(id, level_vars)| {
                let tensor = &self.program.tensors[access_tensor(&self.program.rhs, id)];
                let k = level_vars.iter().position(|&x| x == i)?;
                (!level_of(&tensor.levels[k]).full()).then(|| tensor.name.clone())
            });
        if let Some(tensor) = other_sparse {
            return Err(unsupported(format!(
                "`coord` of `{pos}` while `{tensor}` also iterates a sparse level of `{}`",
                self.program.vars[i]
            )));
        }
        let ic = self.fresh(coord)?;
        self.replace(p1, &[ic]);
        self.scheduled
            .relations
            .push(Relation::Coord { pos: p1, coord: ic });
        Ok(())
    }

    /// A lower bound (`MinExact`, `MinConstraint`) states where `v`'s loop starts; it cannot
    /// skip iterations. Every loop starts at 0 except a position loop under a known parent
    /// (which starts at that parent's first position, known only at run time), so the bound
    /// must be 0 and the loop must be one of those.
    fn check_lower_bound(
        &self,
        v: IndexVar,
        var: &Ident,
        value: (usize, Span),
    ) -> Result<(), Error> {
        if !self.starts_at_zero(v) {
            let what = format!(
                "a lower bound on `{var}`, whose loop starts at a position known only at run time"
            );
            return Err(Error::new(var.span(), ErrorKind::Unsupported(what)));
        }
        if value.0 != 0 {
            return Err(Error::new(
                value.1,
                ErrorKind::LowerBound {
                    var: var.to_string(),
                    value: value.0,
                },
            ));
        }
        Ok(())
    }

    /// Whether the loop over `v` starts at 0: a position loop only when it covers a root level
    /// or a collapse of levels from the root.
    fn starts_at_zero(&self, v: IndexVar) -> bool {
        match self.scheduled.deriving(v) {
            Some(Relation::Pos { parent, access, .. }) => {
                let roots = self.scheduled.underived(parent);
                let level_vars = accesses_of(&self.program.rhs, usize::MAX)
                    .into_iter()
                    .find(|(id, _)| *id == access)
                    .map(|(_, vars)| vars)
                    .unwrap_or_default();
                roots.len() > 1 || level_vars.first() == Some(&roots[0])
            }
            Some(Relation::Precompute { parent, .. }) => self.starts_at_zero(parent),
            _ => true,
        }
    }

    /// The name of an input that stores coordinate variable `v` in a level other than dense.
    fn sparse_level_of(&self, v: IndexVar) -> Option<String> {
        if self.scheduled.deriving(v).is_some() {
            return None;
        }
        accesses_of(&self.program.rhs, usize::MAX)
            .into_iter()
            .find_map(|(id, level_vars)| {
                let tensor = &self.program.tensors[access_tensor(&self.program.rhs, id)];
                let k = level_vars.iter().position(|&x| x == v)?;
                (!level_of(&tensor.levels[k]).full()).then(|| tensor.name.clone())
            })
    }

    /// The coordinates `coord` recovers for a position tile run from the tile's first nonzero to
    /// the next tile's; the lowering walks them as they are, so a command that would derive a new
    /// variable from them (`split`, `bound`, `pos`, `collapse`, `precompute`) is not supported yet.
    fn derives_from_coord_tile(&self, command: &Command) -> Result<(), Error> {
        let vars: Vec<&Ident> = match command {
            Command::Split { var, .. }
            | Command::Bound { var, .. }
            | Command::Pos { var, .. }
            | Command::Precompute { var, .. } => vec![var],
            Command::Collapse { outer, inner, .. } => vec![outer, inner],
            _ => Vec::new(),
        };
        for var in vars {
            let Ok(v) = self.loop_var(var) else { continue };
            if matches!(self.scheduled.deriving(v), Some(Relation::Coord { .. })) {
                let what = format!(
                    "`{}` of `{var}`, the coordinates `coord` recovers for a position tile",
                    command_name(command)
                );
                return Err(Error::new(var.span(), ErrorKind::Unsupported(what)));
            }
        }
        Ok(())
    }

    fn pos(&mut self, var: &Ident, pos: &Ident, tensor: &Ident) -> Result<(), Error> {
        let i = self.loop_var(var)?;
        if self.scheduled.is_position(i) {
            return Err(Error::new(
                var.span(),
                ErrorKind::PosOfPosition(var.to_string()),
            ));
        }
        // A precomputed copy of a variable iterates what the variable does.
        let mut original = i;
        while let Some(Relation::Precompute { parent, .. }) = self.scheduled.deriving(original) {
            original = parent;
        }
        if matches!(
            self.scheduled.deriving(original),
            Some(Relation::Split { .. } | Relation::Bound { .. })
        ) {
            let what = "`pos` of a split or bounded coordinate variable (a position tile inside a coordinate tile)";
            return Err(Error::new(var.span(), ErrorKind::Unsupported(what.into())));
        }
        let Some(t) = (1..self.program.tensors.len())
            .find(|&t| tensor == self.program.tensors[t].name.as_str())
        else {
            return Err(Error::new(
                tensor.span(),
                ErrorKind::NotAnInput(tensor.to_string()),
            ));
        };
        let roots = self.scheduled.underived(i);
        let precomputed = matches!(
            self.scheduled.deriving(i),
            Some(Relation::Precompute { .. })
        ) || (self.scheduled.relations.iter())
            .any(|r| matches!(r, Relation::Precompute { parent, .. } if *parent == i));
        if precomputed && roots.len() > 1 {
            let what = format!(
                "`pos` of `{var}`, a collapsed variable already precomputed over; put `pos` before \
                 `precompute`, as in `collapse(i, j, f).pos(f, p, A).precompute(.., p, pw, W)`"
            );
            return Err(Error::new(var.span(), ErrorKind::Unsupported(what)));
        }
        let (access, level) = self.indexing_level(t, &roots).ok_or_else(|| {
            Error::new(
                tensor.span(),
                ErrorKind::PosNotIndexing {
                    var: var.to_string(),
                    tensor: tensor.to_string(),
                },
            )
        })?;
        let levels = &self.program.tensors[t].levels;
        if roots.len() > 1 && !self.contiguous(access, level, &roots) {
            return Err(Error::new(
                var.span(),
                ErrorKind::CollapseNotContiguous {
                    tensor: tensor.to_string(),
                },
            ));
        }
        if level_of(&levels[level]).full() {
            return Err(Error::new(
                var.span(),
                ErrorKind::PosOnDense {
                    tensor: tensor.to_string(),
                    var: var.to_string(),
                },
            ));
        }
        if let Some(why) = level_of(&levels[level]).pos_refusal() {
            let what = format!("`pos` over `{tensor}`'s {why}");
            return Err(Error::new(var.span(), ErrorKind::Unsupported(what)));
        }
        let p = self.fresh(pos)?;
        if !self.visits_every_term(access, &roots) {
            let kind = ErrorKind::PosNotAnnihilating {
                var: var.to_string(),
                tensor: tensor.to_string(),
            };
            (self.partial_positions).push((p, Error::new(tensor.span(), kind)));
        }
        self.replace(i, &[p]);
        self.scheduled.relations.push(Relation::Pos {
            parent: i,
            pos: p,
            access,
        });
        Ok(())
    }

    /// Whether a loop over `roots` that visits only the entries of access `access` (`pos`) skips
    /// nothing: every term of the statement is zero wherever the access is, except, when `roots`
    /// are all summed over, terms that do not use them (they are added outside that loop).
    fn visits_every_term(&self, access: usize, roots: &[IndexVar]) -> bool {
        let Some(read) = self.program.rhs.find_access(access) else {
            return false;
        };
        let outputs = self.program.loop_vars_of(&self.program.output.indices);
        let summed = roots.iter().all(|r| !outputs.contains(r));
        self.program.rhs.sum_terms().into_iter().all(|term| {
            let mut used = Vec::new();
            term.collect_vars(&mut used);
            annihilated_by(term, read) || (summed && !used.iter().any(|v| roots.contains(v)))
        })
    }

    /// The first access of tensor `t` and the deepest of its levels that one of `roots` indexes.
    fn indexing_level(&self, t: usize, roots: &[IndexVar]) -> Option<(usize, usize)> {
        let accesses = accesses_of(&self.program.rhs, t);
        accesses.into_iter().find_map(|(id, level_vars)| {
            let level = level_vars.iter().rposition(|v| roots.contains(v))?;
            Some((id, level))
        })
    }

    /// Whether the collapsed `roots` are the levels `level - roots.len() + 1 ..= level` of the
    /// access, in order.
    fn contiguous(&self, access: usize, level: usize, roots: &[IndexVar]) -> bool {
        let vars = access_level_vars(&self.program.rhs, access);
        level + 1 >= roots.len() && vars.get(level + 1 - roots.len()..=level) == Some(roots)
    }

    fn collapse(&mut self, outer: &Ident, inner: &Ident, fused: &Ident) -> Result<(), Error> {
        let (i, j) = (self.loop_var(outer)?, self.loop_var(inner)?);
        if self.scheduled.is_position(i) {
            return Err(Error::new(
                outer.span(),
                ErrorKind::CollapseOuterPosition(outer.to_string()),
            ));
        }
        if self.scheduled.is_position(j) {
            let what = format!(
                "`collapse` of position variable `{inner}`, whose range depends on `{outer}`; \
                 collapse the coordinate variables, then apply `pos` to the result"
            );
            return Err(Error::new(inner.span(), ErrorKind::Unsupported(what)));
        }
        if !directly_nested(&self.cin, i, j) {
            let kind = ErrorKind::CollapseNotNested {
                outer: outer.to_string(),
                inner: inner.to_string(),
            };
            return Err(Error::new(inner.span(), kind));
        }
        let f = self.fresh(fused)?;
        self.cin = collapse_forall(&self.cin, i, j, f);
        self.scheduled.relations.push(Relation::Collapse {
            outer: i,
            inner: j,
            fused: f,
        });
        Ok(())
    }

    fn reorder(&mut self, names: &[Ident], span: Span) -> Result<(), Error> {
        for (k, name) in names.iter().enumerate() {
            if names[..k].contains(name) {
                return Err(Error::new(
                    name.span(),
                    ErrorKind::ReorderTwice(name.to_string()),
                ));
            }
        }
        let vars = names
            .iter()
            .map(|n| self.loop_var(n))
            .collect::<Result<Vec<_>, _>>()?;
        let nest = perfect_nest(&self.cin, &vars).ok_or_else(|| {
            let across = vars.iter().all(|v| self.cin.loops().contains(v))
                && crosses_where(&self.cin, &vars);
            let kind = if across {
                ErrorKind::ReorderAcrossReduction
            } else {
                ErrorKind::ReorderNotAdjacent
            };
            Error::new(span, kind)
        })?;
        let mut order = nest.clone();
        let mut slots: Vec<usize> = vars
            .iter()
            .filter_map(|v| nest.iter().position(|x| x == v))
            .collect();
        slots.sort_unstable();
        for (slot, v) in slots.into_iter().zip(&vars) {
            order[slot] = *v;
        }
        for (a, b, t) in order_edges(self.program, &self.program.rhs) {
            let position = |x: IndexVar| {
                order
                    .iter()
                    .position(|&y| self.scheduled.underived(y).contains(&x))
            };
            if let (Some(pa), Some(pb)) = (position(a), position(b))
                && pa > pb
            {
                let tensor = self.program.tensors[t].name.clone();
                return Err(Error::new(span, ErrorKind::ReorderModeOrder { tensor }));
            }
        }
        if self.appends_out_of_order(&order) {
            let tensor = self.program.tensors[0].name.clone();
            return Err(Error::new(span, ErrorKind::ReorderAppendOrder(tensor)));
        }
        self.cin = reorder_nest(&self.cin, &nest, &order);
        Ok(())
    }

    /// Whether loop order `order` puts the inner part of a split output coordinate outside its
    /// outer part: the coordinates then come out of order, which an output assembled by append
    /// cannot take.
    fn appends_out_of_order(&self, order: &[IndexVar]) -> bool {
        let outputs = self.program.loop_vars_of(&self.program.output.indices);
        let at = |v: IndexVar| order.iter().position(|&x| x == v);
        self.program.assembles_output()
            && self.scheduled.relations.iter().any(|r| match *r {
                Relation::Split {
                    parent,
                    outer,
                    inner,
                    ..
                } => {
                    let output =
                        (self.scheduled.underived(parent).iter()).any(|v| outputs.contains(v));
                    output && matches!((at(outer), at(inner)), (Some(o), Some(i)) if i < o)
                }
                _ => false,
            })
    }

    fn parallelize(
        &mut self,
        var: &Ident,
        unit: Unit,
        race: Race,
        span: Span,
    ) -> Result<(), Error> {
        let v = self.loop_var(var)?;
        if self.scheduled.parallel.contains_key(&v) {
            return Err(Error::new(
                var.span(),
                ErrorKind::ParallelTwice(var.to_string()),
            ));
        }
        if matches!(unit, Unit::GpuBlock | Unit::GpuWarp | Unit::GpuThread) {
            return Err(Error::new(
                span,
                ErrorKind::Unsupported("GPU parallel units (the CUDA back end)".into()),
            ));
        }
        let outputs = self.program.loop_vars_of(&self.program.output.indices);
        let roots = self.scheduled.underived(v);
        // A position of the input whose pattern the output takes is one output entry, so it writes
        // without races like an output coordinate does.
        let positions_own_entries = self.program.pattern_source().is_some();
        let output_like = roots.iter().all(|r| outputs.contains(r))
            && (!self.scheduled.is_position(v)
                || positions_own_entries
                || self.scheduled.tiles_coordinates(v));
        if unit == Unit::CpuThread && self.program.assembles_output() && !self.assembles_by_rows(v)
        {
            return Err(Error::new(
                span,
                ErrorKind::ParallelSparseOutput(self.program.tensors[0].name.clone()),
            ));
        }
        let reduces_inside = self.reduces_below(v);
        match race {
            Race::NoRaces if !output_like || (unit == Unit::CpuVector && reduces_inside) => {
                return Err(Error::new(
                    var.span(),
                    ErrorKind::ParallelRaces(var.to_string()),
                ));
            }
            Race::Temporary | Race::ParallelReduction if output_like => {
                return Err(Error::new(
                    var.span(),
                    ErrorKind::ParallelRaceNotOver(var.to_string()),
                ));
            }
            _ => {}
        }
        self.scheduled
            .parallel
            .insert(v, Parallel { unit, race, span });
        self.parallelized.get_or_insert(span);
        Ok(())
    }

    /// Whether the output is CSR-like (dense rows over one ordered, unique compressed level) and `v`
    /// runs over its rows (the row variable, or the outer part of a `Down` split of it): then the
    /// rows can be assembled in parallel (count, prefix sum, fill).
    fn assembles_by_rows(&self, v: IndexVar) -> bool {
        let out = &self.program.tensors[0];
        let [row_level, col_level] = &out.levels[..] else {
            return false;
        };
        let csr_like = level_of(row_level).full()
            && level_of(col_level).segments()
            && col_level.unique
            && col_level.ordered;
        let row = self.program.output.level_vars.first().copied();
        let over_rows = match self.scheduled.deriving(v) {
            None => Some(v) == row,
            Some(Relation::Split {
                parent,
                outer,
                direction: Direction::Down,
                ..
            }) => Some(parent) == row && outer == v,
            _ => false,
        };
        csr_like && over_rows
    }

    /// Whether a loop nested inside `v`'s iterates a variable the output is not indexed by.
    fn reduces_below(&self, v: IndexVar) -> bool {
        let outputs = self.program.loop_vars_of(&self.program.output.indices);
        let inner = loops_below(&self.cin, v);
        inner.iter().any(|&x| {
            !self
                .scheduled
                .underived(x)
                .iter()
                .all(|r| outputs.contains(r))
        })
    }

    fn statement_contains(&self, expr: &ast::Expr) -> bool {
        subexpr_texts(self.program, &self.program.rhs).contains(&expr_text(expr))
    }
}

fn command_name(c: &Command) -> &'static str {
    match c {
        Command::Pos { .. } => "pos",
        Command::Coord { .. } => "coord",
        Command::Collapse { .. } => "collapse",
        Command::Split { .. } => "split",
        Command::Reorder { .. } => "reorder",
        Command::Precompute { .. } => "precompute",
        Command::Bound { .. } => "bound",
        Command::Unroll { .. } => "unroll",
        Command::Parallelize { .. } => "parallelize",
        Command::Assemble { .. } => "assemble",
        Command::Prefetch { .. } => "prefetch",
    }
}

/// The loops nested inside the loop over `v`.
fn loops_below(cin: &Cin, v: IndexVar) -> Vec<IndexVar> {
    match cin {
        Cin::Forall { var, body } if *var == v => body.loops(),
        Cin::Forall { body, .. } => loops_below(body, v),
        Cin::Where { consumer, producer } => {
            let mut out = loops_below(consumer, v);
            out.extend(loops_below(producer, v));
            out
        }
        Cin::Assign { .. } => Vec::new(),
    }
}

fn replace_forall(cin: &Cin, v: IndexVar, with: &[IndexVar]) -> Cin {
    match cin {
        Cin::Forall { var, body } if *var == v => Cin::forall_over(with, (**body).clone()),
        Cin::Forall { var, body } => Cin::Forall {
            var: *var,
            body: Box::new(replace_forall(body, v, with)),
        },
        Cin::Where { consumer, producer } => Cin::where_of(
            replace_forall(consumer, v, with),
            replace_forall(producer, v, with),
        ),
        Cin::Assign { .. } => cin.clone(),
    }
}

/// `rhs` with its subexpression whose text is `target` read as temporary `t`; that
/// subexpression; and `t`.
fn replace_subexpr(
    program: &Program,
    rhs: &Expr,
    target: &str,
    t: usize,
) -> Option<(Expr, Expr, usize)> {
    if notation_text(program, rhs) == target {
        return Some((Expr::Temp(t), rhs.clone(), t));
    }
    match rhs {
        Expr::Neg(x) => {
            let (x, e, t) = replace_subexpr(program, x, target, t)?;
            Some((Expr::Neg(Box::new(x)), e, t))
        }
        Expr::Binary(op, a, b) => {
            if let Some((a, e, t)) = replace_subexpr(program, a, target, t) {
                return Some((Expr::Binary(*op, Box::new(a), b.clone()), e, t));
            }
            let (b, e, t) = replace_subexpr(program, b, target, t)?;
            Some((Expr::Binary(*op, a.clone(), Box::new(b)), e, t))
        }
        Expr::Access { .. } | Expr::Temp(_) | Expr::Literal(_) => None,
    }
}

/// The loops of the perfect nest at the top of `cin`, outermost first, and what they enclose.
fn split_nest(cin: &Cin) -> (Vec<IndexVar>, &Cin) {
    let mut nest = Vec::new();
    let mut node = cin;
    while let Cin::Forall { var, body } = node {
        nest.push(*var);
        node = body;
    }
    (nest, node)
}

/// Whether the subexpression with text `target` is a factor of `rhs`: `rhs` itself, or a factor
/// of a product, of a quotient's numerator or of a negation. (Concretization already places a
/// sum only where it distributes, so this guards the rewrite rather than the user.)
fn is_factor(program: &Program, rhs: &Expr, target: &str) -> bool {
    if notation_text(program, rhs) == target {
        return true;
    }
    match rhs {
        Expr::Binary(BinOp::Mul, a, b) => {
            is_factor(program, a, target) || is_factor(program, b, target)
        }
        Expr::Binary(BinOp::Div, a, _) => is_factor(program, a, target),
        Expr::Neg(a) => is_factor(program, a, target),
        _ => false,
    }
}

fn directly_nested(cin: &Cin, outer: IndexVar, inner: IndexVar) -> bool {
    match cin {
        Cin::Forall { var, body } if *var == outer => {
            matches!(&**body, Cin::Forall { var, .. } if *var == inner)
        }
        Cin::Forall { body, .. } => directly_nested(body, outer, inner),
        Cin::Where { consumer, producer } => {
            directly_nested(consumer, outer, inner) || directly_nested(producer, outer, inner)
        }
        Cin::Assign { .. } => false,
    }
}

fn collapse_forall(cin: &Cin, outer: IndexVar, inner: IndexVar, fused: IndexVar) -> Cin {
    match cin {
        Cin::Forall { .. } if let Some(body) = below_nest(cin, &[outer, inner]) => Cin::Forall {
            var: fused,
            body: Box::new(body.clone()),
        },
        Cin::Forall { var, body } => Cin::Forall {
            var: *var,
            body: Box::new(collapse_forall(body, outer, inner, fused)),
        },
        Cin::Where { consumer, producer } => Cin::where_of(
            collapse_forall(consumer, outer, inner, fused),
            collapse_forall(producer, outer, inner, fused),
        ),
        Cin::Assign { .. } => cin.clone(),
    }
}

/// The run of directly nested loops, outermost first, that contains exactly the loops in `vars`
/// plus any loops between them; `None` if a `where` or a branch separates them.
fn perfect_nest(cin: &Cin, vars: &[IndexVar]) -> Option<Vec<IndexVar>> {
    match cin {
        Cin::Forall { var, .. } if vars.contains(var) => {
            let mut nest = Vec::new();
            let mut node = cin;
            let mut left: BTreeSet<IndexVar> = vars.iter().copied().collect();
            while let Cin::Forall { var, body } = node {
                if left.is_empty() {
                    break;
                }
                left.remove(var);
                nest.push(*var);
                node = body;
            }
            left.is_empty().then_some(nest)
        }
        Cin::Forall { body, .. } => perfect_nest(body, vars),
        Cin::Where { consumer, producer } => {
            perfect_nest(consumer, vars).or_else(|| perfect_nest(producer, vars))
        }
        Cin::Assign { .. } => None,
    }
}

/// Whether the loops of `vars` are on one path but separated by a `where`.
fn crosses_where(cin: &Cin, vars: &[IndexVar]) -> bool {
    fn path(cin: &Cin, vars: &[IndexVar], seen: usize, crossed: bool) -> bool {
        match cin {
            Cin::Forall { var, body } => {
                let seen = seen + usize::from(vars.contains(var));
                if seen == vars.len() {
                    return crossed;
                }
                path(body, vars, seen, crossed)
            }
            Cin::Where { consumer, producer } => {
                let crossed = crossed || seen > 0;
                path(consumer, vars, seen, crossed) || path(producer, vars, seen, crossed)
            }
            Cin::Assign { .. } => false,
        }
    }
    path(cin, vars, 0, false)
}

/// Whether `expr` is zero wherever `tensor` read as `access` is: a loop may then visit only that
/// access's entries (`pos`) and skip nothing. A product is zero when one factor is, a quotient when
/// What lies inside the loops of `nest` when `cin` begins with exactly those loops, in that order.
/// Other producers may loop over some of the same variables (`j` and `i` around one operand,
/// `j`, an ELL operand's slots and `i` around another); only the nest found is rewritten.
fn below_nest<'c>(cin: &'c Cin, nest: &[IndexVar]) -> Option<&'c Cin> {
    nest.iter().try_fold(cin, |node, &v| match node {
        Cin::Forall { var, body } if *var == v => Some(&**body),
        _ => None,
    })
}

/// its numerator is, a sum only when every term is.
fn annihilated_by(expr: &Expr, access: &Access) -> bool {
    match expr {
        Expr::Access { access: a, .. } => a == access,
        Expr::Neg(e) | Expr::Binary(BinOp::Div, e, _) => annihilated_by(e, access),
        Expr::Binary(BinOp::Mul, a, b) => annihilated_by(a, access) || annihilated_by(b, access),
        Expr::Binary(BinOp::Add | BinOp::Sub, a, b) => {
            annihilated_by(a, access) && annihilated_by(b, access)
        }
        Expr::Temp(_) | Expr::Literal(_) => false,
    }
}

fn reorder_nest(cin: &Cin, nest: &[IndexVar], order: &[IndexVar]) -> Cin {
    match cin {
        Cin::Forall { .. } if let Some(body) = below_nest(cin, nest) => {
            Cin::forall_over(order, body.clone())
        }
        Cin::Forall { var, body } => Cin::Forall {
            var: *var,
            body: Box::new(reorder_nest(body, nest, order)),
        },
        Cin::Where { consumer, producer } => Cin::where_of(
            reorder_nest(consumer, nest, order),
            reorder_nest(producer, nest, order),
        ),
        Cin::Assign { .. } => cin.clone(),
    }
}

/// Every access of tensor `t` (all accesses for `usize::MAX`): its number and level variables.
fn accesses_of(e: &Expr, t: usize) -> Vec<(usize, Vec<IndexVar>)> {
    match e {
        Expr::Access { id, access } if t == usize::MAX || access.tensor == t => {
            vec![(*id, access.level_vars.clone())]
        }
        Expr::Access { .. } | Expr::Temp(_) | Expr::Literal(_) => Vec::new(),
        Expr::Neg(x) => accesses_of(x, t),
        Expr::Binary(_, a, b) => {
            let mut out = accesses_of(a, t);
            out.extend(accesses_of(b, t));
            out
        }
    }
}

fn access_level_vars(e: &Expr, access: usize) -> Vec<IndexVar> {
    accesses_of(e, usize::MAX)
        .into_iter()
        .find(|(id, _)| *id == access)
        .map(|(_, v)| v)
        .unwrap_or_default()
}

/// A syntax expression as text, in the form [`notation_text`] writes the statement's.
fn expr_text(e: &ast::Expr) -> String {
    match e {
        ast::Expr::Access(a) => {
            let idx: Vec<String> = a.indices.iter().map(ToString::to_string).collect();
            if idx.is_empty() {
                a.tensor.to_string()
            } else {
                format!("{}({})", a.tensor, idx.join(","))
            }
        }
        ast::Expr::Literal(l) => format!("{:?}", l.value),
        ast::Expr::Neg { operand, .. } => format!("(-{})", expr_text(operand)),
        ast::Expr::Binary { op, lhs, rhs, .. } => {
            format!("({}{op:?}{})", expr_text(lhs), expr_text(rhs))
        }
    }
}

/// The text of every subexpression of the statement.
fn subexpr_texts(program: &Program, e: &Expr) -> Vec<String> {
    let mut out = vec![notation_text(program, e)];
    match e {
        Expr::Neg(x) => out.extend(subexpr_texts(program, x)),
        Expr::Binary(_, a, b) => {
            out.extend(subexpr_texts(program, a));
            out.extend(subexpr_texts(program, b));
        }
        Expr::Access { .. } | Expr::Temp(_) | Expr::Literal(_) => {}
    }
    out
}

fn notation_text(program: &Program, e: &Expr) -> String {
    match e {
        Expr::Access { access, .. } => {
            let name = &program.tensors[access.tensor].name;
            let idx: Vec<&str> = access
                .indices
                .iter()
                .map(|&v| program.vars[v].as_str())
                .collect();
            if idx.is_empty() {
                name.clone()
            } else {
                format!("{name}({})", idx.join(","))
            }
        }
        Expr::Literal(l) => format!("{l:?}"),
        Expr::Temp(t) => format!("t{t}"),
        Expr::Neg(x) => format!("(-{})", notation_text(program, x)),
        Expr::Binary(op, a, b) => format!(
            "({}{op:?}{})",
            notation_text(program, a),
            notation_text(program, b)
        ),
    }
}
