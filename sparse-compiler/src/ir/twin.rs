//! The unscheduled kernel as the small-input form of a kernel whose thread regions share the
//! output: the nonzero split's tasks (`Atomics`) and the reductions over tasks (`Temporary`,
//! `ParallelReduction`).
//!
//! Below the runtime's threshold such a region runs its tasks in order on the calling thread,
//! still paying for what sharing the output needs: the output zeroed first, the runs' bounds
//! searched, rows at the runs' bounds added atomically, the tasks' copies combined. The
//! unscheduled kernel needs none of that (the nonzero-split SpMV of west0479 took 3.3 µs, its
//! serial kernel 1.4). So the kernel becomes
//!
//! ```text
//! if work < unsplit_below { the unscheduled kernel's body } else { the scheduled body }
//! ```
//!
//! where `work` is the region's own measure (the inputs' stored values). The two forms compute
//! the same values; a floating-point sum may round differently, as it already does between a
//! nonzero split and the rows it splits.

use super::{BinOp, Expr, Kernel, OutputAccess, Stmt, Unit, bin};
use crate::format::FormatType;

/// The work of the first thread region of `kernel` that shares its output (writes it through
/// atomics or reduces task copies into it), if the kernel has one and its output is dense (a
/// sparse output's assembly differs between the two forms).
pub fn shared_region_work(kernel: &Kernel) -> Option<Expr> {
    let dense = kernel.params.first().is_some_and(|p| {
        matches!(
            p.format,
            FormatType::Named {
                type_name: "Dense",
                ..
            }
        ) && p.convert_to.is_none()
    });
    dense.then(|| find_work(&kernel.body))?
}

fn find_work(stmts: &[Stmt]) -> Option<Expr> {
    stmts.iter().find_map(|s| match s {
        Stmt::Parallel(r)
            if r.unit == Unit::CpuThread
                && matches!(
                    r.output,
                    OutputAccess::Scattered
                        | OutputAccess::Runs { .. }
                        | OutputAccess::Reduced { .. }
                ) =>
        {
            r.work.clone()
        }
        _ => s.bodies().into_iter().find_map(find_work),
    })
}

/// `scheduled` running `unscheduled`'s body when its region's `work` is below the threshold;
/// `scheduled` as it is where the two do not take the same parameters and checks.
pub fn below_threshold(scheduled: Kernel, unscheduled: Kernel, work: Expr) -> Kernel {
    // The schedule's own index variables add extents with nothing to check.
    let same = |k: &Kernel| {
        let checks: Vec<_> = (k.shape_checks.iter())
            .filter(|c| !c.dims.is_empty())
            .collect();
        format!("{:?}{:?}{:?}{:?}", k.params, k.signature, checks, k.combine)
    };
    if same(&scheduled) != same(&unscheduled) {
        return scheduled;
    }
    let mut kernel = scheduled;
    let split = std::mem::take(&mut kernel.body);
    kernel.body = vec![serial_below(work, unscheduled.body, split)];
    kernel
}

/// `if work < unsplit_below { serial } else { split }`: the runtime's choice between a split's
/// serial form and the split itself.
pub fn serial_below(work: Expr, serial: Vec<Stmt>, split: Vec<Stmt>) -> Stmt {
    Stmt::If {
        cond: bin(BinOp::Lt, work, Expr::UnsplitBelow),
        then: serial,
        otherwise: split,
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn ir(input: proc_macro2::TokenStream) -> String {
        let kernel = crate::lower_to_ir(input).expect("the kernel compiles");
        super::super::print_kernel(&kernel)
    }

    #[test]
    fn a_nonzero_split_runs_the_unscheduled_kernel_below_the_threshold() {
        let nnz = ir(quote! {
            fn k; y(i) = A(i,j) * x(j); formats<A: csr>;
            schedule<collapse(i,j,f).pos(f,p,A).split(p,p0,p1,Down,16)
                .parallelize(p0,CpuThread,Atomics)>;
        });
        let (serial, split) = nnz.split_once("} else {").expect("two forms");
        assert!(
            serial.contains("if len(A.vals) + len(x.vals) < unsplit_below {"),
            "{nnz}"
        );
        assert!(serial.contains("y.vals[0..y.shape[0]] = dots("), "{nnz}");
        assert!(!serial.contains("atomic"), "{nnz}");
        assert!(split.contains("atomic y.vals"), "{nnz}");
    }

    #[test]
    fn row_blocks_gpu_kernels_and_assembled_outputs_have_no_twin() {
        let rows = ir(quote! {
            fn k; C(i,k) = A(i,j) + B(j,k); formats<A: csr>;
            fills<A: inf, B: inf, C: inf>; reduce<j: min>;
            schedule<split(i, i0, i1, Down, 16).parallelize(i0, CpuThread, NoRaces)>;
        });
        assert!(!rows.contains("unsplit_below"), "{rows}");
        let gpu = ir(quote! {
            fn k; y(i) = A(i,j) * x(j); formats<A: csr>;
            schedule<collapse(i,j,f).pos(f,p,A).split(p,block,thread,Down,256)
                .parallelize(block,GpuBlock,Atomics).parallelize(thread,GpuThread,Atomics)>;
        });
        assert!(!gpu.contains("unsplit_below"), "{gpu}");
        let sparse_out = ir(quote! {
            fn k; A(i,j) = B(i,j) * C(i,j); formats<A: csr, B: csr, C: csr>;
            schedule<split(i, i0, i1, Down, 16).parallelize(i0, CpuThread, NoRaces)>;
        });
        assert!(!sparse_out.contains("unsplit_below"), "{sparse_out}");
    }
}
