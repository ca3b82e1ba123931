//! Right-hand-side expressions: a precedence loop over the binary operators, prefix operators,
//! casts, calls of the functions of `algebra`, literals and accesses.
//!
//! Precedence is Rust's, loosest first: `||`, `&&`, the comparisons (which do not chain), `+ -`,
//! `* / %`, `as`, and the prefix `-` and `!`. A name followed by `(` is a call when it names a
//! function; otherwise it is an access, whose parentheses hold plain index variables.

use proc_macro2::{Span, TokenTree};
use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::{Ident, LitFloat, LitInt, Token, parenthesized, token};

use super::ast::{Expr, Literal, LiteralValue};
use super::parse::{
    error_after_operand, error_at_next, join, parse_access, parse_name, reject_suffix,
};
use crate::algebra::{CastType, Op};

/// How tightly a binary operator binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Precedence {
    /// `||`.
    Or,
    /// `&&`.
    And,
    /// `==`, `!=`, `<`, `<=`, `>`, `>=`.
    Compare,
    /// `+`, `-`.
    Sum,
    /// `*`, `/`, `%`.
    Product,
    /// Casts, prefix operators and operands: nothing binary binds this tightly.
    Prefix,
}

impl Precedence {
    fn of(op: Op) -> Self {
        match op {
            Op::Or => Precedence::Or,
            Op::And => Precedence::And,
            Op::Add | Op::Sub => Precedence::Sum,
            Op::Mul | Op::Div | Op::Rem => Precedence::Product,
            _ => Precedence::Compare,
        }
    }

    /// The precedence a right operand must have, which makes operators left-associative.
    fn tighter(self) -> Self {
        match self {
            Precedence::Or => Precedence::And,
            Precedence::And => Precedence::Compare,
            Precedence::Compare => Precedence::Sum,
            Precedence::Sum => Precedence::Product,
            Precedence::Product | Precedence::Prefix => Precedence::Prefix,
        }
    }
}

/// A right-hand-side expression.
pub(super) fn parse_expr(input: ParseStream) -> syn::Result<Expr> {
    parse_binary(input, Precedence::Or)
}

/// Operands joined by operators of at least `min` precedence, folded to the left.
fn parse_binary(input: ParseStream, min: Precedence) -> syn::Result<Expr> {
    let mut lhs = parse_cast(input)?;
    let mut compared = false;
    while let Some(op) = peek_binop(input) {
        let precedence = Precedence::of(op);
        if precedence < min {
            break;
        }
        if precedence == Precedence::Compare && compared {
            let message = "comparisons do not chain; add parentheses, as in `(a < b) == c`";
            return Err(syn::Error::new(input.span(), message));
        }
        compared = precedence == Precedence::Compare;
        let span = parse_binop(input, op)?;
        let rhs = parse_binary(input, precedence.tighter())?;
        lhs = Expr::Op {
            op,
            args: vec![lhs, rhs],
            span,
        };
    }
    Ok(lhs)
}

/// The binary operator that comes next, if any (`+=`, `<<` and the like are not operators here).
fn peek_binop(input: ParseStream) -> Option<Op> {
    let foreign = input.peek(Token![+=])
        || input.peek(Token![-=])
        || input.peek(Token![->])
        || input.peek(Token![*=])
        || input.peek(Token![/=])
        || input.peek(Token![%=])
        || input.peek(Token![<<])
        || input.peek(Token![>>])
        || input.peek(Token![=>]);
    let ops: [(bool, Op); 13] = [
        (input.peek(Token![||]), Op::Or),
        (input.peek(Token![&&]), Op::And),
        (input.peek(Token![==]), Op::Eq),
        (input.peek(Token![!=]), Op::Ne),
        (input.peek(Token![<=]), Op::Le),
        (input.peek(Token![>=]), Op::Ge),
        (input.peek(Token![<]), Op::Lt),
        (input.peek(Token![>]), Op::Gt),
        (input.peek(Token![+]), Op::Add),
        (input.peek(Token![-]), Op::Sub),
        (input.peek(Token![*]), Op::Mul),
        (input.peek(Token![/]), Op::Div),
        (input.peek(Token![%]), Op::Rem),
    ];
    match foreign {
        true => None,
        false => ops.into_iter().find(|(next, _)| *next).map(|(_, op)| op),
    }
}

/// Consumes the operator `op`, returning the span of its first character.
fn parse_binop(input: ParseStream, op: Op) -> syn::Result<Span> {
    Ok(match op {
        Op::Or => input.parse::<Token![||]>()?.spans[0],
        Op::And => input.parse::<Token![&&]>()?.spans[0],
        Op::Eq => input.parse::<Token![==]>()?.spans[0],
        Op::Ne => input.parse::<Token![!=]>()?.spans[0],
        Op::Le => input.parse::<Token![<=]>()?.spans[0],
        Op::Ge => input.parse::<Token![>=]>()?.spans[0],
        Op::Lt => input.parse::<Token![<]>()?.span,
        Op::Gt => input.parse::<Token![>]>()?.span,
        Op::Add => input.parse::<Token![+]>()?.span,
        Op::Sub => input.parse::<Token![-]>()?.span,
        Op::Mul => input.parse::<Token![*]>()?.span,
        Op::Div => input.parse::<Token![/]>()?.span,
        _ => input.parse::<Token![%]>()?.span,
    })
}

/// A prefix expression followed by any number of `as TYPE`.
fn parse_cast(input: ParseStream) -> syn::Result<Expr> {
    let mut expr = parse_unary(input)?;
    while input.peek(Token![as]) {
        let as_span = input.parse::<Token![as]>()?.span;
        if !input.peek(Ident::peek_any) {
            return Err(error_at_next(input, "a type after `as`"));
        }
        let ty = input.call(Ident::parse_any)?;
        let name = ty.to_string();
        let Some(&(_, cast)) = CastType::ALL.iter().find(|(n, _)| *n == name) else {
            let message = format!(
                "cannot cast to `{name}`: a cast is `as f64`, `as f32`, `as i64`, `as i32` or \
                 `as bool`"
            );
            return Err(syn::Error::new(ty.span(), message));
        };
        expr = Expr::Op {
            op: Op::Cast(cast),
            args: vec![expr],
            span: join(as_span, ty.span()),
        };
    }
    Ok(expr)
}

/// `-operand`, `!operand` or an operand.
fn parse_unary(input: ParseStream) -> syn::Result<Expr> {
    let prefix = if input.peek(Token![-]) && !input.peek(Token![-=]) && !input.peek(Token![->]) {
        Some((Op::Neg, input.parse::<Token![-]>()?.span))
    } else if input.peek(Token![!]) && !input.peek(Token![!=]) {
        Some((Op::Not, input.parse::<Token![!]>()?.span))
    } else {
        None
    };
    match prefix {
        Some((op, span)) => Ok(Expr::Op {
            op,
            args: vec![parse_unary(input)?],
            span,
        }),
        None => parse_operand(input),
    }
}

/// A parenthesized expression, a literal, a call or an access.
fn parse_operand(input: ParseStream) -> syn::Result<Expr> {
    if input.peek(token::Paren) {
        let content;
        parenthesized!(content in input);
        if content.is_empty() {
            return Err(error_at_next(&content, "an expression inside `(...)`"));
        }
        let inner = parse_expr(&content)?;
        if !content.is_empty() {
            return Err(error_after_operand(&content, "`)`"));
        }
        Ok(inner)
    } else if input.peek(LitInt) || input.peek(LitFloat) {
        parse_literal(input).map(Expr::Literal)
    } else if input.peek(Ident::peek_any) && input.peek2(token::Paren) {
        parse_call_or_access(input)
    } else if input.peek(Ident::peek_any) {
        parse_access(input, "a tensor name").map(Expr::Access)
    } else {
        Err(error_at_next(input, "a tensor access, a number or `(`"))
    }
}

/// `NAME(...)`: a call where `NAME` is a function, an access where the parentheses hold names
/// (or start with one and hold no call or access, for the access's error), and otherwise a call
/// of a user operator.
fn parse_call_or_access(input: ParseStream) -> syn::Result<Expr> {
    let fork = input.fork();
    let name = fork.call(Ident::parse_any)?;
    if let Some(op) = Op::function(&name.to_string()) {
        return parse_call(input, op);
    }
    let content;
    parenthesized!(content in fork);
    let first_is_name = matches!(
        content.cursor().token_tree(),
        Some((TokenTree::Ident(_), rest)) if !matches!(rest.token_tree(), Some((TokenTree::Group(_), _)))
    );
    let indexed = plain_names(content.cursor()) || (first_is_name && !holds_group(&content));
    if indexed {
        return parse_access(input, "a tensor name").map(Expr::Access);
    }
    parse_user_call(input)
}

/// Whether the tokens are names separated by commas (the indices of an access, or the scalar
/// operands of a user operator's call, which `ops<...>` tells apart).
fn plain_names(mut cursor: syn::buffer::Cursor) -> bool {
    loop {
        let Some((TokenTree::Ident(_), rest)) = cursor.token_tree() else {
            return cursor.eof();
        };
        match rest.punct() {
            Some((p, next)) if p.as_char() == ',' => cursor = next,
            Some(_) => return false,
            None => return rest.eof(),
        }
    }
}

/// Whether a parenthesized or bracketed group comes among the tokens (a call or an access).
fn holds_group(content: ParseStream) -> bool {
    let mut cursor = content.cursor();
    while let Some((tree, rest)) = cursor.token_tree() {
        if matches!(tree, TokenTree::Group(_)) {
            return true;
        }
        cursor = rest;
    }
    false
}

/// `NAME(x, ..)` where `NAME` is no built-in function: a call of a user operator, checked once
/// `ops<...>` is parsed.
fn parse_user_call(input: ParseStream) -> syn::Result<Expr> {
    let name = parse_name(input, "a function")?;
    let content;
    let paren = parenthesized!(content in input);
    let args = parse_args(&content)?;
    let span = join(name.span(), paren.span.join());
    Ok(Expr::Call { name, args, span })
}

/// Comma-separated arguments, up to the closing parenthesis.
fn parse_args(content: ParseStream) -> syn::Result<Vec<Expr>> {
    let mut args = Vec::new();
    while !content.is_empty() {
        args.push(parse_expr(content)?);
        if content.is_empty() {
            break;
        }
        if !content.peek(Token![,]) {
            return Err(error_after_operand(content, "`,` or `)` after an argument"));
        }
        content.parse::<Token![,]>()?;
    }
    Ok(args)
}

/// `f(x, ..)` for the function `op`, with as many arguments as it takes.
fn parse_call(input: ParseStream, op: Op) -> syn::Result<Expr> {
    let name = parse_name(input, "a function")?;
    let content;
    let paren = parenthesized!(content in input);
    let mut args = parse_args(&content)?;
    let span = join(name.span(), paren.span.join());
    if op == Op::Heaviside && args.len() == 1 {
        let zero = LiteralValue::Int(0);
        args.push(Expr::Literal(Literal { value: zero, span }));
    }
    if args.len() != op.arity() {
        let takes = match op {
            Op::Heaviside => "1 or 2 arguments".to_string(),
            _ if op.arity() == 1 => "1 argument".to_string(),
            _ => format!("{} arguments", op.arity()),
        };
        let message = format!("`{name}` takes {takes}, found {}", args.len());
        return Err(syn::Error::new(span, message));
    }
    Ok(Expr::Op { op, args, span })
}

/// An integer or floating-point literal without a type suffix.
fn parse_literal(input: ParseStream) -> syn::Result<Literal> {
    if input.peek(LitInt) {
        let lit: LitInt = input.parse()?;
        reject_suffix(lit.suffix(), lit.span())?;
        let value = lit
            .base10_parse::<i64>()
            .map_err(|_| syn::Error::new(lit.span(), "integer literal does not fit in 64 bits"))?;
        return Ok(Literal {
            value: LiteralValue::Int(value),
            span: lit.span(),
        });
    }
    let lit: LitFloat = input.parse()?;
    reject_suffix(lit.suffix(), lit.span())?;
    let value = lit.base10_parse::<f64>()?;
    if !value.is_finite() {
        let message = "float literal is out of range of `f64`";
        return Err(syn::Error::new(lit.span(), message));
    }
    Ok(Literal {
        value: LiteralValue::Float(value),
        span: lit.span(),
    })
}
