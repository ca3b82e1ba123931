//! The compiler of `sparse` as a plain library (no `proc_macro`), so it can be tested and driven by
//! the code viewer as well as by the `tensor_kernel!` macro.
//!
//! ```text
//! tokens --syntax--> AST --format::resolve--> level lists --notation--> concrete index notation
//!        --schedule--> scheduled notation --lower (lattice, format level functions)--> ir::Kernel
//!        --emit::rust--> Rust tokens
//! ```
//!
//! Each stage is a module with one job, and data flows one way: a stage uses the types of earlier
//! stages and of `ir`, never of a later one (DESIGN.md §2). Only `syntax` and `emit` use syn/quote.
//! Errors are [`Error`]s with spans; the macro shell turns them into `compile_error!`s.

pub mod error;
pub mod format;
pub mod ir;
pub mod syntax;

pub use error::{Error, ErrorKind, Errors};

use proc_macro2::TokenStream;

/// Compiles the body of a `tensor_kernel!` invocation into the tokens it expands to.
pub fn compile(input: TokenStream) -> Result<TokenStream, Errors> {
    let kernel = syntax::parse_kernel(input).map_err(|e| vec![Error::from(e)])?;
    let _formats = format::resolve_formats(&kernel)?;
    Err(vec![Error::new(
        kernel.name.span(),
        ErrorKind::Unsupported("code generation lands with the compiler issue".into()),
    )])
}
