//! The default loop order (Kjolstad 2020 step 3, the README): every tensor, dense ones and the
//! output included, is iterated concordantly with its levels where some order allows it (taco's
//! rule: `C(i,k) = A(i,j) * B(j,k)` with row-major `B` runs i, j, k). Levels without locate must
//! be visited in storage order, or the planner copies an input (`convert`); the levels the lowerer
//! can locate into (dense) and the output's only state a preference. Preferences are taken
//! access by access in order of first appearance, the output first, each kept whole when the
//! order still exists with it; ties go to the variable that appears first. An output that cannot
//! be appended to in the order chosen gets a workspace (`concrete`).

use super::{Access, Expr, IndexVar, Program};
use crate::error::{Error, ErrorKind};
use crate::format::level_of;

/// `(a, b, tensor)`: `tensor` needs (or prefers) the loop over `a` outside the loop over `b`.
type Edge = (IndexVar, IndexVar, usize);

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
    let mut edges: Vec<Edge> = Vec::new();
    collect_edges(program, expr, &mut edges);
    edges.retain(|e| Some(e.2) != skip);
    let mut order =
        topological(&edges, vars).map_err(|left| cycle_error(program, &edges, &left))?;
    for wish in preferred_edges(program, expr, vars) {
        if wish.first().is_some_and(|e| Some(e.2) == skip) {
            continue;
        }
        let kept = edges.len();
        edges.extend(wish);
        match topological(&edges, vars) {
            Ok(with_wish) => order = with_wish,
            Err(_) => edges.truncate(kept),
        }
    }
    Ok(order)
}

/// A topological order of `vars` under `edges`, the smallest ready variable first; on a cycle,
/// the variables left.
fn topological(edges: &[Edge], vars: &[IndexVar]) -> Result<Vec<IndexVar>, Vec<IndexVar>> {
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
            None => return Err(left),
        }
    }
    Ok(order)
}

/// The ordering constraints of every access in `expr`: `(a, b, tensor)` means `tensor` needs the
/// loop over `a` outside the loop over `b`.
pub fn order_edges(program: &Program, expr: &Expr) -> Vec<Edge> {
    let mut edges = Vec::new();
    collect_edges(program, expr, &mut edges);
    edges
}

/// For each access and each level the lowerer does not locate into, every variable of the levels
/// above it must be bound first. Only dense levels are located: a hashed level supports `locate`
/// in the paper, but a probe loop is not an expression, so hashed levels are iterated
/// (`format/hashed.rs`).
fn collect_edges(program: &Program, expr: &Expr, edges: &mut Vec<Edge>) {
    for access in accesses(expr) {
        let levels = program.iterated_levels(access.tensor);
        let below = |k: usize| !level_of(&levels[k]).full();
        edges.extend(level_edges(access, levels.len(), below));
    }
}

/// The orders each access would like and does not need, one list per access: the output's (its
/// levels are written, not iterated) first, then the dense levels of the inputs in order of
/// appearance. A sparse output also wants every sum inside its loops: a sum between two of its
/// levels needs a workspace, or is refused where the output takes an input's structure (SDDMM's
/// `A(i,j) = B(i,j) * C(i,k) * D(k,j)` keeps i, j, k although `D` prefers k outside j), and a
/// sum outside all of them would add into entries already appended.
fn preferred_edges(program: &Program, expr: &Expr, vars: &[IndexVar]) -> Vec<Vec<Edge>> {
    let output = &program.output;
    let out_levels = program.iterated_levels(output.tensor);
    let mut wishes = vec![level_edges(output, out_levels.len(), |_| true)];
    if out_levels.iter().any(|l| !level_of(l).full()) {
        // One wish per pair, the root level's first: a sum that cannot go inside every output
        // loop should at least go inside the outer ones.
        let sums: Vec<IndexVar> = (vars.iter().copied())
            .filter(|v| !output.level_vars.contains(v))
            .collect();
        for &v in &output.level_vars {
            wishes.extend(sums.iter().map(|&sum| vec![(v, sum, output.tensor)]));
        }
    }
    for access in accesses(expr) {
        let levels = program.iterated_levels(access.tensor);
        let dense = |k: usize| level_of(&levels[k]).full();
        wishes.push(level_edges(access, levels.len(), dense));
    }
    wishes.retain(|w| !w.is_empty());
    wishes
}

/// For each level `k` of `access` below the root that `pick` selects, an edge from the variable
/// of every level above it.
fn level_edges(access: &Access, levels: usize, pick: impl Fn(usize) -> bool) -> Vec<Edge> {
    let level_var = |k: usize| access.level_vars.get(k).copied();
    let mut edges = Vec::new();
    for k in (1..levels).filter(|&k| pick(k)) {
        let Some(below) = level_var(k) else { continue };
        for above in (0..k).filter_map(level_var) {
            edges.push((above, below, access.tensor));
        }
    }
    edges
}

/// The tensor accesses of `expr`, in order of appearance.
fn accesses(expr: &Expr) -> Vec<&Access> {
    fn walk<'e>(expr: &'e Expr, out: &mut Vec<&'e Access>) {
        match expr {
            Expr::Access { access, .. } => out.push(access),
            Expr::Temp(_) | Expr::Literal(_) => {}
            Expr::Op(_, args) => {
                for a in args {
                    walk(a, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(expr, &mut out);
    out
}

fn cycle_error(program: &Program, edges: &[Edge], left: &[IndexVar]) -> Error {
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
