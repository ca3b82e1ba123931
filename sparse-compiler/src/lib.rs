//! The compiler of `sparse` as a plain library (no `proc_macro`), so it can be tested and driven by
//! the code viewer as well as by the `tensor_kernel!` macro.
//!
//! ```text
//! tokens --syntax--> AST --format::resolve--> level lists --notation--> concrete index notation
//!        --schedule--> scheduled notation --lower (lattice, format level functions)--> ir::Kernel
//!        --ir::passes (lanes, assembly phases; ir::verify after each)--> ir::Kernel
//!        --emit::rust--> Rust tokens
//! ```
//!
//! Each stage is a module with one job, and data flows one way: a stage uses the types of earlier
//! stages and of `ir`, never of a later one (DESIGN.md §2). Only `syntax` and `emit` use syn/quote.
//! Errors are [`Error`]s with spans; the macro shell turns them into `compile_error!`s.

pub mod emit;
pub mod error;
pub mod format;
pub mod ir;
pub mod lattice;
pub mod lower;
pub mod notation;
pub mod schedule;
pub mod syntax;

pub use error::{Error, ErrorKind, Errors};

use proc_macro2::TokenStream;

/// Compiles the body of a `tensor_kernel!` invocation into the tokens it expands to.
pub fn compile(input: TokenStream) -> Result<TokenStream, Errors> {
    let (kernel, _, ir) = front_end(input)?;
    let mut tokens = emit::emit_rust(&ir, &kernel.attrs, &kernel.vis);
    if let Some(compute) = ir::passes::compute_only(&ir) {
        let doc = format!(
            " Like [`{}`], but reuses the output's structure (assembled by an earlier call with \
             inputs of the same structure) and computes only its values.",
            ir.name
        );
        let attrs: Vec<syn::Attribute> = vec![syn::parse_quote!(#[doc = #doc])];
        tokens.extend(emit::emit_rust(&compute, &attrs, &kernel.vis));
    }
    Ok(tokens)
}

/// The commands `schedule<auto>` chose for a kernel (empty for other kernels): what the code
/// viewer prints above the code.
pub fn chosen_schedule(input: TokenStream) -> Result<Vec<String>, Errors> {
    front_end(input).map(|(_, scheduled, _)| scheduled.chosen)
}

/// Runs every stage up to the imperative IR: what the code viewer prints with `--ir`.
pub fn lower_to_ir(input: TokenStream) -> Result<ir::Kernel, Errors> {
    front_end(input).map(|(_, _, ir)| ir)
}

fn front_end(
    input: TokenStream,
) -> Result<(syntax::ast::Kernel, schedule::Scheduled, ir::Kernel), Errors> {
    let kernel = syntax::parse_kernel(input).map_err(|e| vec![e])?;
    let formats = format::resolve_formats(&kernel)?;
    let mut program = notation::Program::build(&kernel, &formats)?;
    notation::plan_sorted_copies(&mut program);
    notation::plan_range_copies(&mut program);
    notation::plan_conversions(&mut program)?;
    notation::plan_nested_conversions(&mut program)?;
    // A conversion can make another operand's level sparse where a DIA range level meets it.
    notation::plan_range_copies(&mut program);
    notation::plan_nested_conversions(&mut program)?;
    notation::plan_sorted_copies(&mut program);
    notation::plan_slot_copies(&mut program);
    let cin = notation::concretize(&program)?;
    let scheduled = schedule::schedule(&mut program, cin, kernel.schedule.as_ref())?;
    let ir = lower::lower(&program, &scheduled, &kernel.name.to_string())?;
    let ir = ir::passes::run(ir)
        .map_err(|problem| vec![Error::new(kernel.name.span(), ErrorKind::Internal(problem))])?;
    Ok((kernel, scheduled, ir))
}
