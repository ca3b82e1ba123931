//! The grammar of the README as syn parsers: one `impl Parse` per clause of the AST, and a
//! precedence loop for expressions.
//!
//! ```text
//! kernel     := attrs [vis] `fn` NAME [`(` NAME, ... `)`] `;` (assignment | cin) `;` clause*
//! clause     := formats `;` | scalars `;` | fills `;` | reduce `;` | ops `;` | temporaries `;`
//!               | schedule `;`
//!               (any order, each at most once)
//! assignment := access (`=` | `+=`) expr
//! expr       := expr BINOP expr | (`-` | `!`) expr | expr `as` TYPE | `(` expr `)`
//!             | FUNCTION `(` expr, ... `)` | INT | FLOAT | access
//! access     := NAME [`(` NAME, ... `)`]
//! formats    := `formats` `<` (NAME `:` format), ... `>`
//! format     := NAME [`(` INT, ... `)`] | `(` level, ... `)` [`order` `(` INT, ... `)`]
//! level      := NAME [`(` NAME, ... `)`]
//! scalars    := `scalars` `<` NAME, ... `>`
//! fills      := `fills` `<` (NAME `:` [`-`] (INT | FLOAT | `inf`)), ... `>`
//! reduce     := `reduce` `<` (NAME `:` (`+` | `*` | `min` | `max` | `||` | `&&` | NAME)), ... `>`
//! ops        := `ops` `<` (NAME `(` NAME, ... `)` `=` expr ... `;`)* `>` (see `ops.rs`)
//! schedule   := `schedule` `<` (`auto` | command (`.` command)*) `>`
//! command    := NAME `(` (NAME | INT | expr), ... `)`
//! ```
//!
//! Expressions (`expr.rs`) follow Rust's precedence: unary `-` and `!`, then `as`, then `* / %`,
//! `+ -`, the comparisons (which do not chain), `&&` and `||`.
//!
//! Every grammar error is a `syn::Error` spanned on the token where the grammar stopped matching,
//! saying what was expected there and what was found. The `formats<...>` clause is parsed in
//! `format.rs`, concrete index notation and `temporaries<...>` in `cin.rs`, the `schedule<...>`
//! clause in `schedule.rs`, which also types each command's arguments once the whole grammar has
//! matched. Nothing is resolved: level and format names are
//! kept as identifiers for `format::resolve`, and the names a command takes for `schedule`. Tensor
//! and index names are checked here to be plain identifiers (no keyword, no raw identifier, no `__`
//! prefix, which the generator reserves for its own names), because they become names in the
//! generated code.

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, Ident, Token, Visibility, parenthesized, token};

use super::ast::{
    Access, AssignOp, Assignment, FillDecl, FormatDecl, Kernel, LiteralValue, OpDef, ParamList,
    ReduceDecl,
};
use super::cin::{TempDecl, parse_temporaries};
use super::expr::parse_expr;
use super::format::parse_formats;
use super::ops::{parse_ops, resolve, user_reduction};
use super::schedule::{Written, parse_schedule};
use crate::algebra::{Op, REDUCTIONS};
use crate::error::Error;

/// The words of the grammar that are not Rust keywords.
pub(super) mod kw {
    syn::custom_keyword!(formats);
    syn::custom_keyword!(scalars);
    syn::custom_keyword!(fills);
    syn::custom_keyword!(reduce);
    syn::custom_keyword!(ops);
    syn::custom_keyword!(schedule);
    syn::custom_keyword!(order);
    syn::custom_keyword!(auto);
    syn::custom_keyword!(temporaries);
}

/// Parses the body of a `tensor_kernel!` invocation.
pub fn parse_kernel(tokens: TokenStream) -> Result<Kernel, Error> {
    let (mut kernel, schedule) = parse_written.parse2(tokens)?;
    kernel.schedule = schedule.map(Written::typed).transpose()?;
    Ok(kernel)
}

/// The whole invocation, with the schedule clause as written (its commands are typed once the
/// whole grammar has matched: see `schedule`).
fn parse_written(input: ParseStream) -> syn::Result<(Kernel, Option<Written>)> {
    let attrs = input.call(Attribute::parse_outer)?;
    let vis: Visibility = input.parse()?;
    if !input.peek(Token![fn]) {
        return Err(error_at_next(input, "`fn NAME;` naming the kernel"));
    }
    input.parse::<Token![fn]>()?;
    if !input.peek(Ident) {
        return Err(error_at_next(input, "the kernel's name after `fn`"));
    }
    let name: Ident = input.parse()?;
    let params = parse_param_list(input)?;
    end_clause(input, &format!("`fn {name}`"))?;
    if input.is_empty() {
        let message = format!(
            "kernel `{name}` has no statement; expected one such as `y(i) = A(i,j) * x(j);` \
                 after `fn {name};`"
        );
        return Err(syn::Error::new(name.span(), message));
    }
    // A statement in concrete index notation stands in `assignment` as its summary, completed
    // once the temporaries are known (`cin::finish`).
    let (assignment, cin) = match super::cin::starts_cin(input) {
        true => {
            let cin = super::cin::parse_cin(input)?;
            (super::cin::summary(&cin, &[]), Some(cin))
        }
        false => (parse_assignment(input)?, None),
    };
    end_statement(input)?;
    let clauses = parse_clauses(input)?;
    let ops = clauses.ops.unwrap_or_default();
    let mut reduce = clauses.reduce.unwrap_or_default();
    for (var, name) in &clauses.user_reductions {
        reduce.push(user_reduction(var, name, &ops)?);
    }
    let mut kernel = Kernel {
        attrs,
        vis,
        name,
        params,
        assignment,
        formats: clauses.formats.unwrap_or_default(),
        scalars: clauses.scalars.unwrap_or_default(),
        fills: clauses.fills.unwrap_or_default(),
        reduce,
        ops,
        schedule: None,
        cin,
        temporaries: clauses.temporaries.clone().unwrap_or_default(),
    };
    resolve(&mut kernel)?;
    super::cin::finish(&mut kernel, clauses.temporaries_keyword)?;
    Ok((kernel, clauses.schedule))
}

/// Consumes the `;` that ends a clause; a missing `;` at the very end of the input is accepted.
fn end_clause(input: ParseStream, clause: &str) -> syn::Result<()> {
    if input.peek(Token![;]) {
        input.parse::<Token![;]>()?;
        Ok(())
    } else if input.is_empty() {
        Ok(())
    } else {
        Err(error_at_next(input, &format!("`;` after {clause}")))
    }
}

/// `(y, alpha, x)` after the kernel's name: the parameters in the generated function's order.
fn parse_param_list(input: ParseStream) -> syn::Result<Option<ParamList>> {
    if !input.peek(token::Paren) {
        return Ok(None);
    }
    let content;
    let paren = parenthesized!(content in input);
    let mut names = Vec::new();
    while !content.is_empty() {
        names.push(parse_name(&content, "a tensor name")?);
        if !content.is_empty() {
            expect_comma(&content, "a parameter")?;
        }
    }
    Ok(Some(ParamList {
        names,
        span: paren.span.join(),
    }))
}

/// The optional clauses after the statement, in any order, each at most once.
#[derive(Default)]
struct Clauses {
    formats: Option<Vec<FormatDecl>>,
    scalars: Option<Vec<Ident>>,
    fills: Option<Vec<FillDecl>>,
    reduce: Option<Vec<ReduceDecl>>,
    /// Variables whose operator in `reduce<...>` is no built-in one, with its name: resolved
    /// against `ops<...>`.
    user_reductions: Vec<(Ident, Ident)>,
    ops: Option<Vec<OpDef>>,
    schedule: Option<Written>,
    temporaries: Option<Vec<TempDecl>>,
    temporaries_keyword: Option<Span>,
}

/// The clauses after the statement.
fn parse_clauses(input: ParseStream) -> syn::Result<Clauses> {
    let mut clauses = Clauses::default();
    while !input.is_empty() {
        if input.peek(kw::formats) {
            let keyword = input.parse::<kw::formats>()?;
            let formats = parse_formats(input)?;
            let twice = "give every format in one clause";
            once(
                &mut clauses.formats,
                formats,
                keyword.span,
                "formats",
                twice,
            )?;
            end_clause(input, "`formats<...>`")?;
        } else if input.peek(kw::scalars) {
            let keyword = input.parse::<kw::scalars>()?;
            let scalars = parse_scalars(input)?;
            let twice = "list every scalar in one clause";
            once(
                &mut clauses.scalars,
                scalars,
                keyword.span,
                "scalars",
                twice,
            )?;
            end_clause(input, "`scalars<...>`")?;
        } else if input.peek(kw::fills) {
            let keyword = input.parse::<kw::fills>()?;
            let fills = parse_fills(input)?;
            let twice = "give every fill value in one clause";
            once(&mut clauses.fills, fills, keyword.span, "fills", twice)?;
            end_clause(input, "`fills<...>`")?;
        } else if input.peek(kw::reduce) {
            let keyword = input.parse::<kw::reduce>()?;
            let reduce = parse_reduce(input, &mut clauses.user_reductions)?;
            let twice = "name every reduction in one clause";
            once(&mut clauses.reduce, reduce, keyword.span, "reduce", twice)?;
            end_clause(input, "`reduce<...>`")?;
        } else if input.peek(kw::ops) {
            let keyword = input.parse::<kw::ops>()?;
            let ops = parse_ops(input)?;
            let twice = "define every operator in one clause";
            once(&mut clauses.ops, ops, keyword.span, "ops", twice)?;
            end_clause(input, "`ops<...>`")?;
        } else if input.peek(kw::schedule) {
            let keyword = input.parse::<kw::schedule>()?;
            let schedule = parse_schedule(input)?;
            let twice = "chain every command in one clause";
            once(
                &mut clauses.schedule,
                schedule,
                keyword.span,
                "schedule",
                twice,
            )?;
            end_clause(input, "`schedule<...>`")?;
        } else if input.peek(kw::temporaries) {
            let keyword = input.parse::<kw::temporaries>()?;
            let temporaries = parse_temporaries(input)?;
            let twice = "declare every temporary in one clause";
            once(
                &mut clauses.temporaries,
                temporaries,
                keyword.span,
                "temporaries",
                twice,
            )?;
            clauses.temporaries_keyword = Some(keyword.span);
            end_clause(input, "`temporaries<...>`")?;
        } else {
            let expected = "`formats<...>`, `scalars<...>`, `fills<...>`, `reduce<...>`, \
                            `ops<...>` or `schedule<...>` after the statement (a kernel has one \
                            statement)";
            return Err(error_at_next(input, expected));
        }
    }
    Ok(clauses)
}

/// Keeps a clause written for the first time; a second one is an error on its keyword.
fn once<C>(
    slot: &mut Option<C>,
    clause: C,
    keyword: Span,
    name: &str,
    instead: &str,
) -> syn::Result<()> {
    if slot.is_some() {
        let message = format!("`{name}<...>` is written twice; {instead}");
        return Err(syn::Error::new(keyword, message));
    }
    *slot = Some(clause);
    Ok(())
}

/// `<alpha, beta>`, after the `scalars` keyword.
fn parse_scalars(input: ParseStream) -> syn::Result<Vec<Ident>> {
    open_angle(input, "scalars")?;
    let mut names = Vec::new();
    while !input.peek(Token![>]) {
        names.push(parse_name(input, "the name of a scalar input")?);
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        } else {
            close_angle(input, "`,` or `>` after a scalar's name")?;
            return Ok(names);
        }
    }
    input.parse::<Token![>]>()?;
    Ok(names)
}

/// `<A: inf, x: -1>`, after the `fills` keyword.
fn parse_fills(input: ParseStream) -> syn::Result<Vec<FillDecl>> {
    open_angle(input, "fills")?;
    let mut fills = Vec::new();
    while !input.peek(Token![>]) {
        let tensor = parse_name(input, "the name of a tensor")?;
        if !input.peek(Token![:]) {
            return Err(error_at_next(input, &format!("`:` after `{tensor}`")));
        }
        input.parse::<Token![:]>()?;
        let (value, span) = parse_fill_value(input)?;
        fills.push(FillDecl {
            tensor,
            value,
            span,
        });
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        } else {
            close_angle(input, "`,` or `>` after a fill value")?;
            return Ok(fills);
        }
    }
    input.parse::<Token![>]>()?;
    Ok(fills)
}

/// A fill value: `inf`, a number, either negated.
pub(super) fn parse_fill_value(input: ParseStream) -> syn::Result<(LiteralValue, Span)> {
    let expected = "a fill value: a number, `inf` or `-inf`";
    let minus = input
        .peek(Token![-])
        .then(|| input.parse::<Token![-]>())
        .transpose()?;
    let sign = if minus.is_some() { -1.0 } else { 1.0 };
    let (value, span) = if input.peek(syn::LitInt) {
        let lit: syn::LitInt = input.parse()?;
        reject_suffix(lit.suffix(), lit.span())?;
        let n: i64 = lit.base10_parse()?;
        let n = if minus.is_some() { -n } else { n };
        (LiteralValue::Int(n), lit.span())
    } else if input.peek(syn::LitFloat) {
        let lit: syn::LitFloat = input.parse()?;
        reject_suffix(lit.suffix(), lit.span())?;
        let f: f64 = lit.base10_parse()?;
        (LiteralValue::Float(sign * f), lit.span())
    } else if input.peek(Ident::peek_any) && input.cursor().ident().is_some_and(|(i, _)| i == "inf")
    {
        let ident = input.call(Ident::parse_any)?;
        (LiteralValue::Float(sign * f64::INFINITY), ident.span())
    } else {
        return Err(error_at_next(input, expected));
    };
    let span = minus.map_or(span, |m| join(m.span, span));
    Ok((value, span))
}

/// `<j: min, k: ||>`, after the `reduce` keyword. A name that is no built-in function is kept in
/// `user` for `ops<...>` to resolve.
fn parse_reduce(
    input: ParseStream,
    user: &mut Vec<(Ident, Ident)>,
) -> syn::Result<Vec<ReduceDecl>> {
    open_angle(input, "reduce")?;
    let mut reduce = Vec::new();
    while !input.peek(Token![>]) {
        let var = parse_name(input, "an index variable")?;
        if !input.peek(Token![:]) {
            return Err(error_at_next(input, &format!("`:` after `{var}`")));
        }
        input.parse::<Token![:]>()?;
        if let Some((name, _)) = input.cursor().ident()
            && Op::function(&name.to_string()).is_none()
        {
            user.push((var, input.call(Ident::parse_any)?));
        } else {
            let (op, span) = parse_reduction_operator(input)?;
            reduce.push(ReduceDecl { var, op, span });
        }
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        } else {
            close_angle(input, "`,` or `>` after a reduction operator")?;
            return Ok(reduce);
        }
    }
    input.parse::<Token![>]>()?;
    Ok(reduce)
}

/// A reduction operator of `algebra::REDUCTIONS`. An operator of index notation that has no
/// identity (or is not associative and commutative) gets its own message.
fn parse_reduction_operator(input: ParseStream) -> syn::Result<(Op, Span)> {
    let reductions: Vec<String> = REDUCTIONS.iter().map(|(n, _)| format!("`{n}`")).collect();
    let list = reductions.join(", ");
    let symbols: [(&str, Option<Op>); 14] = [
        ("||", Some(Op::Or)),
        ("&&", Some(Op::And)),
        ("==", Some(Op::Eq)),
        ("!=", Some(Op::Ne)),
        ("<=", Some(Op::Le)),
        (">=", Some(Op::Ge)),
        ("+", Some(Op::Add)),
        ("*", Some(Op::Mul)),
        ("-", Some(Op::Sub)),
        ("/", Some(Op::Div)),
        ("%", Some(Op::Rem)),
        ("<", Some(Op::Lt)),
        ("!", None),
        ("^", None),
    ];
    let mut written = None;
    if let Some((ident, _)) = input.cursor().ident() {
        let name = ident.to_string();
        input.call(Ident::parse_any)?;
        written = Some((name.clone(), Op::function(&name), ident.span()));
    } else {
        for (symbol, op) in symbols {
            if peek_symbol(input, symbol) {
                let span = parse_symbol(input, symbol)?;
                written = Some((symbol.to_string(), op, span));
                break;
            }
        }
    }
    let Some((name, op, span)) = written else {
        return Err(error_at_next(
            input,
            &format!("a reduction operator: one of {list}"),
        ));
    };
    let message = match op {
        Some(op) if op.reduction_identity().is_some() => return Ok((op, span)),
        Some(_) => format!(
            "`{name}` cannot reduce: a reduction needs an associative, commutative operator \
             with an identity to start from; use one of {list}"
        ),
        None => format!("unknown reduction operator `{name}`; expected one of {list}"),
    };
    Err(syn::Error::new(span, message))
}

/// Whether the next tokens spell `symbol` (one or two joint punctuation characters).
fn peek_symbol(input: ParseStream, symbol: &str) -> bool {
    let mut cursor = input.cursor();
    let mut chars = symbol.chars().peekable();
    while let Some(c) = chars.next() {
        let Some((p, rest)) = cursor.punct() else {
            return false;
        };
        if p.as_char() != c {
            return false;
        }
        if chars.peek().is_some() && p.spacing() != Spacing::Joint {
            return false;
        }
        cursor = rest;
    }
    true
}

/// Consumes `symbol` (checked by `peek_symbol`), returning the span of its first character.
fn parse_symbol(input: ParseStream, symbol: &str) -> syn::Result<Span> {
    input.step(|cursor| {
        let mut rest = *cursor;
        let mut span = None;
        for _ in symbol.chars() {
            let Some((p, next)) = rest.punct() else {
                return Err(cursor.error("expected a reduction operator"));
            };
            span = Some(span.map_or(p.span(), |s| join(s, p.span())));
            rest = next;
        }
        Ok((span.unwrap_or_else(Span::call_site), rest))
    })
}

/// `lhs = rhs` or `lhs += rhs`, without the `;` after it.
pub(super) fn parse_assignment(input: ParseStream) -> syn::Result<Assignment> {
    let lhs = parse_access(input, "the output access, such as `y(i)`")?;
    let (op, op_span) = if input.peek(Token![+=]) {
        let token = input.parse::<Token![+=]>()?;
        (AssignOp::AddAssign, token.spans[0])
    } else if input.peek(Token![=]) && !input.peek(Token![==]) && !input.peek(Token![=>]) {
        let token = input.parse::<Token![=]>()?;
        (AssignOp::Assign, token.span)
    } else {
        return Err(error_at_next(input, "`=` or `+=` after the output access"));
    };
    let rhs = parse_expr(input)?;
    Ok(Assignment {
        lhs,
        op,
        op_span,
        rhs,
    })
}

/// Consumes the `;` after the statement, telling a missing `;` from an operator that index notation
/// does not have.
fn end_statement(input: ParseStream) -> syn::Result<()> {
    if input.peek(Token![;]) || input.is_empty() {
        end_clause(input, "the statement")
    } else if input.peek(Ident::peek_any) {
        Err(error_at_next(input, "`;` after the statement"))
    } else {
        Err(error_after_operand(input, "`;`"))
    }
}

/// Literals take the kernel's value type, so a suffix such as `f32` has no meaning.
pub(super) fn reject_suffix(suffix: &str, span: Span) -> syn::Result<()> {
    if suffix.is_empty() {
        return Ok(());
    }
    let message = format!(
        "literal suffix `{suffix}` is not allowed: a literal takes the kernel's value type; write \
         `2` or `2.0`"
    );
    Err(syn::Error::new(span, message))
}

/// `A(i, j)`, or a scalar tensor `s` written without parentheses. `what` names the access for a
/// message when no name comes next.
pub(super) fn parse_access(input: ParseStream, what: &str) -> syn::Result<Access> {
    let tensor = parse_name(input, what)?;
    if !input.peek(token::Paren) {
        let span = tensor.span();
        return Ok(Access {
            tensor,
            indices: Vec::new(),
            span,
        });
    }
    let content;
    let paren = parenthesized!(content in input);
    let indices = parse_indices(&content)?;
    if indices.is_empty() {
        let message =
            format!("a scalar tensor is written without parentheses: `{tensor}`, not `{tensor}()`");
        return Err(syn::Error::new(paren.span.join(), message));
    }
    let span = join(tensor.span(), paren.span.join());
    Ok(Access {
        tensor,
        indices,
        span,
    })
}

/// The index variables of an access: names separated by commas.
fn parse_indices(content: ParseStream) -> syn::Result<Vec<Ident>> {
    let mut indices = Vec::new();
    while !content.is_empty() {
        indices.push(parse_name(content, "an index variable")?);
        if content.is_empty() {
            break;
        }
        if !content.peek(Token![,]) {
            let expected = "`,` or `)` after an index variable (indices are plain variables)";
            return Err(error_at_next(content, expected));
        }
        content.parse::<Token![,]>()?;
    }
    Ok(indices)
}

/// A tensor or index name: an identifier that can name a variable of the generated code.
pub(super) fn parse_name(input: ParseStream, what: &str) -> syn::Result<Ident> {
    if !input.peek(Ident::peek_any) {
        return Err(error_at_next(input, what));
    }
    let ident = input.call(Ident::parse_any)?;
    check_name(&ident, what)?;
    Ok(ident)
}

/// Rejects keywords, raw identifiers and the `__` prefix that generated names use.
fn check_name(ident: &Ident, what: &str) -> syn::Result<()> {
    let name = ident.to_string();
    let message = if name.starts_with("r#") {
        format!(
            "expected {what}, found raw identifier `{name}`; choose a name that is not a keyword"
        )
    } else if is_keyword(&name) {
        format!("expected {what}, found keyword `{name}`")
    } else if name.starts_with("__") {
        format!("`{name}`: names starting with `__` are reserved for the code the kernel generates")
    } else {
        return Ok(());
    };
    Err(syn::Error::new(ident.span(), message))
}

/// Rust's strict and reserved keywords (edition 2024), and `_`.
fn is_keyword(name: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "_", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue",
        "crate", "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if",
        "impl", "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv",
        "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true",
        "try", "type", "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
    ];
    KEYWORDS.contains(&name)
}

/// The `<` that opens a clause's list.
pub(super) fn open_angle(input: ParseStream, clause: &str) -> syn::Result<()> {
    if !input.peek(Token![<]) {
        return Err(error_at_next(input, &format!("`<` after `{clause}`")));
    }
    input.parse::<Token![<]>()?;
    Ok(())
}

/// The `,` between two items of a parenthesized list.
pub(super) fn expect_comma(content: ParseStream, item: &str) -> syn::Result<()> {
    if !content.peek(Token![,]) {
        return Err(error_at_next(content, &format!("`,` or `)` after {item}")));
    }
    content.parse::<Token![,]>()?;
    Ok(())
}

/// The `>` that closes a clause's list.
pub(super) fn close_angle(input: ParseStream, expected: &str) -> syn::Result<()> {
    if !input.peek(Token![>]) {
        return Err(error_at_next(input, expected));
    }
    input.parse::<Token![>]>()?;
    Ok(())
}

/// A span covering `a` through `b` where the compiler can join spans, else `a`.
pub(super) fn join(a: Span, b: Span) -> Span {
    a.join(b).unwrap_or(a)
}

/// "expected {expected}, found `tok`", spanned on the next token (or at the end of the input).
pub(super) fn error_at_next(input: ParseStream, expected: &str) -> syn::Error {
    match describe_next(input) {
        Some(found) => syn::Error::new(input.span(), format!("expected {expected}, found {found}")),
        None => input.error(format!("expected {expected}")),
    }
}

/// The error for a token after a complete operand that does not continue the expression: an
/// operator of Rust that index notation lacks gets its own message.
pub(super) fn error_after_operand(input: ParseStream, closer: &str) -> syn::Error {
    let is_foreign_operator = input
        .cursor()
        .punct()
        .is_some_and(|(p, _)| "^&|!<>=".contains(p.as_char()));
    match describe_next(input) {
        Some(found) if is_foreign_operator => {
            let message = format!(
                "unsupported operator {found}; index notation has `+ - * / %`, the comparisons, \
                 `&& || !` and `as`"
            );
            syn::Error::new(input.span(), message)
        }
        _ => error_at_next(input, &format!("an operator such as `+` or {closer}")),
    }
}

/// The next token as a message shows it, with two-character operators kept whole.
fn describe_next(input: ParseStream) -> Option<String> {
    const PAIRS: &[&str] = &[
        "+=", "-=", "*=", "/=", "%=", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "->", "=>",
        "::", "..", "**",
    ];
    let (tree, rest) = input.cursor().token_tree()?;
    Some(match tree {
        TokenTree::Punct(p) => {
            let mut text = p.as_char().to_string();
            if let (Spacing::Joint, Some((next, _))) = (p.spacing(), rest.punct()) {
                text.push(next.as_char());
                if !PAIRS.contains(&text.as_str()) {
                    text.pop();
                }
            }
            format!("`{text}`")
        }
        TokenTree::Group(g) => match g.delimiter() {
            Delimiter::Parenthesis => "`(`".to_owned(),
            Delimiter::Bracket => "`[`".to_owned(),
            Delimiter::Brace => "`{`".to_owned(),
            Delimiter::None => "a macro fragment".to_owned(),
        },
        TokenTree::Ident(i) => format!("`{i}`"),
        TokenTree::Literal(l) => format!("`{l}`"),
    })
}
