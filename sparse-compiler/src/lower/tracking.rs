//! Coordinate recovery by tracking (Senanayake et al. 2020: "search once, then
//! advance"): a position loop over a collapsed variable recovers the upper coordinate by walking
//! the segments of the upper level, from a binary search at the walk's first position. A plain
//! loop over a tile of positions is walked segment by segment, as a row loop
//! ([`Lowerer::segment_loop`]); any other position loop advances the walk at every position.
//! When the output is a vector over the upper coordinate, additions collect in a segment sum
//! written once per segment. Over a collapse of three or more levels (TTV's and MTTKRP's
//! `i, j, k`), each level further up walks its own segments the same way, driven by the segment
//! of the level below it.

use super::{Lowerer, Tracker};
use crate::error::Error;
use crate::format::{bin, level_fns, level_of, load};
use crate::ir::{Array, BinOp, Expr, Place, Stmt, Type, Var};
use crate::notation::{Cin, IndexVar};
use crate::schedule::{Direction, Relation};
use crate::syntax::ast::AssignOp;

use super::derived::{ceil_div, derives_from};

impl Lowerer<'_> {
    /// For a loop variable in the family of a position variable over a collapsed variable: the
    /// relation's number, the access and the collapsed (bottom) level.
    pub(super) fn tracked_pos(&self, v: IndexVar) -> Option<(usize, usize, usize)> {
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

    /// Whether a loop nested in `v`'s that does not iterate positions of `relation` encloses one
    /// that does (SpMM's `nnz` inside a loop over a dense column block): the positions start over
    /// in each of its iterations, so a tracker declared here would only ever move forward past
    /// them. It is declared further in.
    pub(super) fn restarts_below(&self, v: IndexVar, relation: usize) -> bool {
        let Some(cin) = &self.scheduled.cin else {
            return false;
        };
        let tracks = |x: IndexVar| self.tracked_pos(x).is_some_and(|(r, ..)| r == relation);
        crate::schedule::nest::loops_below(cin, v)
            .into_iter()
            .filter(|&x| !tracks(x))
            .any(|x| {
                crate::schedule::nest::loops_below(cin, x)
                    .into_iter()
                    .any(tracks)
            })
    }

    /// The first position a loop over part of a tracked position variable visits: the position
    /// with every loop not yet bound at its start (0).
    pub(super) fn first_position(&self, relation: usize) -> Expr {
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
            // A bounded loop takes its parent's coordinates as they are.
            if let Relation::Bound { parent, child, .. } = *r
                && parent == v
            {
                return self.lowest(child);
            }
        }
        Expr::Index(0)
    }

    /// `let mut q = (the segment of the upper level holding position `first`)` and `let mut
    /// q_end = pos[q + 1]` (0 when `first` is past the last position, which no guarded iteration
    /// then reaches). When the output is
    /// a vector over the upper coordinate, also a segment sum: additions into the output collect in
    /// a scalar that is flushed once per segment (one atomic add per row boundary instead of one
    /// per nonzero, as in Senanayake et al.'s Fig. 4b); the statement that flushes the last segment is
    /// returned, for the caller to place after the tracker's last use.
    pub(super) fn declare_tracker(
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
        let uppers = self.declare_uppers(relation, access, level, &var, &base, out);
        let mut tracker = Tracker {
            segment: var.clone(),
            end,
            first: None,
            uppers,
        };
        // A segment walk keeps its own sum per segment.
        if !self.segment_sum_applies(relation) || self.segment_walk_var(relation).is_some() {
            self.scope.trackers.insert(relation, tracker);
            return None;
        }
        let first = self.names.fresh(&format!("{base}_first"));
        out.push(Stmt::Let {
            var: first.clone(),
            ty: Type::Index,
            init: Expr::Var(var.clone()),
            mutable: false,
        });
        tracker.first = Some(first);
        self.scope.trackers.insert(relation, tracker);
        let sum = self.names.fresh("segment_sum");
        out.push(Stmt::Let {
            var: sum.clone(),
            ty: Type::Value,
            init: self.identity_value(),
            mutable: true,
        });
        self.scope.segment_sum = Some((relation, sum.clone()));
        Some(self.flush(access, level, &var, &sum, None))
    }

    /// The segments of the levels above the tracked pair, for a collapse of more than two levels
    /// (TTV's and MTTKRP's `i, j, k`): each starts at the segment holding the first position of
    /// the level below it, found by the same search. The levels between the top and the bottom
    /// have segments (`Lowerer::chain_levels` checked it).
    fn declare_uppers(
        &mut self,
        relation: usize,
        access: usize,
        level: usize,
        segment: &Var,
        base: &str,
        out: &mut Vec<Stmt>,
    ) -> Vec<(Var, Var)> {
        let mut below = segment.clone();
        let mut uppers = Vec::new();
        for u in self.chain_levels(relation, level) {
            // `track` refuses a level without segments, before anything here is emitted.
            if !level_of(&self.levels(access)[u]).segments() {
                break;
            }
            let pos = Array::Pos {
                param: self.accesses[access].tensor,
                level: u,
            };
            let count = Expr::CountUpTo {
                array: pos.clone(),
                target: Box::new(Expr::Var(below)),
            };
            let var = self.names.fresh(&format!("{base}{}", u - 1));
            out.push(Stmt::Let {
                var: var.clone(),
                ty: Type::Index,
                init: bin(BinOp::Sub, count, Expr::Index(1)),
                mutable: true,
            });
            let end = self.names.fresh(&format!("{base}{}_end", u - 1));
            let next = bin(BinOp::Add, Expr::Var(var.clone()), Expr::Index(1));
            let in_range = bin(BinOp::Lt, next.clone(), Expr::Len(pos.clone()));
            out.push(Stmt::Let {
                var: end.clone(),
                ty: Type::Index,
                init: Expr::Select(
                    Box::new(in_range),
                    Box::new(load(pos, next)),
                    Box::new(Expr::Index(0)),
                ),
                mutable: true,
            });
            uppers.push((var.clone(), end));
            below = var;
        }
        uppers
    }

    /// The levels whose `pos` arrays the upper segments of a collapse walk, nearest first: for a
    /// collapse of `n` levels ending at `level`, levels `level - 1` down to `level - n + 2` (none
    /// for two levels).
    pub(super) fn chain_levels(&self, relation: usize, level: usize) -> Vec<usize> {
        let Relation::Pos { parent, .. } = self.scheduled.relations[relation] else {
            return Vec::new();
        };
        let n = self.scheduled.underived(parent).len();
        ((level + 2).saturating_sub(n)..level).rev().collect()
    }

    /// Whether the output is a dense vector indexed by the upper coordinate of the collapse.
    pub(super) fn segment_sum_applies(&self, relation: usize) -> bool {
        let Relation::Pos { parent, .. } = self.scheduled.relations[relation] else {
            return false;
        };
        let roots = self.scheduled.underived(parent);
        let output = &self.accesses[0];
        let dense = self.levels(0).iter().all(|l| level_of(l).full());
        // A segment of the level just above the bottom is a row only when that level is the top.
        let two_levels = roots.len() == 2;
        two_levels && dense && output.level_vars.len() == 1 && output.level_vars[0] == roots[0]
    }

    /// `if sum != 0 { out[coordinate of segment q] += sum; sum = 0; }` (with the reduction's
    /// operator and identity in place of `+` and zero). With `first` (the walk's first segment)
    /// and an output zeroed before the walk, a later segment is stored instead of added: nothing
    /// else writes it, and under `Atomics` a store is a plain move where an add is a locked
    /// read-modify-write that stalls the loads in flight.
    fn flush(&self, access: usize, level: usize, q: &Var, sum: &Var, first: Option<&Var>) -> Stmt {
        let zero = self.identity_value();
        let store = |accumulate| self.segment_row_store(access, level, q, sum, accumulate);
        let store = match first {
            Some(first) if self.program.op == AssignOp::Assign => Stmt::If {
                cond: bin(BinOp::Ne, Expr::Var(q.clone()), Expr::Var(first.clone())),
                then: vec![store(false)],
                otherwise: vec![store(true)],
            },
            _ => store(true),
        };
        let reset = Stmt::assign(sum.clone(), zero.clone(), false);
        Stmt::If {
            cond: bin(BinOp::Ne, Expr::Var(sum.clone()), zero),
            then: vec![store, reset],
            otherwise: Vec::new(),
        }
    }

    /// Position `p` of a collapsed (upper, bottom) pair of levels: the bottom coordinate is read at
    /// `p`; the upper segment is tracked forward from where it was (skipping empty segments).
    pub(super) fn track(
        &mut self,
        relation: usize,
        access: usize,
        level: usize,
        p: &Expr,
        roots: &[IndexVar],
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let between = self.chain_levels(relation, level);
        if between
            .iter()
            .any(|&u| !level_of(&self.levels(access)[u]).segments())
        {
            return Err(self.unsupported(
                "`pos` over a collapse of more than two levels whose middle levels are not all \
                 compressed (each upper coordinate is recovered by walking a level's segments)",
            ));
        }
        let n = roots.len();
        self.advance_segment(relation, access, level, p, roots[n - 2], out)?;
        self.advance_uppers(relation, access, level, &roots[..n - 2], out)?;
        self.bind_bottom(access, level, p, roots[n - 1], out);
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
            ..
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
        let step = Stmt::assign(q.clone(), Expr::Index(1), true);
        // `p` is a stored position, so `pos` ends past it and the walk stops inside `pos`.
        let reload = Stmt::assign(
            end.clone(),
            load(pos, bin(BinOp::Add, Expr::Var(q.clone()), Expr::Index(1))),
            false,
        );
        let mut advance = Vec::new();
        if let Some((_, sum)) = self
            .scope
            .segment_sum
            .clone()
            .filter(|(r, _)| *r == relation)
        {
            advance.push(self.flush(access, level, &q, &sum, first.as_ref()));
        }
        advance.extend([step, reload]);
        out.push(Stmt::While {
            cond: bin(BinOp::Le, Expr::Var(end), p.clone()),
            body: advance,
        });
        self.bind_upper(access, level, &q, outer, out);
        Ok(())
    }

    /// Walks each upper segment of a collapse of more than two levels forward past the segment
    /// below it, as [`Lowerer::advance_segment`] walks the first, and binds the coordinates of
    /// the levels above (`outers`, top first) to theirs. The segment below is a stored position
    /// of its level, so each walk stops inside its `pos` array.
    fn advance_uppers(
        &mut self,
        relation: usize,
        access: usize,
        level: usize,
        outers: &[IndexVar],
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let tracker = self
            .scope
            .trackers
            .get(&relation)
            .cloned()
            .ok_or_else(|| self.internal("a tracked position without its tracker"))?;
        let levels = self.chain_levels(relation, level);
        if levels.len() != tracker.uppers.len() || levels.len() != outers.len() {
            return Err(self.internal("a collapse's upper segments do not match its levels"));
        }
        let mut below = tracker.segment;
        for (k, (u, (q, end))) in levels.into_iter().zip(tracker.uppers).enumerate() {
            let pos = Array::Pos {
                param: self.accesses[access].tensor,
                level: u,
            };
            let step = Stmt::assign(q.clone(), Expr::Index(1), true);
            let next = bin(BinOp::Add, Expr::Var(q.clone()), Expr::Index(1));
            let reload = Stmt::assign(end.clone(), load(pos, next), false);
            out.push(Stmt::While {
                cond: bin(BinOp::Le, Expr::Var(end), Expr::Var(below)),
                body: vec![step, reload],
            });
            self.bind_upper(access, u, &q, outers[outers.len() - 1 - k], out);
            below = q;
        }
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
    pub(super) fn bind_bottom(
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

    /// Lowers the loop over `v` (running `0..hi` when it is a split's inner part) as a segment
    /// walk when it is one ([`Lowerer::segment_walk`]); `false` when it is not, with nothing
    /// emitted.
    pub(super) fn walked_by_segments(
        &mut self,
        v: IndexVar,
        hi: &Expr,
        body: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<bool, Error> {
        let Some(walk) = self.segment_walk(v, hi)? else {
            return Ok(false);
        };
        self.segment_loop(v, walk, body, out)?;
        Ok(true)
    }

    /// The loop of a tracked position relation that walks its tiles segment by segment: the
    /// position variable itself, or the inner part of its one split, when that loop is plain (not
    /// parallel, vector or unrolled) and nothing is derived from it.
    pub(super) fn segment_walk_var(&self, relation: usize) -> Option<IndexVar> {
        let Relation::Pos { pos, parent, .. } = self.scheduled.relations[relation] else {
            return None;
        };
        // A turn covers one segment of the level above the bottom: a row only when that level
        // is the collapse's top.
        if self.scheduled.underived(parent).len() > 2 {
            return None;
        }
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
                let width = match &self.scope.tiles_per_task {
                    Some((tiles, per_task)) if *tiles == outer => {
                        bin(BinOp::Mul, hi.clone(), per_task.clone())
                    }
                    _ => hi.clone(),
                };
                let stop = bin(BinOp::Min, bin(BinOp::Add, start.clone(), width), top);
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
            tile_first: self.names.fresh(&format!("{base}_tile_first")),
        };
        out.push(let_index(&names.cursor, walk.start.clone(), true));
        out.push(let_index(&names.stop, walk.stop.clone(), false));
        // A tracker declared outside this tile (a split of the tiles' own loop) arrives on the
        // row the previous tile ended in.
        out.push(let_index(
            &names.tile_first,
            Expr::Var(walk.tracker.segment.clone()),
            false,
        ));
        let saved = self.scope.clone();
        self.scope.partial = true;
        self.scope.uncovered = true;
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
        // A row that goes on past the tile stays the walk's row for the next tile.
        let row_done = bin(
            BinOp::Eq,
            Expr::Var(run_end.clone()),
            Expr::Var(walk.tracker.end.clone()),
        );
        turn.push(Stmt::assign(cursor, Expr::Var(run_end), false));
        turn.push(Stmt::If {
            cond: row_done,
            then: vec![Stmt::assign(walk.tracker.segment, Expr::Index(1), true)],
            otherwise: Vec::new(),
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
            tile_first,
        } = names;
        let Tracker {
            segment: q, end, ..
        } = walk.tracker.clone();
        let pos = Array::Pos {
            param: self.accesses[walk.access].tensor,
            level: walk.level,
        };
        let mut turn = vec![Stmt::assign(
            end.clone(),
            load(pos, bin(BinOp::Add, Expr::Var(q.clone()), Expr::Index(1))),
            false,
        )];
        self.bind_upper(walk.access, walk.level, &q, walk.roots[0], &mut turn);
        let run_stop = bin(BinOp::Min, Expr::Var(end.clone()), Expr::Var(stop.clone()));
        turn.push(let_index(run_end, run_stop, false));
        let sum = self.segment_sum_applies(walk.relation).then(|| {
            let sum = self.names.fresh("segment_sum");
            turn.push(Stmt::Let {
                var: sum.clone(),
                ty: Type::Value,
                init: self.identity_value(),
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
        // The walk's segments are consecutive rows.
        turn.extend(self.prefetches(walk.access, walk.level, &Expr::Var(cursor.clone())));
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
                bin(
                    BinOp::Eq,
                    Expr::Var(q.clone()),
                    Expr::Var(tile_first.clone()),
                ),
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
        let store = |accumulate| self.segment_row_store(access, level, q, sum, accumulate);
        if self.program.op != AssignOp::Assign {
            return store(true);
        }
        Stmt::If {
            cond: shared,
            then: vec![store(true)],
            otherwise: vec![store(false)],
        }
    }

    /// `out[coordinate of segment q of level - 1] = sum` (or `op=` with the reduction's operator
    /// when `accumulate`).
    fn segment_row_store(
        &self,
        access: usize,
        level: usize,
        q: &Var,
        sum: &Var,
        accumulate: bool,
    ) -> Stmt {
        let upper = level - 1;
        let env = self.level_env(access, upper);
        let row =
            level_fns(self.levels(access)[upper].kind).pos_access(&env, &Expr::Var(q.clone()));
        let sum = Expr::Var(sum.clone());
        let op = accumulate.then(|| self.reduction());
        Stmt::update_with(Place::Elem(Array::Vals { param: 0 }, row), sum, op)
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
    /// The row the tile starts in: shared with the tile before.
    tile_first: Var,
}

fn let_index(var: &Var, init: Expr, mutable: bool) -> Stmt {
    Stmt::Let {
        var: var.clone(),
        ty: Type::Index,
        init,
        mutable,
    }
}
