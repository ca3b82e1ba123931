//! Loops over derived index variables (seed-schedules.md A.5–A.7): their bounds come from the
//! provenance graph, and after each loop variable is bound the variables it was derived from are
//! recovered (`outer * s + inner` for a split, `f / n` and `f % n` for a collapse, `crd[p]` for a
//! position), with a guard wherever a recovered variable can pass its extent (the tail of a split
//! whose factor does not divide it). A position loop over a collapsed variable recovers the outer
//! coordinate by tracking: a binary search once per loop entry, then a cheap advance.

use super::{Lowerer, Tracker};
use crate::error::{Error, ErrorKind};
use crate::format::{LevelKind, bin, level_fns, load};
use crate::ir::{Array, BinOp, Expr, ParallelWrites, Stmt, Type, Var};
use crate::notation::{Cin, IndexVar};
use crate::schedule::{BoundKind, Direction, Race, Relation, Unit};
use crate::syntax::ast::AssignOp;

impl Lowerer<'_> {
    /// A loop over a variable a schedule command created.
    pub(super) fn derived_loop(
        &mut self,
        v: IndexVar,
        body: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let (lo, hi) = self.derived_bounds(v)?;
        let name = self.names.fresh(&self.program.vars[v].clone());
        let saved = self.scope.clone();
        let tracker_outside = self
            .tracked_pos(v)
            .filter(|_| self.is_pos_var(v) && !self.parallel_at(v));
        let mut flush_after = None;
        if let Some((relation, access, level)) = tracker_outside {
            flush_after = self.declare_tracker(relation, access, level, lo.clone(), out);
        }
        if let Some(walk) = self.segment_walk(v, &hi)? {
            self.segment_loop(v, walk, body, out)?;
            out.extend(flush_after);
            return Ok(());
        }
        let tight = self.tight_inner_bound(v)?;
        let hi = tight.clone().unwrap_or(hi);
        let mut inner = Vec::new();
        self.scope.coords.insert(v, Expr::Var(name.clone()));
        if tight.is_some() {
            self.scope.tight.insert(v);
        }
        // Split, bound and collapse loops cover their parent's whole range (recovery guards only
        // drop the tail past it); a position loop covers only stored coordinates.
        self.scope.partial |= self.scheduled.is_position(v);
        self.scope.in_parallel |= self.thread_parallel(v);
        let mut flush_inside = None;
        if let Some((relation, access, level)) = self.tracked_pos(v)
            && !self.scope.trackers.contains_key(&relation)
            && !self.scope.untracked.contains(&relation)
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
        self.push_loop(v, name, lo, hi, inner, out)?;
        out.extend(flush_after);
        Ok(())
    }

    /// For the inner loop of a `Down` split whose outer loop encloses it: the bound that stops
    /// the last tile at the parent's extent, `min(s, len - outer * s)` (seed-schedules.md A.6,
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
            out.push(match tag.unit {
                Unit::CpuVector => Stmt::VectorFor { var, lo, hi, body },
                _ => {
                    let writes = match tag.race {
                        Race::Atomics => ParallelWrites::Atomic,
                        Race::NoRaces | Race::IgnoreRaces if self.assembles() => match self
                            .counts_rows(v)
                        {
                            true => ParallelWrites::AssembleRows { level: 1 },
                            false => return Err(self.unsupported(
                                "a parallel loop that is not over the rows of the assembled output",
                            )),
                        },
                        Race::NoRaces | Race::IgnoreRaces => match self.row_chunk(v, &lo) {
                            Some(chunk) => ParallelWrites::Rows { chunk },
                            None => ParallelWrites::Exclusive,
                        },
                        Race::Temporary | Race::ParallelReduction => ParallelWrites::Partials,
                    };
                    // Workspaces used inside the loop are declared per iteration.
                    let mut locals = std::mem::take(&mut self.parallel_locals);
                    locals.extend(body);
                    Stmt::ParallelFor {
                        var,
                        lo,
                        hi,
                        body: locals,
                        writes,
                    }
                }
            });
            return Ok(());
        }
        match self.scheduled.unroll.get(&v).copied() {
            Some(n) if n > 1 => out.extend(self.unrolled(var, lo, hi, body, n)),
            _ => out.push(Stmt::For { var, lo, hi, body }),
        }
        Ok(())
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
    /// coordinate, or the outer part of a `Down` split of it), the number of value positions each
    /// iteration owns: its rows times the size of a row.
    fn row_chunk(&self, v: IndexVar, lo: &Expr) -> Option<Expr> {
        let levels = self.levels(0);
        let dense = levels.iter().all(|l| l.kind == LevelKind::Dense);
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
    pub(super) fn thread_parallel(&self, v: IndexVar) -> bool {
        self.scheduled
            .parallel
            .get(&v)
            .is_some_and(|p| p.unit == Unit::CpuThread)
    }

    fn parallel_at(&self, v: IndexVar) -> bool {
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
            self.check_resolved()?;
            self.stmt(body, &mut inner)?;
            out.push(Stmt::If {
                cond,
                then: inner,
                otherwise: Vec::new(),
            });
            return Ok(());
        }
        self.locate_ready(out)?;
        self.check_resolved()?;
        self.stmt(body, out)
    }

    /// The loop bounds of a derived variable (seed-schedules.md A.6).
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
                    Direction::Down if self.has_coord_tiles(inner) => {
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
                bin(BinOp::Mul, self.extent(outer), self.extent(inner)),
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

    /// Whether `coord` turned the tile loop `v` into a coordinate loop.
    fn has_coord_tiles(&self, v: IndexVar) -> bool {
        self.scheduled
            .relations
            .iter()
            .any(|r| matches!(r, Relation::Coord { pos, .. } if *pos == v))
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
            let crd = Array::Crd {
                param: self.accesses[access].tensor,
                level,
            };
            return Ok((Expr::Index(0), Expr::Len(crd)));
        }
        let env = self.level_env(access, level);
        let fns = level_fns(self.levels(access)[level].kind);
        let parent_pos = self
            .parent_pos(access, level)
            .ok_or_else(|| self.internal("`pos` before its parent level"))?;
        fns.pos_bounds(&env, &parent_pos)
            .ok_or_else(|| self.internal("`pos` on a level without positions"))
    }

    /// The deepest level of `access` storing one of `roots`.
    pub(super) fn access_level(&self, access: usize, roots: &[IndexVar]) -> Result<usize, Error> {
        self.accesses[access]
            .level_vars
            .iter()
            .rposition(|v| roots.contains(v))
            .ok_or_else(|| self.internal("`pos` of a variable the access does not use"))
    }

    /// For a loop variable in the family of a position variable over a collapsed variable: the
    /// relation's number, the access and the collapsed (bottom) level.
    fn tracked_pos(&self, v: IndexVar) -> Option<(usize, usize, usize)> {
        let mut x = v;
        loop {
            match self.scheduled.deriving(x)? {
                Relation::Pos { parent, access, .. } => {
                    let roots = self.scheduled.underived(parent);
                    if roots.len() < 2 {
                        return None;
                    }
                    let level = self.access_level(access, &roots).ok()?;
                    let index = self
                        .scheduled
                        .relations
                        .iter()
                        .position(|r| matches!(r, Relation::Pos { pos, .. } if *pos == x))?;
                    return Some((index, access, level));
                }
                Relation::Split { parent, .. }
                | Relation::Bound { parent, .. }
                | Relation::Precompute { parent, .. } => x = parent,
                Relation::Collapse { .. } | Relation::Coord { .. } => return None,
            }
        }
    }

    /// The first position a loop over part of a tracked position variable visits: the position
    /// with every loop not yet bound at its start (0).
    fn first_position(&self, relation: usize) -> Expr {
        let Relation::Pos { pos, .. } = self.scheduled.relations[relation] else {
            return Expr::Index(0);
        };
        self.lowest(pos)
    }

    fn lowest(&self, v: IndexVar) -> Expr {
        if let Some(c) = self.scope.coords.get(&v) {
            return c.clone();
        }
        for r in &self.scheduled.relations {
            if let Relation::Split {
                parent,
                outer,
                inner,
                direction,
                factor,
            } = *r
                && parent == v
            {
                let Ok((lo, hi)) = self.range_of(parent) else {
                    return Expr::Index(0);
                };
                let size = match direction {
                    Direction::Down => Expr::Index(factor),
                    Direction::Up => ceil_div(bin(BinOp::Sub, hi, lo.clone()), factor),
                };
                let offset = bin(
                    BinOp::Add,
                    bin(BinOp::Mul, self.lowest(outer), size),
                    self.lowest(inner),
                );
                return bin(BinOp::Add, lo, offset);
            }
        }
        Expr::Index(0)
    }

    /// `let mut q = (the segment of the upper level holding position `first`)` and `let mut
    /// q_end = pos[q + 1]` (0 when `first` is past the last position, which no guarded iteration
    /// then reaches). When the output is
    /// a vector over the upper coordinate, also a segment sum: additions into the output collect in
    /// a scalar that is flushed once per segment (one atomic add per row boundary instead of one
    /// per nonzero, as in seed 004's Fig. 4b); the statement that flushes the last segment is
    /// returned, for the caller to place after the tracker's last use.
    fn declare_tracker(
        &mut self,
        relation: usize,
        access: usize,
        level: usize,
        first: Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<Stmt> {
        let tensor = &self.program.tensors[self.accesses[access].tensor].name;
        let base = format!("{tensor}_segment");
        let var = self.names.fresh(&base);
        let pos = Array::Pos {
            param: self.accesses[access].tensor,
            level,
        };
        let count = Expr::CountUpTo {
            array: pos.clone(),
            target: Box::new(first),
        };
        let init = bin(BinOp::Sub, count, Expr::Index(1));
        out.push(Stmt::Let {
            var: var.clone(),
            ty: Type::Index,
            init,
            mutable: true,
        });
        let end = self.names.fresh(&format!("{base}_end"));
        let next = bin(BinOp::Add, Expr::Var(var.clone()), Expr::Index(1));
        let in_range = bin(BinOp::Lt, next.clone(), Expr::Len(pos.clone()));
        let init = Expr::Select(
            Box::new(in_range),
            Box::new(load(pos, next)),
            Box::new(Expr::Index(0)),
        );
        out.push(Stmt::Let {
            var: end.clone(),
            ty: Type::Index,
            init,
            mutable: true,
        });
        let first = self.names.fresh(&format!("{base}_first"));
        out.push(Stmt::Let {
            var: first.clone(),
            ty: Type::Index,
            init: Expr::Var(var.clone()),
            mutable: false,
        });
        let tracker = Tracker {
            segment: var.clone(),
            end,
            first,
        };
        self.scope.trackers.insert(relation, tracker);
        // A segment walk keeps its own sum per segment.
        if !self.segment_sum_applies(relation) || self.segment_walk_var(relation).is_some() {
            return None;
        }
        let sum = self.names.fresh("segment_sum");
        let zero = Expr::Value(crate::ir::Literal::Int(0));
        out.push(Stmt::Let {
            var: sum.clone(),
            ty: Type::Value,
            init: zero,
            mutable: true,
        });
        self.scope.segment_sum = Some((relation, sum.clone()));
        Some(self.flush(access, level, &var, &sum, None))
    }

    /// Whether the output is a dense vector indexed by the upper coordinate of the collapse.
    fn segment_sum_applies(&self, relation: usize) -> bool {
        let Relation::Pos { parent, .. } = self.scheduled.relations[relation] else {
            return false;
        };
        let roots = self.scheduled.underived(parent);
        let output = &self.accesses[0];
        let dense = self.levels(0).iter().all(|l| l.kind == LevelKind::Dense);
        dense && output.level_vars.len() == 1 && output.level_vars[0] == roots[0]
    }

    /// `if sum != 0 { out[coordinate of segment q] += sum; sum = 0; }`. With `first` (the walk's
    /// first segment) and an output zeroed before the walk, a later segment is stored instead of
    /// added: nothing else writes it, and under `Atomics` a store is a plain move where an add is
    /// a locked read-modify-write that stalls the loads in flight.
    fn flush(&self, access: usize, level: usize, q: &Var, sum: &Var, first: Option<&Var>) -> Stmt {
        let upper = level - 1;
        let env = self.level_env(access, upper);
        let row =
            level_fns(self.levels(access)[upper].kind).pos_access(&env, &Expr::Var(q.clone()));
        let zero = Expr::Value(crate::ir::Literal::Int(0));
        let store = |accumulate| Stmt::Store {
            array: Array::Vals { param: 0 },
            index: row.clone(),
            value: Expr::Var(sum.clone()),
            accumulate,
        };
        let store = match first {
            Some(first) if self.program.op == AssignOp::Assign => Stmt::If {
                cond: bin(BinOp::Ne, Expr::Var(q.clone()), Expr::Var(first.clone())),
                then: vec![store(false)],
                otherwise: vec![store(true)],
            },
            _ => store(true),
        };
        let reset = Stmt::Assign {
            var: sum.clone(),
            value: zero.clone(),
            accumulate: false,
        };
        Stmt::If {
            cond: bin(BinOp::Ne, Expr::Var(sum.clone()), zero),
            then: vec![store, reset],
            otherwise: Vec::new(),
        }
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

    fn bound(&self, v: IndexVar) -> Option<Expr> {
        self.scope.coords.get(&v).cloned()
    }

    fn bind(&mut self, v: IndexVar, value: Expr, out: &mut Vec<Stmt>) -> Expr {
        let name = self.names.fresh(&self.program.vars[v].clone());
        out.push(Stmt::Let {
            var: name.clone(),
            ty: Type::Index,
            init: value,
            mutable: false,
        });
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
                let n = self.extent(inner);
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
                    guards.push(bin(BinOp::Lt, p, self.extent(parent)));
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
            } => {
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
        }
    }

    fn has_pos_child(&self, v: IndexVar) -> bool {
        self.scheduled
            .relations
            .iter()
            .any(|r| matches!(r, Relation::Pos { parent, .. } if *parent == v))
    }

    /// Position `p` of a collapsed (upper, bottom) pair of levels: the bottom coordinate is read at
    /// `p`; the upper segment is tracked forward from where it was (skipping empty segments).
    fn track(
        &mut self,
        relation: usize,
        access: usize,
        level: usize,
        p: &Expr,
        roots: &[IndexVar],
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        self.advance_segment(relation, access, level, p, roots[0], out)?;
        self.bind_bottom(access, level, p, roots[roots.len() - 1], out);
        Ok(())
    }

    /// `while q_end <= p { (flush the segment sum); q += 1; q_end = pos[q + 1]; }`, then binds the
    /// upper coordinate `outer` to segment `q`'s.
    fn advance_segment(
        &mut self,
        relation: usize,
        access: usize,
        level: usize,
        p: &Expr,
        outer: IndexVar,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let Tracker {
            segment: q,
            end,
            first,
        } = self
            .scope
            .trackers
            .get(&relation)
            .cloned()
            .ok_or_else(|| self.internal("a tracked position without its tracker"))?;
        let tensor = self.accesses[access].tensor;
        let pos = Array::Pos {
            param: tensor,
            level,
        };
        let step = Stmt::Assign {
            var: q.clone(),
            value: Expr::Index(1),
            accumulate: true,
        };
        // `p` is a stored position, so `pos` ends past it and the walk stops inside `pos`.
        let reload = Stmt::Assign {
            var: end.clone(),
            value: load(pos, bin(BinOp::Add, Expr::Var(q.clone()), Expr::Index(1))),
            accumulate: false,
        };
        let mut advance = Vec::new();
        if let Some((_, sum)) = self
            .scope
            .segment_sum
            .clone()
            .filter(|(r, _)| *r == relation)
        {
            advance.push(self.flush(access, level, &q, &sum, Some(&first)));
        }
        advance.extend([step, reload]);
        out.push(Stmt::While {
            cond: bin(BinOp::Le, Expr::Var(end), p.clone()),
            body: advance,
        });
        self.bind_upper(access, level, &q, outer, out);
        Ok(())
    }

    /// Segment `q` as the position of the level above the tracked one, and its coordinate as
    /// `outer`.
    fn bind_upper(
        &mut self,
        access: usize,
        level: usize,
        q: &Var,
        outer: IndexVar,
        out: &mut Vec<Stmt>,
    ) {
        let upper = level - 1;
        let q = Expr::Var(q.clone());
        self.scope.positions.insert((access, upper), q.clone());
        let env = self.level_env(access, upper);
        let coord = level_fns(self.levels(access)[upper].kind).pos_access(&env, &q);
        if self.bound(outer).is_none() {
            self.bind(outer, coord, out);
        }
    }

    /// Position `p` of the bottom level of a tracked walk, and its coordinate as `inner`.
    fn bind_bottom(
        &mut self,
        access: usize,
        level: usize,
        p: &Expr,
        inner: IndexVar,
        out: &mut Vec<Stmt>,
    ) {
        self.scope.positions.insert((access, level), p.clone());
        let env = self.level_env(access, level);
        let coord = level_fns(self.levels(access)[level].kind).pos_access(&env, p);
        if self.bound(inner).is_none() {
            self.bind(inner, coord, out);
        }
    }

    /// The loop of a tracked position relation that walks its tiles segment by segment: the
    /// position variable itself, or the inner part of its one split, when that loop is plain (not
    /// parallel, vector or unrolled) and nothing is derived from it.
    fn segment_walk_var(&self, relation: usize) -> Option<IndexVar> {
        let Relation::Pos { pos, .. } = self.scheduled.relations[relation] else {
            return None;
        };
        let children: Vec<Relation> = self
            .scheduled
            .relations
            .iter()
            .copied()
            .filter(|r| derives_from(r, pos))
            .collect();
        let v = match children.as_slice() {
            [] => pos,
            [Relation::Split { inner, .. }] => *inner,
            _ => return None,
        };
        let unrolled = self.scheduled.unroll.get(&v).is_some_and(|&n| n > 1);
        let derived = self.scheduled.relations.iter().any(|r| derives_from(r, v));
        (!self.parallel_at(v) && !unrolled && !derived).then_some(v)
    }

    /// For the loop over `v` (whose loop runs `0..hi` when it is a split's inner part): the walk
    /// of [`Lowerer::segment_loop`], when `v` is its relation's segment-walk variable and the
    /// tracker is declared.
    fn segment_walk(&self, v: IndexVar, hi: &Expr) -> Result<Option<SegmentWalk>, Error> {
        let Some((relation, access, level)) = self.tracked_pos(v) else {
            return Ok(None);
        };
        if self.segment_walk_var(relation) != Some(v) {
            return Ok(None);
        }
        let Some(tracker) = self.scope.trackers.get(&relation).cloned() else {
            return Ok(None);
        };
        let Relation::Pos { pos, parent, .. } = self.scheduled.relations[relation] else {
            return Ok(None);
        };
        let (lo, top) = self.range_of(pos)?;
        let (start, stop) = match self.scheduled.deriving(v) {
            Some(Relation::Split { outer, .. }) => {
                let Some(o) = self.bound(outer) else {
                    return Ok(None);
                };
                let start = bin(BinOp::Add, lo, bin(BinOp::Mul, o, hi.clone()));
                let stop = bin(BinOp::Min, bin(BinOp::Add, start.clone(), hi.clone()), top);
                (start, stop)
            }
            _ => (lo, top),
        };
        Ok(Some(SegmentWalk {
            relation,
            tracker,
            access,
            level,
            pos,
            roots: self.scheduled.underived(parent),
            start,
            stop,
        }))
    }

    /// A tile of positions walked segment by segment, as a row loop: the tracked segment `q`
    /// starts where the tile does, and each turn covers the part of one segment inside the tile,
    /// so the loop over its positions is as tight as an unscheduled row's. A segment sum is kept
    /// per turn and written once; a segment the tile holds whole is stored (nothing else writes
    /// it), the two it may share with its neighbours are added.
    ///
    /// ```text
    /// let mut cursor = start; let stop = ..;
    /// while cursor < stop {
    ///     q_end = pos[q + 1]; let i = (coordinate of q); let run_end = min(q_end, stop);
    ///     for p in cursor..run_end { let j = crd[p]; body }
    ///     (write the segment sum to out[i])
    ///     cursor = run_end; q += 1;
    /// }
    /// ```
    fn segment_loop(
        &mut self,
        v: IndexVar,
        walk: SegmentWalk,
        body: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let base = self.program.vars[walk.pos].clone();
        let names = TurnNames {
            cursor: self.names.fresh(&format!("{base}_cursor")),
            stop: self.names.fresh(&format!("{base}_stop")),
            run_end: self.names.fresh(&format!("{base}_run_end")),
            p: self.names.fresh(&base),
        };
        out.push(let_index(&names.cursor, walk.start.clone(), true));
        out.push(let_index(&names.stop, walk.stop.clone(), false));
        let saved = self.scope.clone();
        self.scope.partial = true;
        let result = self.segment_turn(v, &walk, &names, body);
        self.scope = saved;
        let mut turn = result?;
        let TurnNames {
            cursor,
            stop,
            run_end,
            ..
        } = names;
        let cursor_at = Expr::Var(cursor.clone());
        turn.push(Stmt::Assign {
            var: cursor,
            value: Expr::Var(run_end),
            accumulate: false,
        });
        turn.push(Stmt::Assign {
            var: walk.tracker.segment,
            value: Expr::Index(1),
            accumulate: true,
        });
        out.push(Stmt::While {
            cond: bin(BinOp::Lt, cursor_at, Expr::Var(stop)),
            body: turn,
        });
        Ok(())
    }

    /// One turn of [`Lowerer::segment_loop`], up to the segment's write.
    fn segment_turn(
        &mut self,
        v: IndexVar,
        walk: &SegmentWalk,
        names: &TurnNames,
        body: &Cin,
    ) -> Result<Vec<Stmt>, Error> {
        let TurnNames {
            cursor,
            stop,
            run_end,
            p,
        } = names;
        let Tracker {
            segment: q,
            end,
            first,
        } = walk.tracker.clone();
        let pos = Array::Pos {
            param: self.accesses[walk.access].tensor,
            level: walk.level,
        };
        let mut turn = vec![Stmt::Assign {
            var: end.clone(),
            value: load(pos, bin(BinOp::Add, Expr::Var(q.clone()), Expr::Index(1))),
            accumulate: false,
        }];
        self.bind_upper(walk.access, walk.level, &q, walk.roots[0], &mut turn);
        let run_stop = bin(BinOp::Min, Expr::Var(end.clone()), Expr::Var(stop.clone()));
        turn.push(let_index(run_end, run_stop, false));
        let sum = self.segment_sum_applies(walk.relation).then(|| {
            let sum = self.names.fresh("segment_sum");
            turn.push(Stmt::Let {
                var: sum.clone(),
                ty: Type::Value,
                init: Expr::Value(crate::ir::Literal::Int(0)),
                mutable: true,
            });
            self.scope.segment_sum = Some((walk.relation, sum.clone()));
            sum
        });
        self.scope.coords.insert(walk.pos, Expr::Var(p.clone()));
        self.scope
            .coords
            .insert(v, bin(BinOp::Sub, Expr::Var(p.clone()), walk.start.clone()));
        let mut run = Vec::new();
        let inner = walk.roots[walk.roots.len() - 1];
        self.bind_bottom(
            walk.access,
            walk.level,
            &Expr::Var(p.clone()),
            inner,
            &mut run,
        );
        self.recovered_body(body, &mut run)?;
        turn.push(Stmt::For {
            var: p.clone(),
            lo: Expr::Var(cursor.clone()),
            hi: Expr::Var(run_end.clone()),
            body: run,
        });
        if let Some(sum) = sum {
            // Shared with the previous tile when it is the first, with the next when it ends
            // past the tile.
            let shared = bin(
                BinOp::Or,
                bin(BinOp::Eq, Expr::Var(q.clone()), Expr::Var(first)),
                bin(BinOp::Lt, Expr::Var(stop.clone()), Expr::Var(end)),
            );
            turn.push(self.segment_store(walk.access, walk.level, &q, &sum, shared));
        }
        Ok(turn)
    }

    /// Writes segment `q`'s sum into the output: added when `shared` holds or the kernel adds
    /// into the output (`+=`), stored otherwise (a plain move, where an atomic add is a locked
    /// read-modify-write that stalls the loads in flight).
    fn segment_store(&self, access: usize, level: usize, q: &Var, sum: &Var, shared: Expr) -> Stmt {
        let upper = level - 1;
        let env = self.level_env(access, upper);
        let row =
            level_fns(self.levels(access)[upper].kind).pos_access(&env, &Expr::Var(q.clone()));
        let store = |accumulate| Stmt::Store {
            array: Array::Vals { param: 0 },
            index: row.clone(),
            value: Expr::Var(sum.clone()),
            accumulate,
        };
        if self.program.op != AssignOp::Assign {
            return store(true);
        }
        Stmt::If {
            cond: shared,
            then: vec![store(true)],
            otherwise: vec![store(false)],
        }
    }

    /// Every access's levels whose variable is bound must be resolved by now; a level that needs
    /// iterating (sparse) under a variable bound by recovery is co-iteration this schedule cannot
    /// express.
    fn check_resolved(&self) -> Result<(), Error> {
        for a in 0..self.accesses.len() {
            let k = self.next_level(a);
            let Some(spec) = self.levels(a).get(k) else {
                continue;
            };
            let bound = self
                .level_var(a, k)
                .is_some_and(|v| self.scope.coords.contains_key(&v));
            let iterable_later = matches!(spec.kind, LevelKind::Dense);
            if bound && !iterable_later && a != 0 && self.parent_pos(a, k).is_some() {
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

/// What [`Lowerer::segment_loop`] walks.
#[derive(Clone)]
struct SegmentWalk {
    relation: usize,
    tracker: Tracker,
    access: usize,
    level: usize,
    /// The position variable.
    pos: IndexVar,
    /// The collapsed coordinates, outermost first.
    roots: Vec<IndexVar>,
    start: Expr,
    stop: Expr,
}

/// The locals of a segment walk: where the next turn starts, where the tile stops, where the
/// current turn ends, and the position.
struct TurnNames {
    cursor: Var,
    stop: Var,
    run_end: Var,
    p: Var,
}

/// Whether relation `r` derives a variable from `v`.
fn derives_from(r: &Relation, v: IndexVar) -> bool {
    match *r {
        Relation::Split { parent, .. }
        | Relation::Bound { parent, .. }
        | Relation::Pos { parent, .. }
        | Relation::Precompute { parent, .. }
        | Relation::Coord { pos: parent, .. } => parent == v,
        Relation::Collapse { outer, inner, .. } => outer == v || inner == v,
    }
}

fn let_index(var: &Var, init: Expr, mutable: bool) -> Stmt {
    Stmt::Let {
        var: var.clone(),
        ty: Type::Index,
        init,
        mutable,
    }
}

fn ceil_div(len: Expr, factor: usize) -> Expr {
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
