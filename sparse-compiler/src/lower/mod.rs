//! Concrete index notation -> imperative IR (Kjolstad 2020, Chou et al. 2018).
//!
//! The lowerer walks the concrete statement. At each forall it builds the iteration lattice of the
//! loop body (`lattice`), then emits one loop per lattice point: a plain `for` over positions when
//! one position iterator drives the loop, a `for` over the dimension (with cursors for any sparse
//! operands) when the region is dense, and a two-finger `while` merge otherwise. Inside a loop, each
//! case of the lattice lowers the body with the operands that are absent in that case removed
//! (`expr::zero`). Levels are only ever touched through their level functions (`format::Level`).
//! Outputs are assembled as they are computed: dense levels by insert, compressed levels by append.

mod combine;
mod coord;
mod derived;
mod expr;
mod forall;
mod gpu;
mod names;
mod ops;
mod output;
mod precompute;
mod prefetch;
mod races;
mod tasks;
mod tile;
mod tracking;
mod written;

use std::collections::BTreeMap;

use crate::error::{Error, ErrorKind, Errors};
use crate::format::{LevelEnv, LevelRef, bin, level_fns, level_of};
use crate::ir::{self, Expr, HostStep, Stmt, Type, Var};
use crate::notation::{Access, Cin, IndexVar, Lhs, Program};
use crate::schedule::{BoundKind, Direction, Relation, Scheduled};
use names::Namer;

/// Lowers a scheduled program to an IR kernel named `name`.
pub fn lower(program: &Program, scheduled: &Scheduled, name: &str) -> Result<ir::Kernel, Errors> {
    let Some(cin) = scheduled.cin.as_ref() else {
        return Err(vec![Error::new(
            program.tensors[0].span,
            ErrorKind::Internal("an unscheduled statement".into()),
        )]);
    };
    let mut lowerer = Lowerer::new(program, scheduled);
    let mut body = lowerer.bound_checks().map_err(|e| vec![e])?;
    lowerer.begin_output(&mut body)?;
    lowerer.stmt(cin, &mut body).map_err(|e| vec![e])?;
    lowerer.check_output_read().map_err(|e| vec![e])?;
    lowerer.end_output(&mut body);
    lowerer.check_prefetches_apply()?;
    let set_whole = lowerer.partial_output_write && !lowerer.run_bounds_initialized;
    if !set_whole || program.output_read.is_some() {
        // Every output position is overwritten (or was set already, at the bounds of a region's
        // runs of tiles), so zeroing it first would be a wasted pass (a kernel that reads its
        // output writes every position: `check_output_read`).
        body.retain(|s| {
            !matches!(
                s,
                Stmt::Host(HostStep::ZeroOutput { .. } | HostStep::FillOutput { .. })
            )
        });
    }
    // The bound checks and the structure copy come first, before anything hoisted: backends run
    // them before binding the output's arrays.
    let prologue = body.iter().take_while(|s| s.is_prologue()).count();
    let rest = body.split_off(prologue);
    let mut stmts = body;
    stmts.append(&mut lowerer.hoisted);
    stmts.extend(rest);
    let combine = combine::user_combine(program, &stmts)?;
    Ok(ir::Kernel {
        name: name.to_string(),
        params: params(program),
        signature: program.signature.clone(),
        shape_checks: shape_checks(program, &lowerer.accesses),
        body: stmts,
        combine,
    })
}

fn params(program: &Program) -> Vec<ir::Param> {
    program
        .tensors
        .iter()
        .enumerate()
        .map(|(k, t)| ir::Param {
            name: t.name.clone(),
            output: k == program.output.tensor,
            order: t.order,
            format: t.format.clone(),
            convert_to: program.copies.get(k).map(|c| c.format()),
            by_value: t.by_value,
            copy_of: t.copy_of,
            fill: t.fill.map_or(ir::Literal::Int(0), expr::ir_literal),
        })
        .collect()
}

/// For every index variable, the dimensions it indexes: they must agree at run time. A tensor
/// local to the kernel has the shape of the input it copies, which is checked instead.
fn shape_checks(program: &Program, accesses: &[Access]) -> Vec<ir::ShapeCheck> {
    program
        .vars
        .iter()
        .enumerate()
        .map(|(v, name)| {
            let mut dims = Vec::new();
            for a in accesses {
                let tensor = program.tensors[a.tensor].copy_of.unwrap_or(a.tensor);
                for (d, &x) in a.indices.iter().enumerate() {
                    if x == v && !dims.contains(&(tensor, d)) {
                        dims.push((tensor, d));
                    }
                }
            }
            ir::ShapeCheck {
                index: name.clone(),
                dims,
            }
        })
        .collect()
}

/// What a temporary of the concrete statement became in the IR.
#[derive(Clone, Debug)]
enum Temp {
    /// A scalar accumulator.
    Scalar(Var),
    /// A `precompute` workspace over the values of the loop of `var`, from `lo`.
    Precomputed {
        values: Var,
        var: IndexVar,
        lo: Expr,
    },
    /// A dense workspace over `var` with its touched-coordinate list; its values start at
    /// `init`.
    Workspace {
        var: IndexVar,
        values: Var,
        set: Var,
        list: Var,
        count: Var,
        init: ir::Literal,
    },
}

/// The lowering state: which coordinates and level positions are known at the current point of
/// the generated code. Loops save and restore it around their bodies.
#[derive(Clone, Default)]
struct Scope {
    coords: BTreeMap<IndexVar, Expr>,
    positions: BTreeMap<(usize, usize), Expr>,
    /// For a non-unique level whose position is the start of a run of equal coordinates: the
    /// position after the run (its children span the whole run).
    run_ends: BTreeMap<(usize, usize), Expr>,
    /// Levels iterated by value in the current loop, whose positions come from `coord_access`.
    value_iterated: Vec<(usize, usize)>,
    /// The positions a `coord` tile iterates, by (access, level), in place of the level's
    /// `pos_bounds`.
    tiles: BTreeMap<(usize, usize), (Expr, Expr)>,
    /// The coordinates a `coord` tile covers, by variable, in place of its extent.
    coord_ranges: BTreeMap<IndexVar, (Expr, Expr)>,
    /// The variable whose loop runs over one coordinate tile (`tile.rs`): the output segment it
    /// fills is closed after the loop over all the tiles, not after each.
    tiled: Option<IndexVar>,
    /// Inner loops of splits bounded so that the recovered parent stays in its range (no guard).
    tight: std::collections::BTreeSet<IndexVar>,
    /// Position relations over a collapsed variable whose upper coordinate nothing here reads:
    /// their positions bind the bottom coordinate only, with no tracker.
    untracked: std::collections::BTreeSet<usize>,
    /// The tracker of each position relation over a collapsed variable.
    trackers: BTreeMap<usize, Tracker>,
    /// The loop over position tiles whose iterations each walk a run of tiles (`tasks.rs`), and
    /// the run's length in tiles.
    tiles_per_task: Option<(IndexVar, Expr)>,
    /// A segment sum collecting the output's additions (the relation and its scalar).
    segment_sum: Option<(usize, Var)>,
    /// Levels (access, level) whose position steps by one from a run of the innermost enclosing
    /// loop to the next: the level a position loop iterates, or a dense level located from a
    /// coordinate loop's variable. The rows of a compressed level below one of these follow each
    /// other in memory, so its loops are preceded by a [`Stmt::Prefetch`].
    stepped: std::collections::BTreeSet<(usize, usize)>,
    /// The variable of the innermost loop over coordinates being lowered (a dense or derived
    /// loop; none inside a position loop, whose coordinates jump).
    counting: Option<IndexVar>,
    /// Whether the code being lowered runs inside a thread-parallel loop.
    in_parallel: bool,
    /// Whether some enclosing loop or case does not visit its variable's whole extent, so a write
    /// here does not cover every output position.
    partial: bool,
    /// Whether some enclosing loop or case visits only some coordinates of its variable (a loop
    /// driven by a sparse operand, a position loop, a case no other case completes): `partial`
    /// without the cases of a merge over a dense range, which together visit every coordinate.
    uncovered: bool,
}

/// Coordinate recovery's walk over the segments of an upper level (Senanayake et al.'s tracking: search
/// once, then advance), as variables of the generated code.
#[derive(Clone, Debug)]
struct Tracker {
    /// The segment holding the current position.
    segment: Var,
    /// Where that segment ends (its next `pos` entry), kept so that the test made at every
    /// position compares two locals instead of loading `pos`.
    end: Var,
    /// The segment the walk started in, kept where a segment sum is flushed as the walk
    /// advances: the only segment a tile can share with an earlier tile, so every later one it
    /// finishes is its own and is stored, not added.
    first: Option<Var>,
    /// For a collapse of more than two levels, the segments of the levels further up, nearest
    /// first, each with its end: the segment of level `u - 1` holding the current position of
    /// level `u`, walked forward as the level below it advances.
    uppers: Vec<(Var, Var)>,
}

struct Lowerer<'p> {
    program: &'p Program,
    scheduled: &'p Scheduled,
    /// Every access by number; 0 is the output.
    accesses: Vec<Access>,
    names: Namer,
    scope: Scope,
    temps: BTreeMap<usize, Temp>,
    /// The effective expression each temporary stands for (for lattices).
    temp_exprs: BTreeMap<usize, crate::notation::Expr>,
    /// Declarations hoisted to the top of the kernel (workspaces).
    hoisted: Vec<Stmt>,
    /// The access whose structure the output takes, if any (`Program::pattern_source`).
    pattern_source: Option<usize>,
    /// Whether the output's entries are collected and packed at the end (hashed levels).
    collects_entries: bool,
    /// Declarations for the body of the thread-parallel loop being lowered (its workspaces),
    /// which would otherwise be shared by its tasks.
    parallel_locals: Vec<Stmt>,
    /// Whether some write of a dense output accumulates or does not cover every position (the
    /// output must then be zeroed first).
    partial_output_write: bool,
    /// Whether some write of the output is `uncovered` (`Scope::uncovered`).
    uncovered_output_write: bool,
    /// Whether the rows a region over runs of tiles does not store were set before it
    /// (`tasks.rs`), so the output needs no pass that sets it whole.
    run_bounds_initialized: bool,
    /// The tensors of `prefetch` commands that some loop gathers from.
    gathered: std::collections::BTreeSet<usize>,
    /// The write flags of the scalar temporaries that have one (`written`).
    flags: BTreeMap<usize, written::WriteFlag>,
    /// Each temporary's value where its producer stored nothing: the identity of its reduction.
    temp_inits: BTreeMap<usize, f64>,
    /// What an output element holds before the kernel writes it (a dense output written with
    /// `=`: the identity of the reduction where the kernel reduces into it, else its fill; a
    /// sparse output: its fill).
    output_init: f64,
}

impl<'p> Lowerer<'p> {
    fn new(program: &'p Program, scheduled: &'p Scheduled) -> Self {
        let mut accesses = vec![program.output.clone(); program.access_count];
        collect_accesses(&program.rhs, &mut accesses);
        Lowerer {
            program,
            scheduled,
            accesses,
            names: Namer::default(),
            scope: Scope::default(),
            temps: BTreeMap::new(),
            temp_exprs: BTreeMap::new(),
            hoisted: Vec::new(),
            pattern_source: program.pattern_source(),
            collects_entries: false,
            parallel_locals: Vec::new(),
            partial_output_write: false,
            uncovered_output_write: false,
            run_bounds_initialized: false,
            gathered: Default::default(),
            flags: BTreeMap::new(),
            temp_inits: BTreeMap::new(),
            output_init: output_init(program, scheduled),
        }
    }

    /// A `bound` command's promise about an extent, checked before the kernel runs. The extent
    /// of a split's part is its number of tiles, not a dimension.
    fn bound_checks(&self) -> Result<Vec<Stmt>, Error> {
        let mut checks = Vec::new();
        for r in &self.scheduled.relations {
            if let Relation::Bound {
                parent,
                kind: kind @ (BoundKind::MaxExact | BoundKind::MaxConstraint),
                value,
                ..
            } = *r
            {
                let (lo, hi) = self.range_of(parent)?;
                let extent = match lo {
                    Expr::Index(0) => hi,
                    lo => bin(ir::BinOp::Sub, hi, lo),
                };
                checks.push(Stmt::Host(HostStep::CheckBound {
                    index: self.program.vars[parent].clone(),
                    extent,
                    bound: value,
                    exact: kind == BoundKind::MaxExact,
                }));
            }
        }
        Ok(checks)
    }

    fn stmt(&mut self, cin: &Cin, out: &mut Vec<Stmt>) -> Result<(), Error> {
        match cin {
            Cin::Forall { var, body } => self.forall(*var, body, out),
            Cin::Where { consumer, producer } => self.where_(consumer, producer, out),
            Cin::Sequence { first, second } => {
                self.stmt(first, out)?;
                self.stmt(second, out)
            }
            Cin::Assign {
                lhs,
                accumulate,
                op,
                rhs,
            } => {
                let op = accumulate.then(|| self.reduce_op(*op)).transpose()?;
                self.assign(lhs, op, rhs, out)
            }
        }
    }

    /// The statement's reduction, as the IR's operator (`+` unless `reduce<...>` names another).
    fn reduction(&self) -> ir::ReduceOp {
        ir::ReduceOp::of(self.program.reduce_op()).unwrap_or(ir::ReduceOp::Add)
    }

    /// The identity of the statement's reduction, as a value expression.
    fn identity_value(&self) -> Expr {
        Expr::Value(self.reduction().identity())
    }

    /// The IR's reduction for operator `op` of an accumulating assignment.
    fn reduce_op(&self, op: crate::algebra::Op) -> Result<ir::ReduceOp, Error> {
        ir::ReduceOp::of(op).ok_or_else(|| self.internal("a reduction without an identity"))
    }

    /// The value an assignment leaves its place at where a loop skips it: the identity of its
    /// reduction when it accumulates, else what the place starts as (the output's initial
    /// value, a temporary's).
    fn skip_for(&self, lhs: &Lhs, accumulate: bool, op: crate::algebra::Op) -> f64 {
        if accumulate {
            return op.reduction_identity().unwrap_or(0.0);
        }
        match lhs {
            Lhs::Output => self.output_init,
            Lhs::Scalar(t) | Lhs::Workspace { temp: t, .. } | Lhs::Precomputed { temp: t, .. } => {
                self.temp_inits.get(t).copied().unwrap_or(0.0)
            }
        }
    }

    /// The value of temporary `t` where its producer stored nothing.
    fn temp_fill(&self, t: usize) -> Option<f64> {
        self.temp_inits.get(&t).copied()
    }

    /// The value the loops around `body` may skip: that of the assignment whose value reaches
    /// the output (or the outermost temporary) last, the consumer of every `where`.
    fn skip_of(&self, body: &Cin) -> f64 {
        match body {
            Cin::Forall { body, .. } => self.skip_of(body),
            Cin::Where { consumer, .. } => self.skip_of(consumer),
            // A loop may skip what both statements leave as it is; where they differ, nothing.
            Cin::Sequence { first, second } => match (self.skip_of(first), self.skip_of(second)) {
                (a, b) if crate::algebra::same(a, b) => a,
                _ => f64::NAN,
            },
            Cin::Assign {
                lhs,
                accumulate,
                op,
                ..
            } => self.skip_for(lhs, *accumulate, *op),
        }
    }

    fn where_(&mut self, consumer: &Cin, producer: &Cin, out: &mut Vec<Stmt>) -> Result<(), Error> {
        let (temp, lhs) = produced_temp(producer)
            .ok_or_else(|| self.internal("a `where` without a temporary"))?;
        let effective = self.effective(producer);
        self.temp_exprs.insert(temp, effective);
        let init = match produced_assign(producer) {
            Some((_, _, true, op)) => op.reduction_identity().unwrap_or(0.0),
            _ => 0.0,
        };
        self.temp_inits.insert(temp, init);
        match lhs {
            Lhs::Scalar(_) => {
                let var = self.names.fresh("t");
                out.push(Stmt::Let {
                    var: var.clone(),
                    ty: Type::Value,
                    init: Expr::Value(expr::ir_literal(expr::literal_of(init))),
                    mutable: true,
                });
                self.temps.insert(temp, Temp::Scalar(var));
                self.scalar_where(temp, consumer, producer, out)
            }
            Lhs::Workspace { var, .. } => {
                let init = expr::ir_literal(expr::literal_of(init));
                let ws = self.workspace(var, init);
                self.temps.insert(temp, ws);
                self.stmt(producer, out)?;
                self.workspace_consumer(temp, consumer, out)
            }
            Lhs::Precomputed { var, .. } => self.precomputed(temp, var, consumer, producer, out),
            Lhs::Output => Err(self.internal("a `where` producing the output")),
        }
    }

    /// The expression a statement computes, with temporaries replaced by what they stand for.
    fn effective(&self, cin: &Cin) -> crate::notation::Expr {
        effective_with(cin, &self.temp_exprs)
    }

    /// The index variable stored by level `k` of access `a`, if it stores a whole dimension.
    fn level_var(&self, a: usize, k: usize) -> Option<IndexVar> {
        self.accesses[a].level_vars.get(k).copied()
    }

    /// What the level functions of level `k` of access `a` may read: its arrays, the coordinates
    /// of the levels above (0 where not bound), and the size of the dimension below it.
    fn level_env(&self, a: usize, k: usize) -> LevelEnv {
        let ancestors = (0..k)
            .map(|l| {
                let v = self.level_var(a, l);
                v.and_then(|v| self.scope.coords.get(&v).cloned())
                    .unwrap_or(Expr::Index(0))
            })
            .collect();
        let next_dim = self
            .levels(a)
            .get(k + 1)
            .and_then(|l| l.coord.dim())
            .map(|dim| Expr::Dim {
                param: self.accesses[a].tensor,
                dim,
            });
        LevelEnv {
            at: self.level_ref(a, k),
            ancestors,
            next_dim,
            parent: self.parent_pos(a, k),
        }
    }

    fn levels(&self, a: usize) -> &[crate::format::LevelSpec] {
        self.program.iterated_levels(self.accesses[a].tensor)
    }

    fn level_ref(&self, a: usize, k: usize) -> LevelRef {
        LevelRef {
            param: self.accesses[a].tensor,
            level: k,
        }
    }

    /// The position of the parent of level `k` of access `a` (the root's parent is position 0).
    fn parent_pos(&self, a: usize, k: usize) -> Option<Expr> {
        if k == 0 {
            Some(Expr::Index(0))
        } else {
            self.scope.positions.get(&(a, k - 1)).cloned()
        }
    }

    /// Whether `v` grows by one with each run of the innermost coordinate loop: it is that loop's
    /// variable, or the parent of a `Down` split whose inner variable does.
    fn counts_up(&self, v: IndexVar) -> bool {
        let Some(mut w) = self.scope.counting else {
            return false;
        };
        while w != v {
            match self.scheduled.deriving(w) {
                Some(Relation::Split {
                    parent,
                    inner,
                    direction: Direction::Down,
                    ..
                }) if inner == w => w = parent,
                _ => return false,
            }
        }
        true
    }

    /// The first level of access `a` whose position is not known yet.
    fn next_level(&self, a: usize) -> usize {
        (0..self.levels(a).len())
            .find(|&k| !self.scope.positions.contains_key(&(a, k)))
            .unwrap_or(self.levels(a).len())
    }

    /// Locates every level whose coordinate is bound and whose parent is known, top-down, for
    /// every access: levels with `locate` (dense), and value-iterated levels of the current loop
    /// (range) by `coord_access`. Called after each new coordinate binding.
    fn locate_ready(&mut self, out: &mut Vec<Stmt>) -> Result<(), Error> {
        for a in 0..self.accesses.len() {
            loop {
                let k = self.next_level(a);
                if k == self.levels(a).len() {
                    break;
                }
                let spec = self.levels(a)[k];
                let Some(v) = self.level_var(a, k) else { break };
                let Some(coord) = self.scope.coords.get(&v).cloned() else {
                    break;
                };
                let Some(parent) = self.parent_pos(a, k) else {
                    break;
                };
                if a == 0 && !level_of(&spec).full() {
                    // An output with an input's structure sits at that input's positions (a
                    // hashed level too: the lowerer locates into dense levels only).
                    match self
                        .pattern_source
                        .and_then(|s| self.scope.positions.get(&(s, k)).cloned())
                    {
                        Some(p) => {
                            self.scope.positions.insert((0, k), p);
                            continue;
                        }
                        None => break,
                    }
                }
                let env = self.level_env(a, k);
                let fns = level_fns(spec.kind);
                let p = if self.scope.value_iterated.contains(&(a, k)) {
                    fns.coord_access(&env, &parent, &coord)
                } else {
                    fns.locate(&env, &parent, &coord)
                };
                let Some(p) = p else {
                    break;
                };
                let p = self.bind_index("p", p, out);
                self.scope.positions.insert((a, k), p);
                if level_of(&spec).full() && self.counts_up(v) {
                    self.scope.stepped.insert((a, k));
                }
            }
        }
        Ok(())
    }

    /// Binds `value` to a fresh immutable index variable unless it is already a variable or constant.
    fn bind_index(&mut self, hint: &str, value: Expr, out: &mut Vec<Stmt>) -> Expr {
        if matches!(value, Expr::Var(_) | Expr::Index(_)) {
            return value;
        }
        let var = self.names.fresh(hint);
        out.push(Stmt::Let {
            var: var.clone(),
            ty: Type::Index,
            init: value,
            mutable: false,
        });
        Expr::Var(var)
    }

    fn unsupported(&self, what: &str) -> Error {
        Error::new(
            self.program.tensors[0].span,
            ErrorKind::Unsupported(what.to_string()),
        )
    }

    fn internal(&self, what: &str) -> Error {
        Error::new(
            self.program.tensors[0].span,
            ErrorKind::Internal(what.to_string()),
        )
    }
}

fn collect_accesses(e: &crate::notation::Expr, out: &mut [Access]) {
    use crate::notation::Expr as E;
    match e {
        E::Access { id, access } => out[*id] = access.clone(),
        E::Temp(_) | E::Literal(_) => {}
        E::Op(_, args) => {
            for a in args {
                collect_accesses(a, out);
            }
        }
    }
}

/// What an output element holds before the kernel writes it: for a dense output written with
/// `=`, the identity of the reduction when some write reduces into it, else its fill (which
/// `HostStep::ZeroOutput` or `FillOutput` puts there); the fill of a sparse output.
fn output_init(program: &Program, scheduled: &Scheduled) -> f64 {
    let dense = (program.iterated_levels(program.output.tensor).iter()).all(|l| level_of(l).full());
    let reduces = scheduled.cin.as_ref().is_some_and(reduces_into_output);
    match dense && reduces {
        true => program.identity(),
        false => program.output_fill(),
    }
}

/// Whether some assignment of `cin` reduces into the output.
fn reduces_into_output(cin: &Cin) -> bool {
    match cin {
        Cin::Forall { body, .. } => reduces_into_output(body),
        Cin::Where {
            consumer: first,
            producer: second,
        }
        | Cin::Sequence { first, second } => {
            reduces_into_output(first) || reduces_into_output(second)
        }
        Cin::Assign {
            lhs, accumulate, ..
        } => *lhs == Lhs::Output && *accumulate,
    }
}

/// [`Lowerer::effective`] with the values of the temporaries known around `cin`: a `where`
/// inside it gives its own temporary's value, which replaces any one left from an earlier lattice
/// case (where another operand was absent). A reduction whose term is not its identity where the
/// term's tensors store nothing (`sum_j (A(i,j) + 1)`) is not that term's value there: such a
/// temporary stays in the expression beside its term, so that its value is not taken as known.
fn effective_with(
    cin: &Cin,
    temps: &BTreeMap<usize, crate::notation::Expr>,
) -> crate::notation::Expr {
    use crate::notation::Expr as E;
    match cin {
        Cin::Forall { body, .. } => effective_with(body, temps),
        Cin::Where { consumer, producer } => {
            let mut temps = temps.clone();
            if let Some((t, _, accumulate, op)) = produced_assign(producer) {
                let value = effective_with(producer, &temps);
                let identity = op.reduction_identity();
                let kept = !accumulate
                    || op.is_idempotent()
                    || matches!((value.fill(), identity), (Some(f), Some(i)) if crate::algebra::same(f, i));
                let value = match kept {
                    true => value,
                    false => E::Op(crate::algebra::Op::Add, vec![value, E::Temp(t)]),
                };
                temps.insert(t, value);
            }
            effective_with(consumer, &temps)
        }
        // The loops around a sequence visit what either statement needs.
        Cin::Sequence { first, second } => E::Op(
            crate::algebra::Op::Add,
            vec![effective_with(first, temps), effective_with(second, temps)],
        ),
        Cin::Assign { rhs, .. } => substitute(rhs, temps),
    }
}

/// The temporary a producer statement assigns, how, whether it reduces into it and with what.
fn produced_assign(cin: &Cin) -> Option<(usize, Lhs, bool, crate::algebra::Op)> {
    match cin {
        Cin::Forall { body, .. } => produced_assign(body),
        Cin::Where { consumer, .. } => produced_assign(consumer),
        Cin::Sequence { .. } => None,
        Cin::Assign {
            lhs,
            accumulate,
            op,
            ..
        } => {
            let (t, _) = produced_temp(cin)?;
            Some((t, lhs.clone(), *accumulate, *op))
        }
    }
}

/// The temporary a producer statement assigns, and how.
fn produced_temp(cin: &Cin) -> Option<(usize, Lhs)> {
    match cin {
        Cin::Forall { body, .. } => produced_temp(body),
        Cin::Where { consumer, .. } => produced_temp(consumer),
        Cin::Sequence { .. } => None,
        Cin::Assign {
            lhs: lhs @ Lhs::Scalar(t),
            ..
        } => Some((*t, lhs.clone())),
        Cin::Assign {
            lhs: lhs @ (Lhs::Workspace { temp, .. } | Lhs::Precomputed { temp, .. }),
            ..
        } => Some((*temp, lhs.clone())),
        Cin::Assign {
            lhs: Lhs::Output, ..
        } => None,
    }
}

fn substitute(
    e: &crate::notation::Expr,
    temps: &BTreeMap<usize, crate::notation::Expr>,
) -> crate::notation::Expr {
    use crate::notation::Expr as E;
    match e {
        E::Temp(t) => temps.get(t).cloned().unwrap_or(E::Temp(*t)),
        E::Access { .. } | E::Literal(_) => e.clone(),
        E::Op(op, args) => E::Op(*op, args.iter().map(|a| substitute(a, temps)).collect()),
    }
}
