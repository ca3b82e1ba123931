//! The `formats<...>` clause: named formats with their integer arguments, and explicit level
//! lists with an optional mode order. Names are kept as identifiers for `format::resolve`.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitInt, Token, parenthesized, token};

use super::ast::{FormatDecl, FormatExpr, LevelDecl};
use super::parse::{error_at_next, expect_comma, join, kw, open_angle, parse_name, reject_suffix};

/// `<A: csr, B: (dense, compressed)>`, after the `formats` keyword.
pub(super) fn parse_formats(input: ParseStream) -> syn::Result<Vec<FormatDecl>> {
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
