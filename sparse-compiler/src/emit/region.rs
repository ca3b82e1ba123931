//! Thread regions -> rayon, or the runtime's team of spinning threads. How the region reaches the
//! output picks the form:
//! - its own blocks: the runtime's `for_each_block` over the output's values, one block per
//!   iteration, shared out among the team's threads (rayon's when the team is taken);
//! - shared: the runtime's `for_each_task` over the range, shared out like the blocks, with the
//!   values viewed as atomic cells for the region's duration, so every iteration writes through a
//!   shared borrow (a relaxed store or an unsynchronized add compiles to plain moves; only
//!   `Atomic` updates pay for read-modify-writes);
//! - the runs of a nonzero split's tasks: the runtime's `for_each_run`, which cuts the output
//!   where the tasks' positions start and hands each task its own rows as a slice and the rows
//!   it shares as atomic cells;
//! - reduced over tasks: the range cut into one contiguous piece per thread, each adding into its
//!   own zeroed copy of the values, the copies added into the output in piece order;
//! - the count and fill phases of a row assembly: a parallel map collecting each iteration's row
//!   counts, then (after the host's layout) a parallel fill of each iteration's own part;
//! - per-task parts of an assembly or of a list of triples: contiguous pieces of the range, each
//!   appending into its own part, joined in piece order.

use proc_macro2::TokenStream;
use quote::quote;

use super::bindings::lit;
use super::expr::Prec;
use super::stmt::{Emitter, Writes, internal_error};
use crate::ir::{Array, Expr, OutputAccess, ReduceOp, Region, Scope, Stmt};

impl Emitter<'_> {
    pub(super) fn put_thread_region(&self, region: &Region) -> TokenStream {
        let writes = match &region.output {
            OutputAccess::Untouched | OutputAccess::Scattered => Writes::Scattered,
            OutputAccess::Runs { .. } => Writes::Runs,
            OutputAccess::Blocks { .. } => Writes::Blocks,
            OutputAccess::Reduced {
                scope: Scope::Tasks,
                ..
            } => Writes::Reduced,
            OutputAccess::AppendParts | OutputAccess::EntryParts => Writes::Parts,
            OutputAccess::CountRows { .. } => Writes::CountRows,
            OutputAccess::FillRows { .. } => Writes::FillRows,
            other => return internal_error(&format!("a thread region whose output is {other:?}")),
        };
        let inner = Emitter {
            writes: Some(writes),
            ..*self
        };
        let copies = self.bindings.put_region_copies();
        let body = inner.put_stmts(&region.body);
        let body = quote! { #copies #body };
        match (&region.output, writes) {
            (OutputAccess::Blocks { chunk, balance }, _) => {
                self.put_blocks(region, chunk, balance.as_ref(), body)
            }
            (_, Writes::Reduced) => self.put_reduced(region, body),
            (_, Writes::CountRows) => self.put_count_rows(region, body),
            (_, Writes::FillRows) => self.put_fill_rows(region, body),
            (_, Writes::Parts) => self.put_parts(region, body),
            (OutputAccess::Runs { pos, start }, _) => self.put_runs(region, pos, start, body),
            _ => self.put_scattered(region, body),
        }
    }

    /// The work a region stands for, as a `usize` expression: with none known, enough for
    /// threads.
    fn work(&self, region: &Region) -> TokenStream {
        match &region.work {
            Some(work) => self.put_expr(work).at(Prec::Or),
            None => {
                let root = self.root;
                quote! { #root::__private::PARALLEL_MIN_WORK }
            }
        }
    }

    /// `iter.with_min_len(..)`: one piece, run on the calling thread, when the region's work is
    /// too small for threads.
    fn sized(&self, region: &Region, iter: TokenStream) -> TokenStream {
        let (work, root) = (self.work(region), self.root);
        quote! {
            #root::__private::rayon::iter::IndexedParallelIterator::with_min_len(
                #iter,
                #root::__private::min_len(#work),
            )
        }
    }

    fn bounds(&self, region: &Region) -> (TokenStream, TokenStream) {
        (
            self.put_expr(&region.lo).at(Prec::Or),
            self.put_expr(&region.hi).at(Prec::Or),
        )
    }

    fn put_blocks(
        &self,
        region: &Region,
        chunk: &Expr,
        balance: Option<&(Array, usize)>,
        body: TokenStream,
    ) -> TokenStream {
        let root = self.root;
        let chunk = self.put_expr(chunk).at(Prec::Postfix);
        let vals = self.put_array(&Array::Vals { param: 0 });
        let var = super::bindings::ident(&region.var.0);
        let (rows, offset, size) = (
            self.local("__out_rows"),
            self.local("__out_offset"),
            self.local("__chunk"),
        );
        let work = self.work(region);
        let (share_out, weights) = match balance {
            Some((pos, rows)) => (
                quote!(for_each_block_balanced),
                vec![self.put_array(pos), quote!(#rows)],
            ),
            None => (quote!(for_each_block), Vec::new()),
        };
        quote! {
            {
                let #size: usize = ::core::cmp::max(#chunk, 1);
                #root::__private::#share_out(
                    &mut *#vals,
                    #size,
                    #work,
                    #(#weights,)*
                    |#var: usize, #rows: &mut [T]| {
                        let #offset = #var * #size;
                        #body
                    },
                );
            }
        }
    }

    fn put_reduced(&self, region: &Region, body: TokenStream) -> TokenStream {
        let root = self.root;
        let (lo, hi) = self.bounds(region);
        let vals = self.put_array(&Array::Vals { param: 0 });
        let var = super::bindings::ident(&region.var.0);
        let [
            cells,
            lo_,
            hi_,
            len,
            pieces,
            span,
            partials,
            piece,
            from,
            to,
            partial,
            out,
            add,
        ] = [
            "__out_cells",
            "__lo",
            "__hi",
            "__len",
            "__pieces",
            "__span",
            "__partials",
            "__piece",
            "__from",
            "__to",
            "__partial",
            "__out",
            "__add",
        ]
        .map(|name| self.local(name));
        let rayon = quote! { #root::__private::rayon };
        let work = self.work(region);
        let op = match &region.output {
            OutputAccess::Reduced { op, .. } => *op,
            _ => ReduceOp::Add,
        };
        let identity = super::expr::put_value(op.identity(), root);
        let combine = match op {
            ReduceOp::Add => quote! { *#out += *#add; },
            op => {
                let combined = self.put_combine(op, quote! { *#out }, quote! { *#add });
                quote! { *#out = #combined; }
            }
        };
        quote! {
            {
                let (#lo_, #hi_): (usize, usize) = (#lo, #hi);
                let #len = #vals.len();
                let #pieces = #root::__private::pieces(#work);
                let #span = #hi_.saturating_sub(#lo_);
                let #partials: ::std::vec::Vec<::std::vec::Vec<T>> = #rayon::iter::ParallelIterator::collect(
                    #rayon::iter::ParallelIterator::map(
                        #rayon::iter::IntoParallelIterator::into_par_iter(0..#pieces),
                        |#piece: usize| {
                            let mut #cells = ::std::vec![#identity; #len];
                            let #from = #lo_ + #span * #piece / #pieces;
                            let #to = #lo_ + #span * (#piece + 1) / #pieces;
                            for #var in #from..#to { #body }
                            #cells
                        },
                    ),
                );
                for #partial in &#partials {
                    for (#out, #add) in #vals.iter_mut().zip(#partial) {
                        #combine
                    }
                }
            }
        }
    }

    fn put_scattered(&self, region: &Region, body: TokenStream) -> TokenStream {
        let root = self.root;
        let (lo, hi) = self.bounds(region);
        let vals = self.put_array(&Array::Vals { param: 0 });
        let (var, cells) = (
            super::bindings::ident(&region.var.0),
            self.local("__out_cells"),
        );
        let work = self.work(region);
        quote! {
            {
                let #cells = #root::__private::as_atomic(&mut *#vals);
                #root::__private::for_each_task(#lo..#hi, #work, |#var: usize| { #body });
            }
        }
    }

    fn put_runs(
        &self,
        region: &Region,
        pos: &Array,
        start: &Expr,
        body: TokenStream,
    ) -> TokenStream {
        let root = self.root;
        let (lo, hi) = self.bounds(region);
        let vals = self.put_array(&Array::Vals { param: 0 });
        let (var, run) = (
            super::bindings::ident(&region.var.0),
            self.local("__out_run"),
        );
        let (work, pos) = (self.work(region), self.put_array(pos));
        let start = self.put_expr(start).at(Prec::Or);
        quote! {
            #root::__private::for_each_run(
                &mut *#vals,
                #pos,
                #lo..#hi,
                #work,
                |#var: usize| -> usize { #start },
                |#var: usize, #run: &mut #root::__private::Run<'_, T>| { #body },
            );
        }
    }

    fn put_parts(&self, region: &Region, body: TokenStream) -> TokenStream {
        let root = self.root;
        let (lo, hi) = self.bounds(region);
        let var = super::bindings::ident(&region.var.0);
        let asm = self.bindings.assembly();
        let [lo_, hi_, span, pieces, parts, piece, from, to, empty] = [
            "__lo",
            "__hi",
            "__span",
            "__pieces",
            "__parts",
            "__piece",
            "__from",
            "__to",
            "__empty_parts",
        ]
        .map(|name| self.local(name));
        let rayon = quote! { #root::__private::rayon };
        let (work, tasks) = (self.work(region), quote! { #root::__private::TaskParts });
        quote! {
            {
                let (#lo_, #hi_): (usize, usize) = (#lo, #hi);
                let #span = #hi_.saturating_sub(#lo_);
                let #pieces = #root::__private::part_count(#work, #span);
                let #empty = #tasks::parts(&mut #asm, #pieces);
                let #parts: ::core::result::Result<::std::vec::Vec<_>, #root::KernelError> =
                    #rayon::iter::ParallelIterator::collect(
                        #rayon::iter::ParallelIterator::map(
                            #rayon::iter::IndexedParallelIterator::enumerate(
                                #rayon::iter::IntoParallelIterator::into_par_iter(#empty),
                            ),
                            |(#piece, mut #asm)| -> ::core::result::Result<_, #root::KernelError> {
                                let #from = #lo_ + #span * #piece / #pieces;
                                let #to = #lo_ + #span * (#piece + 1) / #pieces;
                                for #var in #from..#to { #body }
                                ::core::result::Result::Ok(#asm)
                            },
                        ),
                    );
                #tasks::join(&mut #asm, #parts?)?;
            }
        }
    }

    /// The count phase: each iteration's `(parent, entries)` per row it closes.
    fn put_count_rows(&self, region: &Region, body: TokenStream) -> TokenStream {
        let root = self.root;
        let (lo, hi) = self.bounds(region);
        let var = super::bindings::ident(&region.var.0);
        let (counts, segments, row) = (
            self.local("__counts"),
            self.local("__segments"),
            self.local("__row"),
        );
        let rayon = quote! { #root::__private::rayon };
        let range = self.sized(
            region,
            quote! { #rayon::iter::IntoParallelIterator::into_par_iter(#lo..#hi) },
        );
        quote! {
            let #counts: ::std::vec::Vec<::std::vec::Vec<(usize, usize)>> = #rayon::iter::ParallelIterator::collect(
                #rayon::iter::ParallelIterator::map(
                    #range,
                    |#var: usize| {
                        let mut #segments: ::std::vec::Vec<(usize, usize)> = ::std::vec::Vec::new();
                        let mut #row: usize = 0;
                        #body
                        #segments
                    },
                ),
            );
        }
    }

    /// The host's layout of the counted rows: `pos` by prefix sums, and one part of the arrays
    /// per iteration.
    pub(super) fn put_layout_rows(&self, level: usize) -> TokenStream {
        let (asm, level) = (self.bindings.assembly(), lit(level));
        let (counts, parts) = (self.local("__counts"), self.local("__parts"));
        quote! { let #parts = #asm.parallel_rows(#level, &#counts)?; }
    }

    /// The fill phase: iteration `lo + k` writes part `k`.
    fn put_fill_rows(&self, region: &Region, body: TokenStream) -> TokenStream {
        let root = self.root;
        let lo = self.put_expr(&region.lo).at(Prec::Sum);
        let var = super::bindings::ident(&region.var.0);
        let [parts, part, crd_part, vals_part, cursor] =
            ["__parts", "__part", "__crd_part", "__vals_part", "__cursor"].map(|n| self.local(n));
        let rayon = quote! { #root::__private::rayon };
        let parts = self.sized(
            region,
            quote! {
                #rayon::iter::IndexedParallelIterator::enumerate(
                    #rayon::iter::IntoParallelIterator::into_par_iter(#parts),
                )
            },
        );
        quote! {
            #rayon::iter::ParallelIterator::for_each(
                #parts,
                |(#part, (#crd_part, #vals_part)): (usize, (&mut [#root::Idx], &mut [T]))| {
                    let #var = #lo + #part;
                    let mut #cursor: usize = 0;
                    #body
                },
            );
        }
    }

    /// A statement of the count or fill phase.
    pub(super) fn put_row_phase_stmt(&self, stmt: &Stmt) -> TokenStream {
        let root = self.root;
        let [segments, row, crd_part, vals_part, cursor] = [
            "__segments",
            "__row",
            "__crd_part",
            "__vals_part",
            "__cursor",
        ]
        .map(|n| self.local(n));
        match stmt {
            Stmt::CountEntry => quote! { #row += 1; },
            Stmt::CloseRow { parent } => {
                let parent = self.put_expr(parent).tokens;
                quote! { #segments.push((#parent, #row)); #row = 0; }
            }
            Stmt::FillCoord(coord) => {
                let coord = self.put_expr(coord).tokens;
                quote! { #crd_part[#cursor] = (#coord) as #root::Idx; }
            }
            Stmt::FillValue(value) => {
                let value = self.put_expr(value).tokens;
                quote! { #vals_part[#cursor] = #value; #cursor += 1; }
            }
            other => internal_error(&format!("{other:?} is not a row phase statement")),
        }
    }
}
