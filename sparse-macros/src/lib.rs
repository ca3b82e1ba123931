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
        // The macro expands in item position, where consecutive `compile_error! { .. }`
        // invocations are separate items: every error is reported.
        Err(errors) => {
            let mut out = proc_macro2::TokenStream::new();
            out.extend(errors.iter().map(|e| e.to_syn().to_compile_error()));
            out.into()
        }
    }
}
