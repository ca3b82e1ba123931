//! The compiler of `sparse` as a plain library (no `proc_macro`), so it can be tested and driven by
//! the code viewer as well as by the `tensor_kernel!` macro.
//!
//! ```text
//! tokens --syntax--> AST --format::resolve--> level lists --notation--> index notation
//!        --notation::plan_copies--> copies planned --notation--> concrete index notation
//!        --schedule--> scheduled notation --lower (lattice, format level functions)--> ir::Kernel
//!        --ir::passes (lanes, assembly phases; ir::verify after each)--> ir::Kernel
//!        --emit::rust--> Rust tokens
//! ```
//!
//! Each stage is a module with one job, and data flows one way: a stage uses the types of earlier
//! stages and of `ir`, never of a later one (docs/architecture.md). Only `syntax` and `emit` use syn/quote.
//! The operators' algebra (arity, identity, annihilator, iteration rule) is one table,
//! [`algebra`], that the stages from `syntax` to `lower` read instead of matching on operators.
//! Errors are [`Error`]s with spans; the macro shell turns them into `compile_error!`s.

pub mod algebra;
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

/// Compiles the body of a `tensor_kernel!` invocation into the tokens it expands to, for a crate
/// that depends on the facade under its own name (`::sparse`).
pub fn compile(input: TokenStream) -> Result<TokenStream, Errors> {
    compile_with_root(input, &emit::Root::default())
}

/// Like [`compile`], naming the facade by `root` (a crate that renamed the dependency).
pub fn compile_with_root(input: TokenStream, root: &emit::Root) -> Result<TokenStream, Errors> {
    let kernel = parse(input)?;
    if let Some(multi) = notation::split_multi(&kernel)? {
        return compile_multi(&kernel, &multi, root);
    }
    let (kernel, _, ir) = front_end(kernel)?;
    if emit::cuda::is_gpu_kernel(&ir) {
        return Ok(emit::cuda::emit_gpu(&ir, &kernel.attrs, &kernel.vis, root));
    }
    let mut tokens = emit::emit_rust(&ir, &kernel.attrs, &kernel.vis, root);
    if let Some(compute) = ir::passes::compute_only(&ir) {
        let doc = format!(
            " Like [`{}`], but reuses the output's structure (assembled by an earlier call with \
             inputs of the same structure) and computes only its values.",
            ir.name
        );
        let attrs: Vec<syn::Attribute> = vec![syn::parse_quote!(#[doc = #doc])];
        tokens.extend(emit::emit_rust(&compute, &attrs, &kernel.vis, root));
    }
    Ok(tokens)
}

/// A kernel computing several outputs: each output's kernel through every stage, then one
/// function that takes every output first and runs them in order. An error two parts share
/// (a schedule command both refuse) is reported once.
fn compile_multi(
    kernel: &syntax::ast::Kernel,
    multi: &notation::MultiKernel,
    root: &emit::Root,
) -> Result<TokenStream, Errors> {
    let mut parts = Vec::new();
    let mut errors: Errors = Vec::new();
    for part in &multi.parts {
        match front_end(part.clone()) {
            Ok((_, _, ir)) => parts.push(ir),
            Err(found) => {
                for error in found {
                    let key = |e: &Error| (e.message(), format!("{:?}", e.span));
                    if !errors.iter().any(|e| key(e) == key(&error)) {
                        errors.push(error);
                    }
                }
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    if parts.iter().any(emit::cuda::is_gpu_kernel) {
        let what = "a GPU schedule on a kernel computing several outputs (`multi(..)`); \
                    schedule each output's kernel for the GPU on its own";
        return Err(vec![Error::new(
            multi.span,
            ErrorKind::Unsupported(what.into()),
        )]);
    }
    let parts: Vec<emit::MultiPart> = (parts.into_iter())
        .map(|ir| emit::MultiPart {
            compute: ir::passes::compute_only(&ir),
            kernel: ir,
        })
        .collect();
    let name = kernel.name.to_string();
    let params = &multi.params;
    Ok(emit::emit_multi(
        &name,
        params,
        &parts,
        &kernel.attrs,
        &kernel.vis,
        root,
    ))
}

fn parse(input: TokenStream) -> Result<syntax::ast::Kernel, Errors> {
    syntax::parse_kernel(input).map_err(|e| vec![e])
}

/// Runs `syntax`, `format` and the planning of `notation`: the statement in index notation with
/// its run-time copies planned (`program.copies`), what the code viewer prints with `--plan`.
pub fn planned_copies(input: TokenStream) -> Result<notation::Program, Errors> {
    planned(parse(input)?).map(|(_, program)| program)
}

/// Runs `syntax`, `format` and `notation`: the statement with its copies planned and its concrete
/// index notation before scheduling, what the code viewer prints with `--cin`.
pub fn concrete_notation(input: TokenStream) -> Result<(notation::Program, notation::Cin), Errors> {
    notation_of(parse(input)?).map(|(_, program, cin)| (program, cin))
}

/// Runs every stage up to scheduling: the statement (with the index variables the schedule
/// added) and the scheduled concrete index notation, what the code viewer prints with
/// `--schedule`.
pub fn scheduled(input: TokenStream) -> Result<(notation::Program, schedule::Scheduled), Errors> {
    schedule_of(parse(input)?).map(|(_, program, scheduled)| (program, scheduled))
}

/// The commands `schedule<auto>` chose for a kernel (empty for other kernels; each output's in
/// turn for a `multi` kernel): what the code viewer prints above the code.
pub fn chosen_schedule(input: TokenStream) -> Result<Vec<String>, Errors> {
    let kernel = parse(input)?;
    let Some(multi) = notation::split_multi(&kernel)? else {
        return schedule_of(kernel).map(|(_, _, scheduled)| scheduled.chosen);
    };
    let mut chosen = Vec::new();
    for part in multi.parts {
        chosen.extend(schedule_of(part)?.2.chosen);
    }
    Ok(chosen)
}

/// The CUDA source of a kernel with GPU units: what the code viewer prints with `--cuda`.
pub fn cuda_source(input: TokenStream) -> Result<String, Errors> {
    let (kernel, _, ir) = front_end(parse(input)?)?;
    emit::cuda::cuda_source(&ir)
        .map(|source| source.text)
        .map_err(|problem| vec![Error::new(kernel.name.span(), ErrorKind::Internal(problem))])
}

/// Runs every stage up to the imperative IR: what the code viewer prints with `--ir`.
pub fn lower_to_ir(input: TokenStream) -> Result<ir::Kernel, Errors> {
    front_end(parse(input)?).map(|(_, _, ir)| ir)
}

/// A kernel written in concrete index notation comes with its statement, its loops as written
/// (nothing is planned: a loop order its tensors cannot follow is an error).
fn planned_with_written(
    kernel: syntax::ast::Kernel,
) -> Result<
    (
        syntax::ast::Kernel,
        notation::Program,
        Option<notation::Cin>,
    ),
    Errors,
> {
    let formats = format::resolve_formats(&kernel)?;
    if let Some(written) = &kernel.cin {
        let (program, cin) = notation::build_written(&kernel, &formats, written)?;
        return Ok((kernel, program, Some(cin)));
    }
    let mut program = notation::Program::build(&kernel, &formats)?;
    notation::plan_copies(&mut program)?;
    Ok((kernel, program, None))
}

fn planned(
    kernel: syntax::ast::Kernel,
) -> Result<(syntax::ast::Kernel, notation::Program), Errors> {
    planned_with_written(kernel).map(|(kernel, program, _)| (kernel, program))
}

/// The copies are planned before concretizing: they decide the levels the default loop order
/// follows.
fn notation_of(
    kernel: syntax::ast::Kernel,
) -> Result<(syntax::ast::Kernel, notation::Program, notation::Cin), Errors> {
    let (kernel, program, written) = planned_with_written(kernel)?;
    let cin = match written {
        Some(cin) => cin,
        None => notation::concretize(&program)?,
    };
    Ok((kernel, program, cin))
}

fn schedule_of(
    kernel: syntax::ast::Kernel,
) -> Result<(syntax::ast::Kernel, notation::Program, schedule::Scheduled), Errors> {
    let (kernel, mut program, cin) = notation_of(kernel)?;
    let scheduled = schedule::schedule(&mut program, cin, kernel.schedule.as_ref())?;
    Ok((kernel, program, scheduled))
}

fn front_end(
    kernel: syntax::ast::Kernel,
) -> Result<(syntax::ast::Kernel, schedule::Scheduled, ir::Kernel), Errors> {
    let (kernel, program, scheduled) = schedule_of(kernel)?;
    let ir = lower::lower(&program, &scheduled, &kernel.name.to_string())?;
    let ir = ir::passes::run(ir)
        .map_err(|problem| vec![Error::new(kernel.name.span(), ErrorKind::Internal(problem))])?;
    let ir = with_unscheduled_twin(&kernel, ir);
    Ok((kernel, scheduled, ir))
}

/// `ir`, which shares its output among threads, running the unscheduled kernel on inputs too
/// small for its threads (`ir::twin`); as it is where there is no such region, it runs on a
/// GPU, it assembles its output, or the kernel without its schedule does not compile.
fn with_unscheduled_twin(kernel: &syntax::ast::Kernel, ir: ir::Kernel) -> ir::Kernel {
    let Some(work) = ir::twin::shared_region_work(&ir) else {
        return ir;
    };
    if emit::cuda::is_gpu_kernel(&ir) || ir::passes::compute_only(&ir).is_some() {
        return ir;
    }
    let mut plain = kernel.clone();
    plain.schedule = None;
    let Ok((plain, program, scheduled)) = schedule_of(plain) else {
        return ir;
    };
    let unscheduled = lower::lower(&program, &scheduled, &plain.name.to_string())
        .ok()
        .and_then(|k| ir::passes::run(k).ok());
    match unscheduled {
        Some(serial) if ir::twin::shared_region_work(&serial).is_none() => {
            let combined = ir::twin::below_threshold(ir.clone(), serial, work);
            match ir::verify::verify(&combined, ir::verify::Stage::Final) {
                Ok(()) => combined,
                Err(_) => ir,
            }
        }
        _ => ir,
    }
}
