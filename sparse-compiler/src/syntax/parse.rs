//! The grammar of DESIGN.md §1 as syn parsers: one `impl Parse` per clause of the AST, and a
//! precedence loop for expressions.
//!
//! ```text
//! kernel     := attrs [vis] `fn` NAME `;` assignment `;` [formats `;`] [schedule `;`]
//! assignment := access (`=` | `+=`) expr
//! expr       := expr (`+` | `-`) expr | expr (`*` | `/`) expr | `-` expr | `(` expr `)`
//!             | INT | FLOAT | access
//! access     := NAME [`(` NAME, ... `)`]
//! formats    := `formats` `<` (NAME `:` format), ... `>`
//! format     := NAME [`(` INT, ... `)`] | `(` level, ... `)` [`order` `(` INT, ... `)`]
//! level      := NAME [`(` NAME, ... `)`]
//! schedule   := `schedule` `<` (`auto` | command (`.` command)*) `>`
//! command    := NAME `(` (NAME | INT | expr), ... `)`
//! ```
//!
//! Every error is a `syn::Error` spanned on the token where the grammar stopped matching, saying
//! what was expected there and what was found. Nothing is resolved: level, format and command
//! names are kept as identifiers for `format::resolve` and `schedule`. Tensor and index names are
//! checked here to be plain identifiers (no keyword, no raw identifier, no `__` prefix, which the
//! generator reserves for its own names), because they become names in the generated code.

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream, Parser};
use syn::{Attribute, Ident, LitFloat, LitInt, Token, Visibility, parenthesized, token};

use super::ast::{
    Access, AssignOp, Assignment, BinOp, Command, CommandArg, Expr, FormatDecl, FormatExpr, Kernel,
    LevelDecl, Literal, LiteralValue, Schedule,
};

/// The words of the grammar that are not Rust keywords.
mod kw {
    syn::custom_keyword!(formats);
    syn::custom_keyword!(schedule);
    syn::custom_keyword!(order);
    syn::custom_keyword!(auto);
}

/// Parses the body of a `tensor_kernel!` invocation.
pub fn parse_kernel(tokens: TokenStream) -> syn::Result<Kernel> {
    Kernel::parse.parse2(tokens)
}

impl Parse for Kernel {
    fn parse(input: ParseStream) -> syn::Result<Self> {
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
        end_clause(input, &format!("`fn {name}`"))?;
        if input.is_empty() {
            let message = format!(
                "kernel `{name}` has no statement; expected one such as `y(i) = A(i,j) * x(j);` \
                 after `fn {name};`"
            );
            return Err(syn::Error::new(name.span(), message));
        }
        let assignment: Assignment = input.parse()?;
        let (formats, schedule) = parse_clauses(input)?;
        Ok(Kernel {
            attrs,
            vis,
            name,
            assignment,
            formats,
            schedule,
        })
    }
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

/// The optional `formats<...>;` and `schedule<...>;` clauses, in that order, each at most once.
fn parse_clauses(input: ParseStream) -> syn::Result<(Vec<FormatDecl>, Option<Schedule>)> {
    let mut formats: Option<Vec<FormatDecl>> = None;
    let mut schedule: Option<Schedule> = None;
    while !input.is_empty() {
        if input.peek(kw::formats) {
            let keyword = input.parse::<kw::formats>()?;
            if schedule.is_some() {
                let message = "`formats<...>` must come before `schedule<...>`";
                return Err(syn::Error::new(keyword.span, message));
            }
            if formats.is_some() {
                let message = "`formats<...>` is written twice; give every format in one clause";
                return Err(syn::Error::new(keyword.span, message));
            }
            formats = Some(parse_formats(input)?);
            end_clause(input, "`formats<...>`")?;
        } else if input.peek(kw::schedule) {
            let keyword = input.parse::<kw::schedule>()?;
            if schedule.is_some() {
                let message = "`schedule<...>` is written twice; chain every command in one clause";
                return Err(syn::Error::new(keyword.span, message));
            }
            schedule = Some(parse_schedule(input)?);
            end_clause(input, "`schedule<...>`")?;
        } else {
            let expected = match (&formats, &schedule) {
                (_, Some(_)) => "nothing after `schedule<...>`, the last clause",
                (Some(_), None) => "`schedule<...>` after `formats<...>`",
                (None, None) => {
                    "`formats<...>` or `schedule<...>` after the statement (a kernel has one \
                     statement)"
                }
            };
            return Err(error_at_next(input, expected));
        }
    }
    Ok((formats.unwrap_or_default(), schedule))
}

impl Parse for Assignment {
    fn parse(input: ParseStream) -> syn::Result<Self> {
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
        end_statement(input)?;
        Ok(Assignment {
            lhs,
            op,
            op_span,
            rhs,
        })
    }
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

/// How tightly a binary operator binds: a loop over these replaces one function per level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Precedence {
    /// `+`, `-`.
    Sum,
    /// `*`, `/`.
    Product,
    /// Unary `-` and operands: nothing binary binds this tightly.
    Prefix,
}

impl Precedence {
    fn of(op: BinOp) -> Self {
        match op {
            BinOp::Add | BinOp::Sub => Precedence::Sum,
            BinOp::Mul | BinOp::Div => Precedence::Product,
        }
    }

    /// The precedence a right operand must have, which makes operators left-associative.
    fn tighter(self) -> Self {
        match self {
            Precedence::Sum => Precedence::Product,
            Precedence::Product | Precedence::Prefix => Precedence::Prefix,
        }
    }
}

/// A right-hand-side expression.
fn parse_expr(input: ParseStream) -> syn::Result<Expr> {
    parse_binary(input, Precedence::Sum)
}

/// Operands joined by operators of at least `min` precedence, folded to the left.
fn parse_binary(input: ParseStream, min: Precedence) -> syn::Result<Expr> {
    let mut lhs = parse_unary(input)?;
    while let Some(op) = peek_binop(input) {
        let precedence = Precedence::of(op);
        if precedence < min {
            break;
        }
        let span = parse_binop(input, op)?;
        let rhs = parse_binary(input, precedence.tighter())?;
        lhs = Expr::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
            span,
        };
    }
    Ok(lhs)
}

/// The binary operator that comes next, if any (`+=` and the like are not operators here).
fn peek_binop(input: ParseStream) -> Option<BinOp> {
    let compound = input.peek(Token![+=])
        || input.peek(Token![-=])
        || input.peek(Token![->])
        || input.peek(Token![*=])
        || input.peek(Token![/=]);
    if compound {
        None
    } else if input.peek(Token![+]) {
        Some(BinOp::Add)
    } else if input.peek(Token![-]) {
        Some(BinOp::Sub)
    } else if input.peek(Token![*]) {
        Some(BinOp::Mul)
    } else if input.peek(Token![/]) {
        Some(BinOp::Div)
    } else {
        None
    }
}

/// Consumes the operator `op`, returning its span.
fn parse_binop(input: ParseStream, op: BinOp) -> syn::Result<Span> {
    Ok(match op {
        BinOp::Add => input.parse::<Token![+]>()?.span,
        BinOp::Sub => input.parse::<Token![-]>()?.span,
        BinOp::Mul => input.parse::<Token![*]>()?.span,
        BinOp::Div => input.parse::<Token![/]>()?.span,
    })
}

/// `-operand` or an operand.
fn parse_unary(input: ParseStream) -> syn::Result<Expr> {
    if input.peek(Token![-]) && !input.peek(Token![-=]) && !input.peek(Token![->]) {
        let span = input.parse::<Token![-]>()?.span;
        let operand = parse_unary(input)?;
        return Ok(Expr::Neg {
            operand: Box::new(operand),
            span,
        });
    }
    parse_operand(input)
}

/// A parenthesized expression, a literal or an access.
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
    } else if input.peek(Ident::peek_any) {
        parse_access(input, "a tensor name").map(Expr::Access)
    } else {
        Err(error_at_next(input, "a tensor access, a number or `(`"))
    }
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

/// Literals take the kernel's value type, so a suffix such as `f32` has no meaning.
fn reject_suffix(suffix: &str, span: Span) -> syn::Result<()> {
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
fn parse_access(input: ParseStream, what: &str) -> syn::Result<Access> {
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
fn parse_name(input: ParseStream, what: &str) -> syn::Result<Ident> {
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

/// `<A: csr, B: (dense, compressed)>`, after the `formats` keyword.
fn parse_formats(input: ParseStream) -> syn::Result<Vec<FormatDecl>> {
    open_angle(input, "formats")?;
    let mut decls = Vec::new();
    while !input.peek(Token![>]) {
        decls.push(input.parse::<FormatDecl>()?);
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        } else if input.peek(kw::order) {
            let message = "a mode order applies to a level list, as in `(dense, compressed) \
                           order(1, 0)`";
            return Err(syn::Error::new(input.span(), message));
        } else if !input.peek(Token![>]) {
            return Err(error_at_next(input, "`,` or `>` after a format"));
        }
    }
    input.parse::<Token![>]>()?;
    Ok(decls)
}

/// The `<` that opens a clause's list.
fn open_angle(input: ParseStream, clause: &str) -> syn::Result<()> {
    if !input.peek(Token![<]) {
        return Err(error_at_next(input, &format!("`<` after `{clause}`")));
    }
    input.parse::<Token![<]>()?;
    Ok(())
}

impl Parse for FormatDecl {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let tensor = parse_name(input, "a tensor name")?;
        if !input.peek(Token![:]) || input.peek(Token![::]) {
            let expected = format!("`:` after `{tensor}`, as in `{tensor}: csr`");
            return Err(error_at_next(input, &expected));
        }
        input.parse::<Token![:]>()?;
        let format = input.parse()?;
        Ok(FormatDecl { tensor, format })
    }
}

impl Parse for FormatExpr {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(token::Paren) {
            parse_level_list(input)
        } else if input.peek(Ident::peek_any) {
            let name = input.call(Ident::parse_any)?;
            let mut span = name.span();
            let mut args = Vec::new();
            if input.peek(token::Paren) {
                let content;
                let paren = parenthesized!(content in input);
                args = parse_integers(&content, "an integer argument")?;
                span = join(span, paren.span.join());
            }
            Ok(FormatExpr::Named { name, args, span })
        } else {
            let expected = "a format such as `csr`, or a level list such as `(dense, compressed)`";
            Err(error_at_next(input, expected))
        }
    }
}

/// `(dense, compressed(unordered)) [order(1, 0)]`.
fn parse_level_list(input: ParseStream) -> syn::Result<FormatExpr> {
    let content;
    let paren = parenthesized!(content in input);
    let mut levels = Vec::new();
    while !content.is_empty() {
        levels.push(content.parse::<LevelDecl>()?);
        if !content.is_empty() {
            expect_comma(&content, "a level")?;
        }
    }
    let mut span = paren.span.join();
    let mut order = None;
    if input.peek(kw::order) {
        let keyword = input.parse::<kw::order>()?;
        if !input.peek(token::Paren) {
            let expected = "the dimension stored by each level after `order`, as in `order(1, 0)`";
            return Err(error_at_next(input, expected));
        }
        let dims;
        let dims_paren = parenthesized!(dims in input);
        let list = parse_integers(&dims, "a dimension number")?;
        // Where spans cannot be joined, the list itself is the better place to point at.
        let list_span = dims_paren.span.join();
        let order_span = keyword.span.join(list_span).unwrap_or(list_span);
        span = join(span, order_span);
        order = Some((list, order_span));
    }
    Ok(FormatExpr::Levels {
        levels,
        order,
        span,
    })
}

impl Parse for LevelDecl {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if !input.peek(Ident::peek_any) {
            let expected = "a level format such as `dense` or `compressed`";
            return Err(error_at_next(input, expected));
        }
        let kind = input.call(Ident::parse_any)?;
        let mut properties = Vec::new();
        if input.peek(token::Paren) {
            let content;
            parenthesized!(content in input);
            while !content.is_empty() {
                if !content.peek(Ident::peek_any) {
                    let expected = "a level property such as `unordered` or `nonunique`";
                    return Err(error_at_next(&content, expected));
                }
                properties.push(content.call(Ident::parse_any)?);
                if !content.is_empty() {
                    expect_comma(&content, "a property")?;
                }
            }
        }
        Ok(LevelDecl { kind, properties })
    }
}

/// Comma-separated nonnegative integers without suffix, each with its span.
fn parse_integers(content: ParseStream, what: &str) -> syn::Result<Vec<(usize, Span)>> {
    let mut values = Vec::new();
    while !content.is_empty() {
        if !content.peek(LitInt) {
            return Err(error_at_next(content, what));
        }
        let lit: LitInt = content.parse()?;
        reject_suffix(lit.suffix(), lit.span())?;
        let value = lit.base10_parse::<usize>().map_err(|_| {
            let message = format!("expected {what}, found `{lit}`");
            syn::Error::new(lit.span(), message)
        })?;
        values.push((value, lit.span()));
        if !content.is_empty() {
            expect_comma(content, "an integer")?;
        }
    }
    Ok(values)
}

/// The `,` between two items of a parenthesized list.
fn expect_comma(content: ParseStream, item: &str) -> syn::Result<()> {
    if !content.peek(Token![,]) {
        return Err(error_at_next(content, &format!("`,` or `)` after {item}")));
    }
    content.parse::<Token![,]>()?;
    Ok(())
}

/// `<auto>` or `<cmd(...).cmd(...)>`, after the `schedule` keyword.
fn parse_schedule(input: ParseStream) -> syn::Result<Schedule> {
    open_angle(input, "schedule")?;
    if input.peek(kw::auto) && !input.peek2(token::Paren) {
        let keyword = input.parse::<kw::auto>()?;
        close_angle(input, "`>` after `auto`, which stands alone")?;
        return Ok(Schedule::Auto(keyword.span));
    }
    let mut commands = vec![input.parse::<Command>()?];
    while input.peek(Token![.]) {
        input.parse::<Token![.]>()?;
        commands.push(input.parse()?);
    }
    close_angle(input, "`.` and another command, or `>` to end the schedule")?;
    Ok(Schedule::Commands(commands))
}

/// The `>` that closes a clause's list.
fn close_angle(input: ParseStream, expected: &str) -> syn::Result<()> {
    if !input.peek(Token![>]) {
        return Err(error_at_next(input, expected));
    }
    input.parse::<Token![>]>()?;
    Ok(())
}

impl Parse for Command {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if !input.peek(Ident::peek_any) {
            let expected = "`auto` or a scheduling command such as `split(i, i0, i1, Down, 16)`";
            return Err(error_at_next(input, expected));
        }
        let name = input.call(Ident::parse_any)?;
        if !input.peek(token::Paren) {
            return Err(error_at_next(input, &format!("`(` after `{name}`")));
        }
        let content;
        let paren = parenthesized!(content in input);
        let mut args = Vec::new();
        while !content.is_empty() {
            args.push(content.parse::<CommandArg>()?);
            if content.is_empty() {
                break;
            }
            if !content.peek(Token![,]) {
                return Err(error_after_operand(
                    &content,
                    "`,` or `)` after an argument",
                ));
            }
            content.parse::<Token![,]>()?;
        }
        let span = join(name.span(), paren.span.join());
        Ok(Command { name, args, span })
    }
}

impl Parse for CommandArg {
    /// An expression, kept as an identifier or an integer when it is no more than that.
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let expr = parse_expr(input)?;
        if let Some((n, span)) = as_index_integer(&expr) {
            return Ok(CommandArg::Int(n, span));
        }
        Ok(match expr {
            Expr::Access(access) if access.indices.is_empty() => CommandArg::Ident(access.tensor),
            expr => CommandArg::Expr(expr),
        })
    }
}

/// The value of an integer literal that fits a `usize`.
fn as_index_integer(expr: &Expr) -> Option<(usize, Span)> {
    match expr {
        Expr::Literal(Literal {
            value: LiteralValue::Int(n),
            span,
        }) => usize::try_from(*n).ok().map(|n| (n, *span)),
        _ => None,
    }
}

/// A span covering `a` through `b` where the compiler can join spans, else `a`.
fn join(a: Span, b: Span) -> Span {
    a.join(b).unwrap_or(a)
}

/// "expected {expected}, found `tok`", spanned on the next token (or at the end of the input).
fn error_at_next(input: ParseStream, expected: &str) -> syn::Error {
    match describe_next(input) {
        Some(found) => syn::Error::new(input.span(), format!("expected {expected}, found {found}")),
        None => input.error(format!("expected {expected}")),
    }
}

/// The error for a token after a complete operand that does not continue the expression: an
/// operator of Rust that index notation lacks gets its own message.
fn error_after_operand(input: ParseStream, closer: &str) -> syn::Error {
    let is_foreign_operator = input
        .cursor()
        .punct()
        .is_some_and(|(p, _)| "%^&|!<>=".contains(p.as_char()));
    match describe_next(input) {
        Some(found) if is_foreign_operator => {
            let message =
                format!("unsupported operator {found}; index notation has `+`, `-`, `*` and `/`");
            syn::Error::new(input.span(), message)
        }
        _ => error_at_next(
            input,
            &format!("an operator `+`, `-`, `*`, `/` or {closer}"),
        ),
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

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    /// A fully parenthesized print of an expression, written independently of the parser.
    fn show(e: &Expr) -> String {
        match e {
            Expr::Access(a) => show_access(a),
            Expr::Literal(Literal {
                value: LiteralValue::Int(n),
                ..
            }) => n.to_string(),
            Expr::Literal(Literal {
                value: LiteralValue::Float(x),
                ..
            }) => format!("{x:?}"),
            Expr::Neg { operand, .. } => format!("(-{})", show(operand)),
            Expr::Binary { op, lhs, rhs, .. } => {
                let op = match op {
                    BinOp::Add => "+",
                    BinOp::Sub => "-",
                    BinOp::Mul => "*",
                    BinOp::Div => "/",
                };
                format!("({} {op} {})", show(lhs), show(rhs))
            }
        }
    }

    fn show_access(a: &Access) -> String {
        if a.indices.is_empty() {
            return a.tensor.to_string();
        }
        let indices: Vec<String> = a.indices.iter().map(Ident::to_string).collect();
        format!("{}({})", a.tensor, indices.join(","))
    }

    fn show_arg(arg: &CommandArg) -> String {
        match arg {
            CommandArg::Ident(i) => format!("ident {i}"),
            CommandArg::Int(n, _) => format!("int {n}"),
            CommandArg::Expr(e) => format!("expr {}", show(e)),
        }
    }

    fn rhs(tokens: TokenStream) -> String {
        let kernel = parse_kernel(tokens).expect("parses");
        show(&kernel.assignment.rhs)
    }

    fn error(tokens: TokenStream) -> String {
        match parse_kernel(tokens) {
            Ok(_) => panic!("parsed, but an error was expected"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn the_design_example_parses_clause_by_clause() {
        let kernel = parse_kernel(quote! {
            /// y = A x.
            #[inline]
            pub fn spmv;
            y(i) = A(i,j) * x(j);
            formats< y: dense, A: csr, x: dense >;
            schedule< collapse(i,j,f).pos(f,p,A).split(p,p0,p1,Down,16).parallelize(p0,CpuThread,Atomics) >;
        })
        .expect("parses");
        assert_eq!(kernel.attrs.len(), 2);
        assert!(matches!(kernel.vis, Visibility::Public(_)));
        assert_eq!(kernel.name, "spmv");
        assert_eq!(show_access(&kernel.assignment.lhs), "y(i)");
        assert_eq!(kernel.assignment.op, AssignOp::Assign);
        assert_eq!(show(&kernel.assignment.rhs), "(A(i,j) * x(j))");
        let formats: Vec<String> = kernel
            .formats
            .iter()
            .map(|d| match &d.format {
                FormatExpr::Named { name, args, .. } => format!("{}:{name}{args:?}", d.tensor)
                    .replace(", Span", "")
                    .replace("[]", ""),
                FormatExpr::Levels { .. } => "levels".to_owned(),
            })
            .collect();
        assert_eq!(formats, ["y:dense", "A:csr", "x:dense"]);
        let Some(Schedule::Commands(commands)) = &kernel.schedule else {
            panic!("expected commands");
        };
        let names: Vec<String> = commands.iter().map(|c| c.name.to_string()).collect();
        assert_eq!(names, ["collapse", "pos", "split", "parallelize"]);
        let split: Vec<String> = commands[2].args.iter().map(show_arg).collect();
        assert_eq!(
            split,
            ["ident p", "ident p0", "ident p1", "ident Down", "int 16"]
        );
    }

    #[test]
    fn binary_operators_follow_precedence_and_associate_left() {
        let e = rhs(quote! { fn k; y(i) = a(i) - b(i) - c(i) * d(i) / e(i) + f(i); });
        assert_eq!(e, "(((a(i) - b(i)) - ((c(i) * d(i)) / e(i))) + f(i))");
        let e = rhs(quote! { fn k; y(i) = a(i) / b(i) / c(i); });
        assert_eq!(e, "((a(i) / b(i)) / c(i))");
    }

    #[test]
    fn unary_minus_parentheses_literals_and_scalars() {
        let e = rhs(quote! { fn k; y(i) = -(a(i) + b(i)) * -2 + 1.5 * alpha; });
        assert_eq!(e, "(((-(a(i) + b(i))) * (-2)) + (1.5 * alpha))");
        let e = rhs(quote! { fn k; y(i) = a(i) - -b(i); });
        assert_eq!(e, "(a(i) - (-b(i)))");
        let e = rhs(quote! { fn k; y(i) = ((a(i))); });
        assert_eq!(e, "a(i)");
    }

    #[test]
    fn accumulation_into_a_scalar_output() {
        let kernel = parse_kernel(quote! { fn dot; s += B(i,j,k) * C(i,j,k); }).expect("parses");
        assert_eq!(kernel.assignment.op, AssignOp::AddAssign);
        assert!(kernel.assignment.lhs.indices.is_empty());
        assert_eq!(kernel.assignment.lhs.tensor, "s");
        assert!(matches!(kernel.vis, Visibility::Inherited));
        assert!(kernel.formats.is_empty() && kernel.schedule.is_none());
    }

    #[test]
    fn level_lists_keep_properties_and_the_mode_order() {
        let kernel = parse_kernel(quote! {
            fn k; y(i) = B(i,j) * x(j);
            formats< B: (dense, compressed(unordered, nonunique)) order(1, 0), x: bcsr(4, 2) >;
        })
        .expect("parses");
        let FormatExpr::Levels { levels, order, .. } = &kernel.formats[0].format else {
            panic!("expected a level list");
        };
        let kinds: Vec<String> = levels.iter().map(|l| l.kind.to_string()).collect();
        assert_eq!(kinds, ["dense", "compressed"]);
        let props: Vec<String> = levels[1].properties.iter().map(Ident::to_string).collect();
        assert_eq!(props, ["unordered", "nonunique"]);
        assert!(levels[0].properties.is_empty());
        let dims: Vec<usize> = order
            .as_ref()
            .expect("order")
            .0
            .iter()
            .map(|d| d.0)
            .collect();
        assert_eq!(dims, [1, 0]);
        let FormatExpr::Named { name, args, .. } = &kernel.formats[1].format else {
            panic!("expected a named format");
        };
        assert_eq!(name, "bcsr");
        assert_eq!(args.iter().map(|a| a.0).collect::<Vec<_>>(), [4, 2]);
    }

    #[test]
    fn schedule_auto_and_expression_arguments() {
        let kernel =
            parse_kernel(quote! { fn k; y(i) = A(i,j) * x(j); schedule<auto>; }).expect("parses");
        assert!(matches!(kernel.schedule, Some(Schedule::Auto(_))));
        let kernel = parse_kernel(quote! {
            fn k; y(i) = A(i,j) * x(j);
            schedule< precompute(A(i,j) * x(j), i, iw, W).assemble(y(i), Append).unroll(i, 4) >;
        })
        .expect("parses");
        let Some(Schedule::Commands(commands)) = &kernel.schedule else {
            panic!("expected commands");
        };
        let args: Vec<Vec<String>> = commands
            .iter()
            .map(|c| c.args.iter().map(show_arg).collect())
            .collect();
        assert_eq!(
            args,
            [
                vec!["expr (A(i,j) * x(j))", "ident i", "ident iw", "ident W"],
                vec!["expr y(i)", "ident Append"],
                vec!["ident i", "int 4"],
            ]
        );
    }

    #[test]
    fn a_missing_final_semicolon_is_accepted() {
        assert!(parse_kernel(quote! { fn k; y(i) = x(i) }).is_ok());
        assert!(parse_kernel(quote! { fn k; y(i) = x(i); formats<x: sparse> }).is_ok());
        assert!(parse_kernel(quote! { fn k; y(i) = x(i); schedule<auto> }).is_ok());
        assert!(parse_kernel(quote! { fn k; y(i) = x(i); formats<x: sparse,>; }).is_ok());
    }

    #[test]
    fn statement_errors_say_what_was_expected() {
        assert_eq!(
            error(quote! { fn k; y(i) = A(i,j) * x(j) formats<A: csr>; }),
            "expected `;` after the statement, found `formats`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = a(i) % b(i); }),
            "unsupported operator `%`; index notation has `+`, `-`, `*` and `/`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = (a(i) ^ b(i)); }),
            "unsupported operator `^`; index notation has `+`, `-`, `*` and `/`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) -= a(i); }),
            "expected `=` or `+=` after the output access, found `-=`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = a(i) * ; }),
            "expected a tensor access, a number or `(`, found `;`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = a(i + 1); }),
            "expected `,` or `)` after an index variable (indices are plain variables), found `+`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = a(); }),
            "a scalar tensor is written without parentheses: `a`, not `a()`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = 2.0f32 * a(i); }),
            "literal suffix `f32` is not allowed: a literal takes the kernel's value type; write \
             `2` or `2.0`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = a(i); z(i) = b(i); }),
            "expected `formats<...>` or `schedule<...>` after the statement (a kernel has one \
             statement), found `z`"
        );
    }

    #[test]
    fn names_must_be_plain_identifiers() {
        assert_eq!(
            error(quote! { fn k; y(i) = match(i); }),
            "expected a tensor name, found keyword `match`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = a(i, in); }),
            "expected an index variable, found keyword `in`"
        );
        assert_eq!(
            error(quote! { fn k; y(__i) = a(__i); }),
            "`__i`: names starting with `__` are reserved for the code the kernel generates"
        );
        assert_eq!(
            error(quote! { fn k; __y(i) = a(i); }),
            "`__y`: names starting with `__` are reserved for the code the kernel generates"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = a(i); formats<type: csr>; }),
            "expected a tensor name, found keyword `type`"
        );
        assert_eq!(
            error(quote! { fn k; y(_) = a(_); }),
            "expected an index variable, found keyword `_`"
        );
    }

    #[test]
    fn header_errors_say_what_was_expected() {
        assert_eq!(
            error(quote! { spmv; y(i) = a(i); }),
            "expected `fn NAME;` naming the kernel, found `spmv`"
        );
        assert_eq!(
            error(quote! { fn spmv y(i) = a(i); }),
            "expected `;` after `fn spmv`, found `y`"
        );
        assert_eq!(
            error(quote! { pub fn spmv; }),
            "kernel `spmv` has no statement; expected one such as `y(i) = A(i,j) * x(j);` after \
             `fn spmv;`"
        );
        assert_eq!(
            error(quote! {}),
            "unexpected end of input, expected `fn NAME;` naming the kernel"
        );
    }

    #[test]
    fn clause_errors_say_what_was_expected() {
        assert_eq!(
            error(quote! { fn k; y(i) = a(i); schedule<auto>; formats<a: sparse>; }),
            "`formats<...>` must come before `schedule<...>`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = a(i); formats<a: sparse>; formats<y: sparse>; }),
            "`formats<...>` is written twice; give every format in one clause"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = a(i); formats<a: sparse> schedule<auto>; }),
            "expected `;` after `formats<...>`, found `schedule`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = a(i); schedule<auto>; extra }),
            "expected nothing after `schedule<...>`, the last clause, found `extra`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = a(i); formats(a: sparse); }),
            "expected `<` after `formats`, found `(`"
        );
    }

    #[test]
    fn format_errors_say_what_was_expected() {
        assert_eq!(
            error(quote! { fn k; y(i) = a(i); formats<a sparse>; }),
            "expected `:` after `a`, as in `a: csr`, found `sparse`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = a(i); formats<a: sparse b: dense>; }),
            "expected `,` or `>` after a format, found `b`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = A(i,j); formats<A: csr order(1, 0)>; }),
            "a mode order applies to a level list, as in `(dense, compressed) order(1, 0)`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = A(i,j); formats<A: (dense compressed)>; }),
            "expected `,` or `)` after a level, found `compressed`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = A(i,j); formats<A: (dense, compressed) order(x)>; }),
            "expected a dimension number, found `x`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = A(i,j); formats<A: bcsr(4, -4)>; }),
            "expected an integer argument, found `-4`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = A(i,j); formats<A: bcsr(4, 99999999999999999999999)>; }),
            "expected an integer argument, found `99999999999999999999999`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = A(i,j); formats<A: 3>; }),
            "expected a format such as `csr`, or a level list such as `(dense, compressed)`, \
             found `3`"
        );
    }

    #[test]
    fn schedule_errors_say_what_was_expected() {
        assert_eq!(
            error(quote! { fn k; y(i) = a(i); schedule<>; }),
            "expected `auto` or a scheduling command such as `split(i, i0, i1, Down, 16)`, found \
             `>`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = a(i); schedule<auto.split(i, i0, i1, Down, 4)>; }),
            "expected `>` after `auto`, which stands alone, found `.`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = a(i); schedule<reorder>; }),
            "expected `(` after `reorder`, found `>`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = a(i); schedule<split(i, i0 i1)>; }),
            "expected an operator `+`, `-`, `*`, `/` or `,` or `)` after an argument, found `i1`"
        );
        assert_eq!(
            error(quote! { fn k; y(i) = a(i); schedule<reorder(i) reorder(i)>; }),
            "expected `.` and another command, or `>` to end the schedule, found `reorder`"
        );
    }
}
