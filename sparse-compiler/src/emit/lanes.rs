//! Lane regions -> `wide` SIMD through the `Scalar` trait. The `lanes` pass has shaped every lane
//! region into one update of lane loads and loop invariants; this prints it as `T::LANES`
//! iterations per step over exactly sliced rows (so the chunk iterators agree and need no bounds
//! checks), then a scalar tail.

use proc_macro2::TokenStream;
use quote::quote;

use super::bindings::ident;
use super::expr::Prec;
use super::stmt::{Emitter, Writes, internal_error};
use crate::ir::{Array, BinOp, Expr, Place, Region, Stmt, UpdateOp, Var, mentions};

impl Emitter<'_> {
    pub(super) fn put_lanes_region(&self, region: &Region) -> TokenStream {
        let shaped = match &region.body[..] {
            [
                Stmt::Update {
                    place: Place::Var(sum),
                    value,
                    ..
                },
            ] if !region.reductions.is_empty() => self.put_lane_sum(region, sum, value),
            [
                Stmt::Update {
                    place: Place::Elem(array, index),
                    op,
                    value,
                    ..
                },
            ] => self.put_lane_store(region, array, index, *op, value),
            _ => None,
        };
        shaped.unwrap_or_else(|| internal_error("a lane region the lanes pass did not shape"))
    }

    /// `out[b + v] (+)= value` in lanes.
    fn put_lane_store(
        &self,
        region: &Region,
        array: &Array,
        index: &Expr,
        op: UpdateOp,
        value: &Expr,
    ) -> Option<TokenStream> {
        let root = self.root;
        let var = &region.var;
        let mut rows = LaneRows::default();
        let base = crate::ir::passes::lane_base(var, index)?;
        let lanes = self.put_lanes(var, value, &mut rows)?;
        let blocks =
            self.writes == Some(Writes::Blocks) && matches!(array, Array::Vals { param: 0 });
        let (out, shift) = match blocks {
            true => {
                let (rows, offset) = (self.local("__out_rows"), self.local("__out_offset"));
                (quote! { #rows }, quote! { - #offset })
            }
            false => (self.put_array(array), TokenStream::new()),
        };
        let base = self.put_expr(&base).at(Prec::Sum);
        let [out_row, out_chunk, width, lo, n] =
            ["__out_row", "__out_chunk", "__width", "__lo", "__n"].map(|n| self.local(n));
        let result = match op {
            UpdateOp::Reduce(_) => quote! { <T as #root::Scalar>::load(&*#out_chunk) + #lanes },
            UpdateOp::Set => quote! { #lanes },
        };
        let output_chunks = (
            quote! { #out_row.chunks_exact_mut(#width) },
            quote! { #out_chunk },
        );
        let (row_lets, chunks, pattern) = rows.zip_chunks(self, Some(output_chunks))?;
        Some(self.put_lane_loop(
            region,
            quote! {
                #row_lets
                let #out_row: &mut [T] = &mut #out[#base + #lo #shift..][..#n];
                for #pattern in #chunks {
                    <T as #root::Scalar>::store(#result, #out_chunk);
                }
            },
        ))
    }

    /// `sum += value` over the loop in lanes (a reduction over lanes): one lane accumulator,
    /// reduced into `sum` at the end.
    fn put_lane_sum(&self, region: &Region, sum: &Var, value: &Expr) -> Option<TokenStream> {
        let root = self.root;
        let mut rows = LaneRows::default();
        let lanes = self.put_lanes(&region.var, value, &mut rows)?;
        let (row_lets, chunks, pattern) = rows.zip_chunks(self, None)?;
        let sum = ident(&sum.0);
        let acc = self.local("__acc");
        Some(self.put_lane_loop(
            region,
            quote! {
                #row_lets
                let mut #acc = <T as #root::Scalar>::splat(<T as #root::Scalar>::ZERO);
                for #pattern in #chunks {
                    #acc = #acc + #lanes;
                }
                #sum += <T as #root::Scalar>::reduce_add(#acc);
            },
        ))
    }

    /// The region's loop as `lanes` over whole chunks of `LANES` iterations, then a scalar tail
    /// of its update. `lanes` sees `__lo`, `__n` (the iteration count) and `__width`; every row
    /// it slices is exactly `__n` long.
    fn put_lane_loop(&self, region: &Region, lanes: TokenStream) -> TokenStream {
        let root = self.root;
        let (lo_t, hi_t) = (
            self.put_expr(&region.lo).at(Prec::Or),
            self.put_expr(&region.hi).at(Prec::Or),
        );
        let [end, lo, hi, width, n] =
            ["__lanes_end", "__lo", "__hi", "__width", "__n"].map(|n| self.local(n));
        let tail_from = Expr::Var(Var(end.to_string()));
        let tail = self.put_for(&region.var, &tail_from, &region.hi, &region.body);
        quote! {
            let #end: usize = {
                let (#lo, #hi): (usize, usize) = (#lo_t, #hi_t);
                let #width = <T as #root::Scalar>::LANES;
                let #n = #hi.saturating_sub(#lo);
                #lanes
                #lo + (#n - #n % #width)
            };
            #tail
        }
    }

    /// `value` computed in lanes: loads at `c + var` become lane loads, loop invariants splats.
    /// `rows` collects the loop's operands: the slice of `array` from `base + __lo` per lane
    /// load, which then reads chunk `__chunk_K` of row `K` (see [`LaneRows`]), and the splat of
    /// each loop invariant, bound once before the loop as `__splat_K`.
    fn put_lanes(&self, var: &Var, value: &Expr, rows: &mut LaneRows) -> Option<TokenStream> {
        let root = self.root;
        if !mentions(var, value) {
            let scalar = self.put_expr(value).tokens;
            let splat = self.local(&format!("__splat_{}", rows.splats.len()));
            rows.splats.push(scalar);
            return Some(quote! { #splat });
        }
        match value {
            // A gather at the coordinates of a position loop (`x[crd[p]]`): the coordinates are a
            // row like any operand, and each chunk of them picks the lanes.
            Expr::Load(array @ (Array::Vals { .. } | Array::Temp(_)), index)
                if let Expr::Load(crd @ Array::Crd { .. }, at) = &**index =>
            {
                let base = crate::ir::passes::lane_base(var, at)?;
                let (crd, base) = (self.put_array(crd), self.put_expr(&base).at(Prec::Sum));
                let chunk = self.local(&format!("__chunk_{}", rows.loads.len()));
                rows.loads.push((crd, base, quote! { #root::Idx }));
                let array = self.put_array(array);
                Some(quote! { <T as #root::Scalar>::gather(#array, #chunk) })
            }
            Expr::Load(array @ (Array::Vals { .. } | Array::Temp(_)), index) => {
                let base = crate::ir::passes::lane_base(var, index)?;
                let (array, base) = (self.put_array(array), self.put_expr(&base).at(Prec::Sum));
                let chunk = self.local(&format!("__chunk_{}", rows.loads.len()));
                rows.loads.push((array, base, quote! { T }));
                Some(quote! { <T as #root::Scalar>::load(#chunk) })
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
        emitter: &Emitter,
        first: Option<(TokenStream, TokenStream)>,
    ) -> Option<(TokenStream, TokenStream, TokenStream)> {
        let root = emitter.root;
        let [lo, n, width] = ["__lo", "__n", "__width"].map(|n| emitter.local(n));
        let names = |k: usize| {
            (
                emitter.local(&format!("__row_{k}")),
                emitter.local(&format!("__chunk_{k}")),
            )
        };
        let loads = self.loads.iter().enumerate().map(|(k, (array, base, ty))| {
            let row = names(k).0;
            quote! { let #row: &[#ty] = &#array[#base + #lo..][..#n]; }
        });
        let splats = self.splats.iter().enumerate().map(|(k, scalar)| {
            let splat = emitter.local(&format!("__splat_{k}"));
            quote! { let #splat = <T as #root::Scalar>::splat(#scalar); }
        });
        let setup = quote! { #(#loads)* #(#splats)* };
        let (first, rest) = match first {
            Some(first) => (first, 0),
            None if self.loads.is_empty() => return None,
            None => {
                let (row, chunk) = names(0);
                ((quote! { #row.chunks_exact(#width) }, quote! { #chunk }), 1)
            }
        };
        let (chunks, pattern) = (rest..self.loads.len()).fold(first, |(chunks, pattern), k| {
            let (row, chunk) = names(k);
            (
                quote! { #chunks.zip(#row.chunks_exact(#width)) },
                quote! { (#pattern, #chunk) },
            )
        });
        Some((setup, chunks, pattern))
    }
}
