//! The `tensor_kernel!` procedural macro. It only converts between `proc_macro` and `proc_macro2`,
//! finds the name the calling crate gave the facade, and turns compiler errors into spanned
//! `compile_error!`s; everything else is `sparse-compiler`.
//!
//! What belongs here: that shell and nothing more, so the compiler stays testable as a plain
//! library.

use proc_macro::TokenStream;
use proc_macro_crate::{FoundCrate, crate_name};
use sparse_compiler::emit::Root;

/// Compiles an index-notation kernel into a Rust function. The language is documented on the
/// facade's re-export, `sparse::tensor_kernel`.
#[proc_macro]
pub fn tensor_kernel(input: TokenStream) -> TokenStream {
    let input = proc_macro2::TokenStream::from(input);
    // A panic would be a compiler bug; report it at the invocation instead of aborting the build
    // with a backtrace.
    let root = facade_root();
    let compiled = std::panic::catch_unwind(|| sparse_compiler::compile_with_root(input, &root));
    let Ok(compiled) = compiled else {
        let kind = sparse_compiler::ErrorKind::Internal("the compiler panicked".into());
        let error = sparse_compiler::Error::new(proc_macro2::Span::call_site(), kind);
        return error.to_syn().to_compile_error().into();
    };
    match compiled {
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

/// The path of the facade in the calling crate, read from its manifest: `::sp` when it depends
/// on `sp = { package = "sparse", .. }`. The facade itself, its tests, examples and doctests name
/// it `::sparse` (the library declares `extern crate self as sparse`). Where the manifest cannot
/// be read or does not name the package, `::sparse` is still the best guess.
fn facade_root() -> Root {
    match crate_name("sparse") {
        Ok(FoundCrate::Name(name)) => Root::named(&name).unwrap_or_default(),
        Ok(FoundCrate::Itself) | Err(_) => Root::default(),
    }
}
