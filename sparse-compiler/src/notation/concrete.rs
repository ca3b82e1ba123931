//! Concrete index notation (Kjolstad 2020): foralls, `where` and assignments.
//!
//! Concretization places each implicit sum on the smallest term that `+` and `-` separate and that
//! uses its variable; products, quotients, calls, casts and comparisons are part of the term: the
//! sum in `A(i,j)*x(j)` covers the whole product, the one in `b(i) - A(i,j)*x(j)` only the
//! product, the one in `sqrt(A(i,j))` the root of every entry. A sum over the whole right-hand side becomes `+=` into
//! the output, promoted to a scalar temporary when every output loop encloses every reduction loop
//! (so SpMV accumulates in a register); a sum over part of it becomes a scalar temporary computed
//! by a `where` producer, and so does a sum over the whole of it that reads the output (each
//! element is then read before it is written). When a reduction loop sits between the loops of a
//! sparse output's levels, the output cannot be appended to in order: the inner output variable
//! gets a dense workspace.

use std::collections::BTreeMap;

use super::order::default_order;
use super::{Expr, IndexVar, Program};
use crate::algebra::Op;
use crate::error::Errors;
use crate::syntax::ast::{AssignOp, LiteralValue};

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
    /// `first ; second`: the first statement, then the second (written `sequence(..)`).
    Sequence {
        /// The statement that runs first.
        first: Box<Cin>,
        /// The statement that runs after it.
        second: Box<Cin>,
    },
    /// `lhs = rhs` or `lhs op= rhs`.
    Assign {
        /// What is written.
        lhs: Lhs,
        /// `op=` rather than `=`: the value is combined with what `lhs` holds.
        accumulate: bool,
        /// The operator an accumulating assignment combines with: `+` for sums, the operator of
        /// `reduce<...>` for the reduction it names.
        op: Op,
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
    let mut partials = Partials::default();
    let rhs = partials.split_nested_sums(program, &program.rhs)?;
    let rhs = partials.split_output_read_sum(program, rhs)?;
    let out_vars = program.loop_vars_of(&program.output.indices);
    let mut used = program.output.indices.clone();
    used.extend(partials.loop_vars(&rhs));
    let all = program.loop_vars_of(&used);
    let order = default_order(program, &partials.expand(&rhs), &all).map_err(|e| vec![e])?;
    let sums = order.iter().any(|v| !out_vars.contains(v));
    let accumulate = program.op == AssignOp::AddAssign || sums;
    let assign = Cin::Assign {
        lhs: Lhs::Output,
        accumulate,
        op: program.reduce_op(),
        rhs,
    };
    let body = with_producers(assign, partials.producers.into_iter().map(|(_, p)| p));
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
            Cin::Sequence { first, second } => {
                first.collect_loops(out);
                second.collect_loops(out);
            }
            Cin::Assign { .. } => {}
        }
    }

    /// Whether the statement reads temporary `t`.
    pub fn reads_temp(&self, t: usize) -> bool {
        match self {
            Cin::Forall { body, .. } => body.reads_temp(t),
            Cin::Where { consumer, producer } => consumer.reads_temp(t) || producer.reads_temp(t),
            Cin::Sequence { first, second } => first.reads_temp(t) || second.reads_temp(t),
            Cin::Assign { rhs, .. } => rhs.reads_temp(t),
        }
    }

    /// Whether the statement reads access number `id` (an operand a lattice case dropped is no
    /// longer read).
    pub fn reads_access(&self, id: usize) -> bool {
        match self {
            Cin::Forall { body, .. } => body.reads_access(id),
            Cin::Where { consumer, producer } => {
                consumer.reads_access(id) || producer.reads_access(id)
            }
            Cin::Sequence { first, second } => first.reads_access(id) || second.reads_access(id),
            Cin::Assign { rhs, .. } => rhs.find_access(id).is_some(),
        }
    }

    /// The largest temporary number the statement uses, plus one.
    pub fn next_temp(&self) -> usize {
        match self {
            Cin::Forall { body, .. } => body.next_temp(),
            Cin::Where { consumer, producer } => consumer.next_temp().max(producer.next_temp()),
            Cin::Sequence { first, second } => first.next_temp().max(second.next_temp()),
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

    /// The two statements of a `where` (consumer, producer) or of a sequence (first, second).
    pub fn parts(&self) -> Option<(&Cin, &Cin)> {
        match self {
            Cin::Where { consumer, producer } => Some((consumer, producer)),
            Cin::Sequence { first, second } => Some((first, second)),
            Cin::Forall { .. } | Cin::Assign { .. } => None,
        }
    }

    /// The same `where` or sequence over `first` and `second` (in [`Cin::parts`]' order); any
    /// other statement unchanged.
    pub fn with_parts(&self, first: Cin, second: Cin) -> Cin {
        match self {
            Cin::Where { .. } => Cin::where_(first, second),
            Cin::Sequence { .. } => Cin::Sequence {
                first: Box::new(first),
                second: Box::new(second),
            },
            Cin::Forall { .. } | Cin::Assign { .. } => self.clone(),
        }
    }
}

impl Expr {
    /// Whether the expression reads temporary `t`.
    pub fn reads_temp(&self, t: usize) -> bool {
        match self {
            Expr::Temp(u) => *u == t,
            Expr::Access { .. } | Expr::Literal(_) => false,
            Expr::Op(_, args) => args.iter().any(|a| a.reads_temp(t)),
        }
    }

    /// Whether the expression reads no temporary.
    pub fn next_temp_free(&self) -> bool {
        self.next_temp() == 0
    }

    fn next_temp(&self) -> usize {
        match self {
            Expr::Temp(t) => t + 1,
            Expr::Access { .. } | Expr::Literal(_) => 0,
            Expr::Op(_, args) => args.iter().map(Expr::next_temp).max().unwrap_or(0),
        }
    }
}

/// The loop variables a reduction `reduce<...>` names reduces over: the named variables (their
/// parts, for a blocked dimension) and the hidden variables of slot levels (ELL's, DIA's) that
/// the output does not have. Empty without such a reduction.
fn named_reduction_vars(program: &Program) -> Vec<IndexVar> {
    let Some(reduction) = &program.reduction else {
        return Vec::new();
    };
    let outside = program.loop_vars_of(&program.output.indices);
    let mut logical = Vec::new();
    program.rhs.collect_vars(&mut logical);
    let mut loops = Vec::new();
    program.rhs.collect_loop_vars(&mut loops);
    let mut named = program.loop_vars_of(&reduction.vars);
    for v in loops {
        let hidden = !logical.contains(&v)
            && !program
                .derived
                .values()
                .any(|d| d.outer == v || d.inner == v);
        if hidden && !outside.contains(&v) && !named.contains(&v) {
            named.push(v);
        }
    }
    named
}

fn with_producers(consumer: Cin, producers: impl IntoIterator<Item = Cin>) -> Cin {
    producers.into_iter().fold(consumer, Cin::where_)
}

/// The scalar temporaries that partial sums become, while the statement is split into them.
#[derive(Default)]
struct Partials {
    /// Each temporary's producer, not yet placed inside another producer.
    producers: Vec<(usize, Cin)>,
    /// The variables each temporary's value depends on: those of its term that its producer
    /// does not sum, bound by the loops around the `where`.
    free: BTreeMap<usize, Vec<IndexVar>>,
    /// The term of the statement each temporary stands for.
    terms: BTreeMap<usize, Expr>,
    next_temp: usize,
}

impl Partials {
    /// Replaces every sum that covers only part of `expr` by a scalar temporary, and records the
    /// `where` producer that computes it.
    fn split_nested_sums(&mut self, program: &Program, expr: &Expr) -> Result<Expr, Errors> {
        let outside: Vec<IndexVar> = program.loop_vars_of(&program.output.indices);
        let named = named_reduction_vars(program);
        let mut expr = expr.clone();
        loop {
            let vars = program.loop_vars_of(&self.loop_vars(&expr));
            // The deepest partial sum first: no other sum lies inside its term, so the producer
            // sums that term as it stands. An outer term taken first would flatten the sums
            // nested in it (`a = sum_i (b(i) - sum_j C(i,j))` would subtract every `b(i)` once
            // per `j`). Under a reduction that `reduce<...>` names, which covers the whole
            // right-hand side, a sum over the whole of it is a partial sum too: it is taken
            // inside the named reduction.
            let deepest = vars
                .iter()
                .filter(|v| !outside.contains(v) && !named.contains(v))
                .map(|&v| self.sum_home(&expr, v))
                .filter(|path| !path.is_empty() || !named.is_empty())
                .reduce(|deepest, path| match path.len() > deepest.len() {
                    true => path,
                    false => deepest,
                });
            let Some(path) = deepest else {
                return Ok(expr);
            };
            let sub = subexpr(&expr, &path).clone();
            let sub_vars = program.loop_vars_of(&self.loop_vars(&sub));
            let rest_vars = self.vars_outside(&expr, &path);
            // A variable the rest of the statement also sums over is summed inside the producer
            // too when its sum distributes down to the term (`sum_j (B x + C x)` with `B` in
            // ELL, whose slots make `B x` a producer): once the term is a temporary, the sum
            // covers only what is left.
            let (summed, free): (Vec<IndexVar>, Vec<IndexVar>) = sub_vars.iter().partition(|&&v| {
                let shared = rest_vars.contains(&v);
                !outside.contains(&v)
                    && !named.contains(&v)
                    && (!shared || self.distributes(&expr, &path, v))
            });
            let t = self.produce(program, sub, &summed, free)?;
            replace(&mut expr, &path, Expr::Temp(t));
        }
    }

    /// When the output is read on the right and a sum covers the whole right-hand side, that
    /// sum becomes a temporary too: summed straight into the output, it would read elements it
    /// has already added to (or zeroed). The output is then written once per element, after the
    /// producer has read it.
    fn split_output_read_sum(&mut self, program: &Program, rhs: Expr) -> Result<Expr, Errors> {
        let outside = program.loop_vars_of(&program.output.indices);
        let vars = program.loop_vars_of(&self.loop_vars(&rhs));
        let (free, summed): (Vec<IndexVar>, Vec<IndexVar>) =
            vars.into_iter().partition(|v| outside.contains(v));
        if program.output_read.is_none() || summed.is_empty() {
            return Ok(rhs);
        }
        let t = self.produce(program, rhs, &summed, free)?;
        Ok(Expr::Temp(t))
    }

    /// Records the producer of a new scalar temporary that sums `sub` over `summed`, its value
    /// depending on `free`, and returns its number.
    fn produce(
        &mut self,
        program: &Program,
        sub: Expr,
        summed: &[IndexVar],
        free: Vec<IndexVar>,
    ) -> Result<usize, Errors> {
        // The loops around a producer must also suit the accesses of the producers nested
        // in it.
        let term = self.expand(&sub);
        let order = default_order(program, &term, summed).map_err(|e| vec![e])?;
        let t = self.next_temp;
        self.next_temp += 1;
        // The producers of the temporaries the term reads run inside its loops, which bind
        // what their values depend on.
        let (inner, outer) = std::mem::take(&mut self.producers)
            .into_iter()
            .partition(|(read, _)| sub.reads_temp(*read));
        self.producers = outer;
        let assign = Cin::Assign {
            lhs: Lhs::Scalar(t),
            accumulate: true,
            op: Op::Add,
            rhs: sub,
        };
        let body = with_producers(assign, inner.into_iter().map(|(_, p): (usize, Cin)| p));
        self.producers.push((t, Cin::forall(&order, body)));
        self.free.insert(t, free);
        self.terms.insert(t, term);
        Ok(t)
    }

    /// Whether the sum over `v` can be split exactly into a sum over the term at `path` and a
    /// sum over the rest. The sum must reach the term through one sum or difference, with
    /// negations, and products and numerators whose other operand does not use `v`, around it;
    /// and the rest's own sum over `v` must cover exactly the other operand of that sum or
    /// difference. Anything else the sum covered would be counted once instead of once per `v`.
    fn distributes(&self, expr: &Expr, path: &[usize], v: IndexVar) -> bool {
        let home = self.sum_home(expr, v);
        if !path.starts_with(&home) {
            return false;
        }
        let mut added = None;
        for depth in home.len()..path.len() {
            let step = path[depth];
            let through = match subexpr(expr, &path[..depth]) {
                Expr::Op(op, _) if op.separates_terms() => added.replace(depth).is_none(),
                Expr::Op(op, args) => {
                    let others = (args.iter().enumerate()).filter(|&(k, _)| k != step);
                    op.is_linear_in(step) && others.into_iter().all(|(_, a)| !self.uses(a, v))
                }
                _ => false,
            };
            if !through {
                return false;
            }
        }
        let Some(depth) = added else {
            return false;
        };
        let mut rest = expr.clone();
        replace(&mut rest, path, Expr::Literal(LiteralValue::Int(0)));
        let mut other = path[..depth].to_vec();
        other.push(1 - path[depth]);
        self.sum_home(&rest, v) == other
    }

    /// `expr` with its temporaries replaced by the terms they stand for.
    fn expand(&self, expr: &Expr) -> Expr {
        match expr {
            Expr::Temp(t) => self.terms.get(t).cloned().unwrap_or(Expr::Temp(*t)),
            Expr::Access { .. } | Expr::Literal(_) => expr.clone(),
            Expr::Op(op, args) => Expr::Op(*op, args.iter().map(|a| self.expand(a)).collect()),
        }
    }

    /// The loop variables of `expr`'s accesses and those its temporaries depend on.
    fn loop_vars(&self, expr: &Expr) -> Vec<IndexVar> {
        let mut vars = Vec::new();
        expr.collect_loop_vars(&mut vars);
        self.collect_free(expr, &mut vars);
        vars
    }

    fn collect_free(&self, expr: &Expr, out: &mut Vec<IndexVar>) {
        match expr {
            Expr::Temp(t) => {
                for &v in self.free.get(t).into_iter().flatten() {
                    if !out.contains(&v) {
                        out.push(v);
                    }
                }
            }
            Expr::Access { .. } | Expr::Literal(_) => {}
            Expr::Op(_, args) => {
                for a in args {
                    self.collect_free(a, out);
                }
            }
        }
    }

    /// Whether `expr` uses `v`: through an access, or through a temporary whose value depends
    /// on it.
    fn uses(&self, expr: &Expr, v: IndexVar) -> bool {
        let mut vars = Vec::new();
        self.collect_free(expr, &mut vars);
        expr.uses(v) || vars.contains(&v)
    }

    /// The path (child indices from the root) to the term a sum over `v` covers; empty when it
    /// covers the whole expression.
    fn sum_home(&self, expr: &Expr, v: IndexVar) -> Vec<usize> {
        let mut path = Vec::new();
        let mut node = expr;
        // Down to the deepest node with one operand using `v`, then up to the term it is in.
        while let Expr::Op(_, args) = node {
            let mut using = (0..args.len()).filter(|&k| self.uses(&args[k], v));
            let (Some(step), None) = (using.next(), using.next()) else {
                break;
            };
            path.push(step);
            node = &args[step];
        }
        widen(expr, path)
    }

    /// The variables used outside the subterm at `path`.
    fn vars_outside(&self, expr: &Expr, path: &[usize]) -> Vec<IndexVar> {
        let mut copy = expr.clone();
        replace(&mut copy, path, Expr::Literal(LiteralValue::Int(0)));
        let mut vars = self.loop_vars(&copy);
        copy.collect_vars(&mut vars);
        vars
    }
}

/// Drops trailing steps of `path` up to the nearest operand of `+` or `-`: a sum covers the
/// whole term those separate, products, calls, casts and comparisons included.
fn widen(expr: &Expr, mut path: Vec<usize>) -> Vec<usize> {
    while !path.is_empty() {
        match subexpr(expr, &path[..path.len() - 1]) {
            Expr::Op(op, _) if op.separates_terms() => break,
            _ => path.pop(),
        };
    }
    path
}

fn subexpr<'e>(expr: &'e Expr, path: &[usize]) -> &'e Expr {
    path.iter().fold(expr, |node, &step| match node {
        Expr::Op(_, args) => &args[step],
        other => other,
    })
}

fn replace(expr: &mut Expr, path: &[usize], with: Expr) {
    match (path.split_first(), expr) {
        (None, e) => *e = with,
        (Some((&step, rest)), Expr::Op(_, args)) => replace(&mut args[step], rest, with),
        (Some(_), _) => {}
    }
}
