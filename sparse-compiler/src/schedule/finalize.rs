//! After scheduling (Kjolstad 2020 step 4, taco's `insertTemporaries` and
//! `scalarPromote`): the sum over the innermost loops becomes a scalar temporary when every
//! output loop encloses every reduction loop (SpMV accumulates in a register), and a sparse
//! output that a reduction loop separates from its parent level gets a dense workspace, filled
//! by the loops and appended in order afterwards (Gustavson's SpGEMM).

use crate::format::level_of;
use crate::notation::{Cin, Expr, IndexVar, Lhs, Program};
use crate::syntax::ast::AssignOp;

use super::nest::split_nest;

/// Rewrites the top forall nest of `cin`; `output_like(v)` says whether loop `v` iterates output
/// coordinates only, `touches_output(v)` whether any output coordinate depends on it, and
/// `fixed(v)` whether its loop must stay where it is (a parallel loop).
pub fn finalize(
    program: &Program,
    cin: Cin,
    output_like: &dyn Fn(IndexVar) -> bool,
    touches_output: &dyn Fn(IndexVar) -> bool,
    fixed: &dyn Fn(IndexVar) -> bool,
) -> Cin {
    let (order, body) = split_nest(&cin);
    let Some((rhs, producers)) = assignment(body) else {
        return cin;
    };
    let first_reduction = match order.iter().position(|&v| !output_like(v)) {
        Some(k) => k,
        None => return cin,
    };
    let (outer, inner) = order.split_at(first_reduction);
    let t = cin.next_temp();
    let accumulate = program.op == AssignOp::AddAssign;
    let op = program.reduce_op();
    let sum_into = |lhs| {
        with_producers(
            Cin::Assign {
                lhs,
                accumulate: true,
                op,
                rhs: rhs.clone(),
            },
            &producers,
        )
    };
    if inner.iter().all(|&v| !touches_output(v)) && !inner.iter().any(|&v| fixed(v)) {
        let consumer = Cin::Assign {
            lhs: Lhs::Output,
            accumulate,
            op,
            rhs: Expr::Temp(t),
        };
        let producer = Cin::forall_over(inner, sum_into(Lhs::Scalar(t)));
        return Cin::forall_over(outer, Cin::where_of(consumer, producer));
    }
    let inner_out: Vec<IndexVar> = inner.iter().copied().filter(|&v| output_like(v)).collect();
    if !accumulate
        && inner_out.len() == 1
        && appends(program, inner_out[0])
        && !inner.iter().any(|&v| fixed(v))
    {
        let var = inner_out[0];
        let consumer = Cin::forall_over(
            &inner_out,
            Cin::Assign {
                lhs: Lhs::Output,
                accumulate: false,
                op,
                rhs: Expr::Temp(t),
            },
        );
        let producer = Cin::forall_over(inner, sum_into(Lhs::Workspace { temp: t, var }));
        return Cin::forall_over(outer, Cin::where_of(consumer, producer));
    }
    cin
}

/// The output assignment's right-hand side and the `where` producers around it, if `body` is
/// exactly that.
fn assignment(body: &Cin) -> Option<(Expr, Vec<Cin>)> {
    let mut producers = Vec::new();
    let mut node = body;
    loop {
        match node {
            Cin::Where { consumer, producer } => {
                producers.push((**producer).clone());
                node = consumer;
            }
            Cin::Assign {
                lhs: Lhs::Output,
                rhs,
                ..
            } => {
                producers.reverse();
                return Some((rhs.clone(), producers));
            }
            _ => return None,
        }
    }
}

fn with_producers(consumer: Cin, producers: &[Cin]) -> Cin {
    producers
        .iter()
        .fold(consumer, |c, p| Cin::where_of(c, p.clone()))
}

/// Whether the output level storing `var` is sparse (appended to, or collected and packed), so a
/// sum between its loop and its parent's is gathered in a workspace first.
fn appends(program: &Program, var: IndexVar) -> bool {
    let out = &program.tensors[program.output.tensor];
    out.levels.iter().any(|l| {
        let stores = l.coord.dim().and_then(|d| program.output.indices.get(d)) == Some(&var);
        stores && !level_of(l).full()
    })
}
