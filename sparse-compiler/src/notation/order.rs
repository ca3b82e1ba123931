//! The default loop order (Kjolstad 2020 step 3, the README): every tensor is iterated
//! concordantly with its levels, except that a level with locate (dense, hashed) does not constrain
//! the order; ties go to the variable that appears first. The output does not constrain the order
//! either: an output that cannot be appended to in this order gets a workspace (`concrete`).

use super::{Expr, IndexVar, Program};
use crate::error::{Error, ErrorKind};
use crate::format::level_of;

/// Orders `vars` (a subset of the program's variables) so that every access in `expr` is
/// concordant, or explains which tensor makes that impossible.
pub fn default_order(
    program: &Program,
    expr: &Expr,
    vars: &[IndexVar],
) -> Result<Vec<IndexVar>, Error> {
    order_skipping(program, expr, vars, None)
}

/// [`default_order`], ignoring the level order of tensor `skip`.
pub fn order_skipping(
    program: &Program,
    expr: &Expr,
    vars: &[IndexVar],
    skip: Option<usize>,
) -> Result<Vec<IndexVar>, Error> {
    let mut edges: Vec<(IndexVar, IndexVar, usize)> = Vec::new();
    collect_edges(program, expr, &mut edges);
    edges.retain(|e| Some(e.2) != skip);
    let mut order = Vec::with_capacity(vars.len());
    let mut left: Vec<IndexVar> = vars.to_vec();
    left.sort_unstable();
    while !left.is_empty() {
        let ready = left.iter().copied().find(|&v| {
            !edges
                .iter()
                .any(|&(a, b, _)| b == v && left.contains(&a) && a != v)
        });
        match ready {
            Some(v) => {
                order.push(v);
                left.retain(|&x| x != v);
            }
            None => return Err(cycle_error(program, &edges, &left)),
        }
    }
    Ok(order)
}

/// The ordering constraints of every access in `expr`: `(a, b, tensor)` means `tensor` needs the
/// loop over `a` outside the loop over `b`.
pub fn order_edges(program: &Program, expr: &Expr) -> Vec<(IndexVar, IndexVar, usize)> {
    let mut edges = Vec::new();
    collect_edges(program, expr, &mut edges);
    edges
}

/// For each access and each level the lowerer does not locate into, every variable of the levels
/// above it must be bound first. Only dense levels are located: a hashed level supports `locate`
/// in the paper, but a probe loop is not an expression, so hashed levels are iterated
/// (`format/hashed.rs`).
fn collect_edges(program: &Program, expr: &Expr, edges: &mut Vec<(IndexVar, IndexVar, usize)>) {
    match expr {
        Expr::Access { access, .. } => {
            let levels = program.iterated_levels(access.tensor);
            let level_var = |k: usize| access.level_vars.get(k).copied();
            for (k, level) in levels.iter().enumerate().skip(1) {
                if level_of(level).full() {
                    continue;
                }
                let Some(below) = level_var(k) else { continue };
                for above in (0..k).filter_map(level_var) {
                    edges.push((above, below, access.tensor));
                }
            }
        }
        Expr::Temp(_) | Expr::Literal(_) => {}
        Expr::Op(_, args) => {
            for a in args {
                collect_edges(program, a, edges);
            }
        }
    }
}

fn cycle_error(
    program: &Program,
    edges: &[(IndexVar, IndexVar, usize)],
    left: &[IndexVar],
) -> Error {
    let tensor = edges
        .iter()
        .rev()
        .find(|(a, b, _)| left.contains(a) && left.contains(b))
        .map_or(0, |e| e.2);
    let t = &program.tensors[tensor];
    let whole_dims = (program.iterated_levels(tensor).iter())
        .all(|l| matches!(l.coord, crate::format::Coord::Dim(_)));
    let mut reads = Vec::new();
    super::convert::collect_accesses(&program.rhs, tensor, &mut reads);
    let suggestion = if reads.iter().any(|r| *r != reads[0]) {
        format!(
            "`{}` is read in several index orders, and giving the reads of one order a copy of \
             their own leaves no loop order that follows the rest; pass copies stored in the \
             other orders as tensors of their own",
            t.name
        )
    } else if !whole_dims {
        format!(
            "`{}` has slot or block levels, which cannot be iterated in another order; store it \
             in a format whose levels follow the other tensors' order",
            t.name
        )
    } else if t.order == 2 {
        format!(
            "store `{}` in the transposed format (for example `csc` instead of `csr`)",
            t.name
        )
    } else {
        format!(
            "store `{}` with a mode order that matches the other tensors",
            t.name
        )
    };
    Error::new(
        t.span,
        ErrorKind::NoConcordantOrder {
            tensor: t.name.clone(),
            suggestion,
        },
    )
}
