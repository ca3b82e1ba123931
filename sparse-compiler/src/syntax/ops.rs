//! The `ops<...>` clause: user-defined operators, and the check, once every clause is parsed,
//! that each call and each `reduce<...>` operator names one that exists.
//!
//! ```text
//! ops    := `ops` `<` (def `;`)* `>`
//! def    := NAME `(` NAME, ... `)` `=` expr [`over` region] (`when` region `=>` expr)*
//!           [`identity` value] [`annihilator` value]
//! region := region `|` region | region `&` region | `!` region | `(` region `)` | NAME
//! ```
//!
//! `&` binds tighter than `|`, as in Rust. A definition ends with `;`, so a body may compare with
//! `>`.

use proc_macro2::Span;
use syn::parse::ParseStream;
use syn::{Ident, Token, parenthesized, token};

use super::ast::{Access, Expr, Kernel, LiteralValue, OpDef, ReduceDecl, Region};
use super::expr::parse_expr;
use super::parse::{error_at_next, open_angle, parse_fill_value, parse_name};
use crate::algebra::{FUNCTIONS, Op};

/// The words of a definition.
mod kw {
    syn::custom_keyword!(over);
    syn::custom_keyword!(when);
    syn::custom_keyword!(identity);
    syn::custom_keyword!(annihilator);
}

/// `<f(x, y) = x + y over x & y; ...>`, after the `ops` keyword.
pub(super) fn parse_ops(input: ParseStream) -> syn::Result<Vec<OpDef>> {
    open_angle(input, "ops")?;
    let mut ops: Vec<OpDef> = Vec::new();
    while !input.peek(Token![>]) {
        let def = parse_def(input, &ops)?;
        ops.push(def);
        if !input.peek(Token![;]) {
            return Err(error_at_next(input, "`;` after an operator's definition"));
        }
        input.parse::<Token![;]>()?;
    }
    input.parse::<Token![>]>()?;
    Ok(ops)
}

/// One definition; `earlier` are the ones before it, which its bodies may call.
fn parse_def(input: ParseStream, earlier: &[OpDef]) -> syn::Result<OpDef> {
    let name = parse_name(input, "an operator's name")?;
    check_new_name(&name, earlier)?;
    let params = parse_params(input, &name)?;
    if !input.peek(Token![=]) || input.peek(Token![==]) || input.peek(Token![=>]) {
        return Err(error_at_next(
            input,
            &format!("`=` and the body of `{name}`"),
        ));
    }
    input.parse::<Token![=]>()?;
    let body = parse_body(input, &params, earlier)?;
    let over = match input.peek(kw::over) {
        true => {
            input.parse::<kw::over>()?;
            Some(parse_region(input, &params)?)
        }
        false => None,
    };
    let mut whens = Vec::new();
    while input.peek(kw::when) {
        input.parse::<kw::when>()?;
        let region = parse_region(input, &params)?;
        if !input.peek(Token![=>]) {
            return Err(error_at_next(input, "`=>` after a `when` region"));
        }
        input.parse::<Token![=>]>()?;
        whens.push((region, parse_body(input, &params, earlier)?));
    }
    let identity = parse_value::<kw::identity>(input, kw::identity)?;
    let annihilator = parse_value::<kw::annihilator>(input, kw::annihilator)?;
    Ok(OpDef {
        name,
        params,
        body,
        over,
        whens,
        identity,
        annihilator,
    })
}

/// A user operator may neither take a built-in function's name nor another operator's.
fn check_new_name(name: &Ident, earlier: &[OpDef]) -> syn::Result<()> {
    let message = if Op::function(&name.to_string()).is_some() {
        format!("`{name}` is a built-in function; give the operator another name")
    } else if earlier.iter().any(|d| d.name == *name) {
        format!("the operator `{name}` is defined twice")
    } else {
        return Ok(());
    };
    Err(syn::Error::new(name.span(), message))
}

/// `(x, y)`: one or more distinct parameter names.
fn parse_params(input: ParseStream, name: &Ident) -> syn::Result<Vec<Ident>> {
    if !input.peek(token::Paren) {
        return Err(error_at_next(
            input,
            &format!("`(` and the parameters of `{name}`"),
        ));
    }
    let content;
    let paren = parenthesized!(content in input);
    let mut params: Vec<Ident> = Vec::new();
    while !content.is_empty() {
        let param = parse_name(&content, "a parameter's name")?;
        if params.contains(&param) {
            let message = format!("the parameter `{param}` is listed twice");
            return Err(syn::Error::new(param.span(), message));
        }
        params.push(param);
        if !content.is_empty() {
            if !content.peek(Token![,]) {
                return Err(error_at_next(&content, "`,` or `)` after a parameter"));
            }
            content.parse::<Token![,]>()?;
        }
    }
    if params.is_empty() {
        let message = format!("`{name}` takes no operands; an operator takes one or more");
        return Err(syn::Error::new(paren.span.join(), message));
    }
    Ok(params)
}

/// A body: an expression over the parameters, which may call the operators defined before.
fn parse_body(input: ParseStream, params: &[Ident], earlier: &[OpDef]) -> syn::Result<Expr> {
    let mut body = parse_expr(input)?;
    resolve_expr(&mut body, earlier, Some(params))?;
    Ok(body)
}

/// `identity v` or `annihilator v`, if it comes next.
fn parse_value<K: syn::parse::Parse>(
    input: ParseStream,
    peek: impl syn::parse::Peek,
) -> syn::Result<Option<(LiteralValue, Span)>> {
    if !input.peek(peek) {
        return Ok(None);
    }
    input.parse::<K>()?;
    parse_fill_value(input).map(Some)
}

/// A region: `|` of `&` of unary regions.
fn parse_region(input: ParseStream, params: &[Ident]) -> syn::Result<Region> {
    let mut region = parse_region_and(input, params)?;
    while input.peek(Token![|]) && !input.peek(Token![||]) {
        input.parse::<Token![|]>()?;
        let rhs = parse_region_and(input, params)?;
        region = Region::Or(Box::new(region), Box::new(rhs));
    }
    Ok(region)
}

fn parse_region_and(input: ParseStream, params: &[Ident]) -> syn::Result<Region> {
    let mut region = parse_region_unary(input, params)?;
    while input.peek(Token![&]) && !input.peek(Token![&&]) {
        input.parse::<Token![&]>()?;
        let rhs = parse_region_unary(input, params)?;
        region = Region::And(Box::new(region), Box::new(rhs));
    }
    Ok(region)
}

fn parse_region_unary(input: ParseStream, params: &[Ident]) -> syn::Result<Region> {
    if input.peek(Token![!]) {
        input.parse::<Token![!]>()?;
        return Ok(Region::Not(Box::new(parse_region_unary(input, params)?)));
    }
    if input.peek(token::Paren) {
        let content;
        parenthesized!(content in input);
        let region = parse_region(&content, params)?;
        if !content.is_empty() {
            return Err(error_at_next(&content, "`&`, `|` or `)` in a region"));
        }
        return Ok(region);
    }
    if !input.peek(Ident) {
        return Err(error_at_next(
            input,
            "an operand's name, `!` or `(` in a region",
        ));
    }
    let name: Ident = input.parse()?;
    match params.iter().position(|p| *p == name) {
        Some(k) => Ok(Region::Param(k)),
        None => {
            let list: Vec<String> = params.iter().map(|p| format!("`{p}`")).collect();
            let message = format!(
                "`{name}` is not an operand of this operator; a region names its operands ({})",
                list.join(", ")
            );
            Err(syn::Error::new(name.span(), message))
        }
    }
}

/// Checks every call of the statement against `kernel.ops` (a call written with bare names,
/// `f(a, b)`, parses as an access and becomes a call here).
pub(super) fn resolve(kernel: &mut Kernel) -> syn::Result<()> {
    resolve_expr(&mut kernel.assignment.rhs, &kernel.ops, None)?;
    let mut written = Vec::new();
    if let Some(cin) = &mut kernel.cin {
        super::cin::assignments_of_mut(cin, &mut written);
    }
    (written.into_iter()).try_for_each(|a| resolve_expr(&mut a.rhs, &kernel.ops, None))
}

/// Resolves the calls of `e` against `ops`; inside a body, `params` are the only names it reads.
fn resolve_expr(e: &mut Expr, ops: &[OpDef], params: Option<&[Ident]>) -> syn::Result<()> {
    if let Expr::Access(a) = e
        && !a.indices.is_empty()
        && ops.iter().any(|d| d.name == a.tensor)
    {
        *e = call_of_access(a);
    }
    match e {
        Expr::Access(a) if params.is_some() && !a.indices.is_empty() => {
            Err(unknown_function(&a.tensor, ops, true))
        }
        Expr::Access(a) => check_operand(a, params),
        Expr::Literal(_) => Ok(()),
        Expr::Op { args, .. } => (args.iter_mut()).try_for_each(|a| resolve_expr(a, ops, params)),
        Expr::Call { name, args, span } => {
            let Some(def) = ops.iter().find(|d| d.name == *name) else {
                return Err(unknown_function(name, ops, params.is_some()));
            };
            if args.len() != def.params.len() {
                let n = def.params.len();
                let takes = if n == 1 {
                    "1 operand".into()
                } else {
                    format!("{n} operands")
                };
                let message = format!("`{name}` takes {takes}, found {}", args.len());
                return Err(syn::Error::new(*span, message));
            }
            (args.iter_mut()).try_for_each(|a| resolve_expr(a, ops, params))
        }
    }
}

/// `f(a, b)` parsed as an access, as the call of `f` with the scalars `a` and `b`.
fn call_of_access(a: &Access) -> Expr {
    let args = (a.indices.iter())
        .map(|i| {
            Expr::Access(Access {
                tensor: i.clone(),
                indices: Vec::new(),
                span: i.span(),
            })
        })
        .collect();
    Expr::Call {
        name: a.tensor.clone(),
        args,
        span: a.span,
    }
}

/// Inside a body, an access is a parameter written without parentheses.
fn check_operand(a: &Access, params: Option<&[Ident]>) -> syn::Result<()> {
    let Some(params) = params else {
        return Ok(());
    };
    if a.indices.is_empty() && params.contains(&a.tensor) {
        return Ok(());
    }
    let list: Vec<String> = params.iter().map(|p| format!("`{p}`")).collect();
    let message = format!(
        "`{}` is not an operand of this operator; its body reads only its operands ({})",
        a.tensor,
        list.join(", ")
    );
    Err(syn::Error::new(a.span, message))
}

/// The message for a call of a name that is neither a function nor a user operator (`ops`: those
/// it may call, the ones defined before a body).
fn unknown_function(name: &Ident, ops: &[OpDef], in_body: bool) -> syn::Error {
    let names: Vec<&str> = FUNCTIONS.iter().map(|(n, _)| *n).collect();
    let mut message = format!(
        "unknown function `{name}`; the functions are {}",
        names.join(", ")
    );
    if !ops.is_empty() {
        let user: Vec<String> = ops.iter().map(|d| d.name.to_string()).collect();
        message += &format!(", and the operators of `ops<...>`: {}", user.join(", "));
    }
    if in_body {
        message += " (a body calls only the operators defined before it)";
    }
    syn::Error::new(name.span(), message)
}

/// `var: name` in `reduce<...>` where `name` is no built-in operator: a user operator of two
/// operands with an identity to start from.
pub(super) fn user_reduction(var: &Ident, name: &Ident, ops: &[OpDef]) -> syn::Result<ReduceDecl> {
    let found = ops.iter().position(|d| d.name == *name);
    let message = match found.map(|k| (k, &ops[k])) {
        None => {
            let list = "`+`, `*`, `min`, `max`, `||`, `&&`";
            format!("unknown reduction operator `{name}`; expected one of {list}")
        }
        Some((k, def)) => match (def.identity, def.params.len(), u16::try_from(k)) {
            (Some((value, _)), 2, Ok(index)) => {
                let identity = match value {
                    LiteralValue::Int(n) => n as f64,
                    LiteralValue::Float(f) => f,
                };
                let op = Op::User {
                    index,
                    identity: identity.to_bits(),
                };
                return Ok(ReduceDecl {
                    var: var.clone(),
                    op,
                    span: name.span(),
                });
            }
            _ => format!(
                "`{name}` cannot reduce: a reduction needs an operator of two operands with an \
                 identity to start from; add `identity v` to its definition"
            ),
        },
    };
    Err(syn::Error::new(name.span(), message))
}
