//! Text forms of the notation stage's results, for the code viewer: concrete index notation in the
//! papers' syntax (`∀i ∀j y(i) += A(i,j) * x(j)`) and the copy plan.

use super::{Access, Cin, Expr, Lhs, Program};
use crate::ir::format_type;
use crate::syntax::ast::{BinOp, LiteralValue};

/// `cin` on one line: `∀i` for a forall, `(consumer where producer)`, and `t0` for temporary 0
/// (`t0(j)` where it is a workspace indexed by `j`).
pub fn print_cin(program: &Program, cin: &Cin) -> String {
    match cin {
        Cin::Forall { var, body } => {
            format!("∀{} {}", program.vars[*var], print_cin(program, body))
        }
        Cin::Where { consumer, producer } => format!(
            "({} where {})",
            print_cin(program, consumer),
            print_cin(program, producer)
        ),
        Cin::Assign {
            lhs,
            accumulate,
            rhs,
        } => {
            let lhs = match lhs {
                Lhs::Output => access(program, &program.output),
                Lhs::Scalar(t) => format!("t{t}"),
                Lhs::Workspace { temp, var } | Lhs::Precomputed { temp, var } => {
                    format!("t{temp}({})", program.vars[*var])
                }
            };
            let op = if *accumulate { "+=" } else { "=" };
            format!("{lhs} {op} {}", expr(program, rhs, 0))
        }
    }
}

/// One line per planned copy, `NAME: USER FORMAT -> ITERATED FORMAT by RULE (why)`, or a line
/// saying there is none.
pub fn print_plan(program: &Program) -> String {
    if program.copies.is_empty() {
        return "no copies planned\n".to_string();
    }
    let mut out = String::new();
    for (t, copy) in program.copies.iter() {
        let tensor = &program.tensors[t];
        let rules: Vec<String> = (copy.rules.iter())
            .map(|r| format!("{} ({})", r.name(), r.why()))
            .collect();
        out.push_str(&format!(
            "copy {}: {} -> {} by {}\n",
            tensor.name,
            format_type(&tensor.format),
            format_type(&copy.format()),
            rules.join(", then ")
        ));
    }
    out
}

fn access(program: &Program, a: &Access) -> String {
    let name = &program.tensors[a.tensor].name;
    if a.indices.is_empty() {
        return name.clone();
    }
    let indices: Vec<&str> = a.indices.iter().map(|&v| &program.vars[v][..]).collect();
    format!("{name}({})", indices.join(","))
}

/// `e`, parenthesized where it binds less tightly than `outer` (0: anywhere, 1: a sum's operand,
/// 2: a product's operand, 3: a negation's operand).
fn expr(program: &Program, e: &Expr, outer: u8) -> String {
    let (own, text) = match e {
        Expr::Access { access: a, .. } => (4, access(program, a)),
        Expr::Temp(t) => (4, format!("t{t}")),
        Expr::Literal(LiteralValue::Int(v)) => (4, v.to_string()),
        Expr::Literal(LiteralValue::Float(v)) => (4, format!("{v:?}")),
        Expr::Neg(x) => (3, format!("-{}", expr(program, x, 3))),
        Expr::Binary(op, a, b) => {
            let (own, symbol) = match op {
                BinOp::Add => (1, "+"),
                BinOp::Sub => (1, "-"),
                BinOp::Mul => (2, "*"),
                BinOp::Div => (2, "/"),
            };
            // The right operand of `-` and `/` needs parentheses at its own level too.
            let right = match op {
                BinOp::Sub | BinOp::Div => own + 1,
                BinOp::Add | BinOp::Mul => own,
            };
            let a = expr(program, a, own);
            (own, format!("{a} {symbol} {}", expr(program, b, right)))
        }
    };
    match own < outer {
        true => format!("({text})"),
        false => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::resolve_formats;
    use crate::notation::concretize;
    use crate::syntax::parse_kernel;
    use quote::quote;

    fn cin_of(tokens: proc_macro2::TokenStream) -> String {
        let kernel = parse_kernel(tokens).expect("parses");
        let formats = resolve_formats(&kernel).expect("resolves");
        let program = Program::build(&kernel, &formats).expect("builds");
        print_cin(&program, &concretize(&program).expect("concretizes"))
    }

    #[test]
    fn parentheses_only_where_the_operators_need_them() {
        assert_eq!(
            cin_of(quote! { fn k; a(i) = (b(i) - (c(i) - d(i))) * 2 + -e(i) / (f(i) * g(i)); }),
            "∀i a(i) = (b(i) - (c(i) - d(i))) * 2 + -e(i) / (f(i) * g(i))"
        );
        assert_eq!(
            cin_of(quote! { fn k; s = x(i) * 0.5; }),
            "∀i s += x(i) * 0.5"
        );
    }
}
