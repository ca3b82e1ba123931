//! Imperative IR -> Rust tokens (docs/architecture.md): the `fn` item a `tensor_kernel!` expands to.
//!
//! Takes a [`Kernel`] and returns one generic function over `T: #root::Scalar` whose parameters
//! are the kernel's tensors (the output first, `&mut`). The body is, in order:
//! 1. the shape checks, each returning `KernelError::ShapeMismatch` before anything is read;
//! 2. the bindings (`bindings.rs`): every dimension, level array and values array the IR uses,
//!    bound once to a local (`__A_l1_pos`), in a deterministic order, with the output's values
//!    last so no later read of the output conflicts with their mutable borrow;
//! 3. the statements (`stmt.rs`; thread regions in `region.rs`, SIMD lanes in `lanes.rs`,
//!    expressions in `expr.rs`), and `Ok(())`.
//!
//! The generated code is safe Rust (no `unsafe` token), names everything through absolute paths
//! (`#root::...` from one [`Root`] value, `::core::...`) so no user import can change its meaning, and carries an
//! `#[allow]` for the lints that generated code cannot help (unused bindings, names that are not
//! snake case, clippy). It relies on the IR's invariants (`ir` module docs), checked first by
//! `ir::verify`; a kernel that breaks them is reported as an internal `compile_error!`, never a
//! panic of the macro. Its own locals are named by `names.rs`, away from the IR's.

mod bindings;
pub mod cuda;
mod expr;
mod lanes;
mod multi;
mod names;
mod region;
mod root;
mod signature;
mod stmt;
#[cfg(test)]
mod tests;
mod windows;

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Visibility};

use crate::ir::Kernel;
use crate::ir::verify::{Stage, verify};
use bindings::Bindings;
pub use multi::{MultiPart, emit_multi};
use names::Locals;
pub use root::Root;
use stmt::Emitter;

/// The Rust function for `kernel`, with the user's attributes (doc comments included) and
/// visibility, naming the facade by `root`.
pub fn emit_rust(
    kernel: &Kernel,
    attrs: &[Attribute],
    vis: &Visibility,
    root: &Root,
) -> TokenStream {
    if let Err(problem) = verify(kernel, Stage::Final) {
        return write_internal_error(&kernel.name, &problem);
    }
    match Bindings::collect(kernel, root) {
        Ok(bindings) => write_function(kernel, &bindings, attrs, vis),
        Err(problem) => write_internal_error(&kernel.name, &problem),
    }
}

fn write_function(
    kernel: &Kernel,
    bindings: &Bindings,
    attrs: &[Attribute],
    vis: &Visibility,
) -> TokenStream {
    let name = bindings::ident(&kernel.name);
    let root = &bindings.root;
    let params = signature::put_params(kernel, root);
    let dims = bindings.put_dims(kernel);
    let mut checks = signature::put_shape_checks(kernel, bindings);
    checks.extend(signature::put_fill_checks(kernel, root));
    let locals = Locals::new(kernel);
    let emitter = Emitter {
        kernel,
        root,
        bindings,
        locals: &locals,
        writes: None,
        windows: &[],
    };
    let (copies, prologue) = stmt::put_prologue(&emitter, &kernel.body);
    let data = bindings.put_data(kernel);
    let stmts = emitter.put_stmts(&kernel.body[prologue..]);
    quote! {
        #(#attrs)*
        #[allow(
            non_snake_case,
            unused_mut,
            unused_variables,
            unused_assignments,
            unused_parens,
            unused_qualifications,
            clippy::all,
            clippy::pedantic,
            clippy::nursery
        )]
        #vis fn #name<T: #root::Scalar>(#params)
            -> ::core::result::Result<(), #root::KernelError>
        {
            #dims
            #checks
            #copies
            #data
            #stmts
            ::core::result::Result::Ok(())
        }
    }
}

/// An IR the emitter cannot print means a bug in the compiler, not in the user's kernel: say so at
/// the call site instead of panicking inside the macro.
pub(crate) fn write_internal_error(kernel: &str, problem: &str) -> TokenStream {
    let message = format!(
        "internal error in the sparse compiler while generating `{kernel}`: {problem}; please \
         report this kernel"
    );
    quote! { ::core::compile_error! { #message } }
}
