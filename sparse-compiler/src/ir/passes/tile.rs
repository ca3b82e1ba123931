//! Register tiles: the row of a dense output that a loop over a sparse segment accumulates
//! into, held in a local array across that loop (SpMM's `C(i,:) += A(i,j) * B(j,:)` over the
//! nonzeros of row `i` of `A`; MTTKRP's row of the output over a fiber of `B`).
//!
//! Lowered, such a loop nest reads and writes the output's row once per nonzero:
//!
//! ```text
//! for p in lo..hi { lets; for k in 0..n { let c = base + k; ..; C[c] += e } }
//! ```
//!
//! It becomes tiles of the row, each summed in a local array of constant width, then the
//! columns that no tile covers as before:
//!
//! ```text
//! let kb = 0;
//! while kb + W <= n {
//!     acc = C[base + kb ..][..W];
//!     for p in lo..hi { lets; tile t in 0..W { ..; acc[t] += e[k := kb + t] } }
//!     C[base + kb ..][..W] = acc;
//!     kb += W;
//! }
//! if kb < n { for p in lo..hi { lets; for k in kb..n { the body as it was } } }
//! ```
//!
//! Every element still receives the same additions in the same order, so the results do not
//! change. A back end prints a tile's loop over chunks of constant length, which unrolls and
//! keeps `acc` in registers. Only CPU kernels are tiled, outside thread regions or in a region
//! whose iterations own blocks of the output's rows.

use super::Locals;
use crate::ir::{
    Array, BinOp, Expr, HostStep, Kernel, Literal, OutputAccess, Place, ReduceOp, Region, Stmt,
    Sync, Type, Unit, UpdateOp, Var, bin, mentions, offset_of, substitute,
};

/// The tile widths tried, widest first: 32 columns (SpMM's usual 32 dense columns, eight
/// 256-bit registers of `f64`), then 16 (a rank-16 factorization).
const WIDTHS: [usize; 2] = [32, 16];

/// `kernel` with every candidate loop nest tiled.
pub(super) fn tile(mut kernel: Kernel) -> Kernel {
    if super::on_gpu(&kernel) {
        return kernel;
    }
    let whole_rows = writes_whole_rows(&kernel);
    if whole_rows {
        kernel
            .body
            .retain(|s| !matches!(s, Stmt::Host(HostStep::ZeroOutput { .. })));
    }
    let mut names = Names {
        locals: Locals::of(&kernel),
        whole_rows,
    };
    kernel.body = stmts(std::mem::take(&mut kernel.body), &mut names);
    kernel
}

/// Whether the kernel zeroes its dense output only for one nest that writes every row whole:
/// the body is the zeroing and then a loop over all the output's rows, or a thread region whose
/// iterations own blocks of whole rows and loop over the rows of their block (`block_rows`). The
/// row loop's body ends with the nest, the output's only writer, at row `i` across all its
/// columns. Its tiles then start from zero and the columns they leave are zeroed row by row, so
/// the output is written once, not zeroed first and read back.
fn writes_whole_rows(kernel: &Kernel) -> bool {
    let [Stmt::Host(HostStep::ZeroOutput { .. }), covering] = kernel.body.as_slice() else {
        return false;
    };
    let rows = match covering {
        Stmt::For {
            var,
            lo: Expr::Index(0),
            hi: Expr::Dim { param: 0, dim: 0 },
            body,
        } => Some((var, body.as_slice())),
        Stmt::Parallel(region) => block_rows(region),
        _ => None,
    };
    let Some((i, body)) = rows else {
        return false;
    };
    let Some((
        Stmt::For {
            var: p,
            body: nested,
            ..
        },
        before,
    )) = body.split_last()
    else {
        return false;
    };
    let Some(nest) = Nest::find(p, nested) else {
        return false;
    };
    let row = bin(
        BinOp::Mul,
        Expr::Var(i.clone()),
        Expr::LevelSize { param: 0, level: 1 },
    );
    let plain = |s: &Stmt| matches!(s, Stmt::Let { .. } | Stmt::Prefetch { .. });
    kernel.params[0].order == 2
        && matches!(nest.n, Expr::Dim { param: 0, dim: 1 })
        && *nest.base == row
        && before.iter().all(|s| plain(s) && !reads_output(s))
}

/// The row variable and the row loop's body of a row split's region: iteration `v` owns the
/// block of `w` rows from row `v * w` (`w` values of a vector, `w * C.l1.size` of a matrix) and
/// its body is one loop over exactly those rows,
///
/// ```text
/// for u in 0..min(w, rows - 0 - v * w) { let i = 0 + (v * w + u); .. }
/// ```
///
/// so every row of the block is a row of the loop. The body returned starts after `let i`.
pub(super) fn block_rows(region: &Region) -> Option<(&Var, &[Stmt])> {
    let OutputAccess::Blocks { chunk, .. } = &region.output else {
        return None;
    };
    let w = Expr::Index(block_width(chunk)?);
    let [
        Stmt::For {
            var: u,
            lo: Expr::Index(0),
            hi,
            body,
        },
    ] = region.body.as_slice()
    else {
        return None;
    };
    let v = Expr::Var(region.var.clone());
    let first = bin(BinOp::Mul, v, w.clone());
    let rows_left = bin(
        BinOp::Sub,
        bin(BinOp::Sub, Expr::Dim { param: 0, dim: 0 }, Expr::Index(0)),
        first.clone(),
    );
    let (Some(Stmt::Let { var: i, init, .. }), rest) = (body.first(), &body[1..]) else {
        return None;
    };
    let row = bin(
        BinOp::Add,
        Expr::Index(0),
        bin(BinOp::Add, first, Expr::Var(u.clone())),
    );
    let owned = region.unit == Unit::CpuThread && region.lo == Expr::Index(0);
    (owned && *hi == bin(BinOp::Min, w.clone(), rows_left) && *init == row).then_some((i, rest))
}

/// The rows `w` of a row split's block of `chunk` output values: `w` values of a vector, or
/// `w * C.l1.size` of a matrix.
pub(super) fn block_width(chunk: &Expr) -> Option<usize> {
    match chunk {
        Expr::Index(w) => Some(*w),
        Expr::Binary(BinOp::Mul, w, l1) => match (&**w, &**l1) {
            (Expr::Index(w), Expr::LevelSize { param: 0, level: 1 }) => Some(*w),
            _ => None,
        },
        _ => None,
    }
}

/// Fresh names for the locals the pass declares, and whether the one nest it tiles writes
/// whole rows of an output nothing has zeroed (`writes_whole_rows`).
struct Names {
    locals: Locals,
    whole_rows: bool,
}

impl Names {
    fn fresh(&mut self, hint: &str) -> Var {
        self.locals.fresh(hint)
    }
}

fn stmts(stmts: Vec<Stmt>, names: &mut Names) -> Vec<Stmt> {
    stmts.into_iter().flat_map(|s| stmt(s, names)).collect()
}

fn stmt(stmt: Stmt, names: &mut Names) -> Vec<Stmt> {
    match stmt {
        Stmt::Parallel(mut region) => {
            let owned_rows = region.unit == Unit::CpuThread
                && matches!(region.output, OutputAccess::Blocks { .. });
            if owned_rows {
                region.body = stmts(std::mem::take(&mut region.body), names);
            }
            vec![Stmt::Parallel(region)]
        }
        Stmt::For { var, lo, hi, body } => match Nest::find(&var, &body) {
            Some(nest) => nest.tiled(&var, &lo, &hi, names),
            None => vec![Stmt::For {
                var,
                lo,
                hi,
                body: stmts(body, names),
            }],
        },
        mut other => {
            for body in other.bodies_mut() {
                *body = stmts(std::mem::take(body), names);
            }
            vec![other]
        }
    }
}

/// A loop over `p` whose body is `lets` and then the loop over the output's row.
struct Nest<'b> {
    /// The statements before the inner loop: `let`s and hints.
    lets: &'b [Stmt],
    /// The inner loop's variable.
    k: &'b Var,
    /// Its extent `n` (the loop runs `0..n`).
    n: &'b Expr,
    /// Its body.
    inner: &'b [Stmt],
    /// The local holding the output position `base + k`.
    at: &'b Var,
    /// `base`: where the row starts.
    base: &'b Expr,
}

impl<'b> Nest<'b> {
    /// The nest of the loop over `p` with `body`, if it has the shape the pass tiles.
    fn find(p: &Var, body: &'b [Stmt]) -> Option<Nest<'b>> {
        let (last, lets) = body.split_last()?;
        let Stmt::For {
            var: k,
            lo: Expr::Index(0),
            hi: n,
            body: inner,
        } = last
        else {
            return None;
        };
        let plain = |s: &Stmt| {
            matches!(
                s,
                Stmt::Let { .. } | Stmt::Prefetch { .. } | Stmt::PrefetchGather { .. }
            )
        };
        if !lets.iter().all(plain) || lets.iter().any(reads_output) {
            return None;
        }
        let [
            Stmt::Update {
                place: Place::Elem(Array::Vals { param: 0 }, Expr::Var(at)),
                op: UpdateOp::Reduce(ReduceOp::Add),
                value,
                sync: Sync::Owned,
            },
        ] = updates(inner).as_slice()
        else {
            return None;
        };
        let base = inner.iter().find_map(|s| match s {
            Stmt::Let { var, init, .. } if var == at => offset_of(init, k),
            _ => None,
        })?;
        // The row and the extent stay where they are while `p` runs.
        let mut varying: Vec<&Var> = vec![p, k];
        varying.extend(lets.iter().chain(inner).filter_map(declared_let));
        let invariant = |e: &Expr| !varying.iter().any(|v| mentions(v, e));
        let inner_ok = (inner.iter())
            .all(|s| matches!(s, Stmt::Let { .. } | Stmt::Update { .. }) && !reads_output(s));
        let value_ok = !expr_reads_output(value);
        (invariant(base) && invariant(n) && inner_ok && value_ok).then_some(Nest {
            lets,
            k,
            n,
            inner,
            at,
            base,
        })
    }

    /// The tiles and the loop over the columns they leave.
    fn tiled(&self, p: &Var, lo: &Expr, hi: &Expr, names: &mut Names) -> Vec<Stmt> {
        let kb = names.fresh("__kb");
        let mut out = vec![Stmt::Let {
            var: kb.clone(),
            ty: Type::Index,
            init: Expr::Index(0),
            mutable: true,
        }];
        for width in WIDTHS {
            out.push(self.tiles(width, &kb, p, lo, hi, names));
        }
        let (var, n) = (self.k, self.n);
        let columns = |body: Vec<Stmt>| Stmt::For {
            var: var.clone(),
            lo: Expr::Var(kb.clone()),
            hi: n.clone(),
            body,
        };
        let mut then = Vec::new();
        if names.whole_rows {
            let at = names.fresh("__pz");
            let start = bin(BinOp::Add, self.base.clone(), Expr::Var(var.clone()));
            then.push(columns(vec![
                index_let(at.clone(), start),
                Stmt::Update {
                    place: Place::Elem(Array::Vals { param: 0 }, Expr::Var(at)),
                    op: UpdateOp::Set,
                    value: Expr::Value(Literal::Int(0)),
                    sync: Sync::Owned,
                },
            ]));
        }
        then.push(Stmt::For {
            var: p.clone(),
            lo: lo.clone(),
            hi: hi.clone(),
            body: (self.lets.iter().cloned())
                .chain([columns(self.inner.to_vec())])
                .collect(),
        });
        out.push(Stmt::If {
            cond: bin(BinOp::Lt, Expr::Var(kb), n.clone()),
            then,
            otherwise: Vec::new(),
        });
        out
    }

    /// `while kb + width <= n { acc = row; for p { .. acc[t] += .. }; row = acc; kb += width }`.
    fn tiles(
        &self,
        width: usize,
        kb: &Var,
        p: &Var,
        lo: &Expr,
        hi: &Expr,
        names: &mut Names,
    ) -> Stmt {
        let acc = names.fresh("__acc");
        let start = bin(BinOp::Add, self.base.clone(), Expr::Var(kb.clone()));
        let row_loop = |names: &mut Names, to_acc: bool| {
            let (t, at) = (names.fresh("__t"), names.fresh("__pc"));
            let element = Expr::Load(Array::Vals { param: 0 }, Box::new(Expr::Var(at.clone())));
            let slot = Expr::Load(Array::Temp(acc.clone()), Box::new(Expr::Var(t.clone())));
            let (place, value) = match to_acc {
                true => (
                    Place::Elem(Array::Temp(acc.clone()), Expr::Var(t.clone())),
                    element,
                ),
                false => (
                    Place::Elem(Array::Vals { param: 0 }, Expr::Var(at.clone())),
                    slot,
                ),
            };
            Stmt::Tile {
                var: t.clone(),
                width,
                body: vec![
                    index_let(at, bin(BinOp::Add, start.clone(), Expr::Var(t))),
                    Stmt::Update {
                        place,
                        op: UpdateOp::Set,
                        value,
                        sync: Sync::Owned,
                    },
                ],
            }
        };
        // A row nothing has zeroed starts at zero (the workspace's first value).
        let load = (!names.whole_rows).then(|| row_loop(names, true));
        let summed = Stmt::For {
            var: p.clone(),
            lo: lo.clone(),
            hi: hi.clone(),
            body: (self.lets.iter().cloned())
                .chain([self.tile_body(width, kb, &acc, names)])
                .collect(),
        };
        let store = row_loop(names, false);
        let step = Stmt::Update {
            place: Place::Var(kb.clone()),
            op: UpdateOp::Reduce(ReduceOp::Add),
            value: Expr::Index(width),
            sync: Sync::Owned,
        };
        let acc_decl = Stmt::value_workspace(acc, Expr::Index(width), Literal::Int(0));
        Stmt::While {
            cond: bin(
                BinOp::Le,
                bin(BinOp::Add, Expr::Var(kb.clone()), Expr::Index(width)),
                self.n.clone(),
            ),
            body: [acc_decl]
                .into_iter()
                .chain(load)
                .chain([summed, store, step])
                .collect(),
        }
    }

    /// The inner loop's body over one tile: column `k` is `kb + t`, a position `x + k` is
    /// `(x + kb) + t` (so a back end sees a row from `x + kb`), and the update goes to `acc[t]`.
    fn tile_body(&self, width: usize, kb: &Var, acc: &Var, names: &mut Names) -> Stmt {
        let t = names.fresh("__t");
        let column = bin(BinOp::Add, Expr::Var(kb.clone()), Expr::Var(t.clone()));
        let mut body = Vec::new();
        for stmt in self.inner {
            match stmt {
                Stmt::Let { var, .. } if var == self.at => {}
                Stmt::Let {
                    var,
                    ty,
                    init,
                    mutable,
                } => {
                    let init = match offset_of(init, self.k) {
                        Some(x) => bin(
                            BinOp::Add,
                            bin(BinOp::Add, x.clone(), Expr::Var(kb.clone())),
                            Expr::Var(t.clone()),
                        ),
                        None => substitute(init, self.k, &column),
                    };
                    body.push(Stmt::Let {
                        var: var.clone(),
                        ty: *ty,
                        init,
                        mutable: *mutable,
                    });
                }
                Stmt::Update { value, .. } => body.push(Stmt::Update {
                    place: Place::Elem(Array::Temp(acc.clone()), Expr::Var(t.clone())),
                    op: UpdateOp::Reduce(ReduceOp::Add),
                    value: substitute(value, self.k, &column),
                    sync: Sync::Owned,
                }),
                _ => unreachable!("a nest's inner loop holds lets and one update"),
            }
        }
        Stmt::Tile {
            var: t,
            width,
            body,
        }
    }
}

fn index_let(var: Var, init: Expr) -> Stmt {
    Stmt::Let {
        var,
        ty: Type::Index,
        init,
        mutable: false,
    }
}

fn declared_let(stmt: &Stmt) -> Option<&Var> {
    match stmt {
        Stmt::Let { var, .. } => Some(var),
        _ => None,
    }
}

fn updates(body: &[Stmt]) -> Vec<&Stmt> {
    body.iter()
        .filter(|s| matches!(s, Stmt::Update { .. }))
        .collect()
}

/// Whether `stmt` itself (not a statement nested in it) reads the output's values.
pub(super) fn reads_output(stmt: &Stmt) -> bool {
    crate::ir::visit::stmt_exprs(stmt)
        .into_iter()
        .any(expr_reads_output)
}

pub(super) fn expr_reads_output(expr: &Expr) -> bool {
    match expr {
        Expr::Load(Array::Vals { param: 0 }, _) | Expr::Len(Array::Vals { param: 0 }) => true,
        _ => crate::ir::visit::operands(expr)
            .into_iter()
            .any(expr_reads_output),
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::super::printed as ir;

    #[test]
    fn tiles_the_rows_of_spmm_serially_and_in_blocks_of_rows() {
        let serial = ir(quote! { fn k; C(i,k) = A(i,j) * B(j,k); formats<A: csr>; });
        // The tiles' rows are runs of axpys after the `axpy` pass, each tile stored whole.
        assert!(
            serial.contains("C.vals[r * C.l1.size + __kb, 0..32] = axpys("),
            "{serial}"
        );
        assert!(
            serial.contains("C.vals[r * C.l1.size + __kb, 0..16] = axpys("),
            "{serial}"
        );
        assert!(serial.contains("if __kb < C.shape[1]"), "{serial}");
        let rows = ir(quote! {
            fn k; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
            schedule<split(i, i0, i1, Down, 8).parallelize(i0, CpuThread, NoRaces)>;
        });
        assert!(rows.contains("0..32] = axpys("), "{rows}");
        // Added into C, the tile starts from C's row: it stays a tile around the axpy.
        let add = ir(quote! { fn k; C(i,k) += A(i,j) * B(j,k); formats<A: csr>; });
        assert!(add.contains("workspace __acc: value[32]"), "{add}");
        assert!(add.contains("tile __t"), "{add}");
    }

    #[test]
    fn leaves_rows_that_move_with_the_sparse_loop_other_operators_and_gpu_kernels() {
        // C's row is A's column: it changes with every nonzero of the row of A.
        let moving = ir(quote! { fn k; C(j,k) = A(i,j) * B(i,k); formats<A: csr>; });
        assert!(!moving.contains("tile "), "{moving}");
        let min = ir(quote! {
            fn k; C(i,k) = A(i,j) + B(j,k); formats<A: csr>;
            fills<A: inf, B: inf, C: inf>; reduce<j: min>;
        });
        assert!(!min.contains("tile "), "{min}");
        let gpu = ir(quote! {
            fn k; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
            schedule<split(i, block, thread, Down, 64)
                .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces)>;
        });
        assert!(!gpu.contains("tile "), "{gpu}");
    }

    #[test]
    fn writes_whole_rows_once_where_the_loop_covers_every_row() {
        // Every row of C is a row of the dense loop over i: no zeroing pass, and the columns
        // after the tiles are zeroed in the row.
        let spmm = ir(quote! { fn k; C(i,k) = A(i,j) * B(j,k); formats<A: csr>; });
        assert!(!spmm.contains("zero(C.vals)"), "{spmm}");
        assert!(spmm.contains("C.vals[__pz] = T(0);"), "{spmm}");
        // MTTKRP's rows are those of B's sparse first level: the others need the zeroing.
        let mttkrp = ir(quote! {
            fn k; A(i,j) = B(i,k,l) * C(k,j) * D(l,j); formats<B: csf>;
        });
        assert!(mttkrp.contains("zero(A.vals)"), "{mttkrp}");
        assert!(mttkrp.contains("__acc[__t] = A.vals[__pc];"), "{mttkrp}");
    }

    #[test]
    fn writes_whole_rows_once_in_the_blocks_of_a_row_split() {
        // Each block's loop covers its rows: no block zeroed first, no tile read back.
        let rows = ir(quote! {
            fn k; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
            schedule<split(i, i0, i1, Down, 16).parallelize(i0, CpuThread, NoRaces)>;
        });
        assert!(
            !rows.contains("= T(0);\n        }\n        for __i1"),
            "{rows}"
        );
        assert!(!rows.contains("= C.vals[__pc"), "{rows}");
        assert!(rows.contains("C.vals[__pz] = T(0);"), "{rows}");
        // An atomic split shares rows between its tasks: they must start from zeros.
        let shared = ir(quote! {
            fn k; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
            schedule<split(i, i0, i1, Down, 16).parallelize(i0, CpuThread, Atomics)>;
        });
        assert!(shared.contains("zero_in_parallel(C.vals)"), "{shared}");
    }

    #[test]
    fn leaves_a_sum_that_reads_the_output() {
        let reads = ir(quote! {
            fn k; C(i,k) = C(i,k) * A(i,j) * B(j,k); formats<A: csr>;
        });
        assert!(!reads.contains("tile "), "{reads}");
    }
}
