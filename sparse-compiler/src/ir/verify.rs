//! The IR verifier: run after lowering and after every pass (`passes::run`), so a broken
//! invariant is reported as an internal error where it was made, not as a strange program in a
//! back end. Back ends may rely on everything checked here.
//!
//! It checks:
//! - every variable is declared before use in an enclosing block, and never again where that
//!   declaration is visible (an unrolled loop's copies of its body declare the same names in
//!   sibling blocks);
//! - updates write only locals, workspaces and the output's values (never an input or an index
//!   array), and a local or workspace only after its declaration;
//! - inside a thread region, a scalar declared outside is written only as a declared reduction;
//! - `Atomic` updates are sums into the output inside a region whose iterations share it;
//! - appends happen only outside regions or in a row-assembling or part-appending region,
//!   triples only outside regions or in one that pushes entry parts, and the statements of the
//!   count and fill phases only in those phases;
//! - after the passes: no `AppendRows` region is left, and each lane region is one update;
//! - only CPU thread regions carry a work estimate (whether they run serially);
//! - the prologue (bound checks, structure copies) comes first;
//! - the signature lists every parameter once, the output first, and a parameter taken by value
//!   is an order-0 input read directly (no converted copy); a tensor local to the kernel is
//!   a converted copy of an input the function takes, and not in the signature.

use super::visit::{declared, stmt_exprs};
use super::{
    Array, Expr, HostStep, Kernel, OutputAccess, Place, Region, Scope, Stmt, Sync, Unit, UpdateOp,
    Var,
};

/// Which invariants hold at a point of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Straight from lowering: lane regions and row assemblies are not shaped yet.
    Lowered,
    /// After every pass: what back ends see.
    Final,
}

/// Checks `kernel`'s invariants, or says which one is broken.
pub fn verify(kernel: &Kernel, stage: Stage) -> Result<(), String> {
    signature(kernel)?;
    let prologue = kernel.body.iter().take_while(|s| s.is_prologue()).count();
    if let Some(late) = kernel.body[prologue..].iter().find(|s| s.is_prologue()) {
        return Err(format!("a prologue step after the prologue: {late:?}"));
    }
    let mut verifier = Verifier {
        kernel,
        stage,
        scopes: vec![Vec::new()],
        regions: Vec::new(),
    };
    verifier.stmts(&kernel.body)
}

/// The parameters' order and how each is passed; tensors local to the kernel are copies of an
/// input the function takes.
fn signature(kernel: &Kernel) -> Result<(), String> {
    let mut sorted = kernel.signature.clone();
    sorted.sort_unstable();
    let taken = (0..kernel.params.len()).filter(|&k| kernel.params[k].copy_of.is_none());
    if kernel.signature.first() != Some(&0) || !sorted.iter().copied().eq(taken) {
        return Err(format!(
            "the signature {:?} does not list every parameter once, output first",
            kernel.signature
        ));
    }
    let local = |p: &super::Param| p.copy_of.is_some();
    let copies_an_input = |k: usize| {
        let p = kernel.params.get(k);
        p.is_some_and(|p| !p.output && !p.by_value && !local(p))
    };
    if let Some(p) = (kernel.params.iter()).find(|p| {
        local(p) && (p.output || p.convert_to.is_none() || !p.copy_of.is_some_and(copies_an_input))
    }) {
        return Err(format!("`{}` is not a copy of an input", p.name));
    }
    match (kernel.params.iter())
        .find(|p| p.by_value && (p.output || p.order != 0 || p.convert_to.is_some()))
    {
        Some(p) => Err(format!("`{}` cannot be passed by value", p.name)),
        None => Ok(()),
    }
}

/// What the statements being checked sit inside.
struct Verifier<'k> {
    kernel: &'k Kernel,
    stage: Stage,
    /// The names visible here, one list per enclosing block.
    scopes: Vec<Vec<&'k Var>>,
    /// The regions around, innermost last, with the depth of `scopes` at which each starts.
    regions: Vec<(&'k Region, usize)>,
}

impl<'k> Verifier<'k> {
    fn stmts(&mut self, stmts: &'k [Stmt]) -> Result<(), String> {
        self.scopes.push(Vec::new());
        let result = stmts.iter().try_for_each(|s| self.stmt(s));
        self.scopes.pop();
        result
    }

    fn stmt(&mut self, stmt: &'k Stmt) -> Result<(), String> {
        for expr in stmt_exprs(stmt) {
            self.expr(expr)?;
        }
        self.placement(stmt)?;
        if let Stmt::Update {
            place, op, sync, ..
        } = stmt
        {
            self.update(place, *op, *sync)?;
        }
        if let Stmt::RowDots {
            vals,
            crd,
            weights,
            pos,
            ..
        }
        | Stmt::RowAxpys {
            vals,
            crd,
            weights,
            pos,
            ..
        } = stmt
        {
            self.row_runs([vals, crd, weights, pos])?;
        }
        if let Stmt::GatherAxpy {
            acc,
            vals,
            crd,
            weights,
            ..
        } = stmt
        {
            if !self.visible(acc) {
                return Err(format!(
                    "workspace `{}` is written where it is not declared",
                    acc.0
                ));
            }
            if !self.weighted_gather(vals, crd, weights) {
                return Err(format!(
                    "an axpy reads {vals:?} at {crd:?} weighted by {weights:?}: an input's \
                     values at an input's coordinates, weighted by that input's values"
                ));
            }
        }
        let Some(var) = declared(stmt) else {
            return stmt.bodies().into_iter().try_for_each(|b| self.stmts(b));
        };
        if self.visible(var) {
            return Err(format!("`{}` is declared again where it is visible", var.0));
        }
        match stmt {
            Stmt::For { body, .. } | Stmt::Tile { body, .. } => self.body_with(var, body, None),
            Stmt::Parallel(region) => {
                self.region(region)?;
                self.body_with(var, &region.body, Some(region))
            }
            _ => {
                self.scopes.last_mut().expect("a block").push(var);
                Ok(())
            }
        }
    }

    /// A loop body, which sees the loop variable.
    fn body_with(
        &mut self,
        var: &'k Var,
        body: &'k [Stmt],
        region: Option<&'k Region>,
    ) -> Result<(), String> {
        self.scopes.push(vec![var]);
        if let Some(region) = region {
            self.regions.push((region, self.scopes.len()));
        }
        let result = self.stmts(body);
        if region.is_some() {
            self.regions.pop();
        }
        self.scopes.pop();
        result
    }

    fn visible(&self, var: &Var) -> bool {
        self.scopes.iter().flatten().any(|v| *v == var)
    }

    /// Runs of rows (of dot products, of axpys) read an input's values at the coordinates of
    /// another's level, weighted by that input's values, between that level's segment bounds.
    fn row_runs(&self, [vals, crd, weights, pos]: [&Array; 4]) -> Result<(), String> {
        let bounds = matches!((pos, crd), (Array::Pos { param, level }, Array::Crd { param: p, level: l })
            if param == p && level == l);
        if self.weighted_gather(vals, crd, weights) && bounds {
            return Ok(());
        }
        Err(format!(
            "rows of dot products or axpys read {vals:?} at {crd:?} weighted by {weights:?} \
             between {pos:?}: an input's values at an input's coordinates, weighted by that \
             input's values, between that level's bounds"
        ))
    }

    /// Whether a gather of `vals` at `crd` is weighted by the values of the input whose level
    /// `crd` is (a dot product, rows of them, an axpy).
    fn weighted_gather(&self, vals: &Array, crd: &Array, weights: &Array) -> bool {
        self.gathers_inputs(vals, crd)
            && matches!((crd, weights), (Array::Crd { param, .. }, Array::Vals { param: w })
                if param == w)
    }

    /// Whether a gather reads an input's values at the coordinates of an input's level.
    fn gathers_inputs(&self, vals: &Array, crd: &Array) -> bool {
        let input = |p: usize| self.kernel.params.get(p).is_some_and(|p| !p.output);
        match (vals, crd) {
            (Array::Vals { param: x }, Array::Crd { param, .. }) => input(*x) && input(*param),
            _ => false,
        }
    }

    fn expr(&self, expr: &Expr) -> Result<(), String> {
        match expr {
            Expr::Var(var) if !self.visible(var) => {
                Err(format!("`{}` is read where it is not declared", var.0))
            }
            Expr::Load(Array::Temp(var), _) | Expr::Len(Array::Temp(var)) if !self.visible(var) => {
                Err(format!(
                    "workspace `{}` is read where it is not declared",
                    var.0
                ))
            }
            Expr::Gather { vals, crd, .. } if !self.gathers_inputs(vals, crd) => Err(format!(
                "a gather reads {vals:?} at {crd:?}: it reads an input's values at an input's \
                 coordinates"
            )),
            Expr::DenseDot { a, b, .. }
                if ![a, b]
                    .iter()
                    .all(|v| matches!(v, Array::Vals { param } if *param != 0)) =>
            {
                Err(format!(
                    "a dense dot product of {a:?} and {b:?}: it reads two inputs' values"
                ))
            }
            Expr::GatherDot {
                vals, crd, weights, ..
            } if !self.weighted_gather(vals, crd, weights) => Err(format!(
                "a dot product reads {vals:?} at {crd:?} weighted by {weights:?}: it reads \
                     an input's values at an input's coordinates, weighted by that input's values"
            )),
            Expr::Call(f, args) if args.len() != f.arity() => Err(format!(
                "`{}` takes {} arguments, not {}",
                f.name(),
                f.arity(),
                args.len()
            )),
            Expr::Dim { param, .. } | Expr::LevelSize { param, .. }
                if *param >= self.kernel.params.len() =>
            {
                Err(format!("parameter {param} does not exist"))
            }
            _ => super::visit::operands(expr)
                .into_iter()
                .try_for_each(|e| self.expr(e)),
        }
    }

    fn update(&self, place: &Place, op: UpdateOp, sync: Sync) -> Result<(), String> {
        let inner = self.regions.last().copied();
        match place {
            Place::Var(var) => {
                if !self.visible(var) {
                    return Err(format!("`{}` is assigned where it is not declared", var.0));
                }
                // A scalar declared outside a thread region is shared by its iterations.
                for (region, depth) in &self.regions {
                    let outside = !self.scopes[*depth..].iter().flatten().any(|v| *v == var);
                    let reduced = region.reductions.iter().any(|r| r.var == *var);
                    if region.unit == Unit::CpuThread && outside && !reduced {
                        return Err(format!("`{}` is shared by a region's iterations", var.0));
                    }
                }
            }
            Place::Elem(Array::Temp(var), _) if !self.visible(var) => {
                return Err(format!(
                    "workspace `{}` is written where it is not declared",
                    var.0
                ));
            }
            Place::Elem(Array::Temp(_) | Array::Vals { param: 0 }, _) => {}
            Place::Elem(array, _) => return Err(format!("a store into {array:?}")),
        }
        if sync == Sync::Atomic {
            let output_sum = matches!(place, Place::Elem(Array::Vals { param: 0 }, _))
                && matches!(op, UpdateOp::Reduce(_));
            let shared = inner.is_some_and(|(r, _)| {
                matches!(
                    r.output,
                    OutputAccess::Scattered | OutputAccess::Runs { .. }
                )
            });
            if !output_sum || !shared {
                return Err("an atomic update that is not a sum into a shared output".into());
            }
        }
        if let Some((region, _)) = inner
            && matches!(place, Place::Elem(Array::Vals { param: 0 }, _))
            && matches!(
                region.output,
                OutputAccess::Untouched
                    | OutputAccess::AppendParts
                    | OutputAccess::EntryParts
                    | OutputAccess::CountRows { .. }
                    | OutputAccess::FillRows { .. }
            )
        {
            return Err(format!(
                "an update of the output in a {:?} region",
                region.output
            ));
        }
        Ok(())
    }

    /// Statements that belong only in some regions.
    /// Lanes run inside one thread, so only the regions of other units count here.
    fn placement(&self, stmt: &Stmt) -> Result<(), String> {
        let mut threads = self
            .regions
            .iter()
            .filter(|(r, _)| r.unit != Unit::CpuVector);
        let output = threads.next_back().map(|(r, _)| &r.output);
        let allowed = match stmt {
            Stmt::CountEntry | Stmt::CloseRow { .. } => {
                matches!(output, Some(OutputAccess::CountRows { .. }))
            }
            Stmt::FillCoord(_) | Stmt::FillValue(_) => {
                matches!(output, Some(OutputAccess::FillRows { .. }))
            }
            Stmt::Append { .. } | Stmt::AppendValue(_) | Stmt::FinishSegment { .. } => {
                matches!(
                    output,
                    None | Some(OutputAccess::AppendRows { .. } | OutputAccess::AppendParts)
                )
            }
            Stmt::AppendEntry { .. } => matches!(output, None | Some(OutputAccess::EntryParts)),
            // Whole rows of the output, which only a thread that owns them may write.
            // A run of dot products also through a region's shared cells: the rows a nonzero
            // split's task holds whole, which no other task writes.
            Stmt::RowDots { .. } => {
                matches!(
                    output,
                    None | Some(
                        OutputAccess::Blocks { .. }
                            | OutputAccess::Scattered
                            | OutputAccess::Runs { .. }
                    )
                ) && self.regions.iter().all(|(r, _)| r.unit == Unit::CpuThread)
            }
            Stmt::RowAxpys { .. } => {
                matches!(output, None | Some(OutputAccess::Blocks { .. }))
                    && self.regions.iter().all(|(r, _)| r.unit == Unit::CpuThread)
            }
            Stmt::Host(HostStep::LayoutRows { .. }) => output.is_none(),
            Stmt::Host(_) => output.is_none(),
            _ => true,
        };
        if !allowed {
            return Err(format!(
                "{stmt:?} inside a region whose output access is {output:?}"
            ));
        }
        Ok(())
    }

    fn region(&self, region: &Region) -> Result<(), String> {
        if region.work.is_some() && region.unit != Unit::CpuThread {
            return Err(format!("a {:?} region with a work estimate", region.unit));
        }
        for reduction in &region.reductions {
            if !self.visible(&reduction.var) {
                return Err(format!("reduction into undeclared `{}`", reduction.var.0));
            }
            let lanes = region.unit == Unit::CpuVector;
            if (reduction.scope == Scope::Lanes) != lanes {
                return Err(format!(
                    "a {:?} reduction in a {:?} region",
                    reduction.scope, region.unit
                ));
            }
        }
        if self.stage == Stage::Final {
            if matches!(region.output, OutputAccess::AppendRows { .. }) {
                return Err("a row assembly left unsplit".into());
            }
            if region.unit == Unit::CpuVector && !matches!(region.body[..], [Stmt::Update { .. }]) {
                return Err("a lane region whose body is not one update".into());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::FormatType;
    use crate::ir::{Literal, Param, ReduceOp, Type};

    fn kernel(body: Vec<Stmt>) -> Kernel {
        let param = |name: &str, output, order| Param {
            name: name.into(),
            output,
            order,
            format: FormatType::Named {
                type_name: "Dense",
                type_args: vec![order],
            },
            convert_to: None,
            by_value: false,
            copy_of: None,
            fill: Literal::Int(0),
        };
        Kernel {
            combine: None,
            name: "k".into(),
            params: vec![param("y", true, 1), param("x", false, 1)],
            signature: vec![0, 1],
            shape_checks: Vec::new(),
            body,
        }
    }

    fn var(name: &str) -> Var {
        Var(name.into())
    }

    fn region(unit: Unit, output: OutputAccess, body: Vec<Stmt>) -> Stmt {
        Stmt::Parallel(Region {
            unit,
            var: var("__i"),
            lo: Expr::Index(0),
            hi: Expr::Dim { param: 0, dim: 0 },
            body,
            output,
            reductions: Vec::new(),
            units: None,
            work: None,
        })
    }

    fn sum_into_output(sync: Sync) -> Stmt {
        Stmt::Update {
            place: Place::Elem(Array::Vals { param: 0 }, Expr::Var(var("__i"))),
            op: UpdateOp::Reduce(ReduceOp::Add),
            value: Expr::Load(Array::Vals { param: 1 }, Box::new(Expr::Var(var("__i")))),
            sync,
        }
    }

    fn check(body: Vec<Stmt>) -> Result<(), String> {
        verify(&kernel(body), Stage::Final)
    }

    #[test]
    fn a_well_formed_kernel_passes() {
        let body = vec![region(
            Unit::CpuThread,
            OutputAccess::Scattered,
            vec![sum_into_output(Sync::Atomic)],
        )];
        assert_eq!(check(body), Ok(()));
    }

    #[test]
    fn rows_of_dot_products_are_checked_for_their_arrays_and_owner() {
        let rows = |pos_level: usize| Stmt::RowDots {
            op: UpdateOp::Set,
            vals: Array::Vals { param: 1 },
            crd: Array::Crd { param: 1, level: 1 },
            weights: Array::Vals { param: 1 },
            pos: Array::Pos {
                param: 1,
                level: pos_level,
            },
            rows: Box::new((Expr::Index(0), Expr::Dim { param: 0, dim: 0 })),
        };
        assert_eq!(check(vec![rows(1)]), Ok(()));
        assert!(check(vec![rows(0)]).is_err(), "bounds of another level");
        let shared = region(Unit::CpuThread, OutputAccess::Scattered, vec![rows(1)]);
        assert_eq!(
            check(vec![shared]),
            Ok(()),
            "through a region's shared cells"
        );
        let parts = region(Unit::CpuThread, OutputAccess::EntryParts, vec![rows(1)]);
        assert!(
            check(vec![parts]).is_err(),
            "rows of a region that writes no values"
        );
    }

    #[test]
    fn runs_of_axpys_are_checked_for_their_arrays_and_owner() {
        let rows = |weights: usize, pos_level: usize| Stmt::RowAxpys {
            width: 4,
            vals: Array::Vals { param: 1 },
            crd: Array::Crd { param: 1, level: 1 },
            weights: Array::Vals { param: weights },
            pos: Array::Pos {
                param: 1,
                level: pos_level,
            },
            at: Box::new((Expr::Index(4), Expr::Index(0))),
            out_at: Box::new((Expr::Index(4), Expr::Index(0))),
            rows: Box::new((Expr::Index(0), Expr::Dim { param: 0, dim: 0 })),
            ahead: 0,
        };
        assert_eq!(check(vec![rows(1, 1)]), Ok(()));
        assert!(check(vec![rows(1, 0)]).is_err(), "bounds of another level");
        assert!(
            check(vec![rows(2, 1)]).is_err(),
            "weighted by another input"
        );
        let shared = region(Unit::CpuThread, OutputAccess::Scattered, vec![rows(1, 1)]);
        assert!(
            check(vec![shared]).is_err(),
            "rows shared by a region's iterations"
        );
    }

    #[test]
    fn an_axpy_needs_its_workspace_and_an_input_s_weights() {
        let axpy = |weights: usize| Stmt::GatherAxpy {
            acc: var("__acc"),
            width: 4,
            vals: Array::Vals { param: 1 },
            crd: Array::Crd { param: 1, level: 1 },
            weights: Array::Vals { param: weights },
            stride: Expr::Index(4),
            offset: Expr::Index(0),
            range: Box::new((Expr::Index(0), Expr::Index(1))),
            ahead: 0,
        };
        let acc = Stmt::value_workspace(var("__acc"), Expr::Index(4), Literal::Int(0));
        assert_eq!(check(vec![acc.clone(), axpy(1)]), Ok(()));
        assert!(check(vec![axpy(1)]).is_err(), "no workspace");
        assert!(check(vec![acc, axpy(0)]).is_err(), "weighted by the output");
    }

    #[test]
    fn a_gather_of_the_output_is_caught() {
        let gather = |vals: usize, crd: usize| {
            vec![Stmt::Let {
                var: var("__v"),
                ty: Type::Value,
                init: Expr::Gather {
                    vals: Array::Vals { param: vals },
                    crd: Array::Crd {
                        param: crd,
                        level: 0,
                    },
                    at: Box::new(Expr::Index(0)),
                },
                mutable: false,
            }]
        };
        assert_eq!(check(gather(1, 1)), Ok(()));
        for (vals, crd) in [(0, 1), (1, 0)] {
            let err = check(gather(vals, crd)).unwrap_err();
            assert!(err.contains("a gather reads"), "{err}");
        }
    }

    #[test]
    fn a_signature_without_the_output_first_or_a_vector_by_value_is_caught() {
        let mut k = kernel(Vec::new());
        assert!(verify(&k, Stage::Final).is_ok());
        k.signature = vec![1, 0];
        assert!(
            verify(&k, Stage::Final)
                .unwrap_err()
                .contains("output first")
        );
        k.signature = vec![0, 0];
        assert!(
            verify(&k, Stage::Final)
                .unwrap_err()
                .contains("output first")
        );
        k.signature = vec![0, 1];
        k.params[1].by_value = true;
        let error = verify(&k, Stage::Final).unwrap_err();
        assert!(error.contains("`x` cannot be passed by value"), "{error}");
        k.params[1].order = 0;
        assert!(verify(&k, Stage::Final).is_ok());
    }

    /// A tensor local to the kernel is a converted copy of an input, and not in the signature.
    #[test]
    fn a_local_tensor_copies_an_input_outside_the_signature() {
        let mut k = kernel(Vec::new());
        let mut local = k.params[1].clone();
        local.name = "x_copy".into();
        local.copy_of = Some(1);
        local.convert_to = Some(FormatType::Named {
            type_name: "SparseVec",
            type_args: Vec::new(),
        });
        k.params.push(local);
        assert!(verify(&k, Stage::Final).is_ok());
        k.signature = vec![0, 1, 2];
        assert!(
            verify(&k, Stage::Final)
                .unwrap_err()
                .contains("output first")
        );
        k.signature = vec![0, 1];
        k.params[2].copy_of = Some(0);
        let error = verify(&k, Stage::Final).unwrap_err();
        assert!(
            error.contains("`x_copy` is not a copy of an input"),
            "{error}"
        );
        k.params[2].copy_of = Some(1);
        k.params[2].convert_to = None;
        assert!(verify(&k, Stage::Final).is_err());
    }

    #[test]
    fn reads_of_undeclared_locals_are_caught() {
        let body = vec![Stmt::assign(var("__t"), Expr::Var(var("__u")), false)];
        assert!(check(body).unwrap_err().contains("not declared"));
    }

    #[test]
    fn a_running_sum_shared_by_threads_is_caught() {
        let sum = Stmt::Let {
            var: var("__t"),
            ty: Type::Value,
            init: Expr::Value(Literal::Int(0)),
            mutable: true,
        };
        let add = Stmt::assign(var("__t"), Expr::Value(Literal::Int(1)), true);
        let body = vec![
            sum,
            region(Unit::CpuThread, OutputAccess::Untouched, vec![add]),
        ];
        assert!(
            check(body)
                .unwrap_err()
                .contains("shared by a region's iterations")
        );
    }

    #[test]
    fn atomics_only_into_a_shared_output_inside_a_region() {
        let outside = vec![Stmt::For {
            var: var("__i"),
            lo: Expr::Index(0),
            hi: Expr::Index(4),
            body: vec![sum_into_output(Sync::Atomic)],
        }];
        assert!(check(outside).unwrap_err().contains("atomic update"));
        let blocks = OutputAccess::Blocks {
            chunk: Expr::Index(1),
            balance: None,
        };
        let owned = vec![region(
            Unit::CpuThread,
            blocks,
            vec![sum_into_output(Sync::Atomic)],
        )];
        assert!(check(owned).unwrap_err().contains("atomic update"));
    }

    #[test]
    fn inputs_and_index_arrays_are_never_written() {
        let store = Stmt::store(
            Array::Vals { param: 1 },
            Expr::Index(0),
            Expr::Index(0),
            false,
        );
        assert!(check(vec![store]).unwrap_err().contains("a store into"));
    }

    #[test]
    fn phase_statements_stay_in_their_phase() {
        let count = vec![region(
            Unit::CpuThread,
            OutputAccess::FillRows { level: 1 },
            vec![Stmt::CountEntry],
        )];
        assert!(check(count).is_err());
        let append = vec![region(
            Unit::CpuThread,
            OutputAccess::CountRows { level: 1 },
            vec![Stmt::AppendValue(Expr::Value(Literal::Int(1)))],
        )];
        assert!(check(append).is_err());
    }

    /// Appends belong in regions that append parts, triples in regions that push entry parts.
    #[test]
    fn parts_take_their_own_kind_of_statement() {
        let value = Expr::Value(Literal::Int(1));
        let parts = |output, stmt: Stmt| check(vec![region(Unit::CpuThread, output, vec![stmt])]);
        let append = Stmt::AppendValue(value.clone());
        assert_eq!(parts(OutputAccess::AppendParts, append.clone()), Ok(()));
        assert!(parts(OutputAccess::EntryParts, append).is_err());
        let entry = Stmt::AppendEntry {
            coords: vec![Expr::Index(0)],
            value: value.clone(),
        };
        assert_eq!(parts(OutputAccess::EntryParts, entry.clone()), Ok(()));
        assert!(parts(OutputAccess::AppendParts, entry).is_err());
        let store = Stmt::store(Array::Vals { param: 0 }, Expr::Index(0), value, false);
        assert!(parts(OutputAccess::AppendParts, store).is_err());
    }

    #[test]
    fn passes_must_have_shaped_lanes_and_split_assemblies() {
        let lanes = vec![region(Unit::CpuVector, OutputAccess::Scattered, Vec::new())];
        assert_eq!(verify(&kernel(lanes.clone()), Stage::Lowered), Ok(()));
        assert!(check(lanes).unwrap_err().contains("lane region"));
        let rows = vec![region(
            Unit::CpuThread,
            OutputAccess::AppendRows { level: 1 },
            Vec::new(),
        )];
        assert!(check(rows).unwrap_err().contains("unsplit"));
    }
}
