//! Rows of values arrays as slices in the innermost loop that walks them (SpMM's loop over the
//! dense columns: `C[i * n + k] += a * B[j * n + k]`). Indexed at `base + k`, every access is
//! bounds-checked, and LLVM vectorizes such a loop only with a scalar tail that checks each
//! element. Printed as `row[k]` of `row = vals[base..]`, with the loop stopped at `row.len()`, the
//! checks go and the loop vectorizes whole. As with the loop bounds clamped to the arrays a loop
//! indexes directly (`Emitter::put_for`), this changes nothing for valid tensors: there every
//! access is in bounds, so the loop is not cut short.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::bindings::ident;
use super::expr::Prec;
use super::stmt::{Emitter, Writes, find_every_iteration_uses};
use crate::ir::{Array, Expr, Place, Stmt, Var, offset_of, visit};

/// `array[at]` printed as `name[var]`, where `at = base + var` and `name` is `array[base..]`.
#[derive(Clone, Debug)]
pub(super) struct Window {
    at: Var,
    array: Array,
    name: Ident,
    var: Var,
    base: Expr,
}

impl Emitter<'_> {
    /// The windows of the innermost loop over `var` with `body`: for each local `at = base + var`
    /// the body declares first, with `base` the same in every iteration, the values arrays read
    /// or written at `at` in every iteration. The output is one outside thread regions and in
    /// an iteration's own block of rows (elsewhere its values are borrowed by atomic cells or
    /// a task's copy), when every access of it in the body is at `at` (its window is a mutable
    /// borrow).
    pub(super) fn windows(&self, var: &Var, body: &[Stmt]) -> Vec<Window> {
        if body.iter().any(|s| !s.bodies().is_empty()) {
            return Vec::new();
        }
        let declared: Vec<&Var> = (body.iter())
            .filter_map(|s| match s {
                Stmt::Let { var, .. } => Some(var),
                _ => None,
            })
            .collect();
        let mut windows = Vec::new();
        for stmt in body {
            let Stmt::Let { var: at, init, .. } = stmt else {
                break;
            };
            let Some(base) = offset_of(init, var) else {
                continue;
            };
            if mentions(base, &|v| v == var || declared.contains(&v)) {
                continue;
            }
            let mut arrays = Vec::new();
            find_every_iteration_uses(at, body, &mut arrays);
            for array in arrays {
                let output = matches!(array, Array::Vals { param: 0 });
                let plain = matches!(self.writes, None | Some(Writes::Blocks));
                let owned = plain && only_indexed_at(body, array, at);
                if !matches!(array, Array::Vals { .. }) || (output && !owned) {
                    continue;
                }
                let hint = format!("{}_row", at.0);
                windows.push(Window {
                    at: at.clone(),
                    array: array.clone(),
                    name: self.local(&hint),
                    var: var.clone(),
                    base: base.clone(),
                });
            }
        }
        windows
    }

    /// `let name = array.get(base..).unwrap_or_default();` for each window (`get_mut` for the
    /// output's, from the iteration's rows in a block of a thread region): an empty slice where
    /// `base` is past the end.
    pub(super) fn put_windows(&self, windows: &[Window]) -> TokenStream {
        (windows.iter())
            .map(|w| {
                let (name, rest) = (&w.name, self.rest_of_array(w));
                quote! { let #name = #rest.unwrap_or_default(); }
            })
            .collect()
    }

    /// A register tile's loop (`Stmt::Tile`): each window is the chunk of `width` elements from
    /// its base (`first_chunk`), of constant length, so the loop unrolls and a local array the
    /// body accumulates into can stay in registers. The loop runs only when every chunk is there,
    /// which the tile pass guarantees for valid tensors.
    pub(super) fn put_tile(&self, var: &Var, width: usize, body: &[Stmt]) -> TokenStream {
        let windows = self.windows(var, body);
        let inner = Emitter {
            windows: &windows,
            ..*self
        };
        let n = proc_macro2::Literal::usize_unsuffixed(width);
        let (v, body) = (ident(&var.0), inner.put_stmts(body));
        let looped = quote! { for #v in 0..#n { #body } };
        let names: Vec<&Ident> = windows.iter().map(|w| &w.name).collect();
        let chunks: Vec<TokenStream> = (windows.iter())
            .map(|w| {
                let rest = self.rest_of_array(w);
                match w.is_output() {
                    true => quote! { #rest.and_then(|s| s.first_chunk_mut::<#n>()) },
                    false => quote! { #rest.and_then(|s| s.first_chunk::<#n>()) },
                }
            })
            .collect();
        match (names.as_slice(), chunks.as_slice()) {
            ([], _) => looped,
            ([name], [chunk]) => quote! { if let Some(#name) = #chunk { #looped } },
            _ => quote! { if let (#(Some(#names)),*) = (#(#chunks),*) { #looped } },
        }
    }

    /// `array.get(base..)` for a window: `get_mut` for the output's, from the iteration's rows
    /// in a block of a thread region; `None` where `base` is past the end.
    fn rest_of_array(&self, w: &Window) -> TokenStream {
        let base = self.put_expr(&w.base);
        match self.writes {
            Some(Writes::Blocks) if w.is_output() => {
                let (rows, offset) = (self.local("__out_rows"), self.local("__out_offset"));
                // Below the block, the subtraction wraps past the end: no elements.
                let base = base.at(Prec::Postfix);
                quote! { #rows.get_mut(#base.wrapping_sub(#offset)..) }
            }
            _ if w.is_output() => {
                let (array, base) = (self.put_array(&w.array), base.at(Prec::Or));
                quote! { #array.get_mut(#base..) }
            }
            _ => {
                let (array, base) = (self.put_array(&w.array), base.at(Prec::Or));
                quote! { #array.get(#base..) }
            }
        }
    }

    /// The window `array[index]` reads or writes through, if any.
    pub(super) fn window_of(&self, array: &Array, index: &Expr) -> Option<(&Ident, &Var)> {
        let Expr::Var(at) = index else {
            return None;
        };
        (self.windows.iter())
            .find(|w| w.at == *at && w.array == *array)
            .map(|w| (&w.name, &w.var))
    }
}

impl Window {
    pub(super) fn name(&self) -> &Ident {
        &self.name
    }

    /// Whether the window is a row of the output's values.
    fn is_output(&self) -> bool {
        matches!(self.array, Array::Vals { param: 0 })
    }
}

/// Whether `expr` mentions a variable `hit` holds for.
fn mentions(expr: &Expr, hit: &dyn Fn(&Var) -> bool) -> bool {
    match expr {
        Expr::Var(v) => hit(v),
        _ => visit::operands(expr).into_iter().any(|e| mentions(e, hit)),
    }
}

/// Whether `body` is made of `let`s and updates only, and every mention of `array` in it is a
/// load or an update at `at`.
fn only_indexed_at(body: &[Stmt], array: &Array, at: &Var) -> bool {
    fn in_expr(expr: &Expr, array: &Array, at: &Var) -> bool {
        let here = match expr {
            Expr::Load(a, index) if a == array => matches!(&**index, Expr::Var(v) if v == at),
            Expr::Len(a) | Expr::CountUpTo { array: a, .. } => a != array,
            Expr::BinarySearchAfter { array: a, .. } => a != array,
            _ => true,
        };
        here && (visit::operands(expr).into_iter()).all(|e| in_expr(e, array, at))
    }
    body.iter().all(|stmt| {
        let place = match stmt {
            Stmt::Let { .. } => true,
            Stmt::Update {
                place: Place::Elem(a, index),
                ..
            } => a != array || matches!(index, Expr::Var(v) if v == at),
            Stmt::Update { .. } => true,
            _ => false,
        };
        place && (visit::stmt_exprs(stmt).into_iter()).all(|e| in_expr(e, array, at))
    })
}
