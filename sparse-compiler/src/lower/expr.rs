//! Value expressions, and the removal of operands that are absent in a lattice case.

use super::{Lowerer, Temp};
use crate::error::Error;
use crate::ir::{self, Array, Expr};
use crate::notation::{Cin, Expr as NExpr};
use crate::syntax::ast::{BinOp, LiteralValue};

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
            NExpr::Neg(x) => Expr::Neg(Box::new(self.value(x)?)),
            NExpr::Binary(op, a, b) => {
                let op = match op {
                    BinOp::Add => ir::BinOp::Add,
                    BinOp::Sub => ir::BinOp::Sub,
                    BinOp::Mul => ir::BinOp::Mul,
                    BinOp::Div => ir::BinOp::Quotient,
                };
                Expr::Binary(op, Box::new(self.value(a)?), Box::new(self.value(b)?))
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
/// is zero. Division by an absent operand counts as absent (`/` intersects, like `*`).
pub(super) fn zero(e: &NExpr, absent: &Absent) -> Option<NExpr> {
    match e {
        NExpr::Access { id, .. } if absent.accesses.contains(id) => None,
        NExpr::Temp(t) if absent.temps.contains(t) => None,
        NExpr::Access { .. } | NExpr::Temp(_) | NExpr::Literal(_) => Some(e.clone()),
        NExpr::Neg(x) => zero(x, absent).map(|x| NExpr::Neg(Box::new(x))),
        NExpr::Binary(op, a, b) => {
            let (za, zb) = (zero(a, absent), zero(b, absent));
            match (op, za, zb) {
                (_, Some(a), Some(b)) => Some(NExpr::Binary(*op, Box::new(a), Box::new(b))),
                (BinOp::Mul | BinOp::Div, ..) => None,
                (_, Some(a), None) => Some(a),
                (BinOp::Sub, None, Some(b)) => Some(NExpr::Neg(Box::new(b))),
                (_, None, Some(b)) => Some(b),
                (_, None, None) => None,
            }
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
