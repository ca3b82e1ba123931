//! Value expressions, and the removal of operands that are absent in a lattice case.

use super::{Lowerer, Temp};
use crate::algebra::{Op, same};
use crate::error::Error;
use crate::ir::{self, Array, Expr};
use crate::notation::{Cin, Expr as NExpr, Lhs};
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
/// operator's identity is dropped (`a + 0` is `a`, `0 - b` is `-b`, `a * 1` is `a`).
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
