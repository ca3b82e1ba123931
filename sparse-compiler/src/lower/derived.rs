//! Loops over derived index variables (Senanayake et al. 2020): their bounds come from the
//! provenance graph, and after each loop variable is bound the variables it was derived from are
//! recovered (`outer * s + inner` for a split, `f / n` and `f % n` for a collapse, `crd[p]` for a
//! position), with a guard wherever a recovered variable can pass its extent (the tail of a split
//! whose factor does not divide it). A position loop over a collapsed variable recovers the outer
//! coordinate by tracking (`tracking.rs`).

use super::Lowerer;
use super::races::{make_output_sums_atomic, shared_by_iterations};
use crate::error::{Error, ErrorKind};
use crate::format::{bin, level_fns, level_of, properties};
use crate::ir::{
    Array, BinOp, Expr, OutputAccess, Region, Scope, Stmt, Type, Unit as IrUnit, Var, any_stmt,
    visit::inputs_read,
};
use crate::notation::{Cin, IndexVar};
use crate::schedule::{BoundKind, Direction, Parallel as ParallelTag, Race, Relation, Unit};

impl Lowerer<'_> {
    /// A loop over a variable a schedule command created.
    pub(super) fn derived_loop(
        &mut self,
        v: IndexVar,
        body: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let (lo, hi) = self.derived_bounds(v)?;
        let tasks = self.tiles_per_task(v, &lo, &hi, out);
        if let Some((per_task, count)) = &tasks {
            self.run_bounds_initialized |= self.init_run_bounds(v, per_task, count, out);
        }
        let hi = tasks.as_ref().map_or(hi, |(_, count)| count.clone());
        let name = match tasks {
            Some(_) => self.names.fresh(&format!("{}_task", self.program.vars[v])),
            None => self.names.fresh(&self.program.vars[v].clone()),
        };
        let tiles_segment = self.segment_of_tiles(v, body);
        let saved = self.scope.clone();
        let tracker_outside = self
            .tracked_pos(v)
            .filter(|_| self.is_pos_var(v) && !self.parallel_at(v));
        let mut flush_after = None;
        if let Some((relation, access, level)) = tracker_outside {
            flush_after = self.declare_tracker(relation, access, level, lo.clone(), out);
        }
        if self.walked_by_segments(v, &hi, body, out)? {
            out.extend(flush_after);
            return Ok(());
        }
        let tight = self.tight_inner_bound(v)?;
        let hi = tight.clone().unwrap_or(hi);
        let mut inner = Vec::new();
        self.scope.coords.insert(v, Expr::Var(name.clone()));
        // An iteration over a run of tiles starts at its first.
        if let Some((per_task, _)) = tasks {
            let first = bin(BinOp::Mul, Expr::Var(name.clone()), per_task.clone());
            self.scope.coords.insert(v, first);
            self.scope.tiles_per_task = Some((v, per_task));
        }
        if tight.is_some() {
            self.scope.tight.insert(v);
        }
        // Split, bound and collapse loops cover their parent's whole range (recovery guards only
        // drop the tail past it); a position loop covers only stored coordinates.
        self.scope.partial |= self.scheduled.is_position(v);
        self.scope.uncovered |= self.scheduled.is_position(v);
        self.scope.in_parallel |= self.thread_parallel(v);
        self.scope.stepped.clear();
        self.scope.counting = Some(v);
        let mut flush_inside = None;
        if let Some((relation, access, level)) = self.tracked_pos(v)
            && !self.scope.trackers.contains_key(&relation)
            && !self.scope.untracked.contains(&relation)
            && !self.gpu_loop_below(v, relation)
            && !self.restarts_below(v, relation)
        {
            let first = self.first_position(relation);
            flush_inside = self.declare_tracker(relation, access, level, first, &mut inner);
        }
        let result = self.recovered_body(body, &mut inner);
        if let Some(flush) = flush_inside {
            inner.push(flush);
        }
        self.scope = saved;
        result?;
        let mut looped = Vec::new();
        self.push_loop(v, name, lo, hi, inner, &mut looped)?;
        out.extend(self.unsplit_below_threshold(v, body, looped)?);
        out.extend(flush_after);
        out.extend(tiles_segment);
        Ok(())
    }

    /// For the inner loop of a `Down` split whose outer loop encloses it: the bound that stops
    /// the last tile at the parent's extent, `min(s, len - outer * s)` (Senanayake et al. 2020,
    /// the relative bound of a split with its outer variable known). The recovered parent then
    /// needs no guard. `outer * s < len` holds in every outer iteration, so it cannot underflow.
    fn tight_inner_bound(&self, v: IndexVar) -> Result<Option<Expr>, Error> {
        let Some(Relation::Split {
            parent,
            outer,
            inner,
            direction: Direction::Down,
            factor,
        }) = self.scheduled.deriving(v)
        else {
            return Ok(None);
        };
        let Some(o) = self.bound(outer).filter(|_| inner == v) else {
            return Ok(None);
        };
        let (lo, hi) = self.range_of(parent)?;
        let len = bin(BinOp::Sub, hi, lo);
        let done = bin(BinOp::Mul, o, Expr::Index(factor));
        let left = bin(BinOp::Sub, len, done);
        Ok(Some(bin(BinOp::Min, Expr::Index(factor), left)))
    }

    /// Emits the loop over `v` as its tags say: parallel, vector, unrolled or plain.
    pub(super) fn push_loop(
        &mut self,
        v: IndexVar,
        var: Var,
        lo: Expr,
        hi: Expr,
        body: Vec<Stmt>,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        if let Some(tag) = self.scheduled.parallel.get(&v).copied() {
            let region = match tag.unit {
                Unit::CpuVector => self.lane_region(v, var, lo, hi, body, tag.span)?,
                Unit::CpuThread => self.thread_region(v, var, lo, hi, body, tag)?,
                Unit::GpuBlock | Unit::GpuWarp | Unit::GpuThread => {
                    out.extend(self.gpu_region(v, var, (lo, hi), body, tag)?);
                    return Ok(());
                }
            };
            out.push(Stmt::Parallel(region));
            return Ok(());
        }
        match self.scheduled.unroll.get(&v).copied() {
            Some(n) if n > 1 => out.extend(self.unrolled(var, lo, hi, body, n)),
            _ => out.push(Stmt::For { var, lo, hi, body }),
        }
        Ok(())
    }

    /// A loop in SIMD lanes (`CpuVector`): the `lanes` pass shapes it or turns it back into a
    /// plain loop.
    fn lane_region(
        &self,
        v: IndexVar,
        var: Var,
        lo: Expr,
        hi: Expr,
        body: Vec<Stmt>,
        span: proc_macro2::Span,
    ) -> Result<Region, Error> {
        if any_stmt(&body, &Stmt::is_append) {
            let what = format!(
                "`CpuVector` lanes over `{}`, whose iterations append to output `{}` \
                 (its entries must come in order); vectorize a loop that does not append",
                self.program.vars[v], self.program.tensors[0].name
            );
            return Err(Error::new(span, ErrorKind::Unsupported(what)));
        }
        Ok(Region {
            unit: IrUnit::CpuVector,
            var,
            lo,
            hi,
            body,
            output: OutputAccess::Scattered,
            reductions: Vec::new(),
            units: None,
            work: None,
        })
    }

    /// A loop on threads. How its iterations reach the output follows from the race strategy
    /// and the output: an assembled output's rows each belong to one iteration, so no race
    /// strategy needs more than the row-parallel assembly; a dense output's rows owned by one
    /// iteration are plain blocks; `Atomics` makes every sum into the output atomic.
    fn thread_region(
        &mut self,
        v: IndexVar,
        var: Var,
        lo: Expr,
        hi: Expr,
        body: Vec<Stmt>,
        tag: ParallelTag,
    ) -> Result<Region, Error> {
        let output = match tag.race {
            // Triples may come in any order: each task pushes into its own list.
            _ if self.collects_entries => OutputAccess::EntryParts,
            _ if self.assembles() => match self.counts_rows(v) {
                true if self.csr_like_output() => OutputAccess::AppendRows { level: 1 },
                true => OutputAccess::AppendParts,
                false => {
                    let tensor = self.program.tensors[0].name.clone();
                    return Err(Error::new(
                        tag.span,
                        ErrorKind::ParallelSparseOutput(tensor),
                    ));
                }
            },
            Race::Atomics => OutputAccess::Scattered,
            Race::NoRaces | Race::IgnoreRaces => match self.row_chunk(v, &lo) {
                Some(chunk) => OutputAccess::Blocks {
                    chunk,
                    balance: None,
                },
                None => OutputAccess::Scattered,
            },
            Race::Temporary | Race::ParallelReduction => OutputAccess::Reduced {
                op: self.reduction(),
                scope: Scope::Tasks,
            },
        };
        // Workspaces used inside the loop are declared per iteration.
        let mut locals = std::mem::take(&mut self.parallel_locals);
        locals.extend(body);
        if let Some(what) = shared_by_iterations(&locals, true) {
            let what = format!(
                "parallelizing `{}` on threads: {what}",
                self.program.vars[v]
            );
            return Err(Error::new(tag.span, ErrorKind::Unsupported(what)));
        }
        // Concretization sends the sums of a kernel that reads its output to producers, so no
        // such kernel should reach a reduced output; one that did would read a zeroed copy.
        if let (OutputAccess::Reduced { .. }, Some(span)) = (&output, self.program.output_read) {
            let why = format!(
                "`{:?}` gives each task its own zeroed copy of it to add into",
                tag.race
            );
            return Err(self.output_read_error(span, &why));
        }
        if tag.race == Race::Atomics {
            make_output_sums_atomic(&mut locals);
        }
        let work = (inputs_read(&locals).into_iter())
            .map(|param| Expr::Len(Array::Vals { param }))
            .reduce(|a, b| bin(BinOp::Add, a, b));
        Ok(Region {
            unit: IrUnit::CpuThread,
            var,
            lo,
            hi,
            body: locals,
            output,
            reductions: Vec::new(),
            units: None,
            work,
        })
    }

    /// Whether the output is dense rows over one compressed level, whose rows a count pass can
    /// lay out before a fill pass writes them (`OutputAccess::AppendRows`); other appended
    /// outputs are assembled in per-task parts.
    fn csr_like_output(&self) -> bool {
        let levels = self.levels(0);
        matches!(levels, [rows, cols] if level_of(rows).full() && level_of(cols).segments()
            && cols.unique && properties(cols).ordered)
    }

    /// Whether `v` runs over the output's rows: its first coordinate, or the outer part of a
    /// `Down` split of it.
    fn counts_rows(&self, v: IndexVar) -> bool {
        let Some(row) = self.level_var(0, 0) else {
            return false;
        };
        match self.scheduled.deriving(v) {
            None => v == row,
            Some(Relation::Split {
                parent,
                outer,
                direction: Direction::Down,
                ..
            }) => parent == row && outer == v && self.scheduled.deriving(row).is_none(),
            _ => false,
        }
    }

    /// For a loop whose variable `v` counts rows of a dense output from 0 (the output's first
    /// coordinate, or the outer part of a split of it), the number of value positions each
    /// iteration owns: its rows times the size of a row. The tiles of an `Up` split own
    /// `ceil(rows / n)` rows each; those past the last row own nothing and write nothing.
    fn row_chunk(&self, v: IndexVar, lo: &Expr) -> Option<Expr> {
        let levels = self.levels(0);
        let dense = levels.iter().all(|l| level_of(l).full());
        let row = self.level_var(0, 0)?;
        if !dense || self.pattern_source.is_some() || *lo != Expr::Index(0) {
            return None;
        }
        let rows = match self.scheduled.deriving(v) {
            None if v == row => Expr::Index(1),
            Some(Relation::Split {
                parent,
                outer,
                direction: Direction::Down,
                factor,
                ..
            }) if parent == row && outer == v && self.scheduled.deriving(row).is_none() => {
                Expr::Index(factor)
            }
            Some(Relation::Split {
                parent,
                outer,
                direction: Direction::Up,
                factor,
                ..
            }) if parent == row && outer == v && self.scheduled.deriving(row).is_none() => {
                ceil_div(self.extent(row), factor)
            }
            _ => return None,
        };
        let sizes = (1..levels.len()).map(|k| Expr::LevelSize { param: 0, level: k });
        Some(sizes.fold(rows, |a, b| bin(BinOp::Mul, a, b)))
    }

    /// `for v in lo..hi` as an outer loop over groups of `n` and an inner loop of constant length
    /// `n` (which the compiler unrolls), then the remainder.
    fn unrolled(&mut self, var: Var, lo: Expr, hi: Expr, body: Vec<Stmt>, n: usize) -> Vec<Stmt> {
        let group = self
            .names
            .fresh(&format!("{}_group", var.0.trim_start_matches("__")));
        let lane = self
            .names
            .fresh(&format!("{}_lane", var.0.trim_start_matches("__")));
        let end = self
            .names
            .fresh(&format!("{}_unrolled_end", var.0.trim_start_matches("__")));
        let len = bin(BinOp::Sub, hi.clone(), lo.clone());
        let groups = bin(BinOp::Div, len, Expr::Index(n));
        let value = bin(
            BinOp::Add,
            lo.clone(),
            bin(
                BinOp::Add,
                bin(BinOp::Mul, Expr::Var(group.clone()), Expr::Index(n)),
                Expr::Var(lane.clone()),
            ),
        );
        let mut unrolled_body = vec![Stmt::Let {
            var: var.clone(),
            ty: Type::Index,
            init: value,
            mutable: false,
        }];
        unrolled_body.extend(body.clone());
        let end_value = bin(
            BinOp::Add,
            lo,
            bin(BinOp::Mul, groups.clone(), Expr::Index(n)),
        );
        vec![
            Stmt::For {
                var: group,
                lo: Expr::Index(0),
                hi: groups,
                body: vec![Stmt::For {
                    var: lane,
                    lo: Expr::Index(0),
                    hi: Expr::Index(n),
                    body: unrolled_body,
                }],
            },
            Stmt::Let {
                var: end.clone(),
                ty: Type::Index,
                init: end_value,
                mutable: false,
            },
            Stmt::For {
                var,
                lo: Expr::Var(end),
                hi,
                body,
            },
        ]
    }

    /// Whether the loop over `v` runs on rayon's threads.
    /// Whether the iterations of `v` run concurrently, each with its own locals: CPU threads
    /// or any GPU unit.
    pub(super) fn thread_parallel(&self, v: IndexVar) -> bool {
        self.scheduled
            .parallel
            .get(&v)
            .is_some_and(|p| p.unit != Unit::CpuVector)
    }

    /// Whether any loop of the kernel runs on rayon's threads.
    pub(super) fn threads(&self) -> bool {
        (self.scheduled.parallel.values()).any(|p| p.unit == Unit::CpuThread)
    }

    pub(super) fn parallel_at(&self, v: IndexVar) -> bool {
        self.scheduled.parallel.contains_key(&v)
    }

    fn is_pos_var(&self, v: IndexVar) -> bool {
        matches!(self.scheduled.deriving(v), Some(Relation::Pos { .. }))
    }

    /// Recovers what the bound loop variables determine, then lowers `body`. A recovered variable
    /// that may pass its extent guards everything after it, recoveries that read arrays at it
    /// included (a split tail past the last position must not read `pos` or `crd` there).
    pub(super) fn recovered_body(&mut self, body: &Cin, out: &mut Vec<Stmt>) -> Result<(), Error> {
        if let Some(cond) = self.recover_until_guard(out)? {
            let mut inner = Vec::new();
            self.recovered_body(body, &mut inner)?;
            out.push(Stmt::If {
                cond,
                then: inner,
                otherwise: Vec::new(),
            });
            return Ok(());
        }
        if let Some(cond) = self.recover(out) {
            let mut inner = Vec::new();
            self.locate_ready(&mut inner)?;
            self.check_resolved(body)?;
            self.stmt(body, &mut inner)?;
            out.push(Stmt::If {
                cond,
                then: inner,
                otherwise: Vec::new(),
            });
            return Ok(());
        }
        self.locate_ready(out)?;
        self.check_resolved(body)?;
        self.stmt(body, out)
    }

    /// The loop bounds of a derived variable (Senanayake et al. 2020).
    fn derived_bounds(&self, v: IndexVar) -> Result<(Expr, Expr), Error> {
        match self.scheduled.deriving(v) {
            Some(Relation::Split {
                parent,
                outer,
                inner,
                direction,
                factor,
            }) => {
                let (lo, hi) = self.range_of(parent)?;
                let len = bin(BinOp::Sub, hi, lo);
                let blocks = ceil_div(len, factor);
                let outer_count = match direction {
                    // Coordinate tiles cover every coordinate, so even no positions make a tile.
                    Direction::Down if self.scheduled.coord_tiles(inner) => {
                        bin(BinOp::Max, Expr::Index(1), blocks.clone())
                    }
                    Direction::Down => blocks.clone(),
                    Direction::Up => Expr::Index(factor),
                };
                let inner_count = if direction == Direction::Down {
                    Expr::Index(factor)
                } else {
                    blocks
                };
                Ok((
                    Expr::Index(0),
                    if v == outer { outer_count } else { inner_count },
                ))
            }
            Some(Relation::Pos { parent, access, .. }) => self.position_range(parent, access),
            Some(Relation::Collapse { outer, inner, .. }) => Ok((
                Expr::Index(0),
                bin(BinOp::Mul, self.count_of(outer)?, self.count_of(inner)?),
            )),
            Some(Relation::Bound {
                parent,
                kind: BoundKind::MinExact | BoundKind::MinConstraint,
                ..
            }) => self.range_of(parent),
            Some(Relation::Bound { value, .. }) => Ok((Expr::Index(0), Expr::Index(value))),
            Some(Relation::Precompute { parent, .. }) => self.range_of(parent),
            Some(Relation::Coord { coord, .. }) => {
                let i = self.scheduled.underived(coord)[0];
                Ok((Expr::Index(0), self.extent(i)))
            }
            None => Ok((Expr::Index(0), self.extent(v))),
        }
    }

    /// How many values a collapsed variable takes, all from 0: the fused loop counts their pairs.
    fn count_of(&self, v: IndexVar) -> Result<Expr, Error> {
        match self.range_of(v)? {
            (Expr::Index(0), hi) => Ok(hi),
            _ => Err(self.unsupported(&format!(
                "`collapse` of `{}`, whose loop does not start at 0",
                self.program.vars[v]
            ))),
        }
    }

    /// The values a variable takes: `[0, extent)` for a coordinate, a loop's bounds otherwise.
    pub(super) fn range_of(&self, v: IndexVar) -> Result<(Expr, Expr), Error> {
        match self.scheduled.deriving(v) {
            None => Ok((Expr::Index(0), self.extent(v))),
            Some(_) => self.derived_bounds(v),
        }
    }

    /// The positions `pos` iterates: the segment of the access's level under its (known) parent,
    /// or the whole bottom level for a collapsed variable.
    pub(super) fn position_range(
        &self,
        parent: IndexVar,
        access: usize,
    ) -> Result<(Expr, Expr), Error> {
        let roots = self.scheduled.underived(parent);
        let level = self.access_level(access, &roots)?;
        if roots.len() > 1 {
            if level + 1 != roots.len() {
                return Err(
                    self.unsupported("`pos` over a collapse that does not start at the root level")
                );
            }
            // The walk over a tile's rows steps through the parent level's `pos`, which a
            // singleton level (COO's columns) does not have.
            if level_of(&self.levels(access)[level]).branchless() {
                return Err(self.unsupported(
                    "`pos` over a collapse that ends at a singleton level (COO); use CSR, or `pos` \
                     of the inner variable alone",
                ));
            }
            let crd = Array::Crd {
                param: self.accesses[access].tensor,
                level,
            };
            return Ok((Expr::Index(0), Expr::Len(crd)));
        }
        if self.parent_pos(access, level).is_none() {
            // A precompute's producer walks the position variable without the loops above it.
            return Err(self.unsupported(&format!(
                "a loop over positions of `{}` without a loop over its level above around it \
                 (as in a `precompute` over a position variable of a tensor with dense slots)",
                self.program.tensors[self.accesses[access].tensor].name
            )));
        }
        self.segment_bounds(access, level)
    }

    /// The deepest level of `access` storing one of `roots`.
    pub(super) fn access_level(&self, access: usize, roots: &[IndexVar]) -> Result<usize, Error> {
        self.accesses[access]
            .level_vars
            .iter()
            .rposition(|v| roots.contains(v))
            .ok_or_else(|| self.internal("`pos` of a variable the access does not use"))
    }

    /// Binds what the bound variables determine, until nothing changes or a recovered variable
    /// needs a guard, which is returned.
    fn recover_until_guard(&mut self, out: &mut Vec<Stmt>) -> Result<Option<Expr>, Error> {
        loop {
            let mut progress = false;
            for (index, r) in self.scheduled.relations.clone().into_iter().enumerate() {
                let mut guards = Vec::new();
                progress |= self.recover_one(index, r, out, &mut guards)?;
                if let Some(g) = guards.into_iter().reduce(|a, b| bin(BinOp::And, a, b)) {
                    return Ok(Some(g));
                }
            }
            if !progress {
                return Ok(None);
            }
        }
    }

    pub(super) fn bound(&self, v: IndexVar) -> Option<Expr> {
        self.scope.coords.get(&v).cloned()
    }

    pub(super) fn bind(&mut self, v: IndexVar, value: Expr, out: &mut Vec<Stmt>) -> Expr {
        let name = self.names.fresh(&self.program.vars[v].clone());
        let hints = self.gathers_ahead(v, &value);
        out.push(Stmt::Let {
            var: name.clone(),
            ty: Type::Index,
            init: value,
            mutable: false,
        });
        out.extend(hints);
        self.scope.coords.insert(v, Expr::Var(name.clone()));
        Expr::Var(name)
    }

    fn recover_one(
        &mut self,
        index: usize,
        r: Relation,
        out: &mut Vec<Stmt>,
        guards: &mut Vec<Expr>,
    ) -> Result<bool, Error> {
        match r {
            Relation::Split {
                parent,
                outer,
                inner,
                direction,
                factor,
            } => {
                let (None, Some(o), Some(n)) =
                    (self.bound(parent), self.bound(outer), self.bound(inner))
                else {
                    return Ok(false);
                };
                let (lo, hi) = self.range_of(parent)?;
                let size = match direction {
                    Direction::Down => Expr::Index(factor),
                    Direction::Up => ceil_div(bin(BinOp::Sub, hi.clone(), lo.clone()), factor),
                };
                let value = bin(BinOp::Add, lo, bin(BinOp::Add, bin(BinOp::Mul, o, size), n));
                let p = self.bind(parent, value, out);
                if !self.scope.tight.contains(&inner) {
                    guards.push(bin(BinOp::Lt, p, hi));
                }
                Ok(true)
            }
            Relation::Collapse {
                outer,
                inner,
                fused,
            } => {
                if self.has_pos_child(fused) {
                    return Ok(false);
                }
                let (Some(f), None) = (self.bound(fused), self.bound(outer)) else {
                    return Ok(false);
                };
                let n = self.count_of(inner)?;
                self.bind(outer, bin(BinOp::Div, f.clone(), n.clone()), out);
                self.bind(inner, rem(f, n), out);
                Ok(true)
            }
            Relation::Bound {
                parent,
                child,
                kind,
                ..
            } => {
                let (None, Some(c)) = (self.bound(parent), self.bound(child)) else {
                    return Ok(false);
                };
                let p = self.bind(parent, c, out);
                // A lower bound keeps the parent's range; an upper one may pass its extent.
                if matches!(kind, BoundKind::MaxExact | BoundKind::MaxConstraint) {
                    let (_, hi) = self.range_of(parent)?;
                    guards.push(bin(BinOp::Lt, p, hi));
                }
                Ok(true)
            }
            Relation::Precompute { parent, child } => {
                let (None, Some(c)) = (self.bound(parent), self.bound(child)) else {
                    return Ok(false);
                };
                self.scope.coords.insert(parent, c);
                Ok(true)
            }
            // A coordinate loop binds its coordinate itself (`lower/coord.rs`).
            Relation::Coord { .. } => Ok(false),
            Relation::Pos {
                parent,
                pos,
                access,
            } => self.recover_from_position(index, (parent, pos, access), out),
        }
    }

    /// A position loop's coordinates: `crd[p]` of its level, through the tracker of a collapsed
    /// position, or (untracked) its bottom level's.
    fn recover_from_position(
        &mut self,
        index: usize,
        (parent, pos, access): (IndexVar, IndexVar, usize),
        out: &mut Vec<Stmt>,
    ) -> Result<bool, Error> {
        let Some(p) = self.bound(pos) else {
            return Ok(false);
        };
        let roots = self.scheduled.underived(parent);
        let level = self.access_level(access, &roots)?;
        if self.scope.positions.contains_key(&(access, level)) {
            return Ok(false);
        }
        if self.scope.untracked.contains(&index) {
            self.bind_bottom(access, level, &p, roots[roots.len() - 1], out);
        } else if roots.len() > 1 {
            self.track(index, access, level, &p, &roots, out)?;
        } else {
            let env = self.level_env(access, level);
            let coord = level_fns(self.levels(access)[level].kind).pos_access(&env, &p);
            self.scope.positions.insert((access, level), p);
            if self.bound(parent).is_none() {
                self.bind(parent, coord, out);
            }
        }
        Ok(true)
    }

    fn has_pos_child(&self, v: IndexVar) -> bool {
        self.scheduled
            .relations
            .iter()
            .any(|r| matches!(r, Relation::Pos { parent, .. } if *parent == v))
    }

    /// Every level of the accesses `body` reads whose variable is bound must be resolved by now;
    /// a level that needs iterating (sparse) under a variable bound by recovery is co-iteration
    /// this schedule cannot express. An access the lattice case dropped is not read.
    fn check_resolved(&self, body: &Cin) -> Result<(), Error> {
        for a in (0..self.accesses.len()).filter(|&a| body.reads_access(a)) {
            let k = self.next_level(a);
            let Some(spec) = self.levels(a).get(k) else {
                continue;
            };
            let bound = self
                .level_var(a, k)
                .is_some_and(|v| self.scope.coords.contains_key(&v));
            let iterable_later = level_of(spec).full();
            if bound && !iterable_later && a != 0 && self.parent_pos(a, k).is_some() {
                if let Some(error) = self.tile_not_plain(self.level_var(a, k).unwrap_or(0)) {
                    return Err(error);
                }
                let what = format!(
                    "a schedule that binds `{}` without iterating the sparse level of `{}` it indexes; use `pos` on that tensor",
                    self.program.vars[self.level_var(a, k).unwrap_or(0)],
                    self.program.tensors[self.accesses[a].tensor].name
                );
                return Err(Error::new(
                    self.program.tensors[0].span,
                    ErrorKind::Unsupported(what),
                ));
            }
        }
        Ok(())
    }
}

/// Whether relation `r` derives a variable from `v`.
pub(super) fn derives_from(r: &Relation, v: IndexVar) -> bool {
    r.derives_from(v)
}

pub(super) fn ceil_div(len: Expr, factor: usize) -> Expr {
    bin(
        BinOp::Div,
        bin(BinOp::Add, len, Expr::Index(factor - 1)),
        Expr::Index(factor),
    )
}

/// `a % b` as `a - (a / b) * b` (the IR has no remainder).
fn rem(a: Expr, b: Expr) -> Expr {
    bin(
        BinOp::Sub,
        a.clone(),
        bin(BinOp::Mul, bin(BinOp::Div, a, b.clone()), b),
    )
}
