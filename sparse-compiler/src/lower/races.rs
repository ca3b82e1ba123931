//! What iterations of a parallel loop may share: the check that a region's body writes only the
//! output and what it declares itself, and the atomic updates of the `Atomics` strategy. The CPU
//! thread regions and the GPU regions both ask it.

use crate::ir::{Array, Place, Region, Stmt, Sync, Unit as IrUnit, UpdateOp, Var, any_stmt};

/// Why iterations of a thread-parallel loop with body `body` would share something other than
/// the output, which a thread-parallel [`Stmt::Parallel`] does not allow: a thread-parallel loop inside it, a
/// running sum declared outside it (a statement that adds a term after the sum over the loop
/// keeps that sum in a scalar), or a workspace declared outside it.
pub(super) fn shared_by_iterations(body: &[Stmt], nested_threads: bool) -> Option<&'static str> {
    let mut locals = Locals::default();
    locals.visit(body);
    let outside = |vars: &[&Var]| vars.iter().any(|v| !locals.declared.contains(v));
    let nested = |s: &Stmt| matches!(s, Stmt::Parallel(r) if r.unit == IrUnit::CpuThread);
    if nested_threads && any_stmt(body, &nested) {
        Some("another thread-parallel loop runs inside it")
    } else if outside(&locals.assigned) {
        Some(
            "its iterations would add into one running sum declared outside the loop; \
             parallelize a loop outside the sum",
        )
    } else if outside(&locals.stored) {
        Some("its iterations would write one workspace declared outside the loop")
    } else {
        None
    }
}

/// Under `Atomics`: every sum into the output's values becomes an atomic update (a plain
/// overwrite stays plain: each position is overwritten by the one iteration that owns it).
pub(super) fn make_output_sums_atomic(stmts: &mut [Stmt]) {
    for stmt in stmts {
        if let Stmt::Update {
            place: Place::Elem(Array::Vals { param: 0 }, _),
            op: UpdateOp::Reduce(_),
            sync,
            ..
        } = stmt
        {
            *sync = Sync::Atomic;
        }
        for body in stmt.bodies_mut() {
            make_output_sums_atomic(body);
        }
    }
}

/// What a loop body declares and writes.
#[derive(Default)]
struct Locals<'s> {
    declared: Vec<&'s Var>,
    /// Scalars assigned.
    assigned: Vec<&'s Var>,
    /// Workspaces stored into.
    stored: Vec<&'s Var>,
}

impl<'s> Locals<'s> {
    fn visit(&mut self, stmts: &'s [Stmt]) {
        for stmt in stmts {
            match stmt {
                Stmt::Let { var, .. }
                | Stmt::Workspace { var, .. }
                | Stmt::For { var, .. }
                | Stmt::Parallel(Region { var, .. }) => self.declared.push(var),
                Stmt::Update {
                    place: Place::Var(var),
                    ..
                } => self.assigned.push(var),
                Stmt::Update {
                    place: Place::Elem(Array::Temp(var), _),
                    ..
                }
                | Stmt::SortPrefix { array: var, .. } => self.stored.push(var),
                _ => {}
            }
            for body in stmt.bodies() {
                self.visit(body);
            }
        }
    }
}
