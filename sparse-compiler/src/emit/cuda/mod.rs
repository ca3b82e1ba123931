//! Imperative IR -> a GPU kernel (the README): the CUDA C source of its `GpuBlock` region
//! (`source.rs`) and the safe Rust launcher a `tensor_kernel!` with GPU units expands to
//! (`launcher.rs`). The launcher takes device tensors, checks shapes and bounds on the host, runs
//! the host steps (structure copy, zeroing), and launches the source through `sparse::gpu`, which
//! compiles it with NVRTC once per device and value type.
//!
//! A GPU kernel's IR is its prologue (bound checks, a structure copy), an optional zeroing of the
//! output, and one `GpuBlock` region holding everything else: lowering and the schedule's GPU
//! preconditions guarantee it; anything else is an internal error here.

mod launcher;
mod math;
mod source;

pub use source::{Arg, Source};

use proc_macro2::TokenStream;
use syn::{Attribute, Visibility};

use crate::ir::verify::{Stage, verify};
use crate::ir::{HostStep, Kernel, Region, Stmt, Unit, any_stmt};

/// Whether `kernel` runs on a GPU: it has a region on a GPU unit.
pub fn is_gpu_kernel(kernel: &Kernel) -> bool {
    any_stmt(
        &kernel.body,
        &|s| matches!(s, Stmt::Parallel(r) if matches!(r.unit, Unit::GpuBlock | Unit::GpuWarp | Unit::GpuThread)),
    )
}

/// The parts of a GPU kernel's IR.
pub(crate) struct Layout<'k> {
    /// Bound checks and structure copies, in order.
    pub prologue: &'k [Stmt],
    /// Whether the output is zeroed before the launch.
    pub zero: bool,
    /// The value the output is set to before the launch, where it is not zero (the identity of
    /// a reduction other than `+`).
    pub fill: Option<crate::ir::Literal>,
    /// The region the grid runs.
    pub region: &'k Region,
}

/// `kernel`'s parts, or why it is not laid out as a GPU kernel.
pub(crate) fn layout(kernel: &Kernel) -> Result<Layout<'_>, String> {
    let count = kernel.body.iter().take_while(|s| s.is_prologue()).count();
    let (prologue, rest) = kernel.body.split_at(count);
    let (zero, fill, rest) = match rest {
        [Stmt::Host(HostStep::ZeroOutput { .. }), rest @ ..] => (true, None, rest),
        [Stmt::Host(HostStep::FillOutput { value, .. }), rest @ ..] => (false, Some(*value), rest),
        rest => (false, None, rest),
    };
    match rest {
        [Stmt::Parallel(region)] if region.unit == Unit::GpuBlock => Ok(Layout {
            prologue,
            zero,
            fill,
            region,
        }),
        _ => Err("a GPU kernel whose work is not all inside one `GpuBlock` region".into()),
    }
}

/// The CUDA source of a GPU kernel: what the code viewer prints with `--cuda`.
pub fn cuda_source(kernel: &Kernel) -> Result<Source, String> {
    verify(kernel, Stage::Final)?;
    source::print(kernel, layout(kernel)?.region)
}

/// The launcher of a GPU kernel, with the user's attributes and visibility; an internal error at
/// the call site if the IR is not a GPU kernel this back end can print.
pub fn emit_gpu(
    kernel: &Kernel,
    attrs: &[Attribute],
    vis: &Visibility,
    root: &super::Root,
) -> TokenStream {
    let printed = cuda_source(kernel).and_then(|source| {
        let layout = layout(kernel)?;
        launcher::put_launcher(kernel, &layout, &source, attrs, vis, root)
    });
    match printed {
        Ok(tokens) => tokens,
        Err(problem) => super::write_internal_error(&kernel.name, &problem),
    }
}
