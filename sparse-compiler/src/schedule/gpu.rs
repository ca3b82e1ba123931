//! The GPU preconditions (the README), checked once the whole chain is applied: the nesting of
//! GPU units depends on the final loop order, not on the order of the `parallelize` commands. A
//! GPU kernel is one launch: a grid of blocks (the outermost loop), each of warps of 32 threads or
//! of plain threads, whose counts CUDA needs before the launch, so the loops under a block are
//! compile-time constants. Each failed check is an error on the offending `parallelize` command.

use crate::error::{Error, ErrorKind, GpuPrecondition};
use crate::notation::{Cin, IndexVar, Program};
use crate::syntax::ast::AssignOp;

use super::{BoundKind, Direction, Parallel, Race, Relation, Scheduled, Unit};

/// CUDA's limit on the threads of one block.
const MAX_THREADS_PER_BLOCK: usize = 1024;
/// The threads of one warp.
const WARP_SIZE: usize = 32;

/// The shape of a GPU kernel's launch: the loops that map to CUDA's block and thread indices, and
/// the block size, what lowering of the GPU region reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuLaunch {
    /// The `GpuBlock` loop, the kernel's outermost (`blockIdx.x`); its extent is the grid size.
    pub block: IndexVar,
    /// The `GpuWarp` loop, if any (`threadIdx.x / 32`).
    pub warp: Option<IndexVar>,
    /// The `GpuThread` loop, if any (the lane under a warp loop, else `threadIdx.x`).
    pub thread: Option<IndexVar>,
    /// Threads per block: the warps times 32, or the thread loop's extent, or 1.
    pub threads_per_block: usize,
}

impl Scheduled {
    /// The extent of the loop over `v` when it is a compile-time constant: the part of a `split`
    /// with the constant size (the inner part of a `Down` split, the outer part of an `Up` one),
    /// the other part when its parent's extent is constant (the parent's extent divided by the
    /// factor, rounded up), a `bound(.., n, MaxExact)` (`n`; `MaxConstraint` only promises at most
    /// `n`), a collapse of constant loops (their product), or what a lower bound or a `precompute`
    /// copies. The statement's own variables, positions and coordinate tiles depend on the inputs.
    pub fn constant_extent(&self, v: IndexVar) -> Option<usize> {
        match self.deriving(v)? {
            Relation::Split {
                parent,
                outer,
                direction,
                factor,
                ..
            } => {
                let fixed = if direction == Direction::Down {
                    v != outer
                } else {
                    v == outer
                };
                if fixed {
                    Some(factor)
                } else {
                    Some(self.constant_extent(parent)?.div_ceil(factor))
                }
            }
            Relation::Bound {
                kind: BoundKind::MaxExact,
                value,
                ..
            } => Some(value),
            Relation::Bound {
                kind: BoundKind::MaxConstraint,
                ..
            } => None,
            Relation::Bound { parent, .. } | Relation::Precompute { parent, .. } => {
                self.constant_extent(parent)
            }
            Relation::Collapse { outer, inner, .. } => {
                Some(self.constant_extent(outer)? * self.constant_extent(inner)?)
            }
            Relation::Pos { .. } | Relation::Coord { .. } => None,
        }
    }

    /// Whether some loop runs on a GPU unit: the kernel is a GPU kernel.
    pub fn is_gpu(&self) -> bool {
        self.parallel.values().any(|p| is_gpu(p.unit))
    }
}

fn is_gpu(unit: Unit) -> bool {
    matches!(unit, Unit::GpuBlock | Unit::GpuWarp | Unit::GpuThread)
}

/// How coarse a GPU unit is: blocks hold warps, which hold threads.
fn rank(unit: Unit) -> usize {
    match unit {
        Unit::GpuBlock => 0,
        Unit::GpuWarp => 1,
        _ => 2,
    }
}

fn unit_name(unit: Unit) -> String {
    format!("{unit:?}")
}

/// Checks the GPU preconditions of the scheduled statement `cin` (after `finalize`) and returns
/// its launch shape; `None` for a CPU kernel.
pub(super) fn gpu_launch(
    program: &Program,
    scheduled: &Scheduled,
    cin: &Cin,
) -> Result<Option<GpuLaunch>, Error> {
    let gpu: Vec<(IndexVar, Parallel)> = (scheduled.parallel.iter())
        .filter(|(_, p)| is_gpu(p.unit))
        .map(|(&v, &p)| (v, p))
        .collect();
    let Some(&(_, first)) = gpu.first() else {
        return Ok(None);
    };
    let name = |v: IndexVar| program.vars[v].clone();
    let fail = |p: &Parallel, what| Err(Error::new(p.span, ErrorKind::Gpu(what)));
    if let Some((&v, p)) = (scheduled.parallel.iter()).find(|(_, p)| !is_gpu(p.unit)) {
        let (var, unit) = (name(v), unit_name(p.unit));
        return fail(p, GpuPrecondition::MixedUnits { var, unit });
    }
    // The kernel has no assembly phase on the device: it can only fill values into a structure
    // known before the launch, copied from an input with the same levels (the device copy does
    // not convert levels).
    if program.assembles_output() || program.pattern_converted() {
        let t = program.tensors[program.output.tensor].name.clone();
        return fail(&first, GpuPrecondition::SparseOutput(t));
    }
    // The launcher passes each input's device arrays as they are: nothing converts them.
    if let Some((t, _)) = program.copies.iter().next() {
        let t = program.tensors[t].copy_of.unwrap_or(t);
        return fail(
            &first,
            GpuPrecondition::Copied(program.tensors[t].name.clone()),
        );
    }
    check_races(program, scheduled, cin, &gpu)?;
    // Outermost first, and the order of the units before anything else: an inverted nest is
    // better explained as such than by what its inner loop lacks.
    let mut gpu: Vec<(IndexVar, Parallel, Vec<IndexVar>)> = (gpu.into_iter())
        .map(|(v, p)| (v, p, enclosing_loops(cin, v).unwrap_or_default()))
        .collect();
    gpu.sort_by_key(|(_, _, enclosing)| enclosing.len());
    for (v, p, enclosing) in &gpu {
        check_nesting(program, scheduled, *v, p, enclosing)?;
    }
    let has = |enclosing: &[IndexVar], unit| {
        (enclosing.iter()).any(|x| scheduled.parallel.get(x).is_some_and(|q| q.unit == unit))
    };
    for (v, p, enclosing) in &gpu {
        let (var, unit) = (name(*v), unit_name(p.unit));
        match p.unit {
            Unit::GpuBlock if !enclosing.is_empty() => {
                return fail(p, GpuPrecondition::BlockNotOutermost(var));
            }
            Unit::GpuBlock => {}
            _ if !has(enclosing, Unit::GpuBlock) => {
                return fail(p, GpuPrecondition::NoBlock { var, unit });
            }
            _ => check_extent(program, scheduled, *v, p, has(enclosing, Unit::GpuWarp))?,
        }
    }
    let find = |unit| {
        (gpu.iter())
            .find(|(_, p, _)| p.unit == unit)
            .map(|(v, _, _)| *v)
    };
    let (warp, thread) = (find(Unit::GpuWarp), find(Unit::GpuThread));
    let extent = |v| scheduled.constant_extent(v).unwrap_or(1);
    let threads_per_block = match (warp, thread) {
        (Some(w), _) => extent(w) * WARP_SIZE,
        (None, Some(t)) => extent(t),
        (None, None) => 1,
    };
    // A warp or thread loop has a block loop around it, so there is one.
    let block = find(Unit::GpuBlock).unwrap_or(gpu[0].0);
    Ok(Some(GpuLaunch {
        block,
        warp,
        thread,
        threads_per_block,
    }))
}

/// A warp or thread loop's extent is a constant (CUDA takes the block size at launch), at most
/// 1024 threads per block (a warp loop's extent counts 32 threads each), and exactly the 32
/// threads of a warp under a warp loop.
fn check_extent(
    program: &Program,
    scheduled: &Scheduled,
    v: IndexVar,
    p: &Parallel,
    under_warp: bool,
) -> Result<(), Error> {
    let var = program.vars[v].clone();
    let fail = |what| Err(Error::new(p.span, ErrorKind::Gpu(what)));
    let Some(extent) = scheduled.constant_extent(v) else {
        let unit = unit_name(p.unit);
        return fail(GpuPrecondition::ExtentNotConstant { var, unit });
    };
    if p.unit == Unit::GpuThread && under_warp && extent != WARP_SIZE {
        return fail(GpuPrecondition::WarpThreads { var, extent });
    }
    let threads = if p.unit == Unit::GpuWarp {
        extent * WARP_SIZE
    } else {
        extent
    };
    if threads > MAX_THREADS_PER_BLOCK {
        return fail(GpuPrecondition::TooManyThreads { var, threads });
    }
    Ok(())
}

/// A GPU loop may enclose only GPU loops of finer units: blocks hold warps, which hold threads.
fn check_nesting(
    program: &Program,
    scheduled: &Scheduled,
    v: IndexVar,
    p: &Parallel,
    enclosing: &[IndexVar],
) -> Result<(), Error> {
    for &x in enclosing {
        let Some(q) = scheduled.parallel.get(&x) else {
            continue;
        };
        if rank(q.unit) >= rank(p.unit) {
            let what = GpuPrecondition::Nesting {
                var: program.vars[v].clone(),
                unit: unit_name(p.unit),
                outer: program.vars[x].clone(),
                outer_unit: unit_name(q.unit),
            };
            return Err(Error::new(p.span, ErrorKind::Gpu(what)));
        }
    }
    Ok(())
}

/// The race strategies a unit can implement: a block or a warp has no private partial and no
/// shuffle reduction of its own (`Temporary` and `ParallelReduction` are per thread, where
/// `parallelize` already checked that the thread's iterations reduce), and `Atomics` there needs
/// a sum into the output.
fn check_races(
    program: &Program,
    scheduled: &Scheduled,
    cin: &Cin,
    gpu: &[(IndexVar, Parallel)],
) -> Result<(), Error> {
    let outputs = program.loop_vars_of(&program.output.indices);
    let sums = program.op == AssignOp::AddAssign
        || (cin.loops().into_iter())
            .any(|v| !(scheduled.underived(v).iter()).all(|r| outputs.contains(r)));
    for &(v, p) in gpu {
        if p.unit == Unit::GpuThread {
            continue;
        }
        let var = program.vars[v].clone();
        let what = match p.race {
            Race::Temporary | Race::ParallelReduction => GpuPrecondition::Race {
                var,
                unit: unit_name(p.unit),
                race: format!("{:?}", p.race),
            },
            Race::Atomics if !sums => GpuPrecondition::AtomicsNoSum(var),
            _ => continue,
        };
        return Err(Error::new(p.span, ErrorKind::Gpu(what)));
    }
    Ok(())
}

/// The loops around the loop over `v`, outermost first (`None` if there is no such loop).
fn enclosing_loops(cin: &Cin, v: IndexVar) -> Option<Vec<IndexVar>> {
    match cin {
        Cin::Forall { var, .. } if *var == v => Some(Vec::new()),
        Cin::Forall { var, body } => enclosing_loops(body, v).map(|mut around| {
            around.insert(0, *var);
            around
        }),
        Cin::Where { .. } | Cin::Sequence { .. } => {
            (cin.parts()).and_then(|(a, b)| enclosing_loops(a, v).or_else(|| enclosing_loops(b, v)))
        }
        Cin::Assign { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(parent: IndexVar, outer: IndexVar, inner: IndexVar, direction: Direction) -> Relation {
        Relation::Split {
            parent,
            outer,
            inner,
            direction,
            factor: 32,
        }
    }

    fn bound(parent: IndexVar, child: IndexVar, kind: BoundKind) -> Relation {
        Relation::Bound {
            parent,
            child,
            kind,
            value: 4,
        }
    }

    fn with(relations: Vec<Relation>) -> Scheduled {
        Scheduled {
            relations,
            ..Scheduled::default()
        }
    }

    #[test]
    fn a_split_fixes_one_part_and_divides_a_constant_parent() {
        // 0 split Down into 1 (outer) and 2 (inner); 1 bounded to exactly 4 as 3; 3 split Up
        // into 4 (outer, 32) and 5 (inner, 4 / 32 rounded up).
        let s = with(vec![
            split(0, 1, 2, Direction::Down),
            bound(1, 3, BoundKind::MaxExact),
            split(3, 4, 5, Direction::Up),
        ]);
        assert_eq!(s.constant_extent(0), None);
        assert_eq!(s.constant_extent(1), None);
        assert_eq!(s.constant_extent(2), Some(32));
        assert_eq!(s.constant_extent(3), Some(4));
        assert_eq!(s.constant_extent(4), Some(32));
        assert_eq!(s.constant_extent(5), Some(1));
    }

    #[test]
    fn only_exact_bounds_fix_an_extent() {
        let s = with(vec![
            bound(0, 1, BoundKind::MaxConstraint),
            split(2, 3, 4, Direction::Down),
            bound(3, 5, BoundKind::MaxExact),
            bound(5, 6, BoundKind::MinExact),
            Relation::Precompute {
                parent: 6,
                child: 7,
            },
            Relation::Collapse {
                outer: 6,
                inner: 4,
                fused: 8,
            },
            Relation::Pos {
                parent: 8,
                pos: 9,
                access: 0,
            },
        ]);
        assert_eq!(s.constant_extent(1), None);
        assert_eq!(s.constant_extent(6), Some(4));
        assert_eq!(s.constant_extent(7), Some(4));
        assert_eq!(s.constant_extent(8), Some(4 * 32));
        assert_eq!(s.constant_extent(9), None);
    }
}
