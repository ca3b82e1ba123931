//! Tasks of a thread region over tiles of positions (Senanayake et al. 2020's nonzero split:
//! `pos`, then `split` of the positions into tiles of `n` stored values, the loop over tiles on
//! threads). The tiles give every task the same work however the rows are skewed, but a tile of
//! 16 values is too little to carry its fixed costs: the binary search for the row it starts in,
//! the atomic add of the row it shares with the tile before, and a call of rayon's loop body.
//!
//! Where the tiles are walked segment by segment ([`Lowerer::segment_walk_var`]), each iteration
//! of the region takes a run of consecutive tiles and walks them as one: one search, a shared
//! row at each end of the run, and every row in between stored with a plain move. The tiles'
//! bounds stay the schedule's (a run starts and stops on them); only how many of them one
//! iteration takes is chosen when the kernel runs, from the number of tiles.

use super::Lowerer;
use crate::format::bin;
use crate::ir::{BinOp, Expr, Stmt};
use crate::notation::IndexVar;
use crate::schedule::{Direction, Relation, Unit};

/// The most iterations a region over tiles is cut into. rayon hands a pool thread a range of
/// them at a time and splits it further only when another thread steals, so many iterations
/// cost little; 256 leave every thread of a large machine several to balance the load with.
const TASKS: usize = 256;

/// The fewest stored values one iteration walks (when there are that many): about 4 µs of SpMV,
/// against the fraction of a microsecond its search, its two shared rows and its call cost.
const MIN_TASK_VALUES: usize = 4096;

impl Lowerer<'_> {
    /// For the thread region over position tiles `v` whose tiles are walked by segments (from
    /// 0 to `tiles`): the number of tiles each of its iterations walks, bound before the loop
    /// in `out`, and the number of iterations. `None` for any other loop, which runs a tile
    /// per iteration as the schedule says.
    pub(super) fn tiles_per_task(
        &mut self,
        v: IndexVar,
        lo: &Expr,
        tiles: &Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<(Expr, Expr)> {
        let thread = self.scheduled.parallel.get(&v)?.unit == Unit::CpuThread;
        let Some(Relation::Split {
            outer,
            inner,
            direction: Direction::Down,
            factor,
            ..
        }) = self.scheduled.deriving(v)
        else {
            return None;
        };
        let (relation, ..) = self.tracked_pos(inner)?;
        let walked = self.segment_walk_var(relation) == Some(inner);
        if !thread || outer != v || !walked || *lo != Expr::Index(0) {
            return None;
        }
        let name = self.program.vars[v].clone();
        let tiles = self.bind_index(&format!("{name}_tiles"), tiles.clone(), out);
        let spread = bin(
            BinOp::Div,
            bin(BinOp::Add, tiles.clone(), Expr::Index(TASKS - 1)),
            Expr::Index(TASKS),
        );
        let least = Expr::Index(MIN_TASK_VALUES.div_ceil(factor));
        let per_task = bin(BinOp::Max, spread, least);
        let per_task = self.let_fresh(&format!("{name}_per_task"), per_task, out);
        // ceil(tiles / per_task), per_task >= 1.
        let last = bin(BinOp::Sub, per_task.clone(), Expr::Index(1));
        let tasks = bin(BinOp::Div, bin(BinOp::Add, tiles, last), per_task.clone());
        Some((per_task, tasks))
    }
}
