//! The combine of a reduction with a user operator (`reduce< j: f >` with `f` of `ops<...>`):
//! its bodies and regions as one IR expression of the accumulator and the value, each present
//! where it differs from the operator's identity (what a partial result that has reduced nothing
//! holds). The CPU back end prints it wherever a reduction combines: a serial update, the
//! compare-and-swap loop of `Atomics`, the merge of `Temporary` and `ParallelReduction`
//! partials.

use super::expr::{ir_literal, literal_of};
use super::ops::apply;
use crate::algebra::{Op, same};
use crate::error::{Error, ErrorKind, Errors};
use crate::ir::{BinOp, COMBINE_OPERANDS, Expr, Stmt, Unit, Var};
use crate::notation::Program;
use crate::syntax::ast::{self, OpDef, Region};

/// The statement's combine, where it reduces with a user operator. The CUDA back end's combine
/// helpers are fixed prelude code, so a kernel whose `stmts` run on GPU units and reduce with a
/// user operator is refused (not supported yet).
pub(super) fn user_combine(program: &Program, stmts: &[Stmt]) -> Result<Option<Expr>, Errors> {
    let Some(reduction) = program.reduction.as_ref() else {
        return Ok(None);
    };
    let Op::User { index, identity } = reduction.op else {
        return Ok(None);
    };
    let Some(def) = program.ops.get(usize::from(index)) else {
        return Ok(None);
    };
    if runs_on_gpu(stmts) {
        let what = format!(
            "reducing with the user operator `{}` in a GPU kernel",
            def.name
        );
        return Err(vec![Error::new(
            reduction.span,
            ErrorKind::Unsupported(what),
        )]);
    }
    let identity = f64::from_bits(identity);
    let args = COMBINE_OPERANDS.map(|name| Expr::Var(Var(name.to_string())));
    Ok(Some(call(&program.ops, def, &args, &[identity, identity])))
}

/// Whether some region runs on GPU units.
fn runs_on_gpu(stmts: &[Stmt]) -> bool {
    let gpu = |u: Unit| matches!(u, Unit::GpuBlock | Unit::GpuWarp | Unit::GpuThread);
    crate::ir::any_stmt(stmts, &|s| matches!(s, Stmt::Parallel(r) if gpu(r.unit)))
}

/// `def` applied to operands whose fills are `fills`, as `notation::inline` inlines a call:
/// the `when` bodies, then the main body inside its region, then the body at the fills.
fn call(ops: &[OpDef], def: &OpDef, args: &[Expr], fills: &[f64]) -> Expr {
    let at_fills: Vec<Expr> = fills.iter().map(|f| value(*f)).collect();
    let outside = body(ops, def, &def.body, &at_fills, fills);
    let over = match &def.over {
        Some(r) => region(r, args, fills),
        None => (args.iter().zip(fills))
            .map(|(a, f)| present(a, *f))
            .reduce(|a, b| Expr::Binary(BinOp::Or, Box::new(a), Box::new(b)))
            .unwrap_or(Expr::Bool(false)),
    };
    let inside = body(ops, def, &def.body, args, fills);
    let mut result = select(over, inside, outside);
    for (when, b) in def.whens.iter().rev() {
        let inside = body(ops, def, b, args, fills);
        result = select(region(when, args, fills), inside, result);
    }
    if let Some((v, _)) = def.annihilator {
        let annihilator = crate::notation::literal_value(v);
        for (a, f) in args.iter().zip(fills) {
            if same(*f, annihilator) {
                result = select(present(a, *f), result, Expr::Value(ir_literal(v)));
            }
        }
    }
    result
}

/// A body of `def` over `args`, whose fills are `fills`.
fn body(ops: &[OpDef], def: &OpDef, e: &ast::Expr, args: &[Expr], fills: &[f64]) -> Expr {
    let zero = || Expr::Value(crate::ir::Literal::Int(0));
    match e {
        ast::Expr::Access(a) => {
            (def.params.iter().position(|p| *p == a.tensor)).map_or_else(zero, |k| args[k].clone())
        }
        ast::Expr::Literal(l) => Expr::Value(ir_literal(l.value)),
        ast::Expr::Op { op, args: xs, .. } => {
            let xs = xs.iter().map(|x| body(ops, def, x, args, fills)).collect();
            apply(*op, xs).unwrap_or_else(zero)
        }
        ast::Expr::Call { name, args: xs, .. } => {
            let Some(nested) = ops.iter().find(|d| d.name == *name) else {
                return zero();
            };
            let values: Vec<Expr> = xs.iter().map(|x| body(ops, def, x, args, fills)).collect();
            let nested_fills: Vec<f64> = xs.iter().map(|x| value_at(ops, def, x, fills)).collect();
            call(ops, nested, &values, &nested_fills)
        }
    }
}

/// The value of a body's expression with `def`'s operands at `values`: what a nested call's
/// operand holds where the outer operands hold their fills.
fn value_at(ops: &[OpDef], def: &OpDef, e: &ast::Expr, values: &[f64]) -> f64 {
    match e {
        ast::Expr::Access(a) => {
            (def.params.iter().position(|p| *p == a.tensor)).map_or(0.0, |k| values[k])
        }
        ast::Expr::Literal(l) => crate::notation::literal_value(l.value),
        ast::Expr::Op { op, args, .. } => {
            let xs: Vec<f64> = args.iter().map(|x| value_at(ops, def, x, values)).collect();
            op.eval(&xs)
        }
        ast::Expr::Call { name, args, .. } => {
            let Some(nested) = ops.iter().find(|d| d.name == *name) else {
                return 0.0;
            };
            let xs: Vec<f64> = args.iter().map(|x| value_at(ops, def, x, values)).collect();
            value_at(ops, nested, &nested.body, &xs)
        }
    }
}

/// Whether an operand is present: it differs from its fill.
fn present(a: &Expr, fill: f64) -> Expr {
    Expr::Binary(BinOp::Ne, Box::new(a.clone()), Box::new(value(fill)))
}

fn region(r: &Region, args: &[Expr], fills: &[f64]) -> Expr {
    let both = |a: &Region, b: &Region| {
        (
            Box::new(region(a, args, fills)),
            Box::new(region(b, args, fills)),
        )
    };
    match r {
        Region::Param(k) => present(&args[*k], fills[*k]),
        Region::And(a, b) => {
            let (a, b) = both(a, b);
            Expr::Binary(BinOp::And, a, b)
        }
        Region::Or(a, b) => {
            let (a, b) = both(a, b);
            Expr::Binary(BinOp::Or, a, b)
        }
        Region::Not(a) => Expr::Not(Box::new(region(a, args, fills))),
    }
}

fn select(condition: Expr, then: Expr, otherwise: Expr) -> Expr {
    Expr::Select(Box::new(condition), Box::new(then), Box::new(otherwise))
}

fn value(v: f64) -> Expr {
    Expr::Value(ir_literal(literal_of(v)))
}
