//! Whole rows of a nonzero split's task as one run: a task of an SpMV split by nonzeros walks
//! its positions segment by segment (`lower/tracking.rs`, `segment_loop`), one dot product and
//! one store a row,
//!
//! ```text
//! while cursor < stop {
//!     end = A.l1.pos[seg + 1]; (lets); let run_end = min(end, stop); let mut s = 0; (hints)
//!     s += dot(A.vals, x.vals[A.l1.crd], cursor..run_end);
//!     if seg == first || stop < end { atomic y.vals[seg] += s; } else { y.vals[seg] = s; }
//!     cursor = run_end;
//!     if run_end == end { seg += 1; }
//! }
//! ```
//!
//! The rows that are not the task's first and end inside it are the ones the `else` branch
//! writes, nothing else writes them, and they follow each other: they become one
//! [`Stmt::RowDots`], the run of rows a row split gives each of its blocks,
//!
//! ```text
//! while cursor < stop {
//!     if seg != first && A.l1.pos[seg + 1] <= stop {
//!         let rows_end = max(count_up_to(A.l1.pos, stop) - 1, seg + 1);
//!         y.vals[seg..rows_end] = dots(A.vals, x.vals[A.l1.crd], A.l1.pos);
//!         cursor = A.l1.pos[rows_end]; seg = rows_end;
//!     } else { (the turn as it was) }
//! }
//! ```
//!
//! `rows_end` is the first row that ends past `stop`, so the rows before it end at or before
//! `stop` (rows with no entries at `stop` among them, which get their zero a second time), and
//! the turn after the run starts at that row's first position, where the walk would have been.
//! The partial rows at the task's ends keep their atomic adds. On the sixteenth harness run the
//! walk took 1.2-2 times the row split's time on the large and LP matrices (BENCHMARKS.md).
//!
//! A thread region whose tasks are such a walk, and which writes nothing else of the output but
//! sets and sums, reaches the output through the tasks' runs ([`OutputAccess::Runs`]): each
//! task's rows between its first row and the next task's first row are its own slice, stored
//! into without atomics, as a row split's block is.

use super::Locals;
use crate::ir::{
    Array, BinOp, Expr, Kernel, OutputAccess, Place, ReduceOp, Stmt, Sync, Unit, UpdateOp, Var,
    bin, visit,
};

/// `kernel` with every such walk's whole rows run as one.
pub(super) fn whole_rows(mut kernel: Kernel) -> Kernel {
    if super::on_gpu(&kernel) {
        return kernel;
    }
    let mut names = Locals::of(&kernel);
    block(&mut kernel.body, &mut names);
    kernel
}

/// Rewrites the walks in `stmts`, at any depth; returns the cursor and the `pos` of each walk
/// directly in `stmts`.
fn block(stmts: &mut [Stmt], names: &mut Locals) -> Vec<(Var, Array)> {
    let mut walks = Vec::new();
    for stmt in stmts {
        if let Some(walk) = Walk::of(stmt) {
            if let Stmt::RowDots { pos, .. } = &walk.dots {
                walks.push((walk.cursor.clone(), pos.clone()));
            }
            *stmt = walk.rewritten(stmt, names);
        } else if plain_writes(stmt) {
            let mut inner = Vec::new();
            for body in stmt.bodies_mut() {
                inner.extend(block(body, names));
            }
            if let (Stmt::Parallel(region), [(cursor, pos)]) = (stmt, inner.as_slice()) {
                own_rows(region, cursor, pos);
            }
        }
    }
    walks
}

/// `region`, a thread region over a shared output whose tasks each run the walk of `cursor`
/// over `pos`, reaching the output through the tasks' runs where it can: the walk's cursor
/// starts at a position computed from the task alone, and the output is only set and summed
/// into, never read.
fn own_rows(region: &mut crate::ir::Region, cursor: &Var, pos: &Array) {
    let start = region.body.iter().find_map(|s| match s {
        Stmt::Let { var, init, .. } if var == cursor => Some(init),
        _ => None,
    });
    let declared: Vec<&Var> = region.body.iter().filter_map(visit::declared).collect();
    let Some(start) = start.filter(|e| !declared.iter().any(|v| visit::mentions(v, e))) else {
        return;
    };
    if visit::any_stmt(&region.body, &|s| !sets_and_sums(s)) {
        return;
    }
    region.output = OutputAccess::Runs {
        pos: pos.clone(),
        start: start.clone(),
    };
}

/// Whether `stmt` (not counting the statements nested in it) writes the output only by sets
/// and sums and does not read it.
fn sets_and_sums(stmt: &Stmt) -> bool {
    let output = |a: &Array| *a == Array::Vals { param: 0 };
    let kind = match stmt {
        Stmt::Update {
            place: Place::Elem(array, _),
            op,
            ..
        } if output(array) => matches!(op, UpdateOp::Set | UpdateOp::Reduce(ReduceOp::Add)),
        Stmt::Let { .. }
        | Stmt::Update { .. }
        | Stmt::For { .. }
        | Stmt::While { .. }
        | Stmt::If { .. }
        | Stmt::RowDots { .. }
        | Stmt::Prefetch { .. }
        | Stmt::PrefetchGather { .. } => true,
        _ => false,
    };
    kind && !visit::stmt_exprs(stmt)
        .into_iter()
        .any(|e| reads(e, &output))
}

/// Whether `expr` loads from an array `is`.
fn reads(expr: &Expr, is: &impl Fn(&Array) -> bool) -> bool {
    let here = match expr {
        Expr::Load(a, _) | Expr::Gather { vals: a, .. } | Expr::GatherDot { vals: a, .. } => is(a),
        _ => false,
    };
    here || visit::operands(expr).into_iter().any(|e| reads(e, is))
}

/// Whether the output writes nested in `stmt` stay as the back end prints a run of rows: into
/// the output itself or through a thread region's shared cells (not a task's own copy).
fn plain_writes(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Parallel(region) => {
            region.unit == Unit::CpuThread && region.output == OutputAccess::Scattered
        }
        _ => true,
    }
}

/// What a segment walk whose turns are dot products is made of.
struct Walk {
    cursor: Var,
    stop: Var,
    seg: Var,
    first: Var,
    op: UpdateOp,
    dots: Stmt,
}

impl Walk {
    /// The walk `stmt`, if it is one with nothing in a turn but its own steps.
    fn of(stmt: &Stmt) -> Option<Self> {
        let Stmt::While { cond, body } = stmt else {
            return None;
        };
        let Expr::Binary(BinOp::Lt, cursor, stop) = cond else {
            return None;
        };
        let (Expr::Var(cursor), Expr::Var(stop)) = (&**cursor, &**stop) else {
            return None;
        };
        let [
            Stmt::Update {
                place: Place::Var(end),
                op: UpdateOp::Set,
                value: Expr::Load(pos @ Array::Pos { .. }, next),
                ..
            },
            rest @ ..,
        ] = body.as_slice()
        else {
            return None;
        };
        let Expr::Binary(BinOp::Add, seg, one) = &**next else {
            return None;
        };
        let (Expr::Var(seg), Expr::Index(1)) = (&**seg, &**one) else {
            return None;
        };
        let mut walk = None;
        let mut store = None;
        for s in rest {
            match s {
                Stmt::Let { .. } | Stmt::Prefetch { .. } => {}
                Stmt::Update {
                    place: Place::Var(_),
                    op: UpdateOp::Reduce(ReduceOp::Add),
                    value: Expr::GatherDot { .. },
                    ..
                } if walk.is_none() => walk = Some(s),
                Stmt::If { .. } if store.is_none() => store = Some(s),
                _ if is_advance(s, cursor, seg, end) => {}
                _ => return None,
            }
        }
        let (sum, dot) = sum_of(walk?, cursor, pos)?;
        let (first, op) = store_of(store?, seg, stop, end, &sum)?;
        Some(Self {
            cursor: cursor.clone(),
            stop: stop.clone(),
            seg: seg.clone(),
            first,
            op,
            dots: dot,
        })
    }

    /// The walk `stmt` with a run of its whole rows before each turn that can take one.
    fn rewritten(self, stmt: &Stmt, names: &mut Locals) -> Stmt {
        let Stmt::While { cond, body } = stmt else {
            return stmt.clone();
        };
        let Stmt::RowDots { pos, .. } = &self.dots else {
            return stmt.clone();
        };
        let pos = pos.clone();
        let var = |v: &Var| Expr::Var(v.clone());
        let load = |at: Expr| Expr::Load(pos.clone(), Box::new(at));
        let rows_end = names.fresh("__rows_end");
        let whole = bin(
            BinOp::And,
            bin(BinOp::Ne, var(&self.seg), var(&self.first)),
            bin(
                BinOp::Le,
                load(bin(BinOp::Add, var(&self.seg), Expr::Index(1))),
                var(&self.stop),
            ),
        );
        let mut dots = self.dots;
        if let Stmt::RowDots { op, rows, .. } = &mut dots {
            *op = self.op;
            **rows = (var(&self.seg), var(&rows_end));
        }
        let run = vec![
            Stmt::Let {
                var: rows_end.clone(),
                ty: crate::ir::Type::Index,
                // At least one row, so that every turn moves on (a validated `pos` ascends:
                // the search already gives one past `seg`).
                init: bin(
                    BinOp::Max,
                    bin(
                        BinOp::Sub,
                        Expr::CountUpTo {
                            array: pos.clone(),
                            target: Box::new(var(&self.stop)),
                        },
                        Expr::Index(1),
                    ),
                    bin(BinOp::Add, var(&self.seg), Expr::Index(1)),
                ),
                mutable: false,
            },
            dots,
            Stmt::assign(self.cursor, load(var(&rows_end)), false),
            Stmt::assign(self.seg, var(&rows_end), false),
        ];
        Stmt::While {
            cond: cond.clone(),
            body: vec![Stmt::If {
                cond: whole,
                then: run,
                otherwise: body.clone(),
            }],
        }
    }
}

/// `cursor = run_end` or `if run_end == end { seg += 1 }`: the turn's last steps.
fn is_advance(s: &Stmt, cursor: &Var, seg: &Var, end: &Var) -> bool {
    match s {
        Stmt::Update {
            place: Place::Var(v),
            op: UpdateOp::Set,
            value: Expr::Var(_),
            ..
        } => v == cursor,
        Stmt::If {
            cond: Expr::Binary(BinOp::Eq, _, e),
            then,
            otherwise,
        } => {
            **e == Expr::Var(end.clone())
                && otherwise.is_empty()
                && matches!(then.as_slice(), [Stmt::Update {
                    place: Place::Var(v),
                    op: UpdateOp::Reduce(ReduceOp::Add),
                    value: Expr::Index(1),
                    ..
                }] if v == seg)
        }
        _ => false,
    }
}

/// The segment sum of `s += dot(.., cursor..run_end)` and the run of rows that computes such
/// sums of whole rows of `pos`'s level (rows to be set).
fn sum_of(walk: &Stmt, cursor: &Var, pos: &Array) -> Option<(Var, Stmt)> {
    let Stmt::Update {
        place: Place::Var(sum),
        value:
            Expr::GatherDot {
                vals,
                crd,
                weights,
                range,
            },
        ..
    } = walk
    else {
        return None;
    };
    let (Array::Crd { param, level }, Array::Pos { param: p, level: l }) = (crd, pos) else {
        return None;
    };
    let level_of_pos = param == p && level == l;
    (level_of_pos && range.0 == Expr::Var(cursor.clone())).then(|| {
        let rows = Box::new((Expr::Index(0), Expr::Index(0)));
        let dots = Stmt::RowDots {
            op: UpdateOp::Set,
            vals: vals.clone(),
            crd: crd.clone(),
            weights: weights.clone(),
            pos: pos.clone(),
            rows,
        };
        (sum.clone(), dots)
    })
}

/// The task's first row and the update of its owned rows, from the segment's store
/// `if seg == first || stop < end { atomic out[seg] += s } else { out[seg] op= s }`.
fn store_of(store: &Stmt, seg: &Var, stop: &Var, end: &Var, sum: &Var) -> Option<(Var, UpdateOp)> {
    let Stmt::If {
        cond: Expr::Binary(BinOp::Or, is_first, past),
        otherwise,
        ..
    } = store
    else {
        return None;
    };
    let var = |v: &Var| Box::new(Expr::Var(v.clone()));
    let Expr::Binary(BinOp::Eq, s, first) = &**is_first else {
        return None;
    };
    let Expr::Var(first) = &**first else {
        return None;
    };
    let shared_past = **past == Expr::Binary(BinOp::Lt, var(stop), var(end));
    let [
        Stmt::Update {
            place: Place::Elem(Array::Vals { param: 0 }, at),
            op: op @ (UpdateOp::Set | UpdateOp::Reduce(ReduceOp::Add)),
            value: Expr::Var(stored),
            sync: Sync::Owned,
        },
    ] = otherwise.as_slice()
    else {
        return None;
    };
    let owned = *at == Expr::Var(seg.clone()) && stored == sum;
    (*s == var(seg) && shared_past && owned).then(|| (first.clone(), *op))
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::super::printed;

    #[test]
    fn a_task_s_whole_rows_are_one_run() {
        let ir = printed(quote! {
            fn spmv_nnz; y(i) = A(i,j) * x(j); formats<A: csr>;
            schedule< collapse(i,j,f).pos(f,p,A).split(p,p0,p1,Down,16)
                .parallelize(p0,CpuThread,Atomics) >;
        });
        let whole = "if __A_segment != __p_tile_first && A.l1.pos[__A_segment + 1] <= __p_stop {";
        assert!(ir.contains(whole), "{ir}");
        let rows_end =
            "let __rows_end: index = max(count_up_to(A.l1.pos, __p_stop) - 1, __A_segment + 1);";
        assert!(ir.contains(rows_end), "{ir}");
        let run = "y.vals[__A_segment..__rows_end] = dots(A.vals, x.vals[A.l1.crd], A.l1.pos);";
        assert!(ir.contains(run), "{ir}");
        assert!(ir.contains("__p_cursor = A.l1.pos[__rows_end];"), "{ir}");
        assert!(ir.contains("__A_segment = __rows_end;"), "{ir}");
        // The partial rows at the task's ends keep their dot products and atomic adds.
        assert!(ir.contains("__segment_sum += dot("), "{ir}");
        assert!(
            ir.contains("atomic y.vals[__A_segment] += __segment_sum;"),
            "{ir}"
        );
        // The tasks' own rows are theirs: the region reaches the output through their runs.
        let runs = "parallel(threads, shared, own rows of A.l1.pos from 0 + __p0_task * __p0_per_task * 16,";
        assert!(ir.contains(runs), "{ir}");
    }

    #[test]
    fn walks_whose_rows_are_not_dot_products_stay() {
        for kernel in [
            quote! {
                fn f; y(i) = A(i,j) * x(j) * x(j); formats<A: csr>;
                schedule< collapse(i,j,f).pos(f,p,A).split(p,p0,p1,Down,16)
                    .parallelize(p0,CpuThread,Atomics) >;
            },
            quote! {
                fn f; y(i) = A(i,j) * (x(j) + x(j)); formats<A: csr>;
                schedule< collapse(i,j,f).pos(f,p,A).split(p,p0,p1,Down,16)
                    .parallelize(p0,CpuThread,Atomics) >;
            },
        ] {
            let ir = printed(kernel);
            assert!(!ir.contains("__rows_end"), "{ir}");
            assert!(!ir.contains("own rows"), "{ir}");
        }
    }

    #[test]
    fn only_sets_and_sums_of_the_output_leave_its_rows_to_the_tasks() {
        use super::{Array, Expr, Place, ReduceOp, Stmt, Sync, UpdateOp, Var, sets_and_sums};
        let s = || Expr::Var(Var("s".into()));
        let update = |array: Array, op: UpdateOp, value: Expr| Stmt::Update {
            place: Place::Elem(array, Expr::Index(0)),
            op,
            value,
            sync: Sync::Owned,
        };
        let (out, temp) = (Array::Vals { param: 0 }, Array::Temp(Var("w".into())));
        let read = Expr::Load(out.clone(), Box::new(Expr::Index(1)));
        assert!(sets_and_sums(&update(out.clone(), UpdateOp::Set, s())));
        assert!(sets_and_sums(&update(
            out.clone(),
            UpdateOp::Reduce(ReduceOp::Add),
            s()
        )));
        assert!(sets_and_sums(&update(
            temp.clone(),
            UpdateOp::Reduce(ReduceOp::Min),
            s()
        )));
        assert!(!sets_and_sums(&update(
            out.clone(),
            UpdateOp::Reduce(ReduceOp::Min),
            s()
        )));
        assert!(
            !sets_and_sums(&update(temp, UpdateOp::Set, read.clone())),
            "a read"
        );
        assert!(!sets_and_sums(&update(out, UpdateOp::Set, read)), "a read");
    }
}
