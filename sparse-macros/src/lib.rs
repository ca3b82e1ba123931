//! The `tensor_kernel!` procedural macro. It only converts between `proc_macro` and `proc_macro2`
//! and turns compiler errors into spanned `compile_error!`s; everything else is `sparse-compiler`.
//!
//! What belongs here: that conversion and nothing more, so the compiler stays testable as a plain
//! library.

use proc_macro::TokenStream;

/// Compiles an index-notation kernel into a Rust function; see the `sparse` crate's documentation.
#[proc_macro]
pub fn tensor_kernel(input: TokenStream) -> TokenStream {
    match sparse_compiler::compile(input.into()) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}
