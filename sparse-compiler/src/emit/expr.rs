//! IR expressions -> Rust expressions.
//!
//! Expressions carry their precedence, so parentheses appear only where Rust needs them (the
//! generated code reads like hand-written code, and golden files stay readable). Types follow the
//! IR: indices are `usize`, signed integers `i64`, values `T`, `pos`/`crd` loads are widened from
//! `Idx` with `as usize`; indices and signed integers meet only through the IR's casts.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::bindings::{Binding, LevelArray, ident, lit};
use super::root::Root;
use super::stmt::{Emitter, Writes};
use crate::ir::{Array, BinOp, Expr, Literal as IrLiteral, Type};

/// Rust operator precedence, lowest first, as far as the emitter uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Prec {
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
pub(super) struct Operand {
    pub(super) tokens: TokenStream,
    pub(super) prec: Prec,
    /// Whether the tokens end in `as TYPE`: followed by `<`, Rust would read the `<` as the start
    /// of generic arguments.
    ends_in_cast: bool,
}

impl Operand {
    pub(super) fn new(tokens: TokenStream, prec: Prec) -> Self {
        Operand {
            tokens,
            prec,
            ends_in_cast: prec == Prec::Cast,
        }
    }

    /// The tokens, parenthesized unless they bind at least as tightly as `min`.
    pub(super) fn at(self, min: Prec) -> TokenStream {
        if self.prec < min {
            let tokens = self.tokens;
            quote! { (#tokens) }
        } else {
            self.tokens
        }
    }

    /// The tokens as the left operand of `<` or `<=`.
    pub(super) fn before_less_than(self) -> TokenStream {
        if self.ends_in_cast || self.prec < Prec::Sum {
            let tokens = self.tokens;
            quote! { (#tokens) }
        } else {
            self.tokens
        }
    }
}
impl Emitter<'_> {
    /// The local bound to the gather of `vals` at the coordinates `crd`.
    pub(super) fn gather_name(&self, vals: &Array, crd: &Array) -> &proc_macro2::Ident {
        let (Array::Vals { param: vals }, Array::Crd { param, level }) = (vals, crd) else {
            unreachable!("the gather pass makes gathers of values at coordinates only");
        };
        self.bindings.name(Binding::Gather {
            vals: *vals,
            param: *param,
            level: *level,
        })
    }

    pub(super) fn put_expr(&self, expr: &Expr) -> Operand {
        match expr {
            Expr::Var(var) => {
                let var = ident(&var.0);
                Operand::new(quote! { #var }, Prec::Postfix)
            }
            Expr::Index(n) => {
                let n = lit(*n);
                Operand::new(quote! { #n }, Prec::Postfix)
            }
            Expr::Value(value) => Operand::new(put_value(*value, self.root), Prec::Postfix),
            Expr::Bool(b) => Operand::new(quote! { #b }, Prec::Postfix),
            Expr::Load(array, index) => self.put_load(array, index),
            Expr::Gather { vals, crd, at } => {
                let name = self.gather_name(vals, crd);
                let (crd, at) = (self.put_array(crd), self.put_expr(at).at(Prec::Or));
                Operand::new(quote! { #name.at(#crd, #at) }, Prec::Postfix)
            }
            Expr::GatherDot {
                vals,
                crd,
                weights,
                range,
            } => {
                let name = self.gather_name(vals, crd);
                let (crd, weights) = (self.put_array(crd), self.put_array(weights));
                let lo = self.put_expr(&range.0).at(Prec::Or);
                let hi = self.put_expr(&range.1).at(Prec::Or);
                let call = quote! { #name.dot(#crd, #weights, #lo, #hi) };
                Operand::new(call, Prec::Postfix)
            }
            Expr::DenseDot { a, b, at, len } => {
                let root = self.root;
                let (a, b) = (self.put_array(a), self.put_array(b));
                let a_at = self.put_expr(&at.0).at(Prec::Or);
                let b_at = self.put_expr(&at.1).at(Prec::Or);
                let len = self.put_expr(len).at(Prec::Or);
                let call = quote! { #root::__private::dense_dot(#a, #a_at, #b, #b_at, #len) };
                Operand::new(call, Prec::Postfix)
            }
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
            Expr::Hinted(array) => {
                let (root, array) = (self.root, self.put_array(array));
                Operand::new(
                    quote! { #root::__private::prefetch_wanted(#array) },
                    Prec::Postfix,
                )
            }
            Expr::ParallelMinWork => {
                let root = self.root;
                Operand::new(
                    quote! { #root::__private::PARALLEL_MIN_WORK },
                    Prec::Postfix,
                )
            }
            Expr::UnsplitBelow => {
                let root = self.root;
                Operand::new(quote! { #root::__private::unsplit_below() }, Prec::Postfix)
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
            Expr::Call(f, args) => self.put_call(*f, args),
            Expr::Select(c, a, b) => {
                let c = self.put_expr(c).at(Prec::Or);
                let (a, b) = (self.put_expr(a).tokens, self.put_expr(b).tokens);
                Operand::new(quote! { if #c { #a } else { #b } }, Prec::Select)
            }
            Expr::CountUpTo { array, target } => {
                let array = self.put_array(array);
                let target = self.put_expr(target).tokens;
                let root = self.root;
                let tokens = quote! { #root::__private::count_up_to(#array, #target) };
                Operand::new(tokens, Prec::Postfix)
            }
            Expr::BinarySearchAfter {
                array,
                lo,
                hi,
                target,
            } => {
                let root = self.root;
                let array = self.put_array(array);
                let (lo, hi) = (self.put_expr(lo).tokens, self.put_expr(hi).tokens);
                let target = self.put_expr(target).tokens;
                let tokens =
                    quote! { #root::__private::binary_search_after(#array, #lo, #hi, #target) };
                Operand::new(tokens, Prec::Postfix)
            }
        }
    }

    /// An intrinsic: `abs`, `min`, `max`, `square`, `cube` and `heaviside` in `T`, the remainder
    /// and the conversions through `Scalar`, the rest through `f64`'s functions and back
    /// (`from_f64` converts as `as` does), so one generic body serves every value type.
    fn put_call(&self, f: crate::ir::Intrinsic, args: &[Expr]) -> Operand {
        let root = self.root;
        use crate::ir::Intrinsic;
        let args: Vec<TokenStream> = args.iter().map(|a| self.put_expr(a).tokens).collect();
        let scalar = quote! { <T as #root::Scalar> };
        let (x, y) = (self.local("__x"), self.local("__y"));
        let (zero, one) = (quote! { #scalar::ZERO }, quote! { #scalar::ONE });
        let tokens = match (f, &args[..]) {
            (Intrinsic::Abs, [a]) => quote! {
                { let #x: T = #a; if #x < #zero { #zero - #x } else { #x } }
            },
            (Intrinsic::Square, [a]) => quote! { { let #x: T = #a; #x * #x } },
            (Intrinsic::Cube, [a]) => quote! { { let #x: T = #a; #x * #x * #x } },
            (Intrinsic::Min | Intrinsic::Max, [a, b]) => {
                let keep_x = match f {
                    Intrinsic::Min => quote! { #x <= #y },
                    _ => quote! { #x >= #y },
                };
                quote! { { let (#x, #y): (T, T) = (#a, #b); if #keep_x { #x } else { #y } } }
            }
            (Intrinsic::Heaviside, [a, b]) => quote! {
                {
                    let (#x, #y): (T, T) = (#a, #b);
                    if #x > #zero { #one } else if #x == #zero { #y } else { #zero }
                }
            },
            (Intrinsic::Remainder, [a, b]) => quote! { #scalar::remainder(#a, #b) },
            (Intrinsic::ToF64, [a]) => quote! { #scalar::from_f64(#scalar::to_f64(#a)) },
            (Intrinsic::ToF32, [a]) => quote! { #scalar::from_f64(#scalar::to_f32(#a) as f64) },
            (Intrinsic::ToI64, [a]) => quote! { #scalar::from_i64(#scalar::to_i64(#a)) },
            (Intrinsic::ToI32, [a]) => quote! { #scalar::from_i64(#scalar::to_i32(#a) as i64) },
            (f, [a, b]) if let Some(method) = f.f64_method() => {
                let method = ident(method);
                quote! { #scalar::from_f64(#scalar::to_f64(#a).#method(#scalar::to_f64(#b))) }
            }
            (f, [a]) if let Some(method) = f.f64_method() => {
                let method = ident(method);
                quote! { #scalar::from_f64(#scalar::to_f64(#a).#method()) }
            }
            _ => quote! { ::core::compile_error!("internal error: an intrinsic's arity") },
        };
        Operand::new(tokens, Prec::Postfix)
    }

    fn put_load(&self, array: &Array, index: &Expr) -> Operand {
        if let Some((row, at)) = self.window_of(array, index) {
            let at = ident(&at.0);
            return Operand::new(quote! { #row[#at] }, Prec::Postfix);
        }
        let index = self.put_expr(index).tokens;
        if matches!(array, Array::Vals { param: 0 }) && self.writes == Some(Writes::Blocks) {
            let (rows, offset) = (self.local("__out_rows"), self.local("__out_offset"));
            return Operand::new(quote! { #rows[#index - #offset] }, Prec::Postfix);
        }
        if matches!(array, Array::Vals { param: 0 }) && self.writes == Some(Writes::Runs) {
            let (run, index) = (self.local("__out_run"), index);
            return Operand::new(quote! { #run.get(#index) }, Prec::Postfix);
        }
        // A shared output is borrowed as atomic cells for the region: read it through them.
        if matches!(array, Array::Vals { param: 0 }) && self.writes == Some(Writes::Scattered) {
            let cells = self.local("__out_cells");
            let root = self.root;
            let get = quote! { #root::__private::AtomicCell::get(&#cells[#index]) };
            return Operand::new(get, Prec::Postfix);
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
        let root = self.root;
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
                    quote! { <T as #root::Scalar>::divide(#a, #b) },
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

pub(super) fn level_array(param: usize, level: usize, array: LevelArray) -> Binding {
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

pub(super) fn put_type(ty: Type) -> TokenStream {
    match ty {
        Type::Index => quote! { usize },
        Type::Signed => quote! { i64 },
        Type::Value => quote! { T },
        Type::Bool => quote! { bool },
    }
}

/// A value literal of type `T`: zero and one are the trait's constants; other integers convert
/// exactly through `from_i64`, floats through `from_f64`.
pub(super) fn put_value(value: IrLiteral, root: &Root) -> TokenStream {
    match value {
        IrLiteral::Int(0) => quote! { <T as #root::Scalar>::ZERO },
        IrLiteral::Int(1) => quote! { <T as #root::Scalar>::ONE },
        IrLiteral::Int(n) => {
            let n = Literal::i64_unsuffixed(n);
            quote! { <T as #root::Scalar>::from_i64(#n) }
        }
        IrLiteral::Float(f) => {
            let f = put_f64(f);
            quote! { <T as #root::Scalar>::from_f64(#f) }
        }
    }
}

/// An `f64` expression; a literal too large for `f64` parses as infinity, which no literal
/// token can spell, and a negative one is printed as a negation (`-0.0` included).
fn put_f64(f: f64) -> TokenStream {
    if f.is_finite() && f.is_sign_negative() {
        let f = Literal::f64_unsuffixed(-f);
        quote! { -#f }
    } else if f.is_finite() {
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

/// Whether an index expression is built from literals only (its type is not fixed by anything).
pub(super) fn is_constant(expr: &Expr) -> bool {
    match expr {
        Expr::Index(_) => true,
        Expr::Binary(_, a, b) => is_constant(a) && is_constant(b),
        Expr::Select(c, a, b) => is_constant(c) && is_constant(a) && is_constant(b),
        Expr::Call(..) => false,
        Expr::Bool(_) => true,
        Expr::Var(_)
        | Expr::Value(_)
        | Expr::Load(..)
        | Expr::Gather { .. }
        | Expr::GatherDot { .. }
        | Expr::DenseDot { .. }
        | Expr::Dim { .. }
        | Expr::LevelSize { .. }
        | Expr::Len(_)
        | Expr::AppendedLen { .. }
        | Expr::ParallelMinWork
        | Expr::UnsplitBelow
        | Expr::Hinted(_)
        | Expr::CountUpTo { .. }
        | Expr::BinarySearchAfter { .. }
        | Expr::Neg(_)
        | Expr::Not(_)
        | Expr::Signed(_)
        | Expr::Cast(..) => false,
    }
}
