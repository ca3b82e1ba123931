//! Scheduling (Senanayake et al. 2020): the commands of the `schedule<...>` clause applied to
//! concrete index notation, the provenance graph of derived index variables, and the loop tags
//! (parallel units, race strategies, unrolling, bounds) that lowering reads. Every precondition
//! that the statement alone decides is checked here, spanned on the offending command; the ones
//! that need a loop's iteration lattice (co-iteration under `parallelize`) are checked by lowering
//! with the span recorded here.
//!
//! After the commands, `finalize` introduces the temporaries the final loop order calls for,
//! `hoist` moves the factors a scalar sum does not need out of it, and `gpu` checks the
//! preconditions of GPU units, which depend on that final order.
//!
//! The commands arrive typed (`syntax` checked their arguments); what their names refer to is
//! checked here. One file per command, each an `impl State` with the command's preconditions and
//! rewrite; `provenance` holds the relations the commands record, `auto` the autoscheduler, and
//! `nest` the walks over concrete index notation that several commands share.

mod assemble;
mod auto;
mod bound;
mod collapse;
mod coord;
mod finalize;
mod gpu;
mod hoist;
pub(crate) mod nest;
mod parallelize;
mod pos;
mod precompute;
mod prefetch;
mod provenance;
mod reorder;
mod split;
mod unroll;

pub use crate::syntax::ast::{BoundKind, Direction, Race, Unit};
pub use finalize::finalize;
pub use gpu::GpuLaunch;
pub use provenance::Relation;

use std::collections::BTreeMap;

use proc_macro2::Span;
use syn::Ident;

use crate::error::{Error, ErrorKind, Errors};
use crate::notation::{Cin, IndexVar, Program};
use crate::syntax::ast::{self, CommandKind};
use nest::replace_forall;

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
    /// The launch shape of a GPU kernel (`None` for a CPU kernel), once its preconditions hold.
    pub gpu: Option<GpuLaunch>,
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
            state.scheduled.chosen = auto::auto_schedule(&mut state, *span);
        }
        Some(ast::Schedule::Commands(commands)) => {
            for c in commands {
                state.apply(c).map_err(|e| vec![e])?;
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
    let cin = finalize(program, cin, &output_like, &touches_output, &fixed);
    let cin = hoist::hoist_invariant_factors(cin, &|v| scheduled.underived(v));
    // The nesting of GPU units is that of the final loops.
    scheduled.gpu = gpu::gpu_launch(program, &scheduled, &cin).map_err(|e| vec![e])?;
    scheduled.cin = Some(cin);
    Ok(scheduled)
}

/// A statement being scheduled: the commands so far applied to it.
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
    /// Applies one command, after the checks that concern every command.
    fn apply(&mut self, command: &ast::Command) -> Result<(), Error> {
        let span = command.span;
        // `prefetch` transforms no loop, so it may follow `parallelize`.
        let transforms = !matches!(
            command.kind,
            CommandKind::Parallelize { .. } | CommandKind::Prefetch { .. }
        );
        if self.parallelized.is_some() && transforms {
            let name = command.kind.name();
            return Err(Error::new(
                span,
                ErrorKind::AfterParallelize(name.to_string()),
            ));
        }
        self.derives_from_coord_tile(&command.kind)?;
        match &command.kind {
            CommandKind::Split {
                var,
                outer,
                inner,
                direction,
                factor,
            } => self.split(var, outer, inner, *direction, factor.0),
            CommandKind::Pos { var, pos, tensor } => self.pos(var, pos, tensor),
            CommandKind::Coord { pos, coord } => self.coord(pos, coord),
            CommandKind::Collapse {
                outer,
                inner,
                fused,
            } => self.collapse(outer, inner, fused),
            CommandKind::Reorder { vars } => self.reorder(vars, span),
            CommandKind::Precompute {
                expr,
                var,
                workspace_var,
                workspace,
            } => self.precompute(expr, var, workspace_var, workspace, span),
            CommandKind::Bound {
                var,
                bound,
                value,
                kind,
            } => self.bound(var, bound, *value, *kind),
            CommandKind::Unroll { var, factor } => self.unroll(var, factor.0),
            CommandKind::Parallelize { var, unit, race } => {
                self.parallelize(var, *unit, *race, span)
            }
            CommandKind::Prefetch { tensor, distance } => self.prefetch(tensor, distance.0, span),
            CommandKind::Assemble { tensor, insert } => self.assemble(tensor, *insert, span),
        }
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
}
