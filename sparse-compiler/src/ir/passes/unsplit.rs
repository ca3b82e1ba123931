//! Row splits below the threshold: a thread region whose iterations own blocks of `w` whole
//! rows of a dense output and loop over the rows of their block,
//!
//! ```text
//! parallel for v in 0..(rows + w - 1) / w {
//!     for u in 0..min(w, rows - 0 - v * w) { let i = 0 + (v * w + u); body }
//! }
//! ```
//!
//! runs as the unscheduled kernel's loop over the rows when its work is below the runtime's
//! threshold, and as the region otherwise:
//!
//! ```text
//! if work < unsplit_below { for i in 0..rows { body } } else { the region }
//! ```
//!
//! Below the threshold the region's blocks would run in order on the calling thread, and the loop
//! nest over blocks and their rows cost up to twice the plain loop on small matrices (a row's
//! bounds, its position in the block and the block's closure). Both forms run `body` for every
//! row in order, so the results are the same. Only CPU regions with nothing but the row loop in
//! their body are rewritten: a block that is zeroed or filled first keeps its region.

use super::gather::reads;
use super::tile::block_rows;
use crate::ir::twin::serial_below;
use crate::ir::visit::mentions;
use crate::ir::{Expr, Kernel, Region, Stmt};

/// `kernel` with each row split that fits given its unsplit form below the threshold.
pub(super) fn below_threshold(mut kernel: Kernel) -> Kernel {
    kernel.body = stmts(std::mem::take(&mut kernel.body));
    kernel
}

fn stmts(stmts: Vec<Stmt>) -> Vec<Stmt> {
    stmts.into_iter().map(stmt).collect()
}

fn stmt(stmt: Stmt) -> Stmt {
    match stmt {
        Stmt::Parallel(region) => match unsplit(&region) {
            Some((work, rows)) => serial_below(work, vec![rows], vec![Stmt::Parallel(region)]),
            None => Stmt::Parallel(region),
        },
        mut other => {
            for body in other.bodies_mut() {
                *body = stmts(std::mem::take(body));
            }
            other
        }
    }
}

/// The region's work and its rows as one loop, where the region is a row split's.
fn unsplit(region: &Region) -> Option<(Expr, Stmt)> {
    let work = region.work.clone()?;
    let (i, body) = block_rows(region)?;
    let Some(Stmt::For { var: u, .. }) = region.body.first() else {
        return None;
    };
    let own_names = [&region.var, u];
    let blockless = region.reductions.is_empty()
        && !own_names
            .into_iter()
            .any(|v| reads(body, v) || mentions(v, &work));
    blockless.then(|| {
        let rows = Stmt::For {
            var: i.clone(),
            lo: Expr::Index(0),
            hi: Expr::Dim { param: 0, dim: 0 },
            body: body.to_vec(),
        };
        (work, rows)
    })
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::super::printed as ir;

    #[test]
    fn a_row_split_runs_its_rows_unsplit_below_the_threshold() {
        let rows = ir(quote! {
            fn k; y(i) = A(i,j) * x(j); formats<A: csr>;
            schedule<split(i, i0, i1, Down, 32).parallelize(i0, CpuThread, NoRaces)>;
        });
        assert!(
            rows.contains("if len(A.vals) + len(x.vals) < unsplit_below {"),
            "{rows}"
        );
        let serial = "y.vals[0..y.shape[0]] = dots(A.vals, x.vals[A.l1.crd], A.l1.pos);";
        assert!(rows.contains(serial), "{rows}");
        assert!(rows.contains("parallel(threads"), "{rows}");
        // Min-plus keeps its two chains in both forms: the passes after this one see both.
        let minplus = ir(quote! {
            fn k; y(i) = A(i,j) + x(j); formats<A: csr>;
            fills<A: inf, x: inf, y: inf>; reduce<j: min>;
            schedule<split(i, i0, i1, Down, 32).parallelize(i0, CpuThread, NoRaces)>;
        });
        assert!(minplus.contains("< unsplit_below {"), "{minplus}");
        assert_eq!(minplus.matches("let mut __t2").count(), 4, "{minplus}");
    }

    #[test]
    fn blocks_zeroed_first_keep_their_region() {
        // C's rows are filled with inf in each block before its rows take their minima.
        let filled = ir(quote! {
            fn k; C(i,k) = A(i,j) + B(j,k); formats<A: csr>;
            fills<A: inf, B: inf, C: inf>; reduce<j: min>;
            schedule<split(i, i0, i1, Down, 16).parallelize(i0, CpuThread, NoRaces)>;
        });
        assert!(filled.contains("parallel(threads"), "{filled}");
        assert!(!filled.contains("unsplit_below"), "{filled}");
    }
}
