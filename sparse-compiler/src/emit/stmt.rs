//! IR statements -> Rust statements: the emitter's state, plain statements, loops and host steps.
//! Parallel regions are in `region.rs` (threads) and `lanes.rs` (SIMD).

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::bindings::{Binding, Bindings, LevelArray, ident, lit};
use super::expr::{Prec, is_constant, level_array, put_type};
use super::names::Locals;
use super::root::Root;
use super::windows::Window;
use crate::ir::{
    Array, BinOp, COMBINE_OPERANDS, Expr, HostStep, Kernel, Place, ReduceOp, Region, Stmt, Sync,
    TempType, Unit, UpdateOp, Var,
};

/// The longest workspace of constant length declared as a stack array rather than a `Vec`
/// (rayon's worker stacks are small; 256 values of 8 bytes stay far below them).
const STACK_WORKSPACE_MAX: usize = 256;

/// Inside a thread region: how the Rust code reaches the output's values, as the region's
/// [`OutputAccess`] says.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Writes {
    /// Into the iteration's own chunk `__out_rows`, at positions less `__out_offset`.
    Blocks,
    /// Through the atomic cells `__out_cells`.
    Scattered,
    /// Through the task's run of the output, `__out_run` (the runtime's `Run`): its own rows
    /// plainly, the rows shared with other tasks atomically.
    Runs,
    /// Into the task's own copy, `__out_cells`.
    Reduced,
    /// The count phase of a row assembly.
    CountRows,
    /// The fill phase of a row assembly.
    FillRows,
    /// Appends or triples into the piece's own part (the output's values are not written).
    Parts,
}

/// What the statements being printed need to know.
#[derive(Clone, Copy)]
pub(super) struct Emitter<'k> {
    pub(super) kernel: &'k Kernel,
    /// The facade's path.
    pub(super) root: &'k Root,
    pub(super) bindings: &'k Bindings,
    pub(super) locals: &'k Locals,
    /// Inside a thread region: how it reaches the output.
    pub(super) writes: Option<Writes>,
    /// Inside the innermost loop over a row of values arrays: the rows as slices.
    pub(super) windows: &'k [Window],
}

/// The prologue at the start of `stmts` (bound checks, then output-structure copies), which must
/// run before the output's arrays are bound, and how many statements it takes.
pub(super) fn put_prologue(emitter: &Emitter, stmts: &[Stmt]) -> (TokenStream, usize) {
    let output = emitter.output();
    let count = stmts.iter().take_while(|s| s.is_prologue()).count();
    let tokens = (stmts[..count].iter())
        .map(|s| match s {
            Stmt::Host(HostStep::CopyStructure { from }) => {
                let from = ident(&emitter.kernel.params[*from].name);
                let root = emitter.root;
                quote! { #root::__private::copy_structure(&mut *#output, #from)?; }
            }
            other => emitter.put_stmt(other),
        })
        .collect();
    (tokens, count)
}

impl Emitter<'_> {
    pub(super) fn put_stmts(&self, stmts: &[Stmt]) -> TokenStream {
        stmts.iter().map(|s| self.put_stmt(s)).collect()
    }

    /// The emitter's own local `base` (see `names.rs`).
    pub(super) fn local(&self, base: &str) -> proc_macro2::Ident {
        self.locals.get(base)
    }

    pub(super) fn put_stmt(&self, stmt: &Stmt) -> TokenStream {
        let root = self.root;
        match stmt {
            Stmt::Let {
                var,
                ty,
                init,
                mutable,
            } => {
                let var = ident(&var.0);
                let ty = put_type(*ty);
                let init = self.put_expr(init).tokens;
                let mutability = mutable.then(|| quote! { mut });
                quote! { let #mutability #var: #ty = #init; }
            }
            Stmt::Update {
                place,
                op,
                value,
                sync,
            } => self.put_update(place, *op, value, *sync),
            Stmt::Workspace {
                var, ty, len, init, ..
            } => self.put_workspace(var, *ty, len, init),
            Stmt::SortPrefix { array, len } => {
                let array = ident(&array.0);
                let len = self.put_expr(len).tokens;
                quote! { #array[..#len].sort_unstable(); }
            }
            Stmt::For { var, lo, hi, body } => self.put_for(var, lo, hi, body),
            Stmt::Tile { var, width, body } => self.put_tile(var, *width, body),
            Stmt::RowDots {
                op,
                vals,
                crd,
                weights,
                pos,
                rows,
            } => self.put_row_dots(*op, [vals, crd, weights, pos], rows),
            Stmt::RowAxpys {
                width,
                vals,
                crd,
                weights,
                pos,
                at,
                out_at,
                rows,
                ahead,
            } => self.put_row_axpys(
                (*width, *ahead),
                [vals, crd, weights, pos],
                [at, out_at, rows],
            ),
            Stmt::GatherAxpy {
                acc,
                width,
                vals,
                crd,
                weights,
                stride,
                offset,
                range,
                ahead,
            } => self.put_gather_axpy(
                acc,
                (*width, *ahead),
                [vals, crd, weights],
                [stride, offset],
                range,
            ),
            Stmt::Parallel(region) => match region.unit {
                Unit::CpuVector => self.put_lanes_region(region),
                Unit::CpuThread => self.put_thread_region(region),
                Unit::GpuBlock | Unit::GpuWarp | Unit::GpuThread => {
                    internal_error("a GPU region in a CPU kernel")
                }
            },
            Stmt::While { cond, body } => {
                let cond = self.put_expr(cond).at(Prec::Or);
                let body = self.put_stmts(body);
                quote! { while #cond { #body } }
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => self.put_if(cond, then, otherwise),
            Stmt::Host(step) => self.put_host(step),
            Stmt::Append { level, coord } => {
                let coord = self.put_expr(coord).tokens;
                let (asm, level) = (self.bindings.assembly(), lit(*level));
                quote! { #asm.append(#level, #coord); }
            }
            Stmt::AppendValue(value) => {
                let value = self.put_expr(value).tokens;
                let asm = self.bindings.assembly();
                quote! { #asm.append_value(#value); }
            }
            Stmt::FinishSegment { level, parent } => {
                let (asm, level) = (self.bindings.assembly(), lit(*level));
                let parent = self.put_expr(parent).tokens;
                quote! { #asm.finish_segment(#level, #parent); }
            }
            Stmt::CountEntry | Stmt::CloseRow { .. } | Stmt::FillCoord(_) | Stmt::FillValue(_) => {
                self.put_row_phase_stmt(stmt)
            }
            Stmt::AppendEntry { coords, value } => {
                let asm = self.bindings.assembly();
                let coords = coords.iter().map(|c| self.put_expr(c).tokens);
                let value = self.put_expr(value).tokens;
                quote! { #asm.push(&[#(#coords),*], #value)?; }
            }
            Stmt::Prefetch { array, from } => {
                let (array, from) = (self.put_array(array), self.put_expr(from).tokens);
                quote! { #root::__private::prefetch_ahead(#array, #from); }
            }
            Stmt::PrefetchGather {
                array,
                crd,
                at,
                offset,
                stride,
            } => {
                let (array, crd) = (self.put_array(array), self.put_array(crd));
                let at = self.put_expr(at).tokens;
                let (offset, stride) = (self.put_expr(offset).tokens, self.put_expr(stride).tokens);
                quote! {
                    #root::__private::prefetch_gather(#array, #crd, #at, #offset, #stride);
                }
            }
            Stmt::FailStructureMismatch => {
                let tensor = &self.kernel.params[0].name;
                quote! {
                    return ::core::result::Result::Err(#root::KernelError::StructureMismatch { tensor: #tensor });
                }
            }
        }
    }

    /// An update. Inside a thread region the output is reached as the region says: its own
    /// block, its task's copy, or atomic cells (a relaxed store, an unsynchronized add, or, where
    /// the update is `Atomic`, an atomic read-modify-write).
    fn put_update(&self, place: &Place, op: UpdateOp, value: &Expr, sync: Sync) -> TokenStream {
        let root = self.root;
        let product = self.contracted_product(place, op, value);
        let value = self.put_expr(value).tokens;
        // `place op= value`: `+=` for sums, `place = combine(place, value)` for the others.
        let update = |place: TokenStream| match op {
            UpdateOp::Set => quote! { #place = #value; },
            UpdateOp::Reduce(ReduceOp::Add) => match &product {
                Some((a, b)) => quote! {
                    #place = <T as #root::Scalar>::mul_add_contracted(#a, #b, #place);
                },
                None => quote! { #place += #value; },
            },
            UpdateOp::Reduce(op) => {
                let combined = self.put_combine(op, place.clone(), value.clone());
                quote! { #place = #combined; }
            }
        };
        let (array, index) = match place {
            Place::Var(var) => {
                let var = ident(&var.0);
                return update(quote! { #var });
            }
            Place::Elem(array, index) => (array, index),
        };
        let index_expr = index;
        let index = self.put_expr(index).tokens;
        let output = matches!(array, Array::Vals { param: 0 });
        let cells = self.local("__out_cells");
        let cell = quote! { #root::__private::AtomicCell };
        let (old, new) = (self.local("__old"), self.local("__new"));
        if let Some((row, at)) = self.window_of(array, index_expr) {
            let at = ident(&at.0);
            return update(quote! { #row[#at] });
        }
        match (self.writes.filter(|_| output), op, sync) {
            (None, ..) => {
                let array = self.put_array(array);
                update(quote! { #array[#index] })
            }
            (Some(Writes::Reduced), ..) => update(quote! { #cells[#index] }),
            (Some(Writes::Blocks), ..) => {
                let (rows, offset) = (self.local("__out_rows"), self.local("__out_offset"));
                update(quote! { #rows[#index - #offset] })
            }
            (Some(Writes::Runs), UpdateOp::Set, _) => {
                let run = self.local("__out_run");
                quote! { #run.set(#index, #value); }
            }
            (Some(Writes::Runs), UpdateOp::Reduce(ReduceOp::Add), _) => {
                let run = self.local("__out_run");
                quote! { #run.add(#index, #value); }
            }
            (Some(Writes::Runs), ..) => {
                internal_error("an update other than a sum in a task's run")
            }
            (Some(Writes::Scattered), UpdateOp::Set, _) => {
                quote! { #cell::set(&#cells[#index], #value); }
            }
            (Some(Writes::Scattered), UpdateOp::Reduce(ReduceOp::Add), Sync::Atomic) => {
                quote! { #cell::add(&#cells[#index], #value); }
            }
            (Some(Writes::Scattered), UpdateOp::Reduce(ReduceOp::Add), Sync::Owned) => {
                quote! { #cell::add_exclusive(&#cells[#index], #value); }
            }
            // Other reductions: a compare-and-swap loop, or a plain read and write where no
            // other iteration writes the cell.
            (Some(Writes::Scattered), UpdateOp::Reduce(op), sync) => {
                let combined = self.put_combine(op, quote! { #old }, quote! { #new });
                let method = match sync {
                    Sync::Atomic => quote! { combine },
                    Sync::Owned => quote! { combine_exclusive },
                };
                quote! {
                    {
                        let #new: T = #value;
                        #cell::#method(&#cells[#index], |#old: T| #combined);
                    }
                }
            }
            (Some(Writes::CountRows | Writes::FillRows | Writes::Parts), ..) => {
                internal_error("an update of the output in a row assembly")
            }
        }
    }

    /// A run of SpMV rows into the output's values, or into the block of them the iteration
    /// owns (the `dots` pass makes no other).
    fn put_row_dots(&self, op: UpdateOp, arrays: [&Array; 4], rows: &(Expr, Expr)) -> TokenStream {
        let [vals, crd, weights, pos] = arrays;
        let name = self.gather_name(vals, crd);
        let (crd, weights, pos) = (
            self.put_array(crd),
            self.put_array(weights),
            self.put_array(pos),
        );
        let lo = self.put_expr(&rows.0).at(Prec::Or);
        let hi = self.put_expr(&rows.1).at(Prec::Or);
        let (out, first) = match self.writes {
            None => (self.put_array(&Array::Vals { param: 0 }), quote! { 0 }),
            Some(Writes::Blocks) => {
                let (rows, offset) = (self.local("__out_rows"), self.local("__out_offset"));
                (quote! { #rows }, quote! { #offset })
            }
            Some(Writes::Scattered) => {
                let cells = self.local("__out_cells");
                let add = matches!(op, UpdateOp::Reduce(_));
                return quote! { #name.dot_rows_cells(#crd, #weights, #pos, #lo..#hi, #cells, #add); };
            }
            Some(Writes::Runs) => {
                let run = self.local("__out_run");
                let add = matches!(op, UpdateOp::Reduce(_));
                return quote! { #run.dot_rows(&#name, #crd, #weights, #pos, #lo..#hi, #add); };
            }
            Some(_) => return internal_error("rows of dot products outside owned rows"),
        };
        let method = match op {
            UpdateOp::Set => quote! { dot_rows },
            UpdateOp::Reduce(_) => quote! { dot_rows_add },
        };
        quote! { #name.#method(#crd, #weights, #pos, #lo..#hi, &mut *#out, #first); }
    }

    /// A run of rows, each a tile of rows of a dense input gathered and stored into the
    /// output's row (the `axpy` pass).
    fn put_row_axpys(
        &self,
        (width, ahead): (usize, usize),
        [vals, crd, weights, pos]: [&Array; 4],
        [at, out_at, rows]: [&(Expr, Expr); 3],
    ) -> TokenStream {
        let name = self.gather_name(vals, crd);
        let [crd, weights, pos] = [crd, weights, pos].map(|a| self.put_array(a));
        let [stride, offset, out_stride, out_offset, lo, hi] =
            [&at.0, &at.1, &out_at.0, &out_at.1, &rows.0, &rows.1]
                .map(|e| self.put_expr(e).at(Prec::Or));
        let (out, first) = match self.writes {
            None => (self.put_array(&Array::Vals { param: 0 }), quote! { 0 }),
            Some(Writes::Blocks) => {
                let (rows, offset) = (self.local("__out_rows"), self.local("__out_offset"));
                (quote! { #rows }, quote! { #offset })
            }
            Some(_) => return internal_error("rows of axpys outside owned rows"),
        };
        let (width, ahead) = (lit(width), lit(ahead));
        quote! {
            #name.axpy_runs::<#width>(
                #crd, #weights, #pos, #lo..#hi, (#stride, #offset), &mut *#out,
                (#out_stride, #out_offset, #first), #ahead,
            );
        }
    }

    /// Rows of a dense input gathered into a register tile (the `axpy` pass).
    fn put_gather_axpy(
        &self,
        acc: &Var,
        (width, ahead): (usize, usize),
        [vals, crd, weights]: [&Array; 3],
        [stride, offset]: [&Expr; 2],
        range: &(Expr, Expr),
    ) -> TokenStream {
        let name = self.gather_name(vals, crd);
        let (crd, weights) = (self.put_array(crd), self.put_array(weights));
        let [stride, offset, lo, hi] =
            [stride, offset, &range.0, &range.1].map(|e| self.put_expr(e).at(Prec::Or));
        let (acc, width, ahead) = (ident(&acc.0), lit(width), lit(ahead));
        quote! {
            #name.axpy_rows::<#width>(
                #crd, #weights, #lo..#hi, (#stride, #offset), &mut #acc[..], #ahead,
            );
        }
    }

    /// For `place[..] += a * b` into values the thread owns: `a` and `b`, which the update
    /// computes as one multiply-add (the runtime's `Scalar::mul_add_contracted`: one rounding
    /// where the target fuses, as C compilers contract it). Only for elements of arrays: those
    /// are the independent sums of a row of SpMM or MTTKRP, where the multiply-add halves the
    /// arithmetic. A scalar running sum (SpMV's row, SDDMM's dot product) is one dependent
    /// chain, and on recent Intel cores an add waits 2 cycles where a fused multiply-add waits 4:
    /// contracted, SpMV on `lp_d2q06c` went from 0.76 to 1.35 of taco's time. Atomic and shared
    /// updates of the output add the product as it is.
    fn contracted_product(
        &self,
        place: &Place,
        op: UpdateOp,
        value: &Expr,
    ) -> Option<(TokenStream, TokenStream)> {
        let Expr::Binary(BinOp::Mul, a, b) = value else {
            return None;
        };
        let holds_values = match place {
            Place::Var(_) => false,
            Place::Elem(Array::Temp(var), _) => self.locals.is_value(var),
            Place::Elem(Array::Vals { param }, _) => *param == 0,
            Place::Elem(..) => false,
        };
        let shared = matches!(place, Place::Elem(Array::Vals { .. }, _))
            && matches!(self.writes, Some(Writes::Scattered | Writes::Runs));
        let sum = matches!(op, UpdateOp::Reduce(ReduceOp::Add));
        (sum && holds_values && !shared).then(|| (self.put_expr(a).tokens, self.put_expr(b).tokens))
    }

    /// `acc op value` for a reduction operator: `min` and `max` keep the accumulator unless the
    /// value is smaller (larger), so a NaN value never replaces it (as `f64::min` ignores NaN);
    /// `||` and `&&` read nonzero as true and give one or zero.
    pub(super) fn put_combine(
        &self,
        op: ReduceOp,
        acc: TokenStream,
        value: TokenStream,
    ) -> TokenStream {
        let root = self.root;
        let scalar = quote! { <T as #root::Scalar> };
        let (zero, one) = (quote! { #scalar::ZERO }, quote! { #scalar::ONE });
        let (x, y) = (self.local("__x"), self.local("__y"));
        let result = match op {
            ReduceOp::User { .. } => return self.put_user_combine(acc, value),
            ReduceOp::Add => quote! { #x + #y },
            ReduceOp::Mul => quote! { #x * #y },
            ReduceOp::Min => quote! { if #y < #x { #y } else { #x } },
            ReduceOp::Max => quote! { if #y > #x { #y } else { #x } },
            ReduceOp::Or => quote! { if #x != #zero || #y != #zero { #one } else { #zero } },
            ReduceOp::And => quote! { if #x != #zero && #y != #zero { #one } else { #zero } },
        };
        quote! { { let (#x, #y): (T, T) = (#acc, #value); #result } }
    }

    /// A user operator's combine ([`Kernel::combine`]) of `acc` and `value`.
    fn put_user_combine(&self, acc: TokenStream, value: TokenStream) -> TokenStream {
        let [a, v] = COMBINE_OPERANDS.map(ident);
        let body = (self.kernel.combine.as_ref())
            .map_or_else(|| quote! { #v }, |e| self.put_expr(e).tokens);
        quote! { { let (#a, #v): (T, T) = (#acc, #value); #body } }
    }

    fn put_workspace(&self, var: &Var, ty: TempType, len: &Expr, init: &Expr) -> TokenStream {
        let var = ident(&var.0);
        let zero = match ty {
            TempType::Value => self.put_expr(init).tokens,
            TempType::Index => quote! { 0usize },
            TempType::Bool => quote! { false },
        };
        // A short constant length (the inner loop of a split) is a stack array, which the
        // compiler can keep in registers.
        if let Expr::Index(n) = len
            && *n <= STACK_WORKSPACE_MAX
        {
            return quote! { let mut #var = [#zero; #n]; };
        }
        let len = self.put_expr(len).tokens;
        quote! { let mut #var = ::std::vec![#zero; #len]; }
    }

    fn put_if(&self, cond: &Expr, then: &[Stmt], otherwise: &[Stmt]) -> TokenStream {
        let cond = self.put_expr(cond).at(Prec::Or);
        let then = self.put_stmts(then);
        match otherwise {
            [] => quote! { if #cond { #then } },
            [nested @ Stmt::If { .. }] => {
                let nested = self.put_stmt(nested);
                quote! { if #cond { #then } else #nested }
            }
            _ => {
                let otherwise = self.put_stmts(otherwise);
                quote! { if #cond { #then } else { #otherwise } }
            }
        }
    }

    fn put_host(&self, step: &HostStep) -> TokenStream {
        let root = self.root;
        let (asm, output) = (self.bindings.assembly(), self.output());
        match step {
            // Hoisted before the bindings by `write_function`.
            HostStep::CopyStructure { .. } => TokenStream::new(),
            HostStep::ZeroOutput { parallel } => {
                let vals = self.bindings.name(Binding::Vals { param: 0 });
                if *parallel {
                    quote! { #root::__private::zero_in_parallel(&mut *#vals); }
                } else {
                    quote! { #vals.fill(<T as #root::Scalar>::ZERO); }
                }
            }
            HostStep::FillOutput { value, parallel } => {
                let vals = self.bindings.name(Binding::Vals { param: 0 });
                let value = super::expr::put_value(*value, root);
                if *parallel {
                    quote! { #root::__private::fill_in_parallel(&mut *#vals, #value); }
                } else {
                    quote! { #vals.fill(#value); }
                }
            }
            HostStep::CheckBound {
                index,
                extent,
                bound,
                exact,
            } => {
                let extent = self.put_expr(extent).at(Prec::Compare);
                let bound_lit = lit(*bound);
                let broken = if *exact {
                    quote! { #extent != #bound_lit }
                } else {
                    quote! { #extent > #bound_lit }
                };
                quote! {
                    if #broken {
                        return ::core::result::Result::Err(#root::KernelError::BoundViolated {
                            index: #index,
                            bound: #bound_lit,
                            extent: #extent,
                            exact: #exact,
                        });
                    }
                }
            }
            HostStep::BeginAssembly => {
                quote! { let mut #asm = #root::__private::begin_assembly(&mut *#output); }
            }
            HostStep::LayoutRows { level } => self.put_layout_rows(*level),
            HostStep::EndAssembly => {
                quote! { #root::__private::end_assembly(&mut *#output, #asm)?; }
            }
            HostStep::BeginEntries { merge: false } => {
                quote! { let mut #asm = #root::__private::begin_entries(&*#output); }
            }
            HostStep::BeginEntries { merge: true } => {
                quote! { let mut #asm = #root::__private::begin_entries_merged(&*#output); }
            }
            HostStep::EndEntries => quote! { #root::__private::end_entries(&mut *#output, #asm)?; },
        }
    }

    /// `for v in lo..hi`. When both bounds are literals nothing else fixes the loop variable's
    /// type, so the first one is written `usize`.
    ///
    /// The upper bound is clamped to the length of every array the body indexes with `v` on every
    /// iteration (`hi.min(crd.len()).min(vals.len())`): LLVM then knows those accesses are in
    /// bounds and drops their checks, which makes a CSR SpMV about 1.4x faster. On a kernel that
    /// indexes correctly the clamp never binds; one that does not would have panicked at the
    /// first access past the end, so only that panic is lost.
    ///
    /// A `pos` array the body reads at `v + 1` anywhere (a row's end, also under a mask's branch)
    /// clamps the bound to its length less one, which covers its reads at `v` too: the two bounds
    /// checks a row would pay go. `v` then runs over the positions of the level above, of which a
    /// validated tensor's `pos` has exactly one fewer than its length, so this clamp never binds
    /// either.
    pub(super) fn put_for(&self, var: &Var, lo: &Expr, hi: &Expr, body: &[Stmt]) -> TokenStream {
        let lo = match lo {
            Expr::Index(n) if is_constant(hi) => {
                let n = Literal::usize_suffixed(*n);
                quote! { #n }
            }
            _ => self.put_expr(lo).at(Prec::Or),
        };
        let mut indexed = Vec::new();
        find_every_iteration_uses(var, body, &mut indexed);
        if self.writes.is_some() {
            // The output's values are borrowed by its atomic cells inside a parallel loop.
            indexed.retain(|a| !matches!(a, Array::Vals { param: 0 }));
        }
        let mut row_ends = Vec::new();
        find_row_end_uses(var, body, &mut row_ends);
        indexed.retain(|a| !row_ends.contains(a));
        let windows = self.windows(var, body);
        let inner = Emitter {
            windows: &windows,
            ..*self
        };
        let hi = if indexed.is_empty() && row_ends.is_empty() && windows.is_empty() {
            self.put_expr(hi).at(Prec::Or)
        } else {
            let mut bound = match hi {
                Expr::Index(n) => {
                    let n = Literal::usize_suffixed(*n);
                    quote! { #n }
                }
                _ => self.put_expr(hi).at(Prec::Postfix),
            };
            for array in indexed {
                let array = self.put_array(array);
                bound = quote! { #bound.min(#array.len()) };
            }
            for array in row_ends {
                let array = self.put_array(array);
                bound = quote! { #bound.min(#array.len().saturating_sub(1)) };
            }
            for window in &windows {
                let name = window.name();
                bound = quote! { #bound.min(#name.len()) };
            }
            bound
        };
        let rows = self.put_windows(&windows);
        let (var, body) = (ident(&var.0), inner.put_stmts(body));
        quote! { #rows for #var in #lo..#hi { #body } }
    }

    pub(super) fn output(&self) -> proc_macro2::Ident {
        ident(&self.kernel.params[0].name)
    }

    /// The local holding an array: a binding, or a workspace.
    pub(super) fn put_array(&self, array: &Array) -> TokenStream {
        let binding = match array {
            Array::Pos { param, level } => level_array(*param, *level, LevelArray::Pos),
            Array::Crd { param, level } => level_array(*param, *level, LevelArray::Crd),
            Array::Level {
                param,
                level,
                name,
                elem,
            } => level_array(*param, *level, LevelArray::Named { name, elem: *elem }),
            Array::Vals { param } => Binding::Vals { param: *param },
            Array::Temp(var) => {
                let var = ident(&var.0);
                return quote! { #var };
            }
        };
        let name = self.bindings.name(binding);
        quote! { #name }
    }
}

/// A broken invariant the verifier should have caught: an internal `compile_error!` at the call
/// site instead of a panic inside the macro.
pub(super) fn internal_error(what: &str) -> TokenStream {
    let message = format!("internal error in the sparse compiler: {what}");
    quote! { ::core::compile_error!(#message); }
}

/// The tensor arrays (not workspaces) that `body` indexes with exactly `var` on every run of it:
/// in statements of the body itself, before any that can leave it, outside conditional parts
/// (branches, loop bodies, the right of `&&`/`||`, the arms of a select). Without duplicates, in
/// order of appearance.
pub(super) fn find_every_iteration_uses<'b>(
    var: &Var,
    body: &'b [Stmt],
    found: &mut Vec<&'b Array>,
) {
    for stmt in body {
        match stmt {
            // `end_assembly(..)?` can return: nothing after it runs on every iteration.
            Stmt::Host(
                HostStep::EndAssembly | HostStep::EndEntries | HostStep::LayoutRows { .. },
            )
            | Stmt::FailStructureMismatch => return,
            Stmt::Update {
                place: Place::Elem(array, index),
                value,
                ..
            } => {
                note_use(var, array, index, found);
                find_uses_in(var, index, found);
                find_uses_in(var, value, found);
            }
            // Only the bounds of a nested loop run on every iteration.
            Stmt::For { lo, hi, .. } | Stmt::Parallel(Region { lo, hi, .. }) => {
                find_uses_in(var, lo, found);
                find_uses_in(var, hi, found);
            }
            Stmt::Workspace { len, .. } => find_uses_in(var, len, found),
            _ => {
                for e in crate::ir::visit::stmt_exprs(stmt) {
                    find_uses_in(var, e, found);
                }
            }
        }
    }
}

/// The `pos` arrays that `body` reads at `var + 1`, at any depth and in any branch. Without
/// duplicates, in order of appearance.
fn find_row_end_uses<'b>(var: &Var, body: &'b [Stmt], found: &mut Vec<&'b Array>) {
    fn in_expr<'b>(var: &Var, expr: &'b Expr, found: &mut Vec<&'b Array>) {
        if let Expr::Load(array @ Array::Pos { .. }, index) = expr
            && is_successor_of(var, index)
            && !found.contains(&array)
        {
            found.push(array);
        }
        for e in crate::ir::visit::operands(expr) {
            in_expr(var, e, found);
        }
    }
    for stmt in body {
        for e in crate::ir::visit::stmt_exprs(stmt) {
            in_expr(var, e, found);
        }
        for inner in stmt.bodies() {
            find_row_end_uses(var, inner, found);
        }
    }
}

/// Whether `index` is `var + 1`.
fn is_successor_of(var: &Var, index: &Expr) -> bool {
    match index {
        Expr::Binary(BinOp::Add, a, b) => matches!(
            (&**a, &**b),
            (Expr::Var(v), Expr::Index(1)) | (Expr::Index(1), Expr::Var(v)) if v == var
        ),
        _ => false,
    }
}

fn find_uses_in<'b>(var: &Var, expr: &'b Expr, found: &mut Vec<&'b Array>) {
    match expr {
        Expr::Load(array, index) => {
            note_use(var, array, index, found);
            find_uses_in(var, index, found);
        }
        // A gather reads its coordinates at `at` (the values it reads need no bound).
        Expr::Gather { crd, at, .. } => {
            note_use(var, crd, at, found);
            find_uses_in(var, at, found);
        }
        // Only the left of `&&`/`||` and a select's condition run every time.
        Expr::Binary(BinOp::And | BinOp::Or, a, _) | Expr::Select(a, _, _) => {
            find_uses_in(var, a, found);
        }
        _ => {
            for e in crate::ir::visit::operands(expr) {
                find_uses_in(var, e, found);
            }
        }
    }
}

fn note_use<'b>(var: &Var, array: &'b Array, index: &Expr, found: &mut Vec<&'b Array>) {
    let indexed_by_var = matches!(index, Expr::Var(v) if v == var);
    if indexed_by_var && !matches!(array, Array::Temp(_)) && !found.contains(&array) {
        found.push(array);
    }
}
