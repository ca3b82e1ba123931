//! Calls of user operators (`ops<...>`), inlined into the statement as selects over their
//! operands' presence, so that the lattices, lowering and both back ends see only the operators
//! of the algebra.
//!
//! An operand is present where its value differs from its fill. A call becomes
//!
//! ```text
//! select(W1, b1, select(W2, b2, .. select(OVER, body, body at the fills)))
//! ```
//!
//! with `Wk` the `when` regions and `OVER` the `over` region (any operand present without one),
//! each a boolean expression of the presence tests `x != fill(x)`. The innermost select gives
//! the operator's own fill outside its region, so the algebra iterates the region's space there
//! (an intersection for `x & y`, a union for `x | y`). An operand whose fill is the declared
//! annihilator adds an outer `select(x != fill(x), .., annihilator)`: the loop intersects with it.

use super::{Builder, Expr};
use crate::algebra::Op;
use crate::syntax::ast::{self, LiteralValue, OpDef, Region};

impl Builder {
    /// The call of the user operator `name` (checked by the parser to exist with this arity).
    /// Each argument is converted once: every read of an operand in the inlined call is the same
    /// access, so a loop iterates it once and scheduling commands (`pos`) name it.
    pub(super) fn inline_call(&mut self, name: &syn::Ident, args: &[ast::Expr]) -> Expr {
        let args: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
        self.inline(name, &args)
    }

    /// The call of `name` on operands already converted (a written statement's converts its
    /// temporaries too).
    pub(super) fn inline(&mut self, name: &syn::Ident, args: &[Expr]) -> Expr {
        let Some(def) = self.ops.iter().find(|d| d.name == *name).cloned() else {
            return Expr::Literal(LiteralValue::Int(0));
        };
        let fills: Vec<Expr> = (args.iter())
            .map(|a| literal(a.fill().unwrap_or(0.0)))
            .collect();
        let outside = self.body(&def, &def.body, &fills);
        let over = match &def.over {
            Some(r) => region(r, args, &fills),
            None => anywhere(args, &fills),
        };
        let inside = self.body(&def, &def.body, args);
        let mut call = select(over, inside, outside);
        for (when, body) in def.whens.iter().rev() {
            let inside = self.body(&def, body, args);
            call = select(region(when, args, &fills), inside, call);
        }
        annihilated(&def, call, args, &fills)
    }

    /// A body of `def` with its operands bound to `args`.
    fn body(&mut self, def: &OpDef, body: &ast::Expr, args: &[Expr]) -> Expr {
        match body {
            ast::Expr::Access(a) => match def.params.iter().position(|p| *p == a.tensor) {
                Some(k) => args[k].clone(),
                None => Expr::Literal(LiteralValue::Int(0)),
            },
            ast::Expr::Literal(l) => Expr::Literal(l.value),
            ast::Expr::Op {
                op, args: operands, ..
            } => {
                let operands = operands.iter().map(|o| self.body(def, o, args)).collect();
                Expr::Op(*op, operands)
            }
            ast::Expr::Call {
                name,
                args: operands,
                ..
            } => {
                let operands: Vec<Expr> =
                    operands.iter().map(|o| self.body(def, o, args)).collect();
                self.inline(name, &operands)
            }
        }
    }
}

/// `call`, or the declared annihilator where an operand whose fill it is stores nothing.
fn annihilated(def: &OpDef, call: Expr, args: &[Expr], fills: &[Expr]) -> Expr {
    let Some((value, _)) = def.annihilator else {
        return call;
    };
    let annihilator = super::literal_value(value);
    let mut call = call;
    for (arg, fill) in args.iter().zip(fills) {
        if fill
            .constant()
            .is_some_and(|f| crate::algebra::same(f, annihilator))
        {
            call = select(present(arg, fill), call, Expr::Literal(value));
        }
    }
    call
}

/// Whether an operand is present: its value differs from its fill.
fn present(arg: &Expr, fill: &Expr) -> Expr {
    Expr::Op(Op::Ne, vec![arg.clone(), fill.clone()])
}

/// Any operand present.
fn anywhere(args: &[Expr], fills: &[Expr]) -> Expr {
    (args.iter().zip(fills))
        .map(|(a, f)| present(a, f))
        .reduce(|a, b| Expr::Op(Op::Or, vec![a, b]))
        .unwrap_or(Expr::Literal(LiteralValue::Int(0)))
}

/// The presence test of a region.
fn region(r: &Region, args: &[Expr], fills: &[Expr]) -> Expr {
    let both = |a: &Region, b: &Region| vec![region(a, args, fills), region(b, args, fills)];
    match r {
        Region::Param(k) => present(&args[*k], &fills[*k]),
        Region::And(a, b) => Expr::Op(Op::And, both(a, b)),
        Region::Or(a, b) => Expr::Op(Op::Or, both(a, b)),
        Region::Not(a) => Expr::Op(Op::Not, vec![region(a, args, fills)]),
    }
}

fn select(condition: Expr, then: Expr, otherwise: Expr) -> Expr {
    Expr::Op(Op::Select, vec![condition, then, otherwise])
}

/// A value as a literal: an integer where it is one (so integer kernels read it exactly).
fn literal(v: f64) -> Expr {
    Expr::Literal(match v.fract() == 0.0 && v.abs() < 9.0e15 {
        true => LiteralValue::Int(v as i64),
        false => LiteralValue::Float(v),
    })
}
