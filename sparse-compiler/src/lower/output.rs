//! Assignments and output assembly (Chou et al. 2018, Kjolstad 2020).
//!
//! A dense output is zeroed (for `=`) and written by insert: its positions come from `locate`. A
//! sparse output is rebuilt by append: the kernel clears its levels, appends each coordinate and
//! value in order, closes each segment after the loop over its variable, and the runtime validates
//! the result when assembly ends. Workspaces collect a row that cannot be appended in order
//! (Gustavson's SpGEMM): a dense value array, a flag per coordinate and the list of touched
//! coordinates, sorted before they are appended.

use super::written::guarded;
use super::{Lowerer, Temp};
use crate::error::{Error, ErrorKind, Errors};
use crate::format::{Assembly, LevelSpec, level_of, properties};
use crate::ir::{Array, Expr, HostStep, Literal, Place, ReduceOp, Stmt, TempType, Type};
use crate::notation::{Cin, Expr as NExpr, IndexVar, Lhs};
use crate::syntax::ast::AssignOp;

impl Lowerer<'_> {
    /// Whether the output has levels that are assembled by append (not when it takes an input's
    /// structure).
    pub(super) fn assembles(&self) -> bool {
        self.program.assembles_output() && !self.collects_entries
    }

    /// Checks that the output can be assembled, and starts: zeroing a dense output written with
    /// `=`, or clearing a sparse one.
    pub(super) fn begin_output(&mut self, out: &mut Vec<Stmt>) -> Result<(), Errors> {
        let levels = self.levels(0).to_vec();
        if let Some(source) = self.pattern_source {
            out.push(Stmt::Host(HostStep::CopyStructure {
                from: self.accesses[source].tensor,
            }));
            return Ok(());
        }
        if !self.assembles() {
            if self.program.op == AssignOp::Assign {
                let parallel = self.threads();
                let step = match self.output_init {
                    0.0 => HostStep::ZeroOutput { parallel },
                    init => HostStep::FillOutput {
                        value: super::expr::ir_literal(super::expr::literal_of(init)),
                        parallel,
                    },
                };
                out.push(Stmt::Host(step));
            }
            return Ok(());
        }
        let first_sparse = levels.iter().position(|l| !level_of(l).full()).unwrap_or(0);
        let sparse = &levels[first_sparse..];
        let nested = sparse
            .iter()
            .all(|l| level_of(l).segments() && l.unique && properties(l).ordered);
        let appends_one = |l: &LevelSpec| {
            let level = level_of(l);
            level.assembly() == Assembly::Append && level.branchless()
        };
        let coordinate_list = level_of(&sparse[0]).segments()
            && !sparse[0].unique
            && sparse[1..].iter().all(appends_one);
        let merge = self.program.op == AssignOp::AddAssign;
        if merge
            || (!nested && !coordinate_list)
            || !self.output_in_loop_order()
            || self.derived_loops_break_appends()
            || self.sums_outside_output()
        {
            // Scatter assembly. Hashed or unordered levels, loops that visit the output against
            // its mode order (a CSC result of row-major loops), an appended level whose
            // coordinate only derived loops visit, a sum outside the output's loops (AᵀA with
            // the rows of A outermost) or `+=`: collect coordinate/value triples, then sort
            // them, sum duplicates (and, for `+=`, the stored entries) and pack them at the end.
            // The runtime combines duplicates with `+` only, so another reduction that can
            // write a coordinate twice is refused rather than summed.
            if self.sums_outside_output() && self.reduction() != ReduceOp::Add {
                return Err(vec![self.unsupported(
                    "a reduction other than `+` into a sparse output assembled from scattered \
                     triples (a sum outside the output's loops); reduce into a dense output",
                )]);
            }
            self.collects_entries = true;
            out.push(Stmt::Host(HostStep::BeginEntries { merge }));
            return Ok(());
        }
        out.push(Stmt::Host(HostStep::BeginAssembly));
        Ok(())
    }

    /// A dense output read on the right of `=` must be written everywhere by the iterations
    /// that read it: a kernel that writes only part of it (a product with a sparse operand)
    /// must zero the rest first, and would then read the zeros.
    pub(super) fn check_output_read(&self) -> Result<(), Error> {
        match self.program.output_read {
            Some(span) if self.program.op == AssignOp::Assign && self.uncovered_output_write => {
                let why = "this kernel writes only the elements its sparse operands or \
                           position loops visit, and must zero the others before it starts";
                Err(self.output_read_error(span, why))
            }
            _ => Ok(()),
        }
    }

    /// The error for a read of the output that the kernel cannot order before its write.
    pub(super) fn output_read_error(&self, span: proc_macro2::Span, why: &str) -> Error {
        let kind = ErrorKind::OutputReadUnsafe {
            tensor: self.program.tensors[0].name.clone(),
            why: why.to_string(),
        };
        Error::new(span, kind)
    }

    /// Whether the loops reach the output's level variables in the output's level order, so
    /// appends come in order: the first loop over each (or over a variable derived from it) is
    /// outside the first loop over the next, and no input level they iterate is unordered (a
    /// hashed input alone visits its coordinates in bucket order).
    fn output_in_loop_order(&self) -> bool {
        let order = (self.scheduled.cin.as_ref()).map_or_else(Vec::new, Cin::loops);
        let first =
            |v: IndexVar| (order.iter()).position(|&l| self.scheduled.underived(l).contains(&v));
        let at: Vec<usize> = self.accesses[0]
            .level_vars
            .iter()
            .filter_map(|&v| first(v))
            .collect();
        let unordered_input = (1..self.accesses.len()).any(|a| {
            let levels = self.levels(a);
            (self.accesses[a].level_vars.iter().zip(levels)).any(|(v, l)| {
                let unordered = !properties(l).ordered;
                unordered && self.accesses[0].level_vars.contains(v)
            })
        });
        at.windows(2).all(|w| w[0] <= w[1]) && !unordered_input
    }

    /// Whether the output is written with `+=` inside the loops: a sum runs outside (or between)
    /// the output's loops and no workspace collects it, so each coordinate may be written once
    /// per iteration of the sum, in any order.
    fn sums_outside_output(&self) -> bool {
        fn accumulates(cin: &Cin) -> bool {
            match cin {
                Cin::Forall { body, .. } => accumulates(body),
                Cin::Where {
                    consumer: first,
                    producer: second,
                }
                | Cin::Sequence { first, second } => accumulates(first) || accumulates(second),
                Cin::Assign {
                    lhs, accumulate, ..
                } => *lhs == Lhs::Output && *accumulate,
            }
        }
        self.scheduled.cin.as_ref().is_some_and(accumulates)
    }

    /// Whether a compressed or singleton output level's variable has no loop of its own, only
    /// loops over variables a schedule derived from it (a split, bound, collapse or position
    /// loop), or whether a loop visits an output coordinate above such a level once per nonzero
    /// (positions of COO's rows). Appends close a level's segments after the loop over its
    /// variable and append a coordinate once per visit of it, so such loops are not assembled
    /// directly.
    fn derived_loops_break_appends(&self) -> bool {
        let order = self.loop_order();
        let levels = self.levels(0);
        let vars = &self.accesses[0].level_vars;
        let Some(last_appended) = levels.iter().rposition(|l| !level_of(l).full()) else {
            return false;
        };
        let repeats = |v: IndexVar| {
            (order.iter()).any(|&l| {
                self.scheduled.underived(l).contains(&v)
                    && !self.scheduled.visits_coordinates_once(self.program, l)
            })
        };
        (vars.iter().zip(levels).enumerate()).any(|(k, (&v, level))| {
            let derived_only = !level_of(level).full()
                && !order.contains(&v)
                && (order.iter()).any(|&l| self.scheduled.underived(l).contains(&v));
            derived_only || (k <= last_appended && repeats(v))
        })
    }

    /// The variables of the loops, outermost first, with each coordinate tile's loop standing
    /// for the loop over its parent, which is what lowering runs in its place (`tile.rs`).
    fn loop_order(&self) -> Vec<IndexVar> {
        let order = (self.scheduled.cin.as_ref()).map_or_else(Vec::new, Cin::loops);
        (order.into_iter())
            .map(|v| match self.scheduled.coordinate_tile(self.program, v) {
                Some(crate::schedule::Relation::Split { parent, .. }) => parent,
                _ => v,
            })
            .collect()
    }

    pub(super) fn end_output(&mut self, out: &mut Vec<Stmt>) {
        if self.collects_entries {
            out.push(Stmt::Host(HostStep::EndEntries));
        } else if self.assembles() {
            out.push(Stmt::Host(HostStep::EndAssembly));
        }
    }

    /// The output level whose segment the loop over `v` fills, and its parent position. A segment
    /// under a compressed parent is closed by the parent's lazy append instead (`lazy_append`).
    pub(super) fn output_segment(&self, v: IndexVar) -> Option<(usize, Expr)> {
        if !self.assembles() {
            return None;
        }
        let k = self.next_level(0);
        let spec = self.levels(0).get(k)?;
        if k > 0 && level_of(&self.levels(0)[k - 1]).segments() {
            return None;
        }
        (level_of(spec).segments() && self.level_var(0, k) == Some(v))
            .then(|| self.parent_pos(0, k).map(|p| (k, p)))
            .flatten()
    }

    /// The compressed output level above the last that the loop over `v` appends to, if any. Its
    /// coordinate is appended only once the segment below it has children, so empty rows of a
    /// DCSR or CSF output are not stored.
    pub(super) fn lazy_level(&self, v: IndexVar) -> Option<usize> {
        let k = self.next_level(0);
        let levels = self.levels(0);
        let lazy = self.assembles()
            && k + 1 < levels.len()
            && level_of(&levels[k]).segments()
            && levels[k].unique
            && self.level_var(0, k) == Some(v);
        lazy.then_some(k)
    }

    /// Lowers `body` for one coordinate of a lazily appended output level `k`: the coordinate
    /// takes the next position of level `k`, and is appended (after closing its children's
    /// segment) only if the body appended children.
    pub(super) fn lazy_append(
        &mut self,
        k: usize,
        coord: Expr,
        out: &mut Vec<Stmt>,
        body: impl FnOnce(&mut Self, &mut Vec<Stmt>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let begin = self.names.fresh("children_begin");
        let children = Expr::AppendedLen { level: k + 1 };
        out.push(Stmt::Let {
            var: begin.clone(),
            ty: Type::Index,
            init: children.clone(),
            mutable: false,
        });
        self.scope
            .positions
            .insert((0, k), Expr::AppendedLen { level: k });
        body(self, out)?;
        let nonempty = crate::format::bin(crate::ir::BinOp::Lt, Expr::Var(begin), children);
        let close = vec![
            Stmt::FinishSegment {
                level: k + 1,
                parent: Expr::AppendedLen { level: k },
            },
            Stmt::Append { level: k, coord },
        ];
        out.push(Stmt::If {
            cond: nonempty,
            then: close,
            otherwise: Vec::new(),
        });
        Ok(())
    }

    /// `lhs = rhs`, or `lhs = lhs op rhs` with a reduction operator.
    pub(super) fn assign(
        &mut self,
        lhs: &Lhs,
        op: Option<ReduceOp>,
        rhs: &NExpr,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let value = self.value(rhs)?;
        let accumulate = op.is_some();
        let skip = match op {
            Some(op) => op.op().reduction_identity().unwrap_or(0.0),
            None => self.output_init,
        };
        match lhs {
            Lhs::Scalar(t) => match self.temps.get(t) {
                Some(Temp::Scalar(var)) => {
                    out.push(Stmt::update_with(Place::Var(var.clone()), value, op));
                    self.note_scalar_write(*t, rhs, skip, out);
                    Ok(())
                }
                _ => Err(self.internal("a scalar temporary without a variable")),
            },
            Lhs::Workspace { temp, var } => {
                let mut scatter = Vec::new();
                self.scatter(*temp, *var, value, op, &mut scatter)?;
                out.extend(guarded(self.produced_at(rhs, skip), scatter));
                Ok(())
            }
            Lhs::Precomputed { temp, .. } => {
                let (values, at) = self.precomputed_slot(*temp)?;
                out.push(super::precompute::fill(values, at, value, accumulate));
                Ok(())
            }
            Lhs::Output if self.collects_entries => {
                // Repeated coordinates are summed when the entries are packed.
                let coords = self.output_coords()?;
                let entry = vec![Stmt::AppendEntry { coords, value }];
                out.extend(guarded(self.produced_at(rhs, skip), entry));
                Ok(())
            }
            Lhs::Output if self.assembles() => {
                if accumulate {
                    return Err(self.unsupported("accumulating into a sparse output"));
                }
                let mut append = Vec::new();
                self.append(value, &mut append)?;
                out.extend(guarded(self.produced_at(rhs, skip), append));
                Ok(())
            }
            Lhs::Output if accumulate && self.scope.segment_sum.is_some() => {
                self.partial_output_write = true;
                let Some((_, sum)) = self.scope.segment_sum.clone() else {
                    return Ok(());
                };
                out.push(Stmt::update_with(Place::Var(sum), value, op));
                Ok(())
            }
            Lhs::Output => {
                self.partial_output_write |= accumulate || self.scope.partial;
                self.uncovered_output_write |= self.scope.uncovered;
                let index = self.output_position()?;
                let place = Place::Elem(Array::Vals { param: 0 }, index);
                out.push(Stmt::update_with(place, value, op));
                Ok(())
            }
        }
    }

    /// The output's logical coordinates at the current point.
    fn output_coords(&self) -> Result<Vec<Expr>, Error> {
        self.accesses[0]
            .indices
            .iter()
            .map(|v| {
                self.scope
                    .coords
                    .get(v)
                    .cloned()
                    .ok_or_else(|| self.internal("output coordinate unbound"))
            })
            .collect()
    }

    fn output_position(&self) -> Result<Expr, Error> {
        match self.levels(0).len() {
            0 => Ok(Expr::Index(0)),
            n => self
                .scope
                .positions
                .get(&(0, n - 1))
                .cloned()
                .ok_or_else(|| self.internal("output position unknown")),
        }
    }

    /// Appends the current coordinate of the output's last level, and `value`; in a coordinate
    /// list (COO), every sparse level takes its coordinate for each entry.
    fn append(&mut self, value: Expr, out: &mut Vec<Stmt>) -> Result<(), Error> {
        let levels = self.levels(0).to_vec();
        let last = levels.len() - 1;
        let first = match levels
            .iter()
            .position(|l| level_of(l).segments() && !l.unique)
        {
            Some(k) => k,
            None => last,
        };
        for level in first..=last {
            let v = self
                .level_var(0, level)
                .ok_or_else(|| self.internal("output level without variable"))?;
            let coord = self
                .scope
                .coords
                .get(&v)
                .cloned()
                .ok_or_else(|| self.internal("output coordinate unbound"))?;
            out.push(Stmt::Append { level, coord });
        }
        out.push(Stmt::AppendValue(value));
        Ok(())
    }

    /// A dense workspace over `var` whose values start at `init` (the identity of the reduction
    /// into it), allocated once at the top of the kernel, or once per iteration of the
    /// thread-parallel loop it is used in (tasks must not share it).
    pub(super) fn workspace(&mut self, var: IndexVar, init: Literal) -> Temp {
        let len = self.extent(var);
        let name = self.program.vars[var].clone();
        let values = self.names.fresh(&format!("w_{name}"));
        let set = self.names.fresh(&format!("w_{name}_set"));
        let list = self.names.fresh(&format!("w_{name}_list"));
        let count = self.names.fresh(&format!("w_{name}_count"));
        let declarations = [
            Stmt::value_workspace(values.clone(), len.clone(), init),
            Stmt::workspace(set.clone(), TempType::Bool, len.clone()),
            Stmt::workspace(list.clone(), TempType::Index, len),
            Stmt::Let {
                var: count.clone(),
                ty: Type::Index,
                init: Expr::Index(0),
                mutable: true,
            },
        ];
        match self.scope.in_parallel {
            true => self.parallel_locals.extend(declarations),
            false => self.hoisted.extend(declarations),
        }
        Temp::Workspace {
            var,
            values,
            set,
            list,
            count,
            init,
        }
    }

    /// `w[j] op= value`, recording `j` the first time it is touched.
    fn scatter(
        &mut self,
        temp: usize,
        var: IndexVar,
        value: Expr,
        op: Option<ReduceOp>,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let Some(Temp::Workspace {
            values,
            set,
            list,
            count,
            ..
        }) = self.temps.get(&temp).cloned()
        else {
            return Err(self.internal("a workspace without arrays"));
        };
        let j = self
            .scope
            .coords
            .get(&var)
            .cloned()
            .ok_or_else(|| self.internal("workspace coordinate unbound"))?;
        let first = vec![
            Stmt::store(Array::Temp(set.clone()), j.clone(), Expr::Bool(true), false),
            Stmt::store(
                Array::Temp(list),
                Expr::Var(count.clone()),
                j.clone(),
                false,
            ),
            Stmt::assign(count, Expr::Index(1), true),
        ];
        let untouched = Expr::Not(Box::new(Expr::Load(Array::Temp(set), Box::new(j.clone()))));
        out.push(Stmt::If {
            cond: untouched,
            then: first,
            otherwise: Vec::new(),
        });
        let op = op.unwrap_or(ReduceOp::Add);
        out.push(Stmt::update_with(
            Place::Elem(Array::Temp(values), j),
            value,
            Some(op),
        ));
        Ok(())
    }

    /// The consumer `∀j out(.., j) = w(j)`: the touched coordinates in order, each appended (or
    /// stored) and its workspace entry reset.
    pub(super) fn workspace_consumer(
        &mut self,
        temp: usize,
        consumer: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let Some(Temp::Workspace {
            var,
            values,
            set,
            list,
            count,
            init,
        }) = self.temps.get(&temp).cloned()
        else {
            return Err(self.internal("a workspace without arrays"));
        };
        if !matches!(consumer, Cin::Forall { var: v, .. } if *v == var) {
            return Err(self.unsupported("a workspace consumed outside a loop over its variable"));
        }
        if let Some(source) = self.pattern_source {
            let tensors = &self.program.tensors;
            return Err(self.unsupported(&format!(
                "a sum outside the loop over `{}` into `{}`, which takes the structure of `{}`: \
                 its entries sit at `{}`'s positions, which a workspace does not walk; keep that \
                 loop outside the sum",
                self.program.vars[var],
                tensors[0].name,
                tensors[self.accesses[source].tensor].name,
                tensors[self.accesses[source].tensor].name,
            )));
        }
        let unbound = (self.accesses[0].indices.iter())
            .find(|&&v| v != var && !self.scope.coords.contains_key(&v));
        if let Some(&row) = unbound {
            return Err(self.unsupported(&format!(
                "`{}` assembled by append along `{}` inside a loop that visits `{}` once per \
                 nonzero (the positions of a collapse, or of COO's repeated rows)",
                self.program.tensors[0].name, self.program.vars[var], self.program.vars[row],
            )));
        }
        let segment = self.output_segment(var);
        out.push(Stmt::SortPrefix {
            array: list.clone(),
            len: Expr::Var(count.clone()),
        });
        let idx = self.names.fresh("k");
        let j = self.names.fresh(&self.program.vars[var].clone());
        let mut body = vec![Stmt::Let {
            var: j.clone(),
            ty: Type::Index,
            init: Expr::Load(Array::Temp(list), Box::new(Expr::Var(idx.clone()))),
            mutable: false,
        }];
        let saved = self.scope.clone();
        self.scope.coords.insert(var, Expr::Var(j.clone()));
        self.locate_ready(&mut body)?;
        let value = Expr::Load(Array::Temp(values.clone()), Box::new(Expr::Var(j.clone())));
        if self.collects_entries {
            let coords = self.output_coords()?;
            body.push(Stmt::AppendEntry { coords, value });
        } else if self.assembles() {
            self.append(value, &mut body)?;
        } else {
            // Only the touched coordinates are stored: the others keep the zeros written first.
            self.partial_output_write = true;
            let index = self.output_position()?;
            body.push(Stmt::store(Array::Vals { param: 0 }, index, value, false));
        }
        self.scope = saved;
        body.push(Stmt::store(
            Array::Temp(values),
            Expr::Var(j.clone()),
            Expr::Value(init),
            false,
        ));
        body.push(Stmt::store(
            Array::Temp(set),
            Expr::Var(j),
            Expr::Bool(false),
            false,
        ));
        out.push(Stmt::For {
            var: idx,
            lo: Expr::Index(0),
            hi: Expr::Var(count.clone()),
            body,
        });
        out.push(Stmt::assign(count, Expr::Index(0), false));
        if let Some((level, parent)) = segment {
            out.push(Stmt::FinishSegment { level, parent });
        }
        Ok(())
    }
}
