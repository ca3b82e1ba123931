//! The operators of index notation as IR expressions of the value type `T`. Booleans are `T`'s
//! one and zero: a comparison selects between them, and `&&`, `||`, `!` and `as bool` read an
//! operand as true where it is nonzero.

use crate::algebra::{CastType, Op};
use crate::ir::{BinOp, Expr, Intrinsic, Literal};

/// `op` applied to the IR of its operands; `None` when their number is not the operator's arity.
pub(super) fn apply(op: Op, args: Vec<Expr>) -> Option<Expr> {
    if args.len() != op.arity() {
        return None;
    }
    let mut args = args.into_iter();
    let mut next = || Box::new(args.next().unwrap_or(Expr::Index(0)));
    let call =
        |f: Intrinsic, args: Vec<Box<Expr>>| Expr::Call(f, args.into_iter().map(|a| *a).collect());
    Some(match op {
        Op::Neg => Expr::Neg(next()),
        Op::Add => Expr::Binary(BinOp::Add, next(), next()),
        Op::Sub => Expr::Binary(BinOp::Sub, next(), next()),
        Op::Mul => Expr::Binary(BinOp::Mul, next(), next()),
        Op::Div => Expr::Binary(BinOp::Quotient, next(), next()),
        Op::Rem => call(Intrinsic::Remainder, vec![next(), next()]),
        Op::Lt => truth(Expr::Binary(BinOp::Lt, next(), next())),
        Op::Le => truth(Expr::Binary(BinOp::Le, next(), next())),
        Op::Gt => {
            let (a, b) = (next(), next());
            truth(Expr::Binary(BinOp::Lt, b, a))
        }
        Op::Ge => {
            let (a, b) = (next(), next());
            truth(Expr::Binary(BinOp::Le, b, a))
        }
        Op::Eq => truth(Expr::Binary(BinOp::Eq, next(), next())),
        Op::Ne => truth(Expr::Binary(BinOp::Ne, next(), next())),
        Op::And => truth(Expr::Binary(BinOp::And, nonzero(next()), nonzero(next()))),
        Op::Or => truth(Expr::Binary(BinOp::Or, nonzero(next()), nonzero(next()))),
        Op::Not => truth(Expr::Binary(BinOp::Eq, next(), value(0))),
        Op::Cast(CastType::Bool) => truth(*nonzero(next())),
        Op::Select => Expr::Select(nonzero(next()), next(), next()),
        Op::Cast(ty) => call(conversion(ty)?, vec![next()]),
        f => call(intrinsic(f)?, (0..f.arity()).map(|_| next()).collect()),
    })
}

fn value(n: i64) -> Box<Expr> {
    Box::new(Expr::Value(Literal::Int(n)))
}

/// One where `condition` holds, else zero.
fn truth(condition: Expr) -> Expr {
    Expr::Select(Box::new(condition), value(1), value(0))
}

/// Whether a value is nonzero (true).
fn nonzero(a: Box<Expr>) -> Box<Expr> {
    Box::new(Expr::Binary(BinOp::Ne, a, value(0)))
}

/// The IR's conversion for a cast to a number type.
fn conversion(ty: CastType) -> Option<Intrinsic> {
    Some(match ty {
        CastType::F64 => Intrinsic::ToF64,
        CastType::F32 => Intrinsic::ToF32,
        CastType::I64 => Intrinsic::ToI64,
        CastType::I32 => Intrinsic::ToI32,
        CastType::Bool => return None,
    })
}

/// The IR's function for a function of the language.
fn intrinsic(op: Op) -> Option<Intrinsic> {
    Some(match op {
        Op::Sqrt => Intrinsic::Sqrt,
        Op::Abs => Intrinsic::Abs,
        Op::Square => Intrinsic::Square,
        Op::Cube => Intrinsic::Cube,
        Op::Cbrt => Intrinsic::Cbrt,
        Op::Exp => Intrinsic::Exp,
        Op::Log => Intrinsic::Log,
        Op::Log10 => Intrinsic::Log10,
        Op::Sin => Intrinsic::Sin,
        Op::Cos => Intrinsic::Cos,
        Op::Tan => Intrinsic::Tan,
        Op::Asin => Intrinsic::Asin,
        Op::Acos => Intrinsic::Acos,
        Op::Atan => Intrinsic::Atan,
        Op::Sinh => Intrinsic::Sinh,
        Op::Cosh => Intrinsic::Cosh,
        Op::Tanh => Intrinsic::Tanh,
        Op::Asinh => Intrinsic::Asinh,
        Op::Acosh => Intrinsic::Acosh,
        Op::Atanh => Intrinsic::Atanh,
        Op::Pow => Intrinsic::Pow,
        Op::Atan2 => Intrinsic::Atan2,
        Op::Max => Intrinsic::Max,
        Op::Min => Intrinsic::Min,
        Op::Heaviside => Intrinsic::Heaviside,
        _ => return None,
    })
}
