//! IR statements and expressions -> Rust.
//!
//! Expressions carry their precedence, so parentheses appear only where Rust needs them (the
//! generated code reads like hand-written code, and golden files stay readable). Types follow the
//! IR: indices are `usize`, signed integers `i64`, values `T`, `pos`/`crd` loads are widened from
//! `Idx` with `as usize`; indices and signed integers meet only through the IR's casts.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::bindings::{Binding, Bindings, LevelArray, ident, lit};
use crate::ir::{
    Array, BinOp, Expr, Kernel, Literal as IrLiteral, ParallelWrites, Stmt, TempType, Type, Var,
};

/// The longest workspace of constant length declared as a stack array rather than a `Vec`
/// (rayon's worker stacks are small; 256 values of 8 bytes stay far below them).
const STACK_WORKSPACE_MAX: usize = 256;

/// The prologue at the start of `stmts` (bound checks, then output-structure copies), which must
/// run before the output's arrays are bound, and how many statements it takes.
pub(super) fn put_prologue(
    kernel: &Kernel,
    bindings: &Bindings,
    stmts: &[Stmt],
) -> (TokenStream, usize) {
    let emitter = Emitter {
        kernel,
        bindings,
        parallel: None,
    };
    let output = ident(&kernel.params[0].name);
    let count = stmts.iter().take_while(|s| s.is_prologue()).count();
    let tokens = (stmts[..count].iter())
        .map(|s| match s {
            Stmt::CopyStructure { from } => {
                let from = ident(&kernel.params[*from].name);
                quote! { #output.copy_structure(#from)?; }
            }
            other => emitter.put_stmt(other),
        })
        .collect();
    (tokens, count)
}

/// `stmts` as a sequence of Rust statements.
pub(super) fn put_block(kernel: &Kernel, bindings: &Bindings, stmts: &[Stmt]) -> TokenStream {
    let emitter = Emitter {
        kernel,
        bindings,
        parallel: None,
    };
    emitter.put_stmts(stmts)
}

/// Inside a parallel loop: how the output's values are written.
#[derive(Clone, Copy)]
struct Parallel {
    writes: Writes,
}

/// [`ParallelWrites`] without its expression: what a store inside the loop emits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Writes {
    Exclusive,
    Atomic,
    Partials,
    /// Into the iteration's own chunk `__out_rows`, at positions less `__out_offset`.
    Rows,
    /// The count pass of a row-parallel assembly: appends are counted per row.
    CountRows,
    /// The fill pass: appends write the iteration's part of `crd` and the values at `__cursor`.
    FillRows,
}

/// Rust operator precedence, lowest first, as far as the emitter uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    /// `if c { a } else { b }`: parenthesized in every operand position.
    Select,
    Or,
    And,
    Compare,
    Sum,
    Product,
    Cast,
    Unary,
    /// Paths, literals, calls, method calls, indexing.
    Postfix,
}

/// An emitted expression.
struct Operand {
    tokens: TokenStream,
    prec: Prec,
    /// Whether the tokens end in `as TYPE`: followed by `<`, Rust would read the `<` as the start
    /// of generic arguments.
    ends_in_cast: bool,
}

impl Operand {
    fn new(tokens: TokenStream, prec: Prec) -> Self {
        Operand {
            tokens,
            prec,
            ends_in_cast: prec == Prec::Cast,
        }
    }

    /// The tokens, parenthesized unless they bind at least as tightly as `min`.
    fn at(self, min: Prec) -> TokenStream {
        if self.prec < min {
            let tokens = self.tokens;
            quote! { (#tokens) }
        } else {
            self.tokens
        }
    }

    /// The tokens as the left operand of `<` or `<=`.
    fn before_less_than(self) -> TokenStream {
        if self.ends_in_cast || self.prec < Prec::Sum {
            let tokens = self.tokens;
            quote! { (#tokens) }
        } else {
            self.tokens
        }
    }
}

struct Emitter<'k> {
    kernel: &'k Kernel,
    bindings: &'k Bindings,
    parallel: Option<Parallel>,
}

impl Emitter<'_> {
    fn put_stmts(&self, stmts: &[Stmt]) -> TokenStream {
        stmts.iter().map(|s| self.put_stmt(s)).collect()
    }

    fn put_stmt(&self, stmt: &Stmt) -> TokenStream {
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
            Stmt::Assign {
                var,
                value,
                accumulate,
            } => {
                let var = ident(&var.0);
                let value = self.put_expr(value).tokens;
                if *accumulate {
                    quote! { #var += #value; }
                } else {
                    quote! { #var = #value; }
                }
            }
            Stmt::Store {
                array,
                index,
                value,
                accumulate,
            } => {
                let index = self.put_expr(index).tokens;
                let value = self.put_expr(value).tokens;
                if let (Some(parallel), Array::Vals { param: 0 }) = (self.parallel, array) {
                    let cells = output_cells();
                    return match (*accumulate, parallel.writes) {
                        // An assembling kernel appends its values; it never stores them.
                        (_, Writes::CountRows | Writes::FillRows) => quote! {
                            ::core::compile_error!("internal error in the sparse compiler: a store into an output assembled by rows");
                        },
                        (true, Writes::Partials) => quote! { #cells[#index] += #value; },
                        (false, Writes::Partials) => quote! { #cells[#index] = #value; },
                        (true, Writes::Rows) => {
                            quote! { __out_rows[#index - __out_offset] += #value; }
                        }
                        (false, Writes::Rows) => {
                            quote! { __out_rows[#index - __out_offset] = #value; }
                        }
                        (false, _) => {
                            quote! { ::sparse::atomic::AtomicCell::set(&#cells[#index], #value); }
                        }
                        (true, Writes::Atomic) => {
                            quote! { ::sparse::atomic::AtomicCell::add(&#cells[#index], #value); }
                        }
                        (true, Writes::Exclusive) => {
                            quote! { ::sparse::atomic::AtomicCell::add_exclusive(&#cells[#index], #value); }
                        }
                    };
                }
                let array = self.put_array(array);
                if *accumulate {
                    quote! { #array[#index] += #value; }
                } else {
                    quote! { #array[#index] = #value; }
                }
            }
            Stmt::Workspace { var, ty, len } => {
                let var = ident(&var.0);
                let zero = match ty {
                    TempType::Value => quote! { <T as ::sparse::Scalar>::ZERO },
                    TempType::Index => quote! { 0usize },
                    TempType::Bool => quote! { false },
                };
                // A short constant length (the inner loop of a split) is a stack array, which
                // the compiler can keep in registers.
                if let Expr::Index(n) = len
                    && *n <= STACK_WORKSPACE_MAX
                {
                    return quote! { let mut #var = [#zero; #n]; };
                }
                let len = self.put_expr(len).tokens;
                quote! { let mut #var = ::std::vec![#zero; #len]; }
            }
            Stmt::SortPrefix { array, len } => {
                let array = ident(&array.0);
                let len = self.put_expr(len).tokens;
                quote! { #array[..#len].sort_unstable(); }
            }
            Stmt::For { var, lo, hi, body } => self.put_for(var, lo, hi, body),
            Stmt::ParallelFor {
                var,
                lo,
                hi,
                body,
                writes,
            } => self.put_parallel_for(var, lo, hi, body, writes),
            Stmt::VectorFor { var, lo, hi, body } => self.put_vector_for(var, lo, hi, body),
            Stmt::While { cond, body } => {
                let cond = self.put_expr(cond).at(Prec::Or);
                let body = self.put_stmts(body);
                quote! { while #cond { #body } }
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.put_expr(cond).at(Prec::Or);
                let then = self.put_stmts(then);
                match otherwise.as_slice() {
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
            // Hoisted before the bindings by `write_function`.
            Stmt::CopyStructure { .. } => TokenStream::new(),
            Stmt::ZeroOutput { parallel } => {
                let vals = self.bindings.name(Binding::Vals { param: 0 });
                if *parallel {
                    quote! { ::sparse::__private::zero_in_parallel(&mut *#vals); }
                } else {
                    quote! { #vals.fill(<T as ::sparse::Scalar>::ZERO); }
                }
            }
            Stmt::BeginAssembly => {
                let (asm, output) = (self.bindings.assembly(), self.output());
                quote! { let mut #asm = #output.begin_assembly(); }
            }
            Stmt::Append { level, coord } => {
                let coord = self.put_expr(coord).tokens;
                match self.parallel.map(|p| p.writes) {
                    Some(Writes::CountRows) => quote! { __row += 1; },
                    Some(Writes::FillRows) => {
                        quote! { __crd_part[__cursor] = (#coord) as ::sparse::Idx; }
                    }
                    _ => {
                        let (asm, level) = (self.bindings.assembly(), lit(*level));
                        quote! { #asm.append(#level, #coord); }
                    }
                }
            }
            Stmt::AppendValue(value) => {
                let value = self.put_expr(value).tokens;
                match self.parallel.map(|p| p.writes) {
                    Some(Writes::CountRows) => TokenStream::new(),
                    Some(Writes::FillRows) => {
                        quote! { __vals_part[__cursor] = #value; __cursor += 1; }
                    }
                    _ => {
                        let asm = self.bindings.assembly();
                        quote! { #asm.append_value(#value); }
                    }
                }
            }
            Stmt::FinishSegment { level, parent } => match self.parallel.map(|p| p.writes) {
                Some(Writes::CountRows) => {
                    let parent = self.put_expr(parent).tokens;
                    quote! { __segments.push((#parent, __row)); __row = 0; }
                }
                Some(Writes::FillRows) => TokenStream::new(),
                _ => {
                    let (asm, level) = (self.bindings.assembly(), lit(*level));
                    let parent = self.put_expr(parent).tokens;
                    quote! { #asm.finish_segment(#level, #parent); }
                }
            },
            Stmt::EndAssembly => {
                let (asm, output) = (self.bindings.assembly(), self.output());
                quote! { #output.end_assembly(#asm)?; }
            }
            Stmt::BeginEntries => {
                let asm = self.bindings.assembly();
                let output = self.output();
                quote! { let mut #asm = #output.begin_entries(); }
            }
            Stmt::AppendEntry { coords, value } => {
                let asm = self.bindings.assembly();
                let coords = coords.iter().map(|c| self.put_expr(c).tokens);
                let value = self.put_expr(value).tokens;
                quote! { #asm.push(&[#(#coords),*], #value)?; }
            }
            Stmt::EndEntries => {
                let (asm, output) = (self.bindings.assembly(), self.output());
                quote! { #output.end_entries(#asm)?; }
            }
            Stmt::CheckBound {
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
                        return ::core::result::Result::Err(::sparse::KernelError::BoundViolated {
                            index: #index,
                            bound: #bound_lit,
                            extent: #extent,
                            exact: #exact,
                        });
                    }
                }
            }
            Stmt::Prefetch { array, from } => {
                let (array, from) = (self.put_array(array), self.put_expr(from).tokens);
                quote! { ::sparse::__private::prefetch_ahead(#array, #from); }
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
                    ::sparse::__private::prefetch_gather(#array, #crd, #at, #offset, #stride);
                }
            }
            Stmt::FailStructureMismatch => {
                let tensor = &self.kernel.params[0].name;
                quote! {
                    return ::core::result::Result::Err(::sparse::KernelError::StructureMismatch { tensor: #tensor });
                }
            }
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
    fn put_for(&self, var: &Var, lo: &Expr, hi: &Expr, body: &[Stmt]) -> TokenStream {
        let lo = match lo {
            Expr::Index(n) if is_constant(hi) => {
                let n = Literal::usize_suffixed(*n);
                quote! { #n }
            }
            _ => self.put_expr(lo).at(Prec::Or),
        };
        let mut indexed = Vec::new();
        find_every_iteration_uses(var, body, &mut indexed);
        if self.parallel.is_some() {
            // The output's values are borrowed by its atomic cells inside a parallel loop.
            indexed.retain(|a| !matches!(a, Array::Vals { param: 0 }));
        }
        let hi = if indexed.is_empty() {
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
            bound
        };
        let (var, body) = (ident(&var.0), self.put_stmts(body));
        quote! { for #var in #lo..#hi { #body } }
    }

    fn output(&self) -> proc_macro2::Ident {
        ident(&self.kernel.params[0].name)
    }

    /// The local holding an array: a binding, or a workspace.
    fn put_array(&self, array: &Array) -> TokenStream {
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

    fn put_expr(&self, expr: &Expr) -> Operand {
        match expr {
            Expr::Var(var) => {
                let var = ident(&var.0);
                Operand::new(quote! { #var }, Prec::Postfix)
            }
            Expr::Index(n) => {
                let n = lit(*n);
                Operand::new(quote! { #n }, Prec::Postfix)
            }
            Expr::Value(value) => Operand::new(put_value(*value), Prec::Postfix),
            Expr::Bool(b) => Operand::new(quote! { #b }, Prec::Postfix),
            Expr::Load(array, index) => self.put_load(array, index),
            Expr::Dim { param, dim } => {
                let name = self.bindings.name(Binding::Dim {
                    param: *param,
                    dim: *dim,
                });
                Operand::new(quote! { #name }, Prec::Postfix)
            }
            Expr::LevelSize { param, level } => {
                let name = self.bindings.name(Binding::LevelSize {
                    param: *param,
                    level: *level,
                });
                Operand::new(quote! { #name }, Prec::Postfix)
            }
            Expr::Len(array) => {
                let array = self.put_array(array);
                Operand::new(quote! { #array.len() }, Prec::Postfix)
            }
            Expr::AppendedLen { level } => {
                let (asm, level) = (self.bindings.assembly(), lit(*level));
                Operand::new(quote! { #asm.len(#level) }, Prec::Postfix)
            }
            Expr::Binary(op, a, b) => self.put_binary(*op, a, b),
            Expr::Neg(a) => {
                let a = self.put_expr(a).at(Prec::Unary);
                Operand::new(quote! { -#a }, Prec::Unary)
            }
            Expr::Not(a) => {
                let a = self.put_expr(a).at(Prec::Unary);
                Operand::new(quote! { !#a }, Prec::Unary)
            }
            Expr::Signed(n) if *n < 0 => {
                let n = Literal::u64_unsuffixed(n.unsigned_abs());
                Operand::new(quote! { -#n }, Prec::Unary)
            }
            Expr::Signed(n) => {
                let n = Literal::i64_unsuffixed(*n);
                Operand::new(quote! { #n }, Prec::Postfix)
            }
            Expr::Cast(ty, a) => {
                let (a, ty) = (self.put_expr(a).at(Prec::Cast), put_type(*ty));
                Operand::new(quote! { #a as #ty }, Prec::Cast)
            }
            Expr::Select(c, a, b) => {
                let c = self.put_expr(c).at(Prec::Or);
                let (a, b) = (self.put_expr(a).tokens, self.put_expr(b).tokens);
                Operand::new(quote! { if #c { #a } else { #b } }, Prec::Select)
            }
            Expr::CountUpTo { array, target } => {
                let array = self.put_array(array);
                let target = self.put_expr(target).at(Prec::Compare);
                let tokens = quote! { #array.partition_point(|&__x| (__x as usize) <= #target) };
                Operand::new(tokens, Prec::Postfix)
            }
        }
    }

    /// A rayon loop. With exclusive or atomic writes, the output's values are viewed as atomic
    /// cells for the loop's duration, so every iteration can write them through a shared borrow; a
    /// relaxed store or an unsynchronized add compiles to plain moves, and only `Atomics` pays for
    /// read-modify-writes. With partials, the range is cut into one contiguous piece per thread,
    /// each piece adds into its own zeroed copy of the output, and the copies are added into the
    /// output in piece order.
    fn put_parallel_for(
        &self,
        var: &Var,
        lo: &Expr,
        hi: &Expr,
        body: &[Stmt],
        writes: &ParallelWrites,
    ) -> TokenStream {
        let kind = match writes {
            ParallelWrites::Exclusive => Writes::Exclusive,
            ParallelWrites::Atomic => Writes::Atomic,
            ParallelWrites::Partials => Writes::Partials,
            ParallelWrites::Rows { .. } => Writes::Rows,
            ParallelWrites::AssembleRows { level } => {
                return self.put_parallel_assembly(var, lo, hi, body, *level);
            }
        };
        let inner = Emitter {
            parallel: Some(Parallel { writes: kind }),
            ..*self
        };
        let (lo, hi) = (
            self.put_expr(lo).at(Prec::Or),
            self.put_expr(hi).at(Prec::Or),
        );
        let (var, body) = (ident(&var.0), inner.put_stmts(body));
        let (cells, vals) = (output_cells(), self.put_array(&Array::Vals { param: 0 }));
        let rayon = quote! { ::sparse::__private::rayon };
        if let ParallelWrites::Rows { chunk } = writes {
            let chunk = self.put_expr(chunk).at(Prec::Postfix);
            return quote! {
                {
                    let __chunk: usize = ::core::cmp::max(#chunk, 1);
                    #rayon::iter::ParallelIterator::for_each(
                        #rayon::iter::IndexedParallelIterator::enumerate(
                            #rayon::slice::ParallelSliceMut::par_chunks_mut(&mut *#vals, __chunk),
                        ),
                        |(#var, __out_rows): (usize, &mut [T])| {
                            let __out_offset = #var * __chunk;
                            #body
                        },
                    );
                }
            };
        }
        if kind == Writes::Partials {
            return quote! {
                {
                    let (__lo, __hi): (usize, usize) = (#lo, #hi);
                    let __len = #vals.len();
                    let __pieces = #rayon::current_num_threads().max(1);
                    let __span = __hi.saturating_sub(__lo);
                    let __partials: ::std::vec::Vec<::std::vec::Vec<T>> = #rayon::iter::ParallelIterator::collect(
                        #rayon::iter::ParallelIterator::map(
                            #rayon::iter::IntoParallelIterator::into_par_iter(0..__pieces),
                            |__piece: usize| {
                                let mut #cells = ::std::vec![<T as ::sparse::Scalar>::ZERO; __len];
                                let __from = __lo + __span * __piece / __pieces;
                                let __to = __lo + __span * (__piece + 1) / __pieces;
                                for #var in __from..__to { #body }
                                #cells
                            },
                        ),
                    );
                    for __partial in &__partials {
                        for (__out, __add) in #vals.iter_mut().zip(__partial) {
                            *__out += *__add;
                        }
                    }
                }
            };
        }
        quote! {
            {
                let #cells = ::sparse::atomic::as_atomic(&mut *#vals);
                #rayon::iter::ParallelIterator::for_each(
                    #rayon::iter::IntoParallelIterator::into_par_iter(#lo..#hi),
                    |#var: usize| { #body },
                );
            }
        }
    }

    /// A row-parallel assembly: a parallel count of each row's entries, the layout of `pos` by
    /// prefix sums (`Assembly::parallel_rows`), and a parallel fill of each iteration's own part.
    fn put_parallel_assembly(
        &self,
        var: &Var,
        lo: &Expr,
        hi: &Expr,
        body: &[Stmt],
        level: usize,
    ) -> TokenStream {
        let count = Emitter {
            parallel: Some(Parallel {
                writes: Writes::CountRows,
            }),
            ..*self
        }
        .put_stmts(body);
        let fill = Emitter {
            parallel: Some(Parallel {
                writes: Writes::FillRows,
            }),
            ..*self
        }
        .put_stmts(body);
        let (lo, hi) = (
            self.put_expr(lo).at(Prec::Or),
            self.put_expr(hi).at(Prec::Or),
        );
        let (var, asm, level) = (ident(&var.0), self.bindings.assembly(), lit(level));
        let rayon = quote! { ::sparse::__private::rayon };
        quote! {
            {
                let __lo: usize = #lo;
                let __counts: ::std::vec::Vec<::std::vec::Vec<(usize, usize)>> = #rayon::iter::ParallelIterator::collect(
                    #rayon::iter::ParallelIterator::map(
                        #rayon::iter::IntoParallelIterator::into_par_iter(__lo..#hi),
                        |#var: usize| {
                            let mut __segments: ::std::vec::Vec<(usize, usize)> = ::std::vec::Vec::new();
                            let mut __row: usize = 0;
                            #count
                            __segments
                        },
                    ),
                );
                let __parts = #asm.parallel_rows(#level, &__counts)?;
                #rayon::iter::ParallelIterator::for_each(
                    #rayon::iter::IndexedParallelIterator::enumerate(
                        #rayon::iter::IntoParallelIterator::into_par_iter(__parts),
                    ),
                    |(__part, (__crd_part, __vals_part)): (usize, (&mut [::sparse::Idx], &mut [T]))| {
                        let #var = __lo + __part;
                        let mut __cursor: usize = 0;
                        #fill
                    },
                );
            }
        }
    }

    /// A loop in SIMD lanes when its body is one store `out[b + v] (+)= f(...)` whose loads are
    /// at `c + v` or loop-invariant: `T::LANES` iterations per step, then a scalar tail. Any other
    /// body runs as a plain loop.
    fn put_vector_for(&self, var: &Var, lo: &Expr, hi: &Expr, body: &[Stmt]) -> TokenStream {
        // Lanes gather without `prefetch` hints: a hint per lane would cost what it saves.
        let body: Vec<Stmt> = (body.iter())
            .filter(|s| !matches!(s, Stmt::PrefetchGather { .. }))
            .cloned()
            .collect();
        let body = &body[..];
        // Index `let`s before the store (positions the lowerer bound) are inlined into it.
        let (lets, rest) = body.split_at(body.iter().take_while(|s| is_index_let(s)).count());
        if let Some(swapped) = swap_inner_loop(var, lo, hi, lets, rest) {
            return self.put_stmt(&swapped);
        }
        if let [
            Stmt::Assign {
                var: sum,
                value,
                accumulate: true,
            },
        ] = rest
        {
            return self.put_lane_sum(var, lo, hi, body, sum, &inline_lets(lets, value));
        }
        let [
            Stmt::Store {
                array,
                index,
                value,
                accumulate,
            },
        ] = rest
        else {
            return self.put_for(var, lo, hi, body);
        };
        let (index, value) = (inline_lets(lets, index), inline_lets(lets, value));
        let mut rows = LaneRows::default();
        let (Some(base), Some(lanes)) = (
            lane_base(var, &index),
            self.put_lanes(var, &value, &mut rows),
        ) else {
            return self.put_for(var, lo, hi, body);
        };
        let rows_parallel = self.parallel.is_some_and(|p| p.writes == Writes::Rows);
        let output = matches!(array, Array::Vals { param: 0 });
        // The output row is borrowed mutably beside the operand rows, so the value must not read
        // the array it writes.
        if (self.parallel.is_some() && output && !rows_parallel) || loads_from(array, &value) {
            return self.put_for(var, lo, hi, body);
        }
        let (out, shift) = match rows_parallel && output {
            true => (quote! { __out_rows }, quote! { - __out_offset }),
            false => (self.put_array(array), TokenStream::new()),
        };
        let base = self.put_expr(&base).at(Prec::Sum);
        let result = if *accumulate {
            quote! { <T as ::sparse::Scalar>::load(&*__out_chunk) + #lanes }
        } else {
            quote! { #lanes }
        };
        let output_chunks = (
            quote! { __out_row.chunks_exact_mut(__width) },
            quote! { __out_chunk },
        );
        let Some((row_lets, chunks, pattern)) = rows.zip_chunks(Some(output_chunks)) else {
            return self.put_for(var, lo, hi, body);
        };
        self.put_lane_loop(
            var,
            (lo, hi),
            body,
            quote! {
                #row_lets
                let __out_row: &mut [T] = &mut #out[#base + __lo #shift..][..__n];
                for #pattern in #chunks {
                    <T as ::sparse::Scalar>::store(#result, __out_chunk);
                }
            },
        )
    }

    /// `sum += value` over the loop in lanes (a `ParallelReduction` over SIMD lanes): one lane
    /// accumulator, reduced into `sum` at the end, then a scalar tail.
    fn put_lane_sum(
        &self,
        var: &Var,
        lo: &Expr,
        hi: &Expr,
        body: &[Stmt],
        sum: &Var,
        value: &Expr,
    ) -> TokenStream {
        let mut rows = LaneRows::default();
        let Some(lanes) = self.put_lanes(var, value, &mut rows) else {
            return self.put_for(var, lo, hi, body);
        };
        let Some((row_lets, chunks, pattern)) = rows.zip_chunks(None) else {
            return self.put_for(var, lo, hi, body);
        };
        let sum = ident(&sum.0);
        self.put_lane_loop(
            var,
            (lo, hi),
            body,
            quote! {
                #row_lets
                let mut __acc = <T as ::sparse::Scalar>::splat(<T as ::sparse::Scalar>::ZERO);
                for #pattern in #chunks {
                    __acc = __acc + #lanes;
                }
                #sum += <T as ::sparse::Scalar>::reduce_add(__acc);
            },
        )
    }

    /// The loop `var in lo..hi` as `lanes` over whole chunks of `LANES` iterations, then a
    /// scalar tail. `lanes` sees `__lo`, `__n` (the iteration count) and `__width`; every row it
    /// slices is exactly `__n` long, so the chunk iterators agree and need no bounds checks.
    fn put_lane_loop(
        &self,
        var: &Var,
        (lo, hi): (&Expr, &Expr),
        body: &[Stmt],
        lanes: TokenStream,
    ) -> TokenStream {
        let (lo_t, hi_t) = (
            self.put_expr(lo).at(Prec::Or),
            self.put_expr(hi).at(Prec::Or),
        );
        let tail = self.put_for(var, &Expr::Var(Var("__lanes_end".into())), hi, body);
        quote! {
            let __lanes_end: usize = {
                let (__lo, __hi): (usize, usize) = (#lo_t, #hi_t);
                let __width = <T as ::sparse::Scalar>::LANES;
                let __n = __hi.saturating_sub(__lo);
                #lanes
                __lo + (__n - __n % __width)
            };
            #tail
        }
    }

    /// `value` computed in lanes: loads at `c + var` become lane loads, loop invariants splats.
    /// `rows` collects the loop's operands: the slice of `array` from `base + __lo` per lane
    /// load, which then reads chunk `__chunk_K` of row `K` (see [`row_slices`]), and the splat of
    /// each loop invariant, bound once before the loop as `__splat_K`.
    fn put_lanes(&self, var: &Var, value: &Expr, rows: &mut LaneRows) -> Option<TokenStream> {
        if !mentions(var, value) {
            let scalar = self.put_expr(value).tokens;
            let splat = ident(&format!("__splat_{}", rows.splats.len()));
            rows.splats.push(scalar);
            return Some(quote! { #splat });
        }
        match value {
            // A gather at the coordinates of a position loop (`x[crd[p]]`): the coordinates are a
            // row like any operand, and each chunk of them picks the lanes.
            Expr::Load(array @ (Array::Vals { .. } | Array::Temp(_)), index)
                if let Expr::Load(crd @ Array::Crd { .. }, at) = &**index =>
            {
                let base = lane_base(var, at)?;
                let (crd, base) = (self.put_array(crd), self.put_expr(&base).at(Prec::Sum));
                let chunk = ident(&format!("__chunk_{}", rows.loads.len()));
                rows.loads.push((crd, base, quote! { ::sparse::Idx }));
                let array = self.put_array(array);
                Some(quote! { <T as ::sparse::Scalar>::gather(#array, #chunk) })
            }
            Expr::Load(array @ (Array::Vals { .. } | Array::Temp(_)), index) => {
                let base = lane_base(var, index)?;
                let (array, base) = (self.put_array(array), self.put_expr(&base).at(Prec::Sum));
                let chunk = ident(&format!("__chunk_{}", rows.loads.len()));
                rows.loads.push((array, base, quote! { T }));
                Some(quote! { <T as ::sparse::Scalar>::load(#chunk) })
            }
            Expr::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), a, b) => {
                let (a, b) = (self.put_lanes(var, a, rows)?, self.put_lanes(var, b, rows)?);
                Some(match op {
                    BinOp::Add => quote! { (#a + #b) },
                    BinOp::Sub => quote! { (#a - #b) },
                    _ => quote! { (#a * #b) },
                })
            }
            _ => None,
        }
    }

    fn put_load(&self, array: &Array, index: &Expr) -> Operand {
        let index = self.put_expr(index).tokens;
        if matches!(array, Array::Vals { param: 0 })
            && self.parallel.is_some_and(|p| p.writes == Writes::Rows)
        {
            return Operand::new(quote! { __out_rows[#index - __out_offset] }, Prec::Postfix);
        }
        let name = self.put_array(array);
        match array {
            Array::Pos { .. }
            | Array::Crd { .. }
            | Array::Level {
                elem: Type::Index, ..
            } => Operand::new(quote! { #name[#index] as usize }, Prec::Cast),
            Array::Level { .. } | Array::Vals { .. } | Array::Temp(_) => {
                Operand::new(quote! { #name[#index] }, Prec::Postfix)
            }
        }
    }

    fn put_binary(&self, op: BinOp, a: &Expr, b: &Expr) -> Operand {
        let (a, b) = (self.put_expr(a), self.put_expr(b));
        let (prec, symbol) = match op {
            BinOp::Min | BinOp::Max => {
                let f = ident(if op == BinOp::Min { "min" } else { "max" });
                let (a, b) = (a.tokens, b.tokens);
                return Operand::new(quote! { ::core::cmp::#f(#a, #b) }, Prec::Postfix);
            }
            BinOp::Quotient => {
                let (a, b) = (a.tokens, b.tokens);
                return Operand::new(
                    quote! { <T as ::sparse::Scalar>::divide(#a, #b) },
                    Prec::Postfix,
                );
            }
            BinOp::Add => (Prec::Sum, quote! { + }),
            BinOp::Sub => (Prec::Sum, quote! { - }),
            BinOp::Mul => (Prec::Product, quote! { * }),
            BinOp::Div => (Prec::Product, quote! { / }),
            BinOp::Lt => (Prec::Compare, quote! { < }),
            BinOp::Le => (Prec::Compare, quote! { <= }),
            BinOp::Eq => (Prec::Compare, quote! { == }),
            BinOp::Ne => (Prec::Compare, quote! { != }),
            BinOp::And => (Prec::And, quote! { && }),
            BinOp::Or => (Prec::Or, quote! { || }),
        };
        // Left-associative: the left operand may bind as loosely as the operator, the right one
        // must bind tighter; comparisons do not chain at all.
        let left = match op {
            BinOp::Lt | BinOp::Le => a.before_less_than(),
            BinOp::Eq | BinOp::Ne => a.at(Prec::Sum),
            _ => a.at(prec),
        };
        let right_min = match prec {
            Prec::Compare => Prec::Sum,
            _ => next(prec),
        };
        let ends_in_cast = b.ends_in_cast && b.prec >= right_min;
        let right = b.at(right_min);
        Operand {
            tokens: quote! { #left #symbol #right },
            prec,
            ends_in_cast,
        }
    }
}

fn level_array(param: usize, level: usize, array: LevelArray) -> Binding {
    Binding::LevelArray {
        param,
        level,
        array,
    }
}

/// The precedence one step tighter.
fn next(prec: Prec) -> Prec {
    match prec {
        Prec::Select => Prec::Or,
        Prec::Or => Prec::And,
        Prec::And => Prec::Compare,
        Prec::Compare => Prec::Sum,
        Prec::Sum => Prec::Product,
        Prec::Product => Prec::Cast,
        Prec::Cast => Prec::Unary,
        Prec::Unary | Prec::Postfix => Prec::Postfix,
    }
}

fn put_type(ty: Type) -> TokenStream {
    match ty {
        Type::Index => quote! { usize },
        Type::Signed => quote! { i64 },
        Type::Value => quote! { T },
        Type::Bool => quote! { bool },
    }
}

/// A value literal of type `T`: zero and one are the trait's constants; other integers convert
/// exactly through `from_i64`, floats through `from_f64`.
fn put_value(value: IrLiteral) -> TokenStream {
    match value {
        IrLiteral::Int(0) => quote! { <T as ::sparse::Scalar>::ZERO },
        IrLiteral::Int(1) => quote! { <T as ::sparse::Scalar>::ONE },
        IrLiteral::Int(n) => {
            let n = Literal::i64_unsuffixed(n);
            quote! { <T as ::sparse::Scalar>::from_i64(#n) }
        }
        IrLiteral::Float(f) => {
            let f = put_f64(f);
            quote! { <T as ::sparse::Scalar>::from_f64(#f) }
        }
    }
}

/// An `f64` expression; a literal too large for `f64` parses as infinity, which no literal
/// token can spell.
fn put_f64(f: f64) -> TokenStream {
    if f.is_finite() {
        let f = Literal::f64_unsuffixed(f);
        quote! { #f }
    } else if f.is_nan() {
        quote! { ::core::f64::NAN }
    } else if f > 0.0 {
        quote! { ::core::f64::INFINITY }
    } else {
        quote! { ::core::f64::NEG_INFINITY }
    }
}

/// The tensor arrays (not workspaces) that `body` indexes with exactly `var` on every run of it:
/// in statements of the body itself, before any that can leave it, outside conditional parts
/// (branches, loop bodies, the right of `&&`/`||`, the arms of a select). Without duplicates, in
/// order of appearance.
fn find_every_iteration_uses<'b>(var: &Var, body: &'b [Stmt], found: &mut Vec<&'b Array>) {
    for stmt in body {
        match stmt {
            Stmt::Let { init: e, .. }
            | Stmt::Assign { value: e, .. }
            | Stmt::Workspace { len: e, .. }
            | Stmt::SortPrefix { len: e, .. }
            | Stmt::While { cond: e, .. }
            | Stmt::If { cond: e, .. }
            | Stmt::Append { coord: e, .. }
            | Stmt::AppendValue(e)
            | Stmt::FinishSegment { parent: e, .. } => find_uses_in(var, e, found),
            Stmt::Store {
                array,
                index,
                value,
                ..
            } => {
                note_use(var, array, index, found);
                find_uses_in(var, index, found);
                find_uses_in(var, value, found);
            }
            Stmt::For { lo, hi, .. }
            | Stmt::ParallelFor { lo, hi, .. }
            | Stmt::VectorFor { lo, hi, .. } => {
                find_uses_in(var, lo, found);
                find_uses_in(var, hi, found);
            }
            Stmt::AppendEntry { coords, value } => {
                for c in coords {
                    find_uses_in(var, c, found);
                }
                find_uses_in(var, value, found);
            }
            Stmt::ZeroOutput { .. }
            | Stmt::BeginAssembly
            | Stmt::CopyStructure { .. }
            | Stmt::BeginEntries => {}
            // `end_assembly(..)?` can return: nothing after it runs on every iteration.
            Stmt::CheckBound { extent, .. } => find_uses_in(var, extent, found),
            Stmt::Prefetch { from, .. } => find_uses_in(var, from, found),
            Stmt::PrefetchGather {
                at, offset, stride, ..
            } => {
                for e in [at, offset, stride] {
                    find_uses_in(var, e, found);
                }
            }
            Stmt::EndAssembly | Stmt::EndEntries | Stmt::FailStructureMismatch => return,
        }
    }
}

fn find_uses_in<'b>(var: &Var, expr: &'b Expr, found: &mut Vec<&'b Array>) {
    match expr {
        Expr::Load(array, index) => {
            note_use(var, array, index, found);
            find_uses_in(var, index, found);
        }
        Expr::Binary(BinOp::And | BinOp::Or, a, _) | Expr::Select(a, _, _) => {
            find_uses_in(var, a, found);
        }
        Expr::Binary(_, a, b) => {
            find_uses_in(var, a, found);
            find_uses_in(var, b, found);
        }
        Expr::Neg(a) | Expr::Not(a) | Expr::Cast(_, a) => find_uses_in(var, a, found),
        Expr::CountUpTo { target, .. } => find_uses_in(var, target, found),
        Expr::Var(_)
        | Expr::Index(_)
        | Expr::Signed(_)
        | Expr::Value(_)
        | Expr::Bool(_)
        | Expr::Dim { .. }
        | Expr::LevelSize { .. }
        | Expr::Len(_)
        | Expr::AppendedLen { .. } => {}
    }
}

fn note_use<'b>(var: &Var, array: &'b Array, index: &Expr, found: &mut Vec<&'b Array>) {
    let indexed_by_var = matches!(index, Expr::Var(v) if v == var);
    if indexed_by_var && !matches!(array, Array::Temp(_)) && !found.contains(&array) {
        found.push(array);
    }
}

/// A lane loop whose body is a loop that does not depend on the lane variable (the seed's SpMM
/// schedule: lanes over `j` around a loop over a few nonzeros of the row), with that loop moved
/// outside: `for k { (its lets that do not read var) vector for var { lets; rest of k's body } }`.
/// Each lane still sees the inner iterations in the same order, so the sums are unchanged; the
/// lane loop then holds a store the lanes can run.
fn swap_inner_loop(var: &Var, lo: &Expr, hi: &Expr, lets: &[Stmt], rest: &[Stmt]) -> Option<Stmt> {
    let [
        Stmt::For {
            var: k,
            lo: k_lo,
            hi: k_hi,
            body: inner,
        },
    ] = rest
    else {
        return None;
    };
    let defined: Vec<&Var> = lets
        .iter()
        .filter_map(|s| match s {
            Stmt::Let { var, .. } => Some(var),
            _ => None,
        })
        .collect();
    let independent = |e: &Expr| !mentions(var, e) && defined.iter().all(|d| !mentions(d, e));
    if !independent(k_lo) || !independent(k_hi) || mentions(k, lo) || mentions(k, hi) {
        return None;
    }
    let hoisted = inner
        .iter()
        .take_while(|s| matches!(s, Stmt::Let { init, .. } if is_index_let(s) && independent(init)))
        .count();
    let mut lane_body = lets.to_vec();
    lane_body.extend_from_slice(&inner[hoisted..]);
    let mut k_body = inner[..hoisted].to_vec();
    k_body.push(Stmt::VectorFor {
        var: var.clone(),
        lo: lo.clone(),
        hi: hi.clone(),
        body: lane_body,
    });
    Some(Stmt::For {
        var: k.clone(),
        lo: k_lo.clone(),
        hi: k_hi.clone(),
        body: k_body,
    })
}

fn is_index_let(stmt: &Stmt) -> bool {
    matches!(
        stmt,
        Stmt::Let {
            ty: Type::Index,
            mutable: false,
            ..
        }
    )
}

/// `expr` with the variables of `lets` replaced by their values.
fn inline_lets(lets: &[Stmt], expr: &Expr) -> Expr {
    lets.iter().rev().fold(expr.clone(), |e, s| match s {
        Stmt::Let { var, init, .. } => substitute(&e, var, init),
        _ => e,
    })
}

fn substitute(expr: &Expr, var: &Var, value: &Expr) -> Expr {
    let sub = |e: &Expr| Box::new(substitute(e, var, value));
    match expr {
        Expr::Var(v) if v == var => value.clone(),
        Expr::Load(array, index) => Expr::Load(array.clone(), sub(index)),
        Expr::Binary(op, a, b) => Expr::Binary(*op, sub(a), sub(b)),
        Expr::Neg(a) => Expr::Neg(sub(a)),
        Expr::Not(a) => Expr::Not(sub(a)),
        Expr::Cast(ty, a) => Expr::Cast(*ty, sub(a)),
        Expr::Select(a, b, c) => Expr::Select(sub(a), sub(b), sub(c)),
        Expr::CountUpTo { array, target } => Expr::CountUpTo {
            array: array.clone(),
            target: sub(target),
        },
        Expr::Var(_)
        | Expr::Index(_)
        | Expr::Signed(_)
        | Expr::Value(_)
        | Expr::Bool(_)
        | Expr::Dim { .. }
        | Expr::LevelSize { .. }
        | Expr::Len(_)
        | Expr::AppendedLen { .. } => expr.clone(),
    }
}

/// The local holding the output's values as atomic cells inside a parallel loop.
fn output_cells() -> proc_macro2::Ident {
    ident("__out_cells")
}

/// What a lane loop reads, gathered by [`Emitter::put_lanes`].
#[derive(Default)]
struct LaneRows {
    /// `(array, base, element type)` per lane load: values (`T`) or the coordinates of a
    /// gather (`Idx`).
    loads: Vec<(TokenStream, TokenStream, TokenStream)>,
    /// The scalar of each splat.
    splats: Vec<TokenStream>,
}

impl LaneRows {
    /// The loop's setup (`let __row_K: &[T] = &array[base + __lo..][..__n];` per lane load,
    /// `let __splat_K = splat(scalar);` per invariant), then `first` (by default row 0's chunks)
    /// zipped with `chunks_exact(__width)` of every other row, and the pattern binding chunk `K`
    /// to `__chunk_K` (nested pairs, as `zip` yields them). `None` without anything to iterate.
    fn zip_chunks(
        &self,
        first: Option<(TokenStream, TokenStream)>,
    ) -> Option<(TokenStream, TokenStream, TokenStream)> {
        let loads = self.loads.iter().enumerate().map(|(k, (array, base, ty))| {
            let row = ident(&format!("__row_{k}"));
            quote! { let #row: &[#ty] = &#array[#base + __lo..][..__n]; }
        });
        let splats = self.splats.iter().enumerate().map(|(k, scalar)| {
            let splat = ident(&format!("__splat_{k}"));
            quote! { let #splat = <T as ::sparse::Scalar>::splat(#scalar); }
        });
        let setup = quote! { #(#loads)* #(#splats)* };
        let names = |k: usize| (ident(&format!("__row_{k}")), ident(&format!("__chunk_{k}")));
        let (first, rest) = match first {
            Some(first) => (first, 0),
            None if self.loads.is_empty() => return None,
            None => {
                let (row, chunk) = names(0);
                (
                    (quote! { #row.chunks_exact(__width) }, quote! { #chunk }),
                    1,
                )
            }
        };
        let (chunks, pattern) = (rest..self.loads.len()).fold(first, |(chunks, pattern), k| {
            let (row, chunk) = names(k);
            (
                quote! { #chunks.zip(#row.chunks_exact(__width)) },
                quote! { (#pattern, #chunk) },
            )
        });
        Some((setup, chunks, pattern))
    }
}

/// Whether `expr` loads from `array`.
fn loads_from(array: &Array, expr: &Expr) -> bool {
    match expr {
        Expr::Load(a, e) => a == array || loads_from(array, e),
        Expr::Binary(_, a, b) => loads_from(array, a) || loads_from(array, b),
        Expr::Neg(e) | Expr::Not(e) => loads_from(array, e),
        Expr::Select(a, b, c) => {
            loads_from(array, a) || loads_from(array, b) || loads_from(array, c)
        }
        _ => false,
    }
}

/// `b` when `index` is `b + var` or `var` (then `0`), with `b` not mentioning `var`.
fn lane_base(var: &Var, index: &Expr) -> Option<Expr> {
    match index {
        Expr::Var(v) if v == var => Some(Expr::Index(0)),
        Expr::Binary(BinOp::Add, b, v) | Expr::Binary(BinOp::Add, v, b)
            if matches!(&**v, Expr::Var(x) if x == var) && !mentions(var, b) =>
        {
            Some((**b).clone())
        }
        _ => None,
    }
}

/// Whether `expr` reads `var`.
fn mentions(var: &Var, expr: &Expr) -> bool {
    match expr {
        Expr::Var(v) => v == var,
        Expr::Load(_, e) | Expr::Neg(e) | Expr::Not(e) | Expr::Cast(_, e) => mentions(var, e),
        Expr::CountUpTo { target, .. } => mentions(var, target),
        Expr::Binary(_, a, b) => mentions(var, a) || mentions(var, b),
        Expr::Select(a, b, c) => mentions(var, a) || mentions(var, b) || mentions(var, c),
        Expr::Index(_)
        | Expr::Signed(_)
        | Expr::Value(_)
        | Expr::Bool(_)
        | Expr::Dim { .. }
        | Expr::LevelSize { .. }
        | Expr::Len(_)
        | Expr::AppendedLen { .. } => false,
    }
}

/// Whether an index expression is built from literals only (its type is not fixed by anything).
fn is_constant(expr: &Expr) -> bool {
    match expr {
        Expr::Index(_) => true,
        Expr::Binary(_, a, b) => is_constant(a) && is_constant(b),
        Expr::Select(c, a, b) => is_constant(c) && is_constant(a) && is_constant(b),
        Expr::Bool(_) => true,
        Expr::Var(_)
        | Expr::Value(_)
        | Expr::Load(..)
        | Expr::Dim { .. }
        | Expr::LevelSize { .. }
        | Expr::Len(_)
        | Expr::AppendedLen { .. }
        | Expr::CountUpTo { .. }
        | Expr::Neg(_)
        | Expr::Not(_)
        | Expr::Signed(_)
        | Expr::Cast(..) => false,
    }
}
