//! Coordinate tiles over sparse levels (Senanayake et al. 2020): the inner loop of a coordinate
//! `split` of `i`, where the loop over `i` iterates a sparse level, becomes the loop over `i`
//! itself restricted to the tile's coordinates `[tile_lo, tile_hi)`. Each sparse operand the loop
//! iterates finds the tile's first and last positions in its segment with `coord_search` (for a
//! compressed level the binary search `binarySearchAfter` over its coordinates,
//! [`Expr::BinarySearchAfter`]), and the loop then co-iterates as the unscheduled one does: a
//! union lets each operand search its own start, an intersection stops at the first exhausted
//! one, and dense operands run over the tile's coordinates. Tiles partition the coordinates, so
//! the tail tile stops at the extent and a tile with no stored coordinate runs no iteration.
//!
//! This is the paper's derived bound of a split's inner variable in coordinate space (its §5.2:
//! the parent's bounds given the outer variable), turned into positions by a search in each
//! iterated level, as taco does.

use super::Lowerer;
use super::derived::ceil_div;
use super::forall::writes_output;
use crate::error::{Error, ErrorKind};
use crate::format::{bin, level_fns, properties};
use crate::ir::{BinOp, Expr, Region, Stmt, Unit as IrUnit};
use crate::lattice::IterKind;
use crate::notation::{Cin, IndexVar};
use crate::schedule::{Direction, Relation};

/// A coordinate split whose inner loop is lowered as a tile of its parent's loop.
#[derive(Clone, Copy, Debug)]
pub(super) struct CoordinateTile {
    /// The variable split, whose loop iterates a sparse level.
    parent: IndexVar,
    /// The loop over tiles (bound around the tile).
    outer: IndexVar,
    direction: Direction,
    factor: usize,
}

impl Lowerer<'_> {
    /// For the loop over tiles `v` (the outer part of a split whose inner loop is a coordinate
    /// tile), the output segment the tiles fill together: closed once, after this loop.
    pub(super) fn segment_of_tiles(&self, v: IndexVar, body: &Cin) -> Option<Stmt> {
        let parent = self.tiled_parent(v)?;
        if !writes_output(body) {
            return None;
        }
        let (level, parent) = self.output_segment(parent)?;
        Some(Stmt::FinishSegment { level, parent })
    }

    /// The coordinate tile the loop over `v` stands for (`Scheduled::coordinate_tile`), inside
    /// the loop over tiles. The loop over its parent here must iterate a sparse level: the
    /// output's assembly counted on it.
    pub(super) fn coordinate_tile(
        &self,
        v: IndexVar,
        body: &Cin,
    ) -> Result<Option<CoordinateTile>, Error> {
        let Some(Relation::Split {
            parent,
            outer,
            direction,
            factor,
            ..
        }) = self.scheduled.coordinate_tile(self.program, v)
        else {
            return Ok(None);
        };
        let iterators = self.iterators_at(parent)?;
        let sparse = (iterators.by_access.iter())
            .any(|(&a, (_, kind))| *kind == IterKind::Position && body.reads_access(a));
        let iterated = sparse || !iterators.bounded.is_empty();
        if !iterated || self.bound(outer).is_none() || self.bound(parent).is_some() {
            let what = format!(
                "a coordinate `split` of `{}` where its loop does not iterate the sparse level \
                 it indexes; use `pos`",
                self.program.vars[parent]
            );
            return Err(self.unsupported(&what));
        }
        Ok(Some(CoordinateTile {
            parent,
            outer,
            direction,
            factor,
        }))
    }

    /// The loop over the coordinates of `tile.parent` in the tile of the current outer iteration:
    /// `tile_lo = lo + outer * size`, `tile_hi = min(tile_lo + size, hi)`, each sparse level's
    /// positions searched from its segment, then the parent's own loop.
    pub(super) fn tile_loop(
        &mut self,
        tile: CoordinateTile,
        body: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let CoordinateTile {
            parent,
            outer,
            direction,
            factor,
        } = tile;
        let o = (self.bound(outer))
            .ok_or_else(|| self.internal("a coordinate tile outside its loop over tiles"))?;
        let (lo, hi) = self.range_of(parent)?;
        let size = match direction {
            Direction::Down => Expr::Index(factor),
            Direction::Up => ceil_div(bin(BinOp::Sub, hi.clone(), lo.clone()), factor),
        };
        let start = bin(BinOp::Add, lo, bin(BinOp::Mul, o, size.clone()));
        // The last tiles of an `Up` split can start past the extent: they are empty.
        let start = match direction {
            Direction::Down => start,
            Direction::Up => bin(BinOp::Min, start, hi.clone()),
        };
        let name = self.program.vars[parent].clone();
        let tile_lo = self.let_fresh(&format!("{name}_tile_lo"), start, out);
        let stop = bin(BinOp::Min, bin(BinOp::Add, tile_lo.clone(), size), hi);
        let tile_hi = self.let_fresh(&format!("{name}_tile_hi"), stop, out);
        let iterators = self.iterators_at(parent)?;
        let mut tiles = Vec::new();
        for (&a, &(it, kind)) in &iterators.by_access {
            if kind != IterKind::Position || !body.reads_access(a) {
                continue;
            }
            let spec = self.levels(it.access)[it.level];
            let program = self.program;
            let tensor = &program.tensors[self.accesses[it.access].tensor].name;
            let refuse = |why: &str| {
                let what = format!(
                    "a coordinate `split` of `{name}` over level {} of `{tensor}`, {why}; use `pos`",
                    it.level
                );
                Error::new(program.tensors[0].span, ErrorKind::Unsupported(what))
            };
            if !properties(&spec).ordered {
                return Err(refuse("whose coordinates are not sorted"));
            }
            let (seg_lo, seg_hi) = self.pos_bounds(it)?;
            let hint = format!("p{tensor}{}", it.level);
            let seg_lo = self.bind_index(&format!("{hint}_segment"), seg_lo, out);
            let seg_hi = self.bind_index(&format!("{hint}_segment_end"), seg_hi, out);
            let env = self.level_env(it.access, it.level);
            let fns = level_fns(spec.kind);
            let search = |from: &Expr, to: &Expr, target: &Expr| {
                fns.coord_search(&env, from, to, target)
                    .ok_or_else(|| refuse("whose coordinates cannot be searched"))
            };
            let first = search(&seg_lo, &seg_hi, &tile_lo)?;
            let first = self.let_fresh(&format!("{hint}_tile"), first, out);
            // Unique coordinates: a tile holds at most as many positions as coordinates.
            let end = match spec.unique {
                true => {
                    let width = bin(BinOp::Sub, tile_hi.clone(), tile_lo.clone());
                    bin(BinOp::Min, seg_hi, bin(BinOp::Add, first.clone(), width))
                }
                false => seg_hi,
            };
            let last = search(&first, &end, &tile_hi)?;
            let last = self.let_fresh(&format!("{hint}_tile_end"), last, out);
            tiles.push(((it.access, it.level), (first, last)));
        }
        let saved = self.scope.clone();
        self.scope.tiles.extend(tiles);
        self.scope.coord_ranges.insert(parent, (tile_lo, tile_hi));
        self.scope.tiled = Some(parent);
        let result = self.forall(parent, body, out);
        self.scope = saved;
        result
    }

    /// The variable whose coordinate tiles the loop over `v` runs over, if any.
    fn tiled_parent(&self, v: IndexVar) -> Option<IndexVar> {
        let scheduled = self.scheduled;
        (scheduled.relations.iter()).find_map(|r| match *r {
            Relation::Split {
                parent,
                outer,
                inner,
                ..
            } if outer == v && scheduled.coordinate_tile(self.program, inner).is_some() => {
                Some(parent)
            }
            _ => None,
        })
    }

    /// For the thread region over coordinate tiles `v` (lowered into `looped`): the region, run
    /// only when its work reaches the runtime's threshold, and otherwise the loop over the
    /// tiles' parent unsplit. Below the threshold the region's tiles would run in order on the
    /// calling thread, paying each tile's searches for nothing; the unsplit loop is the
    /// unscheduled kernel's. Other loops are returned as they are.
    pub(super) fn unsplit_below_threshold(
        &mut self,
        v: IndexVar,
        body: &Cin,
        looped: Vec<Stmt>,
    ) -> Result<Vec<Stmt>, Error> {
        let (Some(parent), Cin::Forall { var, body: tile }) = (self.tiled_parent(v), body) else {
            return Ok(looped);
        };
        let work = match looped.as_slice() {
            [
                Stmt::Parallel(Region {
                    unit: IrUnit::CpuThread,
                    work: Some(work),
                    ..
                }),
            ] if self.scheduled.coordinate_tile(self.program, *var).is_some() => work.clone(),
            _ => return Ok(looped),
        };
        let saved = self.scope.clone();
        let mut serial = Vec::new();
        let result = self.forall(parent, tile, &mut serial);
        self.scope = saved;
        result?;
        Ok(vec![Stmt::If {
            cond: bin(BinOp::Lt, work, Expr::ParallelMinWork),
            then: serial,
            otherwise: looped,
        }])
    }

    /// For a variable bound by recovery from a coordinate split over a sparse level: the error
    /// that says why its inner loop cannot be a tile: it is parallel (on the
    /// `parallelize` command), unrolled, or split again.
    pub(super) fn tile_not_plain(&self, v: IndexVar) -> Option<Error> {
        let inner = (self.scheduled.relations.iter()).find_map(|r| match *r {
            Relation::Split { parent, inner, .. } if parent == v => Some(inner),
            _ => None,
        })?;
        let (var, name) = (&self.program.vars[inner], &self.program.vars[v]);
        let what = |how: &str| {
            format!(
                "a coordinate `split` of `{name}` whose inner loop `{var}` {how}: a tile of a \
                 sparse level's coordinates is a plain loop that merges; parallelize the outer \
                 loop, or use `pos`"
            )
        };
        if let Some(tag) = self.scheduled.parallel.get(&inner) {
            let how = format!("runs on `{:?}`", tag.unit);
            return Some(Error::new(tag.span, ErrorKind::Unsupported(what(&how))));
        }
        let how = if self.scheduled.unroll.get(&inner).is_some_and(|&n| n > 1) {
            "is unrolled"
        } else if (self.scheduled.relations.iter()).any(|r| r.derives_from(inner)) {
            "is split or transformed again"
        } else {
            return None;
        };
        Some(self.unsupported(&what(how)))
    }
}
