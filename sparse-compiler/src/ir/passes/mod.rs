//! IR -> IR passes between lowering and the back ends, each followed by the verifier: what a
//! back end would otherwise have to work out for itself.
//!
//! - `lanes`: shapes each `CpuVector` region into one a back end can print in SIMD lanes (one
//!   update of lane loads and loop invariants, the loop over a few nonzeros moved outside), or
//!   turns it back into a plain loop;
//! - `assembly`: splits a row-parallel assembly into its count phase, the layout of the rows on
//!   the host, and its fill phase;
//! - `tile`: holds the row of a dense output that a loop over a sparse segment accumulates into
//!   in a local array of constant width (register tiles), and where one loop nest writes
//!   every row of the output whole, drops the zeroing it would overwrite;
//! - `zero`: zeroes a dense output block by block in the thread region whose iterations own the
//!   blocks, instead of before it;
//! - `unsplit`: runs a row split's rows as one plain loop when the region's work is below the
//!   runtime's threshold, where its blocks would run in order on the calling thread anyway;
//! - `balance`: has the runtime share a row split's blocks out by the stored entries of their
//!   rows, where each row walks a compressed level's segment;
//! - `short`: runs a reduction over a segment of at most a few positions as straight-line steps
//!   instead of a loop whose exit the processor mispredicts;
//! - `chains`: walks a long `min` or `max` reduction as two halves side by side, so two chains
//!   of dependent steps overlap (the result does not change);
//! - `exits`: tests an `||` or `&&` reduction's early exit four positions at a time, every
//!   operand evaluated, before the loop that tests one at a time;
//! - `gather`: reads an input's values at a coordinate just loaded from an input's level as one
//!   gather, which the CPU back end reads without a bounds check per element;
//! - `hints`: runs a short loop nest whose iterations give prefetch hints as a copy without
//!   them where the runtime would skip them (arrays that fit in the caches);
//! - `dots`: sums a segment's values times an input gathered at its coordinates (an SpMV row)
//!   as one dot product, which the runtime computes in SIMD lanes, and a row of one input's
//!   values times a row of another's (SDDMM's) as one dense dot product in eight partial sums;
//! - `task_rows`: runs the rows a nonzero split's task holds whole as one run of dot products,
//!   as a row split's block runs its rows;
//! - `tiers`: runs the tiles' tiers (widths) each over all the rows of the loop around them,
//!   instead of each row testing every tier;
//! - `axpy`: sums a register tile over a segment's rows of a dense input (an SpMM row) as one
//!   gathered axpy, and a loop of such rows stored whole into the output as one run of rows,
//!   which the runtime checks once instead of once a row;
//! - `compute`: the compute-only twin of a kernel that assembles its output.
//!
//! `short` and `chains` rewrite the same kind of loop, a reduction over a segment, with the
//! helpers of `segment`.

mod assembly;
mod axpy;
mod balance;
mod chains;
mod compute;
mod dots;
mod exits;
mod gather;
mod hints;
mod lanes;
mod segment;
mod short;
mod task_rows;
mod tiers;
mod tile;
mod unsplit;
mod zero;

pub use compute::compute_only;
pub use lanes::lane_base;

use std::collections::BTreeSet;

use super::{Kernel, Stmt, Unit, Var, declared_names, verify};

/// A pass: its name (for the verifier's messages), the rewrite, and the stage the IR is at after.
type Pass = (&'static str, fn(Kernel) -> Kernel, verify::Stage);

/// The passes, in the order they run.
const PASSES: [Pass; 15] = [
    ("lanes", lanes::shape, verify::Stage::Lowered),
    ("tile", tile::tile, verify::Stage::Lowered),
    ("zero", zero::in_blocks, verify::Stage::Lowered),
    ("unsplit", unsplit::below_threshold, verify::Stage::Lowered),
    ("balance", balance::weigh, verify::Stage::Lowered),
    ("short", short::short_segments, verify::Stage::Lowered),
    ("chains", chains::two_chains, verify::Stage::Lowered),
    ("exits", exits::in_blocks, verify::Stage::Lowered),
    ("gather", gather::gathers, verify::Stage::Lowered),
    ("hints", hints::unswitch, verify::Stage::Lowered),
    ("dots", dots::dot_products, verify::Stage::Lowered),
    ("task rows", task_rows::whole_rows, verify::Stage::Lowered),
    ("tiers", tiers::hoist, verify::Stage::Lowered),
    ("axpy", axpy::gathered_rows, verify::Stage::Lowered),
    ("assembly", assembly::split_phases, verify::Stage::Final),
];

/// Runs every pass over a lowered kernel, verifying the IR before and after each.
pub fn run(kernel: Kernel) -> Result<Kernel, String> {
    verify::verify(&kernel, verify::Stage::Lowered).map_err(|e| format!("after lowering: {e}"))?;
    PASSES
        .iter()
        .try_fold(kernel, |kernel, (name, pass, stage)| {
            let kernel = pass(kernel);
            verify::verify(&kernel, *stage).map_err(|e| format!("after {name}: {e}"))?;
            Ok(kernel)
        })
}

/// Whether the kernel runs on a GPU (a region of GPU blocks, warps or threads): the CPU passes
/// leave such a kernel alone.
fn on_gpu(kernel: &Kernel) -> bool {
    super::any_stmt(
        &kernel.body,
        &|s| matches!(s, Stmt::Parallel(r) if !matches!(r.unit, Unit::CpuThread | Unit::CpuVector)),
    )
}

/// Names for the locals a pass introduces: `hint`, or `hint` numbered, whichever no statement of
/// the kernel declares and this pass has not handed out yet.
struct Locals(BTreeSet<String>);

impl Locals {
    fn of(kernel: &Kernel) -> Self {
        Locals(declared_names(kernel))
    }

    fn fresh(&mut self, hint: &str) -> Var {
        let mut name = hint.to_string();
        let mut n = 0;
        while self.0.contains(&name) {
            n += 1;
            name = format!("{hint}_{n}");
        }
        self.0.insert(name.clone());
        Var(name)
    }
}

/// The printed IR of a kernel, for the passes' tests.
#[cfg(test)]
fn printed(input: proc_macro2::TokenStream) -> String {
    let kernel = crate::lower_to_ir(input).expect("the kernel compiles");
    super::print_kernel(&kernel)
}
