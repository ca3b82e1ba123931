//! Text forms of the notation stage's results, for the code viewer: concrete index notation in the
//! papers' syntax (`∀i ∀j y(i) += A(i,j) * x(j)`) and the copy plan.

use super::{Access, Cin, Expr, Lhs, Program};
use crate::algebra::Op;
use crate::ir::format_type;
use crate::syntax::ast::LiteralValue;

/// `cin` on one line: `∀i` for a forall, `(consumer where producer)`, and `t0` for temporary 0
/// (`t0(j)` where it is a workspace indexed by `j`), `(first ; second)` for a sequence.
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
        Cin::Sequence { first, second } => format!(
            "({} ; {})",
            print_cin(program, first),
            print_cin(program, second)
        ),
        Cin::Assign {
            lhs,
            accumulate,
            op,
            rhs,
        } => {
            let lhs = match lhs {
                Lhs::Output => access(program, &program.output),
                Lhs::Scalar(t) => format!("t{t}"),
                Lhs::Workspace { temp, var } | Lhs::Precomputed { temp, var } => {
                    format!("t{temp}({})", program.vars[*var])
                }
            };
            let op = match (accumulate, op) {
                (false, _) => "=".to_string(),
                (true, Op::Add) => "+=".to_string(),
                (true, Op::Min | Op::Max) => format!("{}=", op.symbol()),
                (true, op) => format!("{}=", op.symbol()),
            };
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
        // A tensor local to the kernel is named by the reads it serves.
        let name = match tensor.copy_of {
            Some(source) => format!("{} for {}", tensor.name, reads_of(program, source, t)),
            None => tensor.name.clone(),
        };
        out.push_str(&format!(
            "copy {name}: {} -> {} by {}\n",
            format_type(&tensor.format),
            format_type(&copy.format()),
            rules.join(", then ")
        ));
    }
    out
}

/// `A(j,i)`: how the statement reads local tensor `t`, a copy of `source`.
fn reads_of(program: &Program, source: usize, t: usize) -> String {
    let mut reads = Vec::new();
    super::convert::collect_accesses(&program.rhs, t, &mut reads);
    let name = &program.tensors[source].name;
    let indices: Vec<&str> = (reads.first().into_iter().flatten())
        .map(|&v| program.vars[v].as_str())
        .collect();
    format!("{name}({})", indices.join(","))
}

fn access(program: &Program, a: &Access) -> String {
    let name = &program.tensors[a.tensor].name;
    if a.indices.is_empty() {
        return name.clone();
    }
    let indices: Vec<&str> = a.indices.iter().map(|&v| &program.vars[v][..]).collect();
    format!("{name}({})", indices.join(","))
}

/// How tightly a printed expression binds, loosest first (Rust's precedence).
const OR: u8 = 1;
const AND: u8 = 2;
const COMPARE: u8 = 3;
const SUM: u8 = 4;
const PRODUCT: u8 = 5;
const CAST: u8 = 6;
const PREFIX: u8 = 7;
const ATOM: u8 = 8;

/// `e`, parenthesized where it binds less tightly than `outer`.
fn expr(program: &Program, e: &Expr, outer: u8) -> String {
    let (own, text) = match e {
        Expr::Access { access: a, .. } => (ATOM, access(program, a)),
        Expr::Temp(t) => (ATOM, format!("t{t}")),
        Expr::Literal(LiteralValue::Int(v)) => (ATOM, v.to_string()),
        Expr::Literal(LiteralValue::Float(v)) => (ATOM, format!("{v:?}")),
        Expr::Op(op, args) => operation(program, *op, args),
    };
    match own < outer {
        true => format!("({text})"),
        false => text,
    }
}

/// An operator and its operands: the operands of `-` and `/` on the right, and of a comparison
/// on either side, need parentheses at the operator's own level too.
fn operation(program: &Program, op: Op, args: &[Expr]) -> (u8, String) {
    let symbol = op.symbol();
    if op.is_function() || op == Op::Select {
        let args: Vec<String> = args.iter().map(|a| expr(program, a, 0)).collect();
        return (ATOM, format!("{symbol}({})", args.join(", ")));
    }
    match (op, args) {
        (Op::Neg | Op::Not, [a]) => (PREFIX, format!("{symbol}{}", expr(program, a, PREFIX))),
        (Op::Cast(_), [a]) => (CAST, format!("{} {symbol}", expr(program, a, CAST))),
        (_, [a, b]) => {
            let own = match op {
                Op::Or => OR,
                Op::And => AND,
                Op::Add | Op::Sub => SUM,
                Op::Mul | Op::Div | Op::Rem => PRODUCT,
                _ => COMPARE,
            };
            let (left, right) = match op {
                Op::Sub | Op::Div | Op::Rem => (own, own + 1),
                Op::Add | Op::Mul | Op::And | Op::Or => (own, own),
                _ => (own + 1, own + 1),
            };
            let a = expr(program, a, left);
            (own, format!("{a} {symbol} {}", expr(program, b, right)))
        }
        _ => (ATOM, format!("{symbol}(?)")),
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
    fn a_sum_covers_the_term_plus_and_minus_separate() {
        assert_eq!(
            cin_of(quote! { fn k; y(i) = sqrt(A(i,j)) * b(i); }),
            "∀i ∀j y(i) += sqrt(A(i,j)) * b(i)"
        );
        assert_eq!(
            cin_of(quote! { fn k; y(i) = b(i) / x(j); }),
            "∀i ∀j y(i) += b(i) / x(j)"
        );
        assert_eq!(
            cin_of(quote! { fn k; y(i) = exp(A(i,j)) - 1; }),
            "∀i (y(i) = t0 - 1 where ∀j t0 += exp(A(i,j)))"
        );
        assert_eq!(
            cin_of(quote! { fn k; y(i) = sqrt(b(i) + A(i,j)) > 2 && !c(i) as bool; }),
            "∀i (y(i) = sqrt(b(i) + t0) > 2 && !c(i) as bool where ∀j t0 += A(i,j))"
        );
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
