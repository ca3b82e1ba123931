//! Lowering one forall: its lattice, its loops and their cases (Kjolstad 2020).

use std::collections::BTreeMap;

use super::Lowerer;
use super::expr::{Absent, absent_stmt};
use crate::error::Error;
use crate::format::{Iteration, bin, level_fns, level_of, properties};
use crate::ir::{BinOp, Expr, Stmt, Type, Var};
use crate::lattice::{IterKind, Iterator, Lattice, Point};
use crate::notation::{Cin, IndexVar};
use crate::schedule::Relation;

/// A position iterator's loop state: its current position and the end of its range, and the
/// level's `found` at the position where some positions hold no coordinate (a bitmap's absent
/// slots). Such a cursor only ever rests on a position that holds one, or on the end: every step
/// skips the others, so a merge never sees them.
#[derive(Clone, Debug)]
struct Cursor {
    it: Iterator,
    pos: Var,
    end: Var,
    found: Option<Expr>,
}

impl Cursor {
    /// `while pos < end && !found { pos += 1 }`, for a level with `found`.
    fn skip_absent(&self) -> Option<Stmt> {
        let found = self.found.clone()?;
        let in_range = bin(
            BinOp::Lt,
            Expr::Var(self.pos.clone()),
            Expr::Var(self.end.clone()),
        );
        let step = Stmt::assign(self.pos.clone(), Expr::Index(1), true);
        Some(Stmt::While {
            cond: bin(BinOp::And, in_range, Expr::Not(Box::new(found))),
            body: vec![step],
        })
    }
}

/// Per iterator inside a loop body: its coordinate, whether it sits on the loop's coordinate, and
/// where its run of equal coordinates ends (the next position to visit).
#[derive(Clone, Debug)]
struct Here {
    coord: Var,
    at: Var,
    next: Expr,
}

/// The iterators of one loop: the lattice's view (by access) and the value-iterated levels whose
/// bounds restrict a dense loop (range levels).
pub(super) struct LoopIterators {
    pub(super) by_access: BTreeMap<usize, (Iterator, IterKind)>,
    pub(super) bounded: Vec<Iterator>,
}

impl Lowerer<'_> {
    pub(super) fn forall(
        &mut self,
        v: IndexVar,
        body: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        if let Some(Relation::Coord { pos, .. }) = self.scheduled.deriving(v) {
            return self.coord_loop(pos, body, out);
        }
        if let Some(tile) = self.coordinate_tile(v, body)? {
            return self.tile_loop(tile, body, out);
        }
        if self.scheduled.deriving(v).is_some() {
            return self.derived_loop(v, body, out);
        }
        let expr = self.effective(body);
        let skip = self.skip_of(body);
        let iterators = self.iterators_at(v)?;
        let lattice = Lattice::build(&expr, &|id| iterators.by_access.get(&id).copied(), skip);
        let segment = if writes_output(body) && self.scope.tiled != Some(v) {
            self.output_segment(v)
        } else {
            None
        };
        let saved = self.scope.clone();
        let top = &lattice.points[0];
        let whole = top.dense && lattice.iterators().is_empty() && iterators.bounded.is_empty();
        self.scope.partial |= !whole;
        self.scope.uncovered |= !top.dense || !iterators.bounded.is_empty();
        if let Some(tag) = self.scheduled.parallel.get(&v) {
            let single =
                lattice.points.len() == 1 && top.iterators.len() <= 1 && (whole || !top.dense);
            if !single {
                let name = self.program.vars[v].clone();
                return Err(Error::new(
                    tag.span,
                    crate::error::ErrorKind::ParallelCoiteration(name),
                ));
            }
        }
        let result = if top.dense {
            self.dense_loop(v, &lattice, &iterators.bounded, body, out)
        } else if lattice.points.len() == 1 && top.iterators.len() == 1 {
            self.position_loop(v, &lattice, body, out)
        } else {
            self.merge_loops(v, &lattice, body, out)
        };
        self.scope = saved;
        if let Some((level, parent)) = segment {
            out.push(Stmt::FinishSegment { level, parent });
        }
        result
    }

    /// The iterators the loop over `v` drives: for every input access whose next level stores `v`.
    pub(super) fn iterators_at(&self, v: IndexVar) -> Result<LoopIterators, Error> {
        let mut by_access = BTreeMap::new();
        let mut bounded = Vec::new();
        for a in 1..self.accesses.len() {
            let k = self.next_level(a);
            if k == self.levels(a).len()
                || self.level_var(a, k) != Some(v)
                || self.parent_pos(a, k).is_none()
            {
                continue;
            }
            let it = Iterator {
                access: a,
                level: k,
            };
            let level = level_of(&self.levels(a)[k]);
            let kind = match level.iteration() {
                Iteration::Value => {
                    if level.bounded() {
                        bounded.push(it);
                    }
                    IterKind::Full
                }
                Iteration::Position => IterKind::Position,
            };
            by_access.insert(a, (it, kind));
        }
        Ok(LoopIterators { by_access, bounded })
    }

    /// The extent of index variable `v`: a dimension of the first tensor it indexes, or the size
    /// of the level a hidden variable iterates.
    pub(super) fn extent(&self, v: IndexVar) -> Expr {
        let logical = self.accesses.iter().find_map(|a| {
            let dim = a.indices.iter().position(|&x| x == v)?;
            Some(Expr::Dim {
                param: a.tensor,
                dim,
            })
        });
        let level = || {
            self.accesses.iter().find_map(|a| {
                let level = a.level_vars.iter().position(|&x| x == v)?;
                Some(Expr::LevelSize {
                    param: a.tensor,
                    level,
                })
            })
        };
        logical.or_else(level).unwrap_or(Expr::Index(0))
    }

    /// `for v in lo..hi` over the dimension (or a range level's bounds), with a cursor per position
    /// iterator of the lattice (a dense operand added to sparse ones).
    fn dense_loop(
        &mut self,
        v: IndexVar,
        lattice: &Lattice,
        bounded: &[Iterator],
        body: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let (lo, hi) = match bounded {
            [] => match self.scope.coord_ranges.get(&v) {
                Some(range) => range.clone(),
                None => (Expr::Index(0), self.extent(v)),
            },
            [it] => {
                let env = self.level_env(it.access, it.level);
                let fns = level_fns(self.levels(it.access)[it.level].kind);
                let (lo, hi) = (fns.coord_bounds(&env))
                    .ok_or_else(|| self.internal("a range level without bounds"))?;
                match self.scope.coord_ranges.get(&v) {
                    // Within a tile: the part of the range inside it (empty when they miss).
                    Some((from, to)) => {
                        let lo = bin(BinOp::Max, lo, from.clone());
                        let hi = bin(BinOp::Max, lo.clone(), bin(BinOp::Min, hi, to.clone()));
                        (lo, hi)
                    }
                    None => (lo, hi),
                }
            }
            _ => return Err(self.unsupported("two range levels iterated by one loop")),
        };
        self.scope.in_parallel |= self.thread_parallel(v);
        let cursors = self.open_cursors(lattice, out)?;
        self.scope.stepped.clear();
        self.scope.counting = Some(v);
        let coord = self.names.fresh(&self.program.vars[v].clone());
        let mut inner = Vec::new();
        let mut here = BTreeMap::new();
        for c in &cursors {
            let h = self.look(c, Some(&coord), &mut inner)?;
            here.insert(c.it, h);
        }
        self.scope
            .value_iterated
            .extend(bounded.iter().map(|it| (it.access, it.level)));
        self.cases(
            v,
            &coord,
            lattice,
            &lattice.points[0],
            &cursors,
            &here,
            body,
            &mut inner,
        )?;
        advance(&cursors, &here, &mut inner);
        if cursors.is_empty() {
            return self.push_loop(v, coord, lo, hi, inner, out);
        }
        out.push(Stmt::For {
            var: coord,
            lo,
            hi,
            body: inner,
        });
        Ok(())
    }

    /// One position iterator alone: a `for` over its positions (skipping empty hash buckets), or
    /// a `while` that visits each run of equal coordinates of a non-unique level once.
    fn position_loop(
        &mut self,
        v: IndexVar,
        lattice: &Lattice,
        body: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let point = &lattice.points[0];
        let Some(&it) = point.iterators.first() else {
            return Err(self.internal("an empty position loop"));
        };
        if !self.levels(it.access)[it.level].unique {
            return self.run_loop(v, lattice, body, out);
        }
        self.scope.in_parallel |= self.thread_parallel(v);
        let (lo, hi) = self.pos_bounds(it)?;
        let hint = format!(
            "p{}{}",
            self.program.tensors[self.accesses[it.access].tensor].name, it.level
        );
        let pos = self.names.fresh(&hint);
        let rows_follow = it.level > 0 && self.scope.stepped.contains(&(it.access, it.level - 1));
        self.scope.stepped = [(it.access, it.level)].into();
        self.scope.counting = None;
        let cursor = Cursor {
            it,
            pos: pos.clone(),
            end: pos.clone(),
            found: None,
        };
        let coord = self.names.fresh(&self.program.vars[v].clone());
        let env = self.level_env(it.access, it.level);
        let fns = level_fns(self.levels(it.access)[it.level].kind);
        let p = Expr::Var(pos.clone());
        let init = fns.pos_access(&env, &p);
        let hints = self.gathers_ahead(v, &init);
        let mut inner = vec![Stmt::Let {
            var: coord.clone(),
            ty: Type::Index,
            init,
            mutable: false,
        }];
        inner.extend(hints);
        self.case(
            v,
            &coord,
            lattice,
            point,
            &[cursor],
            &BTreeMap::new(),
            body,
            &mut inner,
        )?;
        if let Some(found) = fns.found(&env, &p) {
            inner = vec![Stmt::If {
                cond: found,
                then: inner,
                otherwise: Vec::new(),
            }];
        }
        let lo = if rows_follow && !self.thread_parallel(v) {
            // Bound once: the hints and the loop read the same `pos` entry.
            let lo = self.bind_index(&format!("{hint}_start"), lo, out);
            out.extend(self.prefetches(it.access, it.level, &lo));
            lo
        } else {
            lo
        };
        self.push_loop(v, pos, lo, hi, inner, out)
    }

    /// A non-unique position iterator alone: visits each run of equal coordinates once.
    fn run_loop(
        &mut self,
        v: IndexVar,
        lattice: &Lattice,
        body: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let cursors = self.open_cursors(lattice, out)?;
        let c = &cursors[0];
        let mut inner = Vec::new();
        let coord = self.names.fresh(&self.program.vars[v].clone());
        let h = self.look(c, None, &mut inner)?;
        inner.push(Stmt::Let {
            var: coord.clone(),
            ty: Type::Index,
            init: Expr::Var(h.coord.clone()),
            mutable: false,
        });
        let here = BTreeMap::from([(c.it, h.clone())]);
        self.case(
            v,
            &coord,
            lattice,
            &lattice.points[0],
            &cursors,
            &here,
            body,
            &mut inner,
        )?;
        inner.push(Stmt::assign(c.pos.clone(), h.next, false));
        let cond = bin(
            BinOp::Lt,
            Expr::Var(c.pos.clone()),
            Expr::Var(c.end.clone()),
        );
        out.push(Stmt::While { cond, body: inner });
        Ok(())
    }

    /// Two-finger merges: one `while` per lattice point, each running while all of the point's
    /// iterators have positions left (Kjolstad 2020).
    fn merge_loops(
        &mut self,
        v: IndexVar,
        lattice: &Lattice,
        body: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let cursors = self.open_cursors(lattice, out)?;
        for point in &lattice.points {
            let active: Vec<Cursor> = cursors
                .iter()
                .filter(|c| point.iterators.contains(&c.it))
                .cloned()
                .collect();
            let mut inner = Vec::new();
            let mut here = BTreeMap::new();
            for c in &active {
                here.insert(c.it, self.look(c, None, &mut inner)?);
            }
            let coord = self.names.fresh(&self.program.vars[v].clone());
            let min = here
                .values()
                .map(|h| Expr::Var(h.coord.clone()))
                .reduce(|a, b| bin(BinOp::Min, a, b));
            inner.push(Stmt::Let {
                var: coord.clone(),
                ty: Type::Index,
                init: min.unwrap_or(Expr::Index(0)),
                mutable: false,
            });
            for h in here.values() {
                let at = bin(
                    BinOp::Eq,
                    Expr::Var(h.coord.clone()),
                    Expr::Var(coord.clone()),
                );
                inner.push(Stmt::Let {
                    var: h.at.clone(),
                    ty: Type::Bool,
                    init: at,
                    mutable: false,
                });
            }
            self.cases(v, &coord, lattice, point, &active, &here, body, &mut inner)?;
            advance(&active, &here, &mut inner);
            let cond = active
                .iter()
                .map(|c| {
                    bin(
                        BinOp::Lt,
                        Expr::Var(c.pos.clone()),
                        Expr::Var(c.end.clone()),
                    )
                })
                .reduce(|a, b| bin(BinOp::And, a, b))
                .unwrap_or(Expr::Bool(false));
            out.push(Stmt::While { cond, body: inner });
        }
        Ok(())
    }

    /// `let mut p = begin; let end = ...;` for every position iterator of the lattice. Merging
    /// needs sorted coordinates, so unordered levels (hashed) are refused here.
    fn open_cursors(
        &mut self,
        lattice: &Lattice,
        out: &mut Vec<Stmt>,
    ) -> Result<Vec<Cursor>, Error> {
        let mut cursors = Vec::new();
        for it in lattice.iterators() {
            let spec = self.levels(it.access)[it.level];
            if !properties(&spec).ordered {
                return Err(self.unsupported("coiterating an unordered level (hashed or unordered compressed) with another operand"));
            }
            let (lo, hi) = self.pos_bounds(it)?;
            let hint = format!(
                "{}{}",
                self.program.tensors[self.accesses[it.access].tensor].name, it.level
            );
            let pos = self.names.fresh(&format!("p{hint}"));
            let end = self.names.fresh(&format!("p{hint}_end"));
            out.push(Stmt::Let {
                var: pos.clone(),
                ty: Type::Index,
                init: lo,
                mutable: true,
            });
            out.push(Stmt::Let {
                var: end.clone(),
                ty: Type::Index,
                init: hi,
                mutable: false,
            });
            let env = self.level_env(it.access, it.level);
            let found = level_of(&spec).found(&env, &Expr::Var(pos.clone()));
            let cursor = Cursor {
                it,
                pos,
                end,
                found,
            };
            out.extend(cursor.skip_absent());
            cursors.push(cursor);
        }
        Ok(cursors)
    }

    /// `pos_bounds` of an iterator's level under its parent, or the tile a split gave it.
    pub(super) fn pos_bounds(&self, it: Iterator) -> Result<(Expr, Expr), Error> {
        match self.scope.tiles.get(&(it.access, it.level)) {
            Some(tile) => Ok(tile.clone()),
            None => self.segment_bounds(it.access, it.level),
        }
    }

    /// `pos_bounds` of `level` of `access` under its parent's known position; a parent that is a
    /// run of duplicates (a non-unique level) spans the children of every position of the run.
    pub(super) fn segment_bounds(
        &self,
        access: usize,
        level: usize,
    ) -> Result<(Expr, Expr), Error> {
        let fns = level_fns(self.levels(access)[level].kind);
        let env = self.level_env(access, level);
        let parent = self
            .parent_pos(access, level)
            .ok_or_else(|| self.internal("a level iterated before its parent"))?;
        let missing = || self.internal("a level without position iteration");
        let (lo, hi) = fns.pos_bounds(&env, &parent).ok_or_else(missing)?;
        match (level.checked_sub(1)).and_then(|k| self.scope.run_ends.get(&(access, k))) {
            Some(run_end) => {
                let last = bin(BinOp::Sub, run_end.clone(), Expr::Index(1));
                let (_, hi) = fns.pos_bounds(&env, &last).ok_or_else(missing)?;
                Ok((lo, hi))
            }
            None => Ok((lo, hi)),
        }
    }

    /// Reads a cursor's coordinate (and, for a non-unique level, the end of its run of equal
    /// coordinates). With `coord`, also whether the cursor sits on that loop coordinate.
    fn look(
        &mut self,
        c: &Cursor,
        coord: Option<&Var>,
        out: &mut Vec<Stmt>,
    ) -> Result<Here, Error> {
        let spec = self.levels(c.it.access)[c.it.level];
        let fns = level_fns(spec.kind);
        let env = self.level_env(c.it.access, c.it.level);
        let p = Expr::Var(c.pos.clone());
        let in_range = bin(BinOp::Lt, p.clone(), Expr::Var(c.end.clone()));
        let stem = c.pos.0.trim_start_matches("__").to_string();
        let name = self.names.fresh(&format!("{stem}_crd"));
        let at = self.names.fresh(&format!("{stem}_here"));
        let read = fns.pos_access(&env, &p);
        match coord {
            // In a dense loop the cursor may be exhausted: read only in range.
            Some(coord) => {
                let value = Expr::Select(
                    Box::new(in_range.clone()),
                    Box::new(read),
                    Box::new(Expr::Index(0)),
                );
                out.push(Stmt::Let {
                    var: name.clone(),
                    ty: Type::Index,
                    init: value,
                    mutable: false,
                });
                let here = bin(
                    BinOp::And,
                    in_range,
                    bin(BinOp::Eq, Expr::Var(name.clone()), Expr::Var(coord.clone())),
                );
                out.push(Stmt::Let {
                    var: at.clone(),
                    ty: Type::Bool,
                    init: here,
                    mutable: false,
                });
            }
            None => out.push(Stmt::Let {
                var: name.clone(),
                ty: Type::Index,
                init: read,
                mutable: false,
            }),
        }
        let next = if spec.unique {
            bin(BinOp::Add, p, Expr::Index(1))
        } else {
            let run = self.names.fresh(&format!("{stem}_run"));
            out.push(Stmt::Let {
                var: run.clone(),
                ty: Type::Index,
                init: bin(BinOp::Add, p, Expr::Index(1)),
                mutable: true,
            });
            let same = bin(
                BinOp::And,
                bin(BinOp::Lt, Expr::Var(run.clone()), Expr::Var(c.end.clone())),
                bin(
                    BinOp::Eq,
                    fns.pos_access(&env, &Expr::Var(run.clone())),
                    Expr::Var(name.clone()),
                ),
            );
            let step = Stmt::assign(run.clone(), Expr::Index(1), true);
            out.push(Stmt::While {
                cond: same,
                body: vec![step],
            });
            Expr::Var(run)
        };
        Ok(Here {
            coord: name,
            at,
            next,
        })
    }

    /// The if / else-if chain over the sub-points of `point`, most iterators first.
    #[allow(clippy::too_many_arguments)]
    fn cases(
        &mut self,
        v: IndexVar,
        coord: &Var,
        lattice: &Lattice,
        point: &Point,
        cursors: &[Cursor],
        here: &BTreeMap<Iterator, Here>,
        body: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let subs: Vec<Point> = lattice.sub_points(point).into_iter().cloned().collect();
        // Without a last case that needs no iterator, the chain skips some coordinates.
        self.scope.uncovered |= !subs.iter().any(|q| q.iterators.is_empty());
        let mut chain: Vec<Stmt> = Vec::new();
        for q in subs.iter().rev() {
            let cond = q
                .iterators
                .iter()
                .map(|it| Expr::Var(here[it].at.clone()))
                .reduce(|a, b| bin(BinOp::And, a, b));
            let partial = self.scope.partial;
            self.scope.partial |= cond.is_some();
            let mut stmts = Vec::new();
            let lowered = self.case(v, coord, lattice, q, cursors, here, body, &mut stmts);
            self.scope.partial = partial;
            lowered?;
            chain = match cond {
                None => stmts,
                Some(cond) => vec![Stmt::If {
                    cond,
                    then: stmts,
                    otherwise: chain,
                }],
            };
        }
        out.extend(chain);
        Ok(())
    }

    /// One case: the body with the iterators of `q` on the coordinate and the others absent.
    #[allow(clippy::too_many_arguments)]
    fn case(
        &mut self,
        v: IndexVar,
        coord: &Var,
        lattice: &Lattice,
        q: &Point,
        cursors: &[Cursor],
        here: &BTreeMap<Iterator, Here>,
        body: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let saved = self.scope.clone();
        self.scope.coords.insert(v, Expr::Var(coord.clone()));
        for c in cursors.iter().filter(|c| q.iterators.contains(&c.it)) {
            self.scope
                .positions
                .insert((c.it.access, c.it.level), Expr::Var(c.pos.clone()));
            if !self.levels(c.it.access)[c.it.level].unique {
                self.scope
                    .run_ends
                    .insert((c.it.access, c.it.level), here[&c.it].next.clone());
            }
        }
        let absent = Absent {
            accesses: lattice
                .iterators()
                .iter()
                .filter(|it| !q.iterators.contains(it))
                .map(|it| it.access)
                .collect(),
            temps: Vec::new(),
        };
        let guards = self.recover(out);
        self.scope.partial |= guards.is_some();
        let mut inner = Vec::new();
        self.locate_ready(&mut inner)?;
        let lazy = if writes_output(body) {
            self.lazy_level(v)
        } else {
            None
        };
        let folded = absent_stmt(body, &absent, &|lhs, accumulate, op| {
            self.skip_for(lhs, accumulate, op)
        });
        let result = match (folded, lazy) {
            (Some(b), Some(k)) => {
                self.lazy_append(k, Expr::Var(coord.clone()), &mut inner, |me, out| {
                    me.stmt(&b, out)
                })
            }
            (Some(b), None) => self.stmt(&b, &mut inner),
            (None, _) => Ok(()),
        };
        match guards {
            Some(cond) => out.push(Stmt::If {
                cond,
                then: inner,
                otherwise: Vec::new(),
            }),
            None => out.extend(inner),
        }
        self.scope = saved;
        result
    }

    /// Coordinate recovery (Senanayake et al. 2020): binds every derived variable whose outer and
    /// inner parts are now bound, `outer * block + inner`, and returns the guard that keeps it
    /// inside its dimension (the last block of a dimension the block size does not divide).
    pub(super) fn recover(&mut self, out: &mut Vec<Stmt>) -> Option<Expr> {
        let mut guards = Vec::new();
        let program = self.program;
        for (&var, d) in &program.derived {
            if self.scope.coords.contains_key(&var) {
                continue;
            }
            let (Some(outer), Some(inner)) = (
                self.scope.coords.get(&d.outer),
                self.scope.coords.get(&d.inner),
            ) else {
                continue;
            };
            let value = bin(
                BinOp::Add,
                bin(BinOp::Mul, outer.clone(), Expr::Index(d.block)),
                inner.clone(),
            );
            let name = self.names.fresh(&self.program.vars[var].clone());
            out.push(Stmt::Let {
                var: name.clone(),
                ty: Type::Index,
                init: value,
                mutable: false,
            });
            guards.push(bin(BinOp::Lt, Expr::Var(name.clone()), self.extent(var)));
            self.scope.coords.insert(var, Expr::Var(name));
        }
        guards.into_iter().reduce(|a, b| bin(BinOp::And, a, b))
    }
}

/// Whether a statement assigns the output (a workspace producer does not).
pub(super) fn writes_output(cin: &Cin) -> bool {
    match cin {
        Cin::Forall { body, .. } => writes_output(body),
        Cin::Where {
            consumer: first,
            producer: second,
        }
        | Cin::Sequence { first, second } => writes_output(first) || writes_output(second),
        Cin::Assign { lhs, .. } => *lhs == crate::notation::Lhs::Output,
    }
}

/// Moves every cursor that sat on the coordinate past its run.
fn advance(cursors: &[Cursor], here: &BTreeMap<Iterator, Here>, out: &mut Vec<Stmt>) {
    for c in cursors {
        let h = &here[&c.it];
        let step = Stmt::assign(c.pos.clone(), h.next.clone(), false);
        out.push(Stmt::If {
            cond: Expr::Var(h.at.clone()),
            then: [step].into_iter().chain(c.skip_absent()).collect(),
            otherwise: Vec::new(),
        });
    }
}
