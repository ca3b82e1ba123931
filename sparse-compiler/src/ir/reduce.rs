//! The operators that combine partial results: the reductions of `reduce<...>` as the IR and
//! both back ends see them.

use super::Literal;

/// An associative, commutative operator that combines partial results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// `+`, identity zero.
    Add,
    /// `*`, identity one.
    Mul,
    /// `min`, identity `+inf` (an integer type's largest value).
    Min,
    /// `max`, identity `-inf` (an integer type's smallest value).
    Max,
    /// `||` on values read as booleans (nonzero is true), giving one or zero; identity zero.
    Or,
    /// `&&` on values read as booleans, giving one or zero; identity one.
    And,
    /// A user operator of `ops<...>`: [`super::Kernel::combine`] of the accumulator and the
    /// value ([`COMBINE_OPERANDS`]); its identity as `f64::to_bits`.
    User {
        /// The definition's position in `ops<...>`.
        index: u16,
        /// The identity's bits.
        identity: u64,
    },
}

/// The names the accumulator and the value combined into it have in [`super::Kernel::combine`].
pub const COMBINE_OPERANDS: [&str; 2] = ["__acc", "__value"];

impl ReduceOp {
    /// The reduction with operator `op` of index notation, if it reduces
    /// ([`crate::algebra::Op::reduction_identity`]).
    pub fn of(op: crate::algebra::Op) -> Option<ReduceOp> {
        use crate::algebra::Op;
        Some(match op {
            Op::Add => ReduceOp::Add,
            Op::Mul => ReduceOp::Mul,
            Op::Min => ReduceOp::Min,
            Op::Max => ReduceOp::Max,
            Op::Or => ReduceOp::Or,
            Op::And => ReduceOp::And,
            Op::User { index, identity } => ReduceOp::User { index, identity },
            _ => return None,
        })
    }

    /// The operator of index notation.
    pub fn op(self) -> crate::algebra::Op {
        use crate::algebra::Op;
        match self {
            ReduceOp::Add => Op::Add,
            ReduceOp::Mul => Op::Mul,
            ReduceOp::Min => Op::Min,
            ReduceOp::Max => Op::Max,
            ReduceOp::Or => Op::Or,
            ReduceOp::And => Op::And,
            ReduceOp::User { index, identity } => Op::User { index, identity },
        }
    }

    /// The identity partial results start from, as a value literal (infinities convert to an
    /// integer type's extremes).
    pub fn identity(self) -> Literal {
        match self {
            ReduceOp::Add | ReduceOp::Or => Literal::Int(0),
            ReduceOp::Mul | ReduceOp::And => Literal::Int(1),
            ReduceOp::Min => Literal::Float(f64::INFINITY),
            ReduceOp::Max => Literal::Float(f64::NEG_INFINITY),
            ReduceOp::User { identity, .. } => {
                let v = f64::from_bits(identity);
                match v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0 {
                    true => Literal::Int(v as i64),
                    false => Literal::Float(v),
                }
            }
        }
    }
}
