//! The compiler of `sparse` as a plain library (no `proc_macro`), so it can be tested, fuzzed and
//! driven by the code viewer as well as by the `tensor_kernel!` macro.
//!
//! What belongs here: every stage from the macro's tokens to the Rust it expands to, each a module
//! with one job and data flowing one way (DESIGN.md §2):
//! `syntax` (tokens -> AST with spans) -> `notation` (index notation and concrete index notation)
//! -> `schedule` (transformations and the provenance graph) -> `lattice` (iteration lattices) ->
//! `lower` (imperative IR) -> `emit` (Rust tokens, CUDA C). What does not: anything that runs when
//! the user's program runs (that is `sparse-runtime`).
//!
//! The stages land with the compiler issue; today the crate holds the error type that the macro
//! shell reports.

use proc_macro2::{Span, TokenStream};

/// Compiles the body of a `tensor_kernel!` invocation into the tokens it expands to.
///
/// The compiler stages are not written yet, so every invocation is refused with an error spanned
/// on the whole input.
pub fn compile(input: TokenStream) -> Result<TokenStream, syn::Error> {
    let span = input
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span());
    Err(syn::Error::new(
        span,
        "`tensor_kernel!` is not implemented yet: the compiler stages land with the compiler issue",
    ))
}
