//! Constructors of the statements lowering and the passes build most often.

use super::{Array, Expr, Literal, Place, ReduceOp, Space, Stmt, Sync, TempType, UpdateOp, Var};

impl Stmt {
    /// `var = value`, or `var += value` when `accumulate`.
    pub fn assign(var: Var, value: Expr, accumulate: bool) -> Stmt {
        Stmt::update(Place::Var(var), value, accumulate)
    }

    /// `place = value`, or `place = place op value` with a reduction operator.
    pub fn update_with(place: Place, value: Expr, op: Option<ReduceOp>) -> Stmt {
        Stmt::Update {
            place,
            op: op.map_or(UpdateOp::Set, UpdateOp::Reduce),
            value,
            sync: Sync::Owned,
        }
    }

    /// `array[index] = value`, or `+=` when `accumulate`, unsynchronized.
    pub fn store(array: Array, index: Expr, value: Expr, accumulate: bool) -> Stmt {
        Stmt::update(Place::Elem(array, index), value, accumulate)
    }

    fn update(place: Place, value: Expr, accumulate: bool) -> Stmt {
        let op = match accumulate {
            true => UpdateOp::Reduce(ReduceOp::Add),
            false => UpdateOp::Set,
        };
        Stmt::Update {
            place,
            op,
            value,
            sync: Sync::Owned,
        }
    }

    /// A workspace of `len` values, each `init`, private to the code that declares it.
    pub fn value_workspace(var: Var, len: Expr, init: Literal) -> Stmt {
        Stmt::Workspace {
            var,
            ty: TempType::Value,
            len,
            init: Expr::Value(init),
            space: Space::Local,
        }
    }

    /// A zeroed workspace of `len` elements of `ty`, private to the code that declares it.
    pub fn workspace(var: Var, ty: TempType, len: Expr) -> Stmt {
        let init = match ty {
            TempType::Value => Expr::Value(Literal::Int(0)),
            TempType::Index => Expr::Index(0),
            TempType::Bool => Expr::Bool(false),
        };
        Stmt::Workspace {
            var,
            ty,
            len,
            init,
            space: Space::Local,
        }
    }
}
