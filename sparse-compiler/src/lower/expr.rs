//! Value expressions, and the removal of operands that are absent in a lattice case.

use super::{Lowerer, Temp};
use crate::algebra::{Iteration, Op};
use crate::error::Error;
use crate::ir::{self, Array, Expr};
use crate::notation::{Cin, Expr as NExpr};
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
/// producer has nothing left to add.
#[derive(Clone, Debug, Default)]
pub(super) struct Absent {
    pub accesses: Vec<usize>,
    pub temps: Vec<usize>,
}

/// `e` with the absent operands replaced by zero and simplified; `None` when the whole expression
/// is zero. An operator is zero where an operand whose zero annihilates it is absent, or where all
/// its operands are and it is zero at the fill (`algebra`); an absent operand that is the
/// operator's identity is dropped (`a + 0` is `a`, `0 - b` is `-b`).
pub(super) fn zero(e: &NExpr, absent: &Absent) -> Option<NExpr> {
    match e {
        NExpr::Access { id, .. } if absent.accesses.contains(id) => None,
        NExpr::Temp(t) if absent.temps.contains(t) => None,
        NExpr::Access { .. } | NExpr::Temp(_) | NExpr::Literal(_) => Some(e.clone()),
        NExpr::Op(op, args) => {
            let left: Vec<Option<NExpr>> = args.iter().map(|a| zero(a, absent)).collect();
            if left.iter().all(Option::is_some) {
                return Some(NExpr::Op(*op, left.into_iter().flatten().collect()));
            }
            let all_absent =
                (args.iter().zip(&left)).all(|(a, z)| a.constant().is_some() || z.is_none());
            match e.iteration() {
                Some(Iteration::Sparse { required }) => {
                    let annihilated = (required.iter().zip(&left)).any(|(r, z)| *r && z.is_none());
                    if annihilated || all_absent {
                        return None;
                    }
                }
                Some(Iteration::Dense) | None => {}
            }
            Some(without_absent(*op, left))
        }
    }
}

/// An operator with some operands absent: a zero identity operand dropped, others zero.
fn without_absent(op: Op, operands: Vec<Option<NExpr>>) -> NExpr {
    match (op, &operands[..]) {
        (Op::Sub, [None, Some(b)]) => NExpr::Op(Op::Neg, vec![b.clone()]),
        (_, [Some(a), None]) if op.zero_is_identity_at(1) => a.clone(),
        (_, [None, Some(b)]) if op.zero_is_identity_at(0) => b.clone(),
        _ => {
            let zero = || NExpr::Literal(LiteralValue::Int(0));
            NExpr::Op(
                op,
                operands
                    .into_iter()
                    .map(|a| a.unwrap_or_else(zero))
                    .collect(),
            )
        }
    }
}

/// `cin` with the absent operands removed; `None` when nothing is left to compute.
pub(super) fn zero_stmt(cin: &Cin, absent: &Absent) -> Option<Cin> {
    match cin {
        Cin::Forall { var, body } => zero_stmt(body, absent).map(|body| Cin::Forall {
            var: *var,
            body: Box::new(body),
        }),
        Cin::Where { consumer, producer } => match zero_stmt(producer, absent) {
            Some(producer) => {
                let consumer = zero_stmt(consumer, absent)?;
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
                absent
                    .temps
                    .extend(super::produced_temp(producer).map(|(t, _)| t));
                zero_stmt(consumer, &absent)
            }
        },
        Cin::Assign {
            lhs,
            accumulate,
            rhs,
        } => zero(rhs, absent).map(|rhs| Cin::Assign {
            lhs: lhs.clone(),
            accumulate: *accumulate,
            rhs,
        }),
    }
}
