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
//!
//! A run stores every row it holds whole, so of a dense vector output only the rows at the
//! runs' bounds need their initial value before the region: the rows the runs share (added to
//! from both sides) and the empty rows that start exactly on a bound (no run visits them). They
//! are set before the region, in place of a pass over the whole output, which on a
//! million-row output moves as many bytes again as the rows' stores
//! ([`Lowerer::init_run_bounds`]).

use super::Lowerer;
use super::expr::{ir_literal, literal_of};
use crate::format::bin;
use crate::ir::{Array, BinOp, Expr, Place, Stmt, Sync, UpdateOp};
use crate::notation::IndexVar;
use crate::schedule::{Direction, Race, Relation, Unit};
use crate::syntax::ast::AssignOp;

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

    /// Before the region over runs of tiles `v` (`count` runs of `per_task` tiles): the output
    /// rows at the runs' bounds set to the output's initial value, when the runs' stores cover
    /// every other row; `true` when it was emitted, and the kernel then needs no pass over the
    /// whole output. It applies to a vector output over the rows of a two-level collapse whose
    /// top level is dense (a CSR matrix's rows: segment `q` is row `q`), walked segment by
    /// segment with a segment sum, in the kernel's outermost loop, with `Atomics`.
    ///
    /// For each bound `b` (a run's first position, and the number of positions), the rows set
    /// are those that start at `b` (empty rows no run visits, then the row the next run starts
    /// with) or, when none does, the row holding `b`, which the runs on either side add to:
    /// `[min(#{pos < b}, #{pos <= b} - 1), min(#{pos <= b}, rows))`.
    pub(super) fn init_run_bounds(
        &mut self,
        v: IndexVar,
        per_task: &Expr,
        count: &Expr,
        out: &mut Vec<Stmt>,
    ) -> bool {
        let Some(Relation::Split { inner, factor, .. }) = self.scheduled.deriving(v) else {
            return false;
        };
        let Some((relation, access, level)) = self.tracked_pos(inner) else {
            return false;
        };
        let Relation::Pos { pos: p, .. } = self.scheduled.relations[relation] else {
            return false;
        };
        let Ok((lo, nnz)) = self.range_of(p) else {
            return false;
        };
        let rows_dense =
            level == 1 && self.levels(access)[0].kind == crate::format::LevelKind::Dense;
        // The runs' stores go to the output itself (not to a temporary per task).
        let atomics = (self.scheduled.parallel.get(&v)).is_some_and(|t| t.race == Race::Atomics);
        let outermost = self.scope.coords.is_empty();
        let writes_rows = self.program.op == AssignOp::Assign
            && !self.assembles()
            && self.pattern_source.is_none();
        let applies = rows_dense && atomics && outermost && writes_rows && lo == Expr::Index(0);
        if !applies || !self.segment_sum_applies(relation) {
            return false;
        }
        let pos = Array::Pos {
            param: self.accesses[access].tensor,
            level,
        };
        let count_up_to = |target: Expr| Expr::CountUpTo {
            array: pos.clone(),
            target: Box::new(target),
        };
        let (t, r) = (self.names.fresh("bound_run"), self.names.fresh("bound_row"));
        let mut body = Vec::new();
        let first = bin(
            BinOp::Mul,
            bin(BinOp::Mul, Expr::Var(t.clone()), per_task.clone()),
            Expr::Index(factor),
        );
        let b = self.let_fresh("bound", bin(BinOp::Min, first, nnz), &mut body);
        let upto = self.let_fresh("bound_upto", count_up_to(b.clone()), &mut body);
        let below = Expr::Select(
            Box::new(bin(BinOp::Eq, b.clone(), Expr::Index(0))),
            Box::new(Expr::Index(0)),
            Box::new(count_up_to(bin(BinOp::Sub, b, Expr::Index(1)))),
        );
        let holding = bin(BinOp::Sub, upto.clone(), Expr::Index(1));
        let rows = bin(BinOp::Sub, Expr::Len(pos.clone()), Expr::Index(1));
        let value = Expr::Value(ir_literal(literal_of(self.output_init)));
        body.push(Stmt::For {
            var: r.clone(),
            lo: bin(BinOp::Min, below, holding),
            hi: bin(BinOp::Min, upto, rows),
            body: vec![Stmt::Update {
                place: Place::Elem(Array::Vals { param: 0 }, Expr::Var(r)),
                op: UpdateOp::Set,
                value,
                sync: Sync::Owned,
            }],
        });
        out.push(Stmt::For {
            var: t,
            lo: Expr::Index(0),
            hi: bin(BinOp::Add, count.clone(), Expr::Index(1)),
            body,
        });
        true
    }
}
