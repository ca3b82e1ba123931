//! Row splits shared out by stored entries: a thread region whose iterations own blocks of `w`
//! whole rows (`tile::block_rows`), where each row's loop runs over the segment of a compressed
//! level that starts at `pos[i]`, records that `pos` array and `w` in its output access. The
//! runtime then cuts the blocks into one share per thread of about equal entries
//! (`for_each_block_balanced`), instead of equal block counts whose heavy end one thread would
//! hold. Which thread runs a block does not change what the block computes.

use super::tile::{block_rows, block_width};
use crate::ir::{Array, Expr, Kernel, OutputAccess, Region, Stmt};

/// `kernel` with each row split over a compressed level's segments weighed by them.
pub(super) fn weigh(mut kernel: Kernel) -> Kernel {
    kernel.body = stmts(std::mem::take(&mut kernel.body));
    kernel
}

fn stmts(stmts: Vec<Stmt>) -> Vec<Stmt> {
    stmts.into_iter().map(stmt).collect()
}

fn stmt(mut stmt: Stmt) -> Stmt {
    if let Stmt::Parallel(region) = &mut stmt {
        let weights = segments(region);
        if let OutputAccess::Blocks { balance, .. } = &mut region.output {
            *balance = weights;
        }
    }
    for body in stmt.bodies_mut() {
        *body = stmts(std::mem::take(body));
    }
    stmt
}

/// The `pos` array whose segment each row of the region's blocks walks, and the rows a block
/// holds: the block's row loop reads `pos[i]` for its row `i`.
fn segments(region: &Region) -> Option<(Array, usize)> {
    let OutputAccess::Blocks { chunk, .. } = &region.output else {
        return None;
    };
    let (i, body) = block_rows(region)?;
    let row = Expr::Var(i.clone());
    let pos = body.iter().find_map(|s| match s {
        Stmt::Let {
            init: Expr::Load(pos @ Array::Pos { .. }, at),
            ..
        } if **at == row => Some(pos.clone()),
        _ => None,
    })?;
    Some((pos, block_width(chunk)?))
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::super::printed as ir;

    #[test]
    fn a_row_split_over_csr_rows_is_balanced_by_their_entries() {
        let spmv = ir(quote! {
            fn k; y(i) = A(i,j) * x(j); formats<A: csr>;
            schedule<split(i, i0, i1, Down, 32).parallelize(i0, CpuThread, NoRaces)>;
        });
        assert!(
            spmv.contains("balanced by A.l1.pos every 32 rows"),
            "{spmv}"
        );
        let spmm = ir(quote! {
            fn k; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
            schedule<split(i, i0, i1, Down, 16).parallelize(i0, CpuThread, NoRaces)>;
        });
        assert!(
            spmm.contains("balanced by A.l1.pos every 16 rows"),
            "{spmm}"
        );
    }

    #[test]
    fn rows_of_a_dense_matrix_keep_equal_blocks() {
        // No segment per row: every row is the same work.
        let dense = ir(quote! {
            fn k; y(i) = A(i,j) * x(j); formats<A: dense>;
            schedule<split(i, i0, i1, Down, 32).parallelize(i0, CpuThread, NoRaces)>;
        });
        assert!(dense.contains("owns blocks of"), "{dense}");
        assert!(!dense.contains("balanced by"), "{dense}");
    }
}
