//! Prefetch hints in lowered loops: the stream of a compressed level's rows (`Stmt::Prefetch`)
//! and the gathers of a dense input at coordinates read from a level (`Stmt::PrefetchGather`),
//! asked for by a `prefetch` command or, for rows gathered at a matrix's columns, by default.

use super::Lowerer;
use crate::error::{Error, ErrorKind, Errors};
use crate::format::{bin, level_of};
use crate::ir::{self, Array, Expr, Stmt};
use crate::notation::IndexVar;

/// How many positions ahead a gather of a dense input's rows is hinted without a `prefetch`
/// command. A position of SpMM with 32 columns is a few cycles of multiply-adds, so the hint must
/// run far ahead to cover a miss to memory: on the comparison harness's million-row matrices
/// (BENCHMARKS.md, "Fused multiply-adds, row prefetches and the nonzero split's bounds"), 8 left SpMM's time against oneMKL's
/// at 0.88-1.10, 32 took it to 0.82-0.96; SDDMM, whose positions are each a 32-term dot product,
/// went from 0.84-0.91 of taco's time to 0.46-0.59 with either.
const ROW_GATHER_DISTANCE: usize = 32;

impl Lowerer<'_> {
    /// Prefetches for a loop over the positions of compressed level `k` of access `a` from `from`
    /// whose rows are read one after another: its coordinates, and its values on the last level.
    pub(super) fn prefetches(&self, a: usize, k: usize, from: &Expr) -> Vec<Stmt> {
        let levels = self.levels(a);
        if !level_of(&levels[k]).segments() {
            return Vec::new();
        }
        let param = self.accesses[a].tensor;
        let mut arrays = vec![Array::Crd { param, level: k }];
        if k + 1 == levels.len() {
            arrays.push(Array::Vals { param });
        }
        (arrays.into_iter())
            .map(|array| Stmt::Prefetch {
                array,
                from: from.clone(),
            })
            .collect()
    }

    /// The hints of `prefetch` commands for `coord`, the coordinate of `v` just read from a
    /// compressed level's `crd` at some position `p`: for each dense input prefetched that `v`
    /// indexes below levels whose coordinates are known here, the element the read at
    /// `p + distance` will gather. Without a command, a dense input whose rows `v` gathers at a
    /// matrix's column coordinates (a level below `v`'s: SpMM's `B(j,k)`, SDDMM's `D(j,k)`) is
    /// hinted [`ROW_GATHER_DISTANCE`] positions ahead; the runtime hints only arrays larger than
    /// the caches.
    pub(super) fn gathers_ahead(&mut self, v: IndexVar, coord: &Expr) -> Vec<Stmt> {
        let Expr::Load(crd @ Array::Crd { .. }, p) = coord else {
            return Vec::new();
        };
        let scheduled = self.scheduled;
        let commanded = (scheduled.prefetch.iter()).map(|(&t, hint)| (t, hint.distance, true));
        // A matrix's columns (SpMM, SDDMM); not a deeper level of a CSF tensor (MTTKRP), whose
        // loop was 7% slower with the hint's test in it on the harness's cache-resident tensor.
        let matrix_columns = match crd {
            Array::Crd { param, level } => {
                *level == 1 && self.program.iterated_levels(*param).len() == 2
            }
            _ => false,
        };
        let rows = (1..self.accesses.len())
            .filter(|_| matrix_columns)
            .map(|a| self.accesses[a].tensor)
            .filter(|t| !scheduled.prefetch.contains_key(t))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .map(|t| (t, ROW_GATHER_DISTANCE, false));
        let mut hints = Vec::new();
        for (t, distance, command) in commanded.chain(rows).collect::<Vec<_>>() {
            let Some((offset, stride)) = (1..self.accesses.len())
                .filter(|&a| self.accesses[a].tensor == t)
                .find_map(|a| self.gathered_element(a, v))
            else {
                continue;
            };
            if !command && stride == Expr::Index(1) {
                continue;
            }
            hints.push(Stmt::PrefetchGather {
                array: Array::Vals { param: t },
                crd: crd.clone(),
                at: bin(ir::BinOp::Add, (**p).clone(), Expr::Index(distance)),
                offset,
                stride,
            });
            if command {
                self.gathered.insert(t);
            }
        }
        hints
    }

    /// Where dense access `a` reads when level `k`, the one `v` indexes, takes coordinate `c`:
    /// `offset + c * stride` (`locate` is linear in each coordinate on dense levels), with `offset`
    /// the position at the other levels' current coordinates, 0 for a level below `k` whose loop
    /// has not started (the row's first element). `None` when `v` indexes no level of `a` or a
    /// level above `k` has no coordinate here.
    pub(super) fn gathered_element(&self, a: usize, v: IndexVar) -> Option<(Expr, Expr)> {
        let vars = &self.accesses[a].level_vars;
        let k = vars.iter().position(|&w| w == v)?;
        let zero = Expr::Index(0);
        let mut offset = zero.clone();
        for (l, var) in vars.iter().enumerate() {
            let known = self.scope.coords.get(var).cloned();
            let c = match l.cmp(&k) {
                std::cmp::Ordering::Less => known?,
                std::cmp::Ordering::Equal => zero.clone(),
                std::cmp::Ordering::Greater => known.unwrap_or(Expr::Index(0)),
            };
            let env = self.level_env(a, l);
            offset = level_of(&self.levels(a)[l]).locate(&env, &offset, &c)?;
        }
        let stride = (k + 1..vars.len())
            .map(|l| self.level_ref(a, l).size())
            .reduce(|x, y| bin(ir::BinOp::Mul, x, y))
            .unwrap_or(Expr::Index(1));
        Some((offset, stride))
    }

    /// A `prefetch` command that no loop applied to is an error on the command.
    pub(super) fn check_prefetches_apply(&self) -> Result<(), Errors> {
        let unused = (self.scheduled.prefetch.iter()).find(|(t, _)| !self.gathered.contains(t));
        match unused {
            Some((&t, hint)) => {
                let name = self.program.tensors[t].name.clone();
                Err(vec![Error::new(
                    hint.span,
                    ErrorKind::PrefetchNotGathered(name),
                )])
            }
            None => Ok(()),
        }
    }
}
