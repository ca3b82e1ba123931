//! Concrete index notation (seed-kjolstad.md §2.2–2.4): foralls, `where` and assignments.
//!
//! Concretization places each implicit sum on the smallest term that uses its variable, widened
//! through the products, quotients (numerator side) and negations around it, since a sum
//! distributes over those: the sum in `A(i,j)*x(j)` covers the whole product, the one in
//! `b(i) - A(i,j)*x(j)` only the product. A sum over the whole right-hand side becomes `+=` into
//! the output, promoted to a scalar temporary when every output loop encloses every reduction loop
//! (so SpMV accumulates in a register); a sum over part of it becomes a scalar temporary computed
//! by a `where` producer. When a reduction loop sits between the loops of a sparse output's levels,
//! the output cannot be appended to in order: the inner output variable gets a dense workspace.

use super::order::default_order;
use super::{Expr, IndexVar, Program};
use crate::error::Errors;
use crate::syntax::ast::{AssignOp, BinOp};

/// A statement of concrete index notation.
#[derive(Clone, Debug, PartialEq)]
pub enum Cin {
    /// `∀var body`.
    Forall {
        /// The index variable.
        var: IndexVar,
        /// The body.
        body: Box<Cin>,
    },
    /// `consumer where producer`: the producer computes temporaries the consumer reads.
    Where {
        /// The consumer.
        consumer: Box<Cin>,
        /// The producer.
        producer: Box<Cin>,
    },
    /// `lhs = rhs` or `lhs += rhs`.
    Assign {
        /// What is written.
        lhs: Lhs,
        /// `+=` rather than `=`.
        accumulate: bool,
        /// The value.
        rhs: Expr,
    },
}

/// The target of an assignment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lhs {
    /// The output access.
    Output,
    /// Scalar temporary number `t` (read as `Expr::Temp(t)`).
    Scalar(usize),
    /// The workspace of `precompute` number `temp`: a dense vector over the values the loop of
    /// `var` takes (read as `Expr::Temp(temp)`), filled by a producer loop that iterates them
    /// again.
    Precomputed {
        /// The temporary's number.
        temp: usize,
        /// The consumer's loop variable: the workspace is indexed by its value.
        var: IndexVar,
    },
    /// Dense workspace number `t`, a vector over index variable `var` (read as `Expr::Temp(t)`).
    Workspace {
        /// The temporary's number.
        temp: usize,
        /// The variable it is indexed by.
        var: IndexVar,
    },
}

impl Cin {
    fn forall(vars: &[IndexVar], body: Cin) -> Cin {
        vars.iter().rev().fold(body, |body, &var| Cin::Forall {
            var,
            body: Box::new(body),
        })
    }

    fn where_(consumer: Cin, producer: Cin) -> Cin {
        Cin::Where {
            consumer: Box::new(consumer),
            producer: Box::new(producer),
        }
    }
}

/// Turns the program into concrete index notation with the default loop order: one forall per
/// loop variable around the assignment (`+=` when anything is summed), with the `where` producers
/// of partial sums innermost. Scalar promotion and workspaces come after scheduling
/// (`schedule::finalize`), as they depend on the final loop order.
pub fn concretize(program: &Program) -> Result<Cin, Errors> {
    let mut next_temp = 0;
    let mut producers = Vec::new();
    let rhs = split_nested_sums(program, &program.rhs, &mut next_temp, &mut producers)?;
    let out_vars = program.loop_vars_of(&program.output.indices);
    let mut used = program.output.indices.clone();
    rhs.collect_loop_vars(&mut used);
    let all = program.loop_vars_of(&used);
    let order = default_order(program, &rhs, &all).map_err(|e| vec![e])?;
    let sums = order.iter().any(|v| !out_vars.contains(v));
    let accumulate = program.op == AssignOp::AddAssign || sums;
    let body = with_producers(
        Cin::Assign {
            lhs: Lhs::Output,
            accumulate,
            rhs,
        },
        &producers,
    );
    Ok(Cin::forall(&order, body))
}

impl Cin {
    /// Every loop variable, outermost first (a consumer's loops before its producer's).
    pub fn loops(&self) -> Vec<IndexVar> {
        let mut out = Vec::new();
        self.collect_loops(&mut out);
        out
    }

    fn collect_loops(&self, out: &mut Vec<IndexVar>) {
        match self {
            Cin::Forall { var, body } => {
                out.push(*var);
                body.collect_loops(out);
            }
            Cin::Where { consumer, producer } => {
                consumer.collect_loops(out);
                producer.collect_loops(out);
            }
            Cin::Assign { .. } => {}
        }
    }

    /// The largest temporary number the statement uses, plus one.
    pub fn next_temp(&self) -> usize {
        match self {
            Cin::Forall { body, .. } => body.next_temp(),
            Cin::Where { consumer, producer } => consumer.next_temp().max(producer.next_temp()),
            Cin::Assign { lhs, rhs, .. } => {
                let own = match lhs {
                    Lhs::Scalar(t)
                    | Lhs::Workspace { temp: t, .. }
                    | Lhs::Precomputed { temp: t, .. } => t + 1,
                    Lhs::Output => 0,
                };
                own.max(rhs.next_temp())
            }
        }
    }

    /// Wraps `body` in foralls over `vars`, outermost first.
    pub fn forall_over(vars: &[IndexVar], body: Cin) -> Cin {
        Cin::forall(vars, body)
    }

    /// `consumer where producer`.
    pub fn where_of(consumer: Cin, producer: Cin) -> Cin {
        Cin::where_(consumer, producer)
    }
}

impl Expr {
    fn next_temp(&self) -> usize {
        match self {
            Expr::Temp(t) => t + 1,
            Expr::Access { .. } | Expr::Literal(_) => 0,
            Expr::Neg(e) => e.next_temp(),
            Expr::Binary(_, a, b) => a.next_temp().max(b.next_temp()),
        }
    }
}

fn with_producers(consumer: Cin, producers: &[Cin]) -> Cin {
    producers
        .iter()
        .fold(consumer, |c, p| Cin::where_(c, p.clone()))
}

/// Replaces every sum that covers only part of `expr` by a scalar temporary, and records the
/// `where` producer that computes it.
fn split_nested_sums(
    program: &Program,
    expr: &Expr,
    next_temp: &mut usize,
    producers: &mut Vec<Cin>,
) -> Result<Expr, Errors> {
    let outside: Vec<IndexVar> = program.loop_vars_of(&program.output.indices);
    let mut expr = expr.clone();
    loop {
        let mut vars = Vec::new();
        expr.collect_loop_vars(&mut vars);
        let vars = program.loop_vars_of(&vars);
        let nested = vars
            .iter()
            .copied()
            .filter(|v| !outside.contains(v))
            .find_map(|v| {
                let path = sum_home(&expr, v);
                (!path.is_empty()).then_some((v, path))
            });
        let Some((_, path)) = nested else {
            return Ok(expr);
        };
        let sub = subexpr(&expr, &path).clone();
        let mut sub_vars = Vec::new();
        sub.collect_loop_vars(&mut sub_vars);
        let sub_vars = program.loop_vars_of(&sub_vars);
        let rest_vars = vars_outside(&expr, &path);
        // A variable the rest of the statement also sums over is summed inside the producer too
        // when its sum covers the term only through additions (`sum_j (B x + C x)` with `B` in
        // ELL, whose slots make `B x` a producer): the sum distributes over the terms, and once
        // the term is a temporary, the sum no longer reaches it.
        let summed: Vec<IndexVar> = sub_vars
            .iter()
            .copied()
            .filter(|&v| {
                let shared = rest_vars.contains(&v);
                let home = sum_home(&expr, v);
                let distributes = path.starts_with(&home) && only_added(&expr, &path, home.len());
                !outside.contains(&v) && (!shared || distributes)
            })
            .collect();
        let order = default_order(program, &sub, &summed).map_err(|e| vec![e])?;
        let t = *next_temp;
        *next_temp += 1;
        producers.push(Cin::forall(
            &order,
            Cin::Assign {
                lhs: Lhs::Scalar(t),
                accumulate: true,
                rhs: sub,
            },
        ));
        replace(&mut expr, &path, Expr::Temp(t));
    }
}

/// Whether every node above the term at `path`, from depth `from` down, is a sum, a difference
/// or a negation.
fn only_added(expr: &Expr, path: &[usize], from: usize) -> bool {
    (from..path.len()).all(|depth| {
        matches!(
            subexpr(expr, &path[..depth]),
            Expr::Binary(BinOp::Add | BinOp::Sub, ..) | Expr::Neg(_)
        )
    })
}

/// The path (child indices from the root) to the term a sum over `v` covers; empty when it covers
/// the whole expression.
fn sum_home(expr: &Expr, v: IndexVar) -> Vec<usize> {
    let mut path = Vec::new();
    let mut node = expr;
    loop {
        match node {
            Expr::Binary(_, a, b) if a.uses(v) != b.uses(v) => {
                let step = usize::from(b.uses(v));
                path.push(step);
                node = if step == 0 { a } else { b };
            }
            Expr::Neg(e) => {
                path.push(0);
                node = e;
            }
            _ => break,
        }
    }
    widen(expr, path)
}

/// Drops trailing steps of `path` while the parent distributes the sum: a product, the numerator
/// of a quotient, a negation.
fn widen(expr: &Expr, mut path: Vec<usize>) -> Vec<usize> {
    while let Some(&last) = path.last() {
        let parent = subexpr(expr, &path[..path.len() - 1]);
        let distributes = match parent {
            Expr::Binary(BinOp::Mul, ..) | Expr::Neg(_) => true,
            Expr::Binary(BinOp::Div, ..) => last == 0,
            _ => false,
        };
        if !distributes {
            break;
        }
        path.pop();
    }
    path
}

fn subexpr<'e>(expr: &'e Expr, path: &[usize]) -> &'e Expr {
    path.iter().fold(expr, |node, &step| match node {
        Expr::Binary(_, a, b) => {
            if step == 0 {
                a
            } else {
                b
            }
        }
        Expr::Neg(e) => e,
        other => other,
    })
}

fn replace(expr: &mut Expr, path: &[usize], with: Expr) {
    match (path.split_first(), expr) {
        (None, e) => *e = with,
        (Some((&step, rest)), Expr::Binary(_, a, b)) => {
            replace(if step == 0 { a } else { b }, rest, with)
        }
        (Some((_, rest)), Expr::Neg(e)) => replace(e, rest, with),
        (Some(_), _) => {}
    }
}

/// The variables used outside the subterm at `path`.
fn vars_outside(expr: &Expr, path: &[usize]) -> Vec<IndexVar> {
    let mut copy = expr.clone();
    replace(
        &mut copy,
        path,
        Expr::Literal(crate::syntax::ast::LiteralValue::Int(0)),
    );
    let mut vars = Vec::new();
    copy.collect_vars(&mut vars);
    copy.collect_loop_vars(&mut vars);
    vars
}
