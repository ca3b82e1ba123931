//! Concrete index notation written directly (Kjolstad 2020): `forall(i, S)`,
//! `where(consumer, producer)`, `sequence(S1, S2, ..)` and `multi(S1, S2, ..)` in place of the
//! index-notation statement, and the `temporaries<...>` clause that declares the workspaces they
//! compute.
//!
//! ```text
//! cin         := `forall` `(` NAME `,` cin `)` | `where` `(` cin `,` cin `)`
//!              | (`sequence` | `multi`) `(` cin `,` cin (`,` cin)* `)` | assignment
//! temporaries := `temporaries` `<` (NAME [`:` `dense`]), ... `>`
//! ```
//!
//! Nothing is resolved here but which names are temporaries: the statement as format resolution
//! sees it ([`summary`]) is its output and the reads of every assignment, temporaries left out.

use proc_macro2::{Span, TokenTree};
use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::{Ident, Token, parenthesized};

use super::ast::{Access, AssignOp, Assignment, Expr, Kernel, Literal, LiteralValue};
use super::parse::{
    close_angle, error_at_next, expect_comma, join, open_angle, parse_assignment, parse_name,
};

/// A statement of concrete index notation as written.
#[derive(Clone, Debug)]
pub enum CinStmt {
    /// `forall(i, body)`.
    Forall {
        /// The index variable.
        var: Ident,
        /// The body.
        body: Box<CinStmt>,
    },
    /// `where(consumer, producer)`: the producer computes a temporary the consumer reads.
    Where {
        /// The consumer.
        consumer: Box<CinStmt>,
        /// The producer.
        producer: Box<CinStmt>,
        /// The span of the `where` keyword.
        span: Span,
    },
    /// `sequence(first, second)`: the first statement, then the second.
    Sequence {
        /// The first statement.
        first: Box<CinStmt>,
        /// The second.
        second: Box<CinStmt>,
        /// The span of the `sequence` keyword.
        span: Span,
    },
    /// `multi(first, second)`: two statements computing different outputs.
    Multi {
        /// The first statement.
        first: Box<CinStmt>,
        /// The second.
        second: Box<CinStmt>,
        /// The span of the `multi` keyword.
        span: Span,
    },
    /// `lhs = rhs` or `lhs += rhs`.
    Assign(Assignment),
}

/// `t` or `w: dense` in the `temporaries<...>` clause.
#[derive(Clone, Debug)]
pub struct TempDecl {
    /// The temporary's name.
    pub name: Ident,
    /// `: dense`: a dense vector over the index of its accesses; otherwise a scalar.
    pub dense: bool,
}

/// The words of concrete index notation (`where` is a Rust keyword, parsed as any identifier).
const WORDS: [&str; 4] = ["forall", "where", "sequence", "multi"];

/// Whether the statement is concrete index notation: one of its words followed by parentheses
/// that are not an access (`forall(i, ..)`, not a tensor `forall(i) = ..`).
pub(super) fn starts_cin(input: ParseStream) -> bool {
    let fork = input.fork();
    let Ok(word) = fork.call(Ident::parse_any) else {
        return false;
    };
    let group = matches!(fork.parse::<TokenTree>(), Ok(TokenTree::Group(_)));
    let assigned = fork.peek(Token![=]) || fork.peek(Token![+=]);
    WORDS.contains(&word.to_string().as_str()) && group && !assigned
}

/// One statement of concrete index notation.
pub(super) fn parse_cin(input: ParseStream) -> syn::Result<CinStmt> {
    if !starts_cin(input) {
        return parse_assignment(input).map(CinStmt::Assign);
    }
    let word = input.call(Ident::parse_any)?;
    let content;
    parenthesized!(content in input);
    let name = word.to_string();
    let stmt = if name == "forall" {
        let var = parse_name(&content, "the index variable of `forall`")?;
        expect_comma(&content, "the index variable of `forall`")?;
        let body = Box::new(parse_cin(&content)?);
        CinStmt::Forall { var, body }
    } else {
        let mut parts = vec![parse_cin(&content)?];
        while !content.is_empty() {
            expect_comma(&content, "a statement")?;
            parts.push(parse_cin(&content)?);
        }
        combine(&name, word.span(), parts)?
    };
    if !content.is_empty() {
        return Err(error_at_next(
            &content,
            &format!("`)` closing `{name}(..)`"),
        ));
    }
    Ok(stmt)
}

/// `where` of exactly two statements; `sequence` and `multi` of two or more, nested to the right.
fn combine(name: &str, span: Span, mut parts: Vec<CinStmt>) -> syn::Result<CinStmt> {
    if parts.len() < 2 || (name == "where" && parts.len() > 2) {
        let expected = match name {
            "where" => "two statements, the consumer and the producer",
            _ => "two or more statements",
        };
        return Err(syn::Error::new(
            span,
            format!("`{name}(..)` takes {expected}"),
        ));
    }
    let last = parts.pop().map(Box::new);
    let folded = parts.into_iter().rev().fold(last, |second, first| {
        let (first, second) = (Box::new(first), second?);
        Some(Box::new(match name {
            "where" => CinStmt::Where {
                consumer: first,
                producer: second,
                span,
            },
            "sequence" => CinStmt::Sequence {
                first,
                second,
                span,
            },
            _ => CinStmt::Multi {
                first,
                second,
                span,
            },
        }))
    });
    Ok(*folded.expect("two or more statements"))
}

/// `<t, w: dense>`, after the `temporaries` keyword.
pub(super) fn parse_temporaries(input: ParseStream) -> syn::Result<Vec<TempDecl>> {
    open_angle(input, "temporaries")?;
    let mut decls = Vec::new();
    while !input.peek(Token![>]) {
        let name = parse_name(input, "the name of a temporary")?;
        let dense = input.peek(Token![:]);
        if dense {
            input.parse::<Token![:]>()?;
            let kind = input.call(Ident::parse_any)?;
            if kind != "dense" {
                let message = format!(
                    "expected `dense` after `{name}:`, found `{kind}`; a temporary is a scalar \
                     (`{name}`) or a dense vector (`{name}: dense`)"
                );
                return Err(syn::Error::new(kind.span(), message));
            }
        }
        decls.push(TempDecl { name, dense });
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        } else {
            break;
        }
    }
    close_angle(input, "`,` or `>` in `temporaries<...>`")?;
    Ok(decls)
}

/// Checks the temporaries against the rest of the kernel and sets its statement to the
/// [`summary`] of the written concrete notation.
pub(super) fn finish(kernel: &mut Kernel, keyword: Option<Span>) -> syn::Result<()> {
    let Some(cin) = &kernel.cin else {
        return match keyword {
            Some(span) => Err(syn::Error::new(
                span,
                "`temporaries<...>` declares the workspaces of a statement written in concrete \
                 index notation (`forall`, `where`, ..); this kernel's statement is index notation",
            )),
            None => Ok(()),
        };
    };
    for (k, decl) in kernel.temporaries.iter().enumerate() {
        let name = &decl.name;
        if kernel.temporaries[..k].iter().any(|d| d.name == *name) {
            let message = format!("temporary `{name}` is declared twice");
            return Err(syn::Error::new(name.span(), message));
        }
        if let Some(clause) = parameter_clause(kernel, name) {
            let message = format!(
                "`{name}` is declared in `temporaries<...>` and named in {clause}: a temporary \
                 is local to the kernel, not a parameter; rename one of them"
            );
            return Err(syn::Error::new(name.span(), message));
        }
    }
    kernel.assignment = summary(cin, &kernel.temporaries);
    Ok(())
}

/// The clause other than `temporaries<...>` that names `name` as a tensor, if one does.
fn parameter_clause(kernel: &Kernel, name: &Ident) -> Option<&'static str> {
    let params = kernel.params.as_ref().map(|p| &p.names[..]).unwrap_or(&[]);
    if params.contains(name) {
        Some("the parameter list")
    } else if kernel.formats.iter().any(|f| f.tensor == *name) {
        Some("`formats<...>`")
    } else if kernel.scalars.contains(name) {
        Some("`scalars<...>`")
    } else if kernel.fills.iter().any(|f| f.tensor == *name) {
        Some("`fills<...>`")
    } else {
        None
    }
}

/// The statement as format resolution sees it: the first assignment that writes no temporary
/// gives the output, and the right-hand sides of every assignment, in written order and with
/// their reads of temporaries left out, give the inputs in order of first appearance.
pub fn summary(cin: &CinStmt, temps: &[TempDecl]) -> Assignment {
    let is_temp = |a: &Access| temps.iter().any(|t| t.name == a.tensor);
    let mut assignments = Vec::new();
    assignments_of(cin, &mut assignments);
    let output = assignments
        .iter()
        .find(|a| !is_temp(&a.lhs))
        .unwrap_or(&assignments[0]);
    let zero = |span| {
        Expr::Literal(Literal {
            value: LiteralValue::Int(0),
            span,
        })
    };
    let reads = assignments.iter().map(|a| without_temps(&a.rhs, &is_temp));
    let rhs = reads
        .reduce(|a, b| Expr::Op {
            op: crate::algebra::Op::Add,
            args: vec![a, b],
            span: output.op_span,
        })
        .unwrap_or_else(|| zero(output.op_span));
    Assignment {
        lhs: output.lhs.clone(),
        op: AssignOp::Assign,
        op_span: output.op_span,
        rhs,
    }
}

/// Every assignment of a written statement, mutably (for resolving calls of user operators).
pub fn assignments_of_mut<'c>(cin: &'c mut CinStmt, out: &mut Vec<&'c mut Assignment>) {
    match cin {
        CinStmt::Forall { body, .. } => assignments_of_mut(body, out),
        CinStmt::Where {
            consumer: first,
            producer: second,
            ..
        }
        | CinStmt::Sequence { first, second, .. }
        | CinStmt::Multi { first, second, .. } => {
            assignments_of_mut(first, out);
            assignments_of_mut(second, out);
        }
        CinStmt::Assign(a) => out.push(a),
    }
}

/// Every assignment of `cin`, in written order.
pub fn assignments_of<'c>(cin: &'c CinStmt, out: &mut Vec<&'c Assignment>) {
    match cin {
        CinStmt::Forall { body, .. } => assignments_of(body, out),
        CinStmt::Where {
            consumer: first,
            producer: second,
            ..
        }
        | CinStmt::Sequence { first, second, .. }
        | CinStmt::Multi { first, second, .. } => {
            assignments_of(first, out);
            assignments_of(second, out);
        }
        CinStmt::Assign(a) => out.push(a),
    }
}

/// `expr` with every read of a temporary replaced by `0`.
fn without_temps(expr: &Expr, is_temp: &dyn Fn(&Access) -> bool) -> Expr {
    match expr {
        Expr::Access(a) if is_temp(a) => Expr::Literal(Literal {
            value: LiteralValue::Int(0),
            span: a.span,
        }),
        Expr::Access(_) | Expr::Literal(_) => expr.clone(),
        Expr::Op { op, args, span } => Expr::Op {
            op: *op,
            args: args.iter().map(|a| without_temps(a, is_temp)).collect(),
            span: *span,
        },
        Expr::Call { name, args, span } => Expr::Call {
            name: name.clone(),
            args: args.iter().map(|a| without_temps(a, is_temp)).collect(),
            span: *span,
        },
    }
}

/// The span of a statement's first token, for errors about the whole statement.
pub fn span_of(cin: &CinStmt) -> Span {
    match cin {
        CinStmt::Forall { var, .. } => var.span(),
        CinStmt::Where { span, .. }
        | CinStmt::Sequence { span, .. }
        | CinStmt::Multi { span, .. } => *span,
        CinStmt::Assign(a) => join(a.lhs.span, a.op_span),
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::super::parse_kernel;
    use super::CinStmt;

    /// The statement's shape, written independently of the parser: `F(i, ..)`, `W(.., ..)`,
    /// `S(.., ..)`, `M(.., ..)`, and `y` for an assignment to `y`.
    fn shape(s: &CinStmt) -> String {
        match s {
            CinStmt::Forall { var, body } => format!("F({var}, {})", shape(body)),
            CinStmt::Where {
                consumer, producer, ..
            } => format!("W({}, {})", shape(consumer), shape(producer)),
            CinStmt::Sequence { first, second, .. } => {
                format!("S({}, {})", shape(first), shape(second))
            }
            CinStmt::Multi { first, second, .. } => {
                format!("M({}, {})", shape(first), shape(second))
            }
            CinStmt::Assign(a) => a.lhs.tensor.to_string(),
        }
    }

    #[test]
    fn statements_nest_and_long_sequences_nest_to_the_right() {
        let kernel = parse_kernel(quote! {
            fn k;
            forall(i, sequence(y(i) = b(i), where(y(i) += t, forall(j, t += A(i,j))), y(i) += c(i)));
            temporaries< t, w: dense >;
        })
        .unwrap();
        let cin = kernel.cin.as_ref().unwrap();
        assert_eq!(shape(cin), "F(i, S(y, S(W(y, F(j, t)), y)))");
        let temps: Vec<(String, bool)> = (kernel.temporaries.iter())
            .map(|t| (t.name.to_string(), t.dense))
            .collect();
        assert_eq!(temps, [("t".into(), false), ("w".into(), true)]);
        assert_eq!(kernel.assignment.lhs.tensor, "y");
    }

    #[test]
    fn a_tensor_named_like_a_word_is_still_index_notation() {
        let kernel = parse_kernel(quote! { fn k; forall(i) = sequence(i) * 2; }).unwrap();
        assert!(kernel.cin.is_none());
        assert_eq!(kernel.assignment.lhs.tensor, "forall");
    }

    #[test]
    fn malformed_statements_and_temporaries_are_errors() {
        let error = |tokens| parse_kernel(tokens).unwrap_err().message();
        assert_eq!(
            error(quote! { fn k; where(y(i) = t, t = 1, t = 2); }),
            "`where(..)` takes two statements, the consumer and the producer"
        );
        assert_eq!(
            error(quote! { fn k; sequence(forall(i, y(i) = b(i))); }),
            "`sequence(..)` takes two or more statements"
        );
        assert_eq!(
            error(quote! { fn k; forall(i, y(i) = t); temporaries< t: sparse >; }),
            "expected `dense` after `t:`, found `sparse`; a temporary is a scalar (`t`) or a \
             dense vector (`t: dense`)"
        );
        assert_eq!(
            error(quote! { fn k; forall(i, y(i) = t); temporaries< t, t >; }),
            "temporary `t` is declared twice"
        );
    }
}
