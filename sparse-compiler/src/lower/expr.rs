//! Value expressions, and the removal of operands that are absent in a lattice case.

use super::{Lowerer, Temp};
use crate::algebra::{Op, same};
use crate::error::Error;
use crate::ir::Stmt;
use crate::ir::{self, Array, Expr};
use crate::notation::{Cin, Expr as NExpr, IndexVar, Lhs};
use crate::syntax::ast::LiteralValue;

impl Lowerer<'_> {
    /// The IR of a value expression; every access's last level must be resolved.
    pub(super) fn value(&self, e: &NExpr) -> Result<Expr, Error> {
        Ok(match e {
            NExpr::Access { id, access } => {
                let levels = self.program.iterated_levels(access.tensor).len();
                let pos = match levels {
                    0 => Expr::Index(0),
                    n => self
                        .scope
                        .positions
                        .get(&(*id, n - 1))
                        .cloned()
                        .ok_or_else(|| self.internal("an access whose position is not resolved"))?,
                };
                Expr::Load(
                    Array::Vals {
                        param: access.tensor,
                    },
                    Box::new(pos),
                )
            }
            NExpr::Temp(t) => match self.temps.get(t) {
                Some(Temp::Scalar(var)) => Expr::Var(var.clone()),
                Some(Temp::Workspace { var, values, .. }) => {
                    let coord = self
                        .scope
                        .coords
                        .get(var)
                        .cloned()
                        .ok_or_else(|| self.internal("workspace read outside its loop"))?;
                    Expr::Load(Array::Temp(values.clone()), Box::new(coord))
                }
                Some(Temp::Precomputed { .. }) => {
                    let (values, at) = self.precomputed_slot(*t)?;
                    Expr::Load(Array::Temp(values), Box::new(at))
                }
                None => return Err(self.internal("an unknown temporary")),
            },
            NExpr::Literal(LiteralValue::Int(n)) => Expr::Value(ir::Literal::Int(*n)),
            NExpr::Literal(LiteralValue::Float(f)) => Expr::Value(ir::Literal::Float(*f)),
            NExpr::Op(op, args) => {
                let args = (args.iter().map(|a| self.value(a))).collect::<Result<Vec<_>, _>>()?;
                super::ops::apply(*op, args)
                    .ok_or_else(|| self.internal("an operator with the wrong number of operands"))?
            }
        })
    }
}

impl Lowerer<'_> {
    /// The producer of a scalar temporary: `t op= e` under its loops. Where an operand of `e`
    /// that none of those loops changes can decide `e` to be the reduction's identity (the mask
    /// `!v(i)` of a masked or-and step), it is computed once before them, and the loops run only
    /// where it does not: `let g = !v(i); if g != 0 { for j .. }`. So is a factor that the
    /// consumer applies to the temporary (`B(i,j) * t`, hoisted out of the sum): where it is
    /// zero, the product is zero whatever the sum.
    ///
    /// A `||` or `&&` reduction stops its innermost loop once the temporary holds the value that
    /// no later term changes (true for `||`, false for `&&`), as a hand-written `any` does.
    pub(super) fn producer(
        &mut self,
        producer: &Cin,
        consumer: &Cin,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Error> {
        let guard = self
            .producer_guard(producer)
            .or_else(|| self.consumer_guard(producer, consumer));
        // A run the guard skips leaves the temporary unwritten: its writes are not certain.
        let uncovered = self.scope.uncovered;
        self.scope.uncovered |= guard.is_some();
        let mut body = Vec::new();
        let lowered = self.stmt(producer, &mut body);
        self.scope.uncovered = uncovered;
        lowered?;
        if let Some((t, Lhs::Scalar(_), true, op @ (Op::Or | Op::And))) =
            super::produced_assign(producer)
            && let Some(Temp::Scalar(var)) = self.temps.get(&t).cloned()
        {
            let stop = if op == Op::Or { 1 } else { 0 };
            self.exit_early(&mut body, &var, stop);
        }
        let Some((guard, skip)) = guard else {
            out.extend(body);
            return Ok(());
        };
        let value = self.value(&guard)?;
        let var = self.names.fresh("guard");
        out.push(Stmt::Let {
            var: var.clone(),
            ty: ir::Type::Value,
            init: value,
            mutable: false,
        });
        let skipped = Expr::Value(ir_literal(literal_of(skip)));
        out.push(Stmt::If {
            cond: crate::format::bin(ir::BinOp::Ne, Expr::Var(var), skipped),
            then: body,
            otherwise: Vec::new(),
        });
        Ok(())
    }

    /// Turns the innermost plain loops of `stmts` whose last update is `t = t op value` (`op`
    /// `||` or `&&`) into loops that stop at the first decisive term (true for `||`, false for
    /// `&&`, `stop`): `if t != stop { while p < end { ..; if value is decisive { t = stop; p =
    /// end } else { p += 1 } } }`. Inside, `t` holds the identity until the decisive term, so the
    /// update is a plain store; the loop's condition reads only its position (a condition on `t`
    /// would chain every iteration to the one before).
    fn exit_early(&mut self, stmts: &mut [Stmt], t: &ir::Var, stop: i64) {
        let mut k = 0;
        while k < stmts.len() {
            k += 1;
            let Some((var, lo, hi, body)) = early_exit_loop(&stmts[k - 1], t) else {
                for body in stmts[k - 1].bodies_mut() {
                    self.exit_early(body, t, stop);
                }
                continue;
            };
            let end = self
                .names
                .fresh(&format!("{}_end", var.0.trim_start_matches("__")));
            // The end clamped to the arrays every iteration reads at the loop's variable, as a
            // `for` loop's is when it is printed, so that their bounds checks go.
            let (mut body, value) = body;
            let mut bound = hi;
            let mut read = loads_at(&var, &body);
            read.extend(loads_at(
                &var,
                &[Stmt::assign(var.clone(), value.clone(), false)],
            ));
            read.dedup();
            for array in read {
                bound = crate::format::bin(ir::BinOp::Min, bound, Expr::Len(array));
            }
            let stopped = Expr::Value(ir::Literal::Int(stop));
            let decisive = match stop {
                0 => crate::format::bin(ir::BinOp::Eq, value, Expr::Value(ir::Literal::Int(0))),
                _ => crate::format::bin(ir::BinOp::Ne, value, Expr::Value(ir::Literal::Int(0))),
            };
            body.push(Stmt::If {
                cond: decisive,
                then: vec![
                    Stmt::assign(t.clone(), stopped.clone(), false),
                    Stmt::assign(var.clone(), Expr::Var(end.clone()), false),
                ],
                otherwise: vec![Stmt::assign(var.clone(), Expr::Index(1), true)],
            });
            let in_range = crate::format::bin(
                ir::BinOp::Lt,
                Expr::Var(var.clone()),
                Expr::Var(end.clone()),
            );
            let running = vec![
                Stmt::Let {
                    var: end,
                    ty: ir::Type::Index,
                    init: bound,
                    mutable: false,
                },
                Stmt::Let {
                    var,
                    ty: ir::Type::Index,
                    init: lo,
                    mutable: true,
                },
                Stmt::While {
                    cond: in_range,
                    body,
                },
            ];
            stmts[k - 1] = Stmt::If {
                cond: crate::format::bin(ir::BinOp::Ne, Expr::Var(t.clone()), stopped),
                then: running,
                otherwise: Vec::new(),
            };
        }
    }
}

impl Lowerer<'_> {
    /// An operand `g` of a producer's value that its loops do not change, and a value `z` for
    /// which `g == z` makes the value the identity of the producer's reduction whatever the other
    /// operands hold (through operators that `z`, or what it makes of them, absorbs).
    fn producer_guard(&self, producer: &Cin) -> Option<(NExpr, f64)> {
        let (Cin::Forall { .. }, Some((_, Lhs::Scalar(_), true, op))) =
            (producer, super::produced_assign(producer))
        else {
            return None;
        };
        let loops = producer.loops();
        let rhs = assigned_value(producer)?;
        let (guard, skip) = find_guard(rhs, op.reduction_identity()?, &loops)?;
        self.located(&guard).then_some((guard, skip))
    }

    /// Whether every access of `guard` is located here, outside the producer's loops.
    fn located(&self, guard: &NExpr) -> bool {
        accesses_of(guard).iter().all(|&(id, tensor)| {
            let levels = self.program.iterated_levels(tensor).len();
            levels == 0 || self.scope.positions.contains_key(&(id, levels - 1))
        })
    }

    /// For a consumer that reads the producer's scalar temporary once, as `g * t`: an operand of
    /// `g` that makes it zero, where it is located outside the producer's loops. Skipping the
    /// producer leaves `t` at zero, and `0 * 0` is the zero that `g`'s zero makes the product.
    fn consumer_guard(&self, producer: &Cin, consumer: &Cin) -> Option<(NExpr, f64)> {
        let (Cin::Forall { .. }, Some((t, Lhs::Scalar(_), true, Op::Add))) =
            (producer, super::produced_assign(producer))
        else {
            return None;
        };
        let Cin::Assign { rhs, .. } = consumer else {
            return None;
        };
        let factor = scaling_factor(rhs, t)?;
        let loops = producer.loops();
        let (guard, skip) = find_guard(factor, 0.0, &loops)?;
        self.located(&guard).then_some((guard, skip))
    }
}

/// The factor `g` of the one read of temporary `t` in `e` when that read is `g * t`.
fn scaling_factor(e: &NExpr, t: usize) -> Option<&NExpr> {
    match e {
        NExpr::Op(Op::Mul, args) if matches!(args[..], [_, NExpr::Temp(u)] if u == t) => {
            (!args[0].reads_temp(t)).then_some(&args[0])
        }
        NExpr::Op(_, args) => {
            let mut reading = args.iter().filter(|a| a.reads_temp(t));
            match (reading.next(), reading.next()) {
                (Some(a), None) => scaling_factor(a, t),
                _ => None,
            }
        }
        NExpr::Temp(_) | NExpr::Access { .. } | NExpr::Literal(_) => None,
    }
}

/// For an innermost `for` loop whose body ends with `t op= value` (then perhaps sets of write
/// flags, which do not read `t`) and updates `t` nowhere else: its variable, bounds, and its body
/// without the update (the flags' sets moved before where it stood) with the update's value.
#[allow(clippy::type_complexity)]
fn early_exit_loop(stmt: &Stmt, t: &ir::Var) -> Option<(ir::Var, Expr, Expr, (Vec<Stmt>, Expr))> {
    let Stmt::For { var, lo, hi, body } = stmt else {
        return None;
    };
    let nested = |s: &Stmt| matches!(s, Stmt::For { .. } | Stmt::While { .. } | Stmt::Parallel(_));
    let updates_t = |s: &Stmt| matches!(s, Stmt::Update { place: ir::Place::Var(v), .. } if v == t);
    if ir::any_stmt(body, &nested) {
        return None;
    }
    let at = body.iter().position(updates_t)?;
    let Stmt::Update {
        op: ir::UpdateOp::Reduce(_),
        value,
        ..
    } = &body[at]
    else {
        return None;
    };
    let (before, after) = (&body[..at], &body[at + 1..]);
    let reads_t = |s: &Stmt| {
        ir::any_stmt(std::slice::from_ref(s), &|s| {
            updates_t(s)
                || ir::visit::stmt_exprs(s)
                    .into_iter()
                    .any(|e| ir::mentions(t, e))
        })
    };
    if before.iter().any(reads_t) || after.iter().any(reads_t) || ir::mentions(t, value) {
        return None;
    }
    let rest: Vec<Stmt> = before.iter().chain(after).cloned().collect();
    Some((var.clone(), lo.clone(), hi.clone(), (rest, value.clone())))
}

/// The arrays that the statements of `body` read at index `var` on every run (not under a
/// condition or an inner loop).
fn loads_at(var: &ir::Var, body: &[Stmt]) -> Vec<Array> {
    fn visit(var: &ir::Var, e: &Expr, out: &mut Vec<Array>) {
        if let Expr::Load(array, index) = e
            && matches!(&**index, Expr::Var(v) if v == var)
            && !out.contains(array)
        {
            out.push(array.clone());
        }
        match e {
            Expr::Load(_, a) | Expr::Neg(a) | Expr::Not(a) | Expr::Cast(_, a) => visit(var, a, out),
            Expr::Binary(_, a, b) => {
                visit(var, a, out);
                visit(var, b, out);
            }
            Expr::Select(c, a, b) => {
                visit(var, c, out);
                visit(var, a, out);
                visit(var, b, out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| visit(var, a, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for stmt in body {
        match stmt {
            Stmt::Let { init, .. } => visit(var, init, &mut out),
            Stmt::Update { value, .. } => visit(var, value, &mut out),
            Stmt::If { cond, .. } | Stmt::While { cond, .. } => visit(var, cond, &mut out),
            _ => {}
        }
    }
    out
}

/// The value of the one assignment under a producer's loops (`None` where a `where` is inside).
fn assigned_value(cin: &Cin) -> Option<&NExpr> {
    match cin {
        Cin::Forall { body, .. } => assigned_value(body),
        Cin::Assign { rhs, .. } => Some(rhs),
        Cin::Where { .. } | Cin::Sequence { .. } => None,
    }
}

/// A subexpression of `e` that uses none of `loops` (and reads no temporary), and a value of it
/// that makes `e` equal to `want`.
fn find_guard(e: &NExpr, want: f64, loops: &[IndexVar]) -> Option<(NExpr, f64)> {
    let invariant = loops.iter().all(|&v| !e.uses(v)) && e.next_temp_free();
    if invariant && e.constant().is_none() {
        return Some((e.clone(), want));
    }
    let NExpr::Op(op, args) = e else {
        return None;
    };
    const CANDIDATES: [f64; 4] = [0.0, f64::INFINITY, f64::NEG_INFINITY, 1.0];
    for (k, arg) in args.iter().enumerate() {
        for z in CANDIDATES {
            if op.absorbs(k, z).is_some_and(|r| same(r, want))
                && let Some(found) = find_guard(arg, z, loops)
            {
                return Some(found);
            }
        }
    }
    None
}

/// The accesses of `e`: (access number, tensor).
fn accesses_of(e: &NExpr) -> Vec<(usize, usize)> {
    match e {
        NExpr::Access { id, access } => vec![(*id, access.tensor)],
        NExpr::Op(_, args) => args.iter().flat_map(accesses_of).collect(),
        NExpr::Temp(_) | NExpr::Literal(_) => Vec::new(),
    }
}

/// What a lattice case leaves out: accesses whose iterator is exhausted, and temporaries whose
/// producer has nothing left to add (each with the value it then holds).
#[derive(Clone, Debug, Default)]
pub(super) struct Absent {
    pub accesses: Vec<usize>,
    pub temps: Vec<(usize, f64)>,
}

/// An expression with its absent operands folded in: a value the algebra knows, or what is left
/// to compute.
enum Folded {
    Value(f64),
    Expr(NExpr),
}

/// `e` with every absent operand at its fill (a temporary at the value it holds), folded: an
/// operator whose absent operand decides it (`algebra::Op::absorbs`: a zero factor, an infinite
/// term) or whose operands are all known is its value, and an absent operand that is the
/// operator's identity is dropped (`a + 0` is `a`, `0 - b` is `-b`, `a * 1` is `a`); a select
/// whose condition is known is the branch it picks.
fn fold(e: &NExpr, absent: &Absent) -> Folded {
    match e {
        NExpr::Access { id, access } if absent.accesses.contains(id) => {
            Folded::Value(access.fill.0)
        }
        NExpr::Temp(t) => match absent.temps.iter().find(|(u, _)| u == t) {
            Some(&(_, v)) => Folded::Value(v),
            None => Folded::Expr(e.clone()),
        },
        NExpr::Access { .. } | NExpr::Literal(_) => Folded::Expr(e.clone()),
        NExpr::Op(op, args) => {
            let folded: Vec<Folded> = args.iter().map(|a| fold(a, absent)).collect();
            let value = |f: &Folded| match f {
                Folded::Value(v) => Some(*v),
                Folded::Expr(_) => None,
            };
            if let Some(v) = (folded.iter().enumerate())
                .find_map(|(k, f)| value(f).and_then(|v| op.absorbs(k, v)))
            {
                return Folded::Value(v);
            }
            if let Some(values) = folded.iter().map(value).collect::<Option<Vec<f64>>>() {
                return Folded::Value(op.eval(&values));
            }
            let known = |f: &Folded| match f {
                Folded::Value(v) => Some(*v),
                Folded::Expr(e) => e.constant(),
            };
            if *op == Op::Select
                && let Some(condition) = known(&folded[0])
            {
                let pick = if condition != 0.0 { 1 } else { 2 };
                return folded.into_iter().nth(pick).unwrap_or(Folded::Value(0.0));
            }
            match (op, &folded[..]) {
                (Op::Sub, [Folded::Value(z), Folded::Expr(b)]) if *z == 0.0 => {
                    return Folded::Expr(NExpr::Op(Op::Neg, vec![b.clone()]));
                }
                (_, [Folded::Expr(a), Folded::Value(v)]) if op.is_identity_at(1, *v) => {
                    return Folded::Expr(a.clone());
                }
                (_, [Folded::Value(v), Folded::Expr(b)]) if op.is_identity_at(0, *v) => {
                    return Folded::Expr(b.clone());
                }
                _ => {}
            }
            let args = folded
                .into_iter()
                .map(|f| match f {
                    Folded::Value(v) => NExpr::Literal(literal_of(v)),
                    Folded::Expr(e) => e,
                })
                .collect();
            Folded::Expr(NExpr::Op(*op, args))
        }
    }
}

/// A literal of index notation as the IR's.
pub(super) fn ir_literal(l: LiteralValue) -> ir::Literal {
    match l {
        LiteralValue::Int(n) => ir::Literal::Int(n),
        LiteralValue::Float(f) => ir::Literal::Float(f),
    }
}

/// A value as a literal: an integer where it is one that `f64` holds exactly (so integer
/// kernels keep it exact), a float otherwise.
pub(super) fn literal_of(v: f64) -> LiteralValue {
    if v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0 {
        LiteralValue::Int(v as i64)
    } else {
        LiteralValue::Float(v)
    }
}

/// `cin` with the absent operands folded in; `None` when nothing is left to compute: every
/// assignment would write the value its place already holds where it is skipped
/// (`skip(lhs, accumulate, op)`: the identity of its reduction, or the place's initial value).
pub(super) fn absent_stmt(
    cin: &Cin,
    absent: &Absent,
    skip: &dyn Fn(&Lhs, bool, Op) -> f64,
) -> Option<Cin> {
    match cin {
        Cin::Forall { var, body } => absent_stmt(body, absent, skip).map(|body| Cin::Forall {
            var: *var,
            body: Box::new(body),
        }),
        Cin::Where { consumer, producer } => match absent_stmt(producer, absent, skip) {
            Some(producer) => {
                let consumer = absent_stmt(consumer, absent, skip)?;
                // A consumer left without the temporary needs no producer: computing it anyway
                // would read operands that this case does not iterate.
                let read =
                    super::produced_temp(&producer).is_none_or(|(t, _)| consumer.reads_temp(t));
                if !read {
                    return Some(consumer);
                }
                Some(Cin::Where {
                    consumer: Box::new(consumer),
                    producer: Box::new(producer),
                })
            }
            None => {
                let mut absent = absent.clone();
                if let Some((t, lhs, accumulate, op)) = super::produced_assign(producer) {
                    absent.temps.push((t, skip(&lhs, accumulate, op)));
                }
                absent_stmt(consumer, &absent, skip)
            }
        },
        Cin::Sequence { first, second } => {
            let first = absent_stmt(first, absent, skip);
            let second = absent_stmt(second, absent, skip);
            match (first, second) {
                (Some(first), Some(second)) => Some(Cin::Sequence {
                    first: Box::new(first),
                    second: Box::new(second),
                }),
                (first, second) => first.or(second),
            }
        }
        Cin::Assign {
            lhs,
            accumulate,
            op,
            rhs,
        } => {
            let rhs = match fold(rhs, absent) {
                Folded::Value(v) if same(v, skip(lhs, *accumulate, *op)) => return None,
                Folded::Value(v) => NExpr::Literal(literal_of(v)),
                Folded::Expr(e) => e,
            };
            Some(Cin::Assign {
                lhs: lhs.clone(),
                accumulate: *accumulate,
                op: *op,
                rhs,
            })
        }
    }
}
