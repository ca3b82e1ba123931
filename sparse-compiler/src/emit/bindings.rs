//! The locals bound at the top of a generated kernel: every dimension, level size, level array and
//! values array the IR reads or writes, bound once (so the loops index plain slices, not method
//! calls), in a deterministic order (so golden files are stable).
//!
//! Collecting them is one walk over the IR, which also checks the invariants the emitter relies on
//! (parameter numbers in range, the output first, stores only into the output or workspaces,
//! names that are identifiers). Binding names are `__<tensor>_<what>`: tensor names cannot start
//! with `__` and the suffix fixes the rest, so they are unique; a local of the IR that happens to
//! have the same name pushes the binding to another one (`_` appended), so nothing is shadowed.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

use super::root::Root;
use crate::ir::{Array, Expr, HostStep, Kernel, OutputAccess, Place, Region, Stmt, Type, Var};

/// One bound local. The derived order (variants, then fields) is the order of the bindings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Binding {
    /// `param.shape()[dim]`.
    Dim { param: usize, dim: usize },
    /// `param.level(level).size()`.
    LevelSize { param: usize, level: usize },
    /// `param.level(level).pos()`, `.crd()` or another array the level format names.
    LevelArray {
        param: usize,
        level: usize,
        array: LevelArray,
    },
    /// `param.values()`, or `values_mut()` for the output.
    Vals { param: usize },
    /// The `Gather` of input `vals`'s values at the coordinates of level `level` of input
    /// `param` ([`Expr::Gather`]).
    Gather {
        vals: usize,
        param: usize,
        level: usize,
    },
}

/// The arrays of one level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum LevelArray {
    Pos,
    Crd,
    /// [`Array::Level`]: the runtime `Level` method of this name, with this element type.
    Named {
        name: &'static str,
        elem: Type,
    },
}

/// The bindings a kernel needs and the names of everything the emitter generates.
pub(super) struct Bindings {
    names: BTreeMap<Binding, Ident>,
    /// The output's levels, when its values and its level arrays are both bound (the two come
    /// from one split borrow).
    output_levels: Ident,
    /// The `Assembly` of a kernel that rebuilds its output.
    assembly: Ident,
    /// Per parameter, the tensor its levels and values are read from: the parameter itself, or
    /// the converted copy of an input the kernel iterates in another format (a tensor local to
    /// the kernel is always one).
    sources: Vec<Ident>,
    /// The facade's path, which the bound types name.
    pub(super) root: Root,
}

impl Bindings {
    /// Walks `kernel` and names every binding it needs, or says which IR invariant it breaks.
    pub(super) fn collect(kernel: &Kernel, root: &Root) -> Result<Bindings, String> {
        let mut walk = Walk {
            kernel,
            used: BTreeSet::new(),
            locals: BTreeSet::new(),
        };
        walk.check_params()?;
        for check in &kernel.shape_checks {
            for &(param, dim) in &check.dims {
                walk.dim(param, dim)?;
            }
        }
        walk.stmts(&kernel.body)?;
        let mut taken = walk.locals;
        let mut fresh = |base: String| {
            let mut name = base;
            while taken.contains(&name) {
                name.push('_');
            }
            taken.insert(name.clone());
            ident(&name)
        };
        let mut names = BTreeMap::new();
        for &b in &walk.used {
            names.insert(b, fresh(base_name(kernel, b)));
        }
        let sources = kernel
            .params
            .iter()
            .map(|p| match p.convert_to {
                Some(_) => fresh(format!("__{}_converted", p.name)),
                None => ident(&p.name),
            })
            .collect();
        let output = &kernel.params[0].name;
        Ok(Bindings {
            names,
            output_levels: fresh(format!("__{output}_levels")),
            assembly: fresh("__asm".to_string()),
            sources,
            root: root.clone(),
        })
    }

    /// The local bound for `b`.
    ///
    /// # Panics
    /// If `b` was not collected, which the walk over the same IR rules out.
    pub(super) fn name(&self, b: Binding) -> &Ident {
        &self.names[&b]
    }

    /// `let x = x;` for every bound size and input array, which a thread region's closure runs
    /// first. A closure captures them by reference, and the optimizer cannot tell that a store
    /// into the output leaves what a reference points at unchanged, so it reloaded a size or a
    /// slice after every store: the inner loop of a row-split SpMM was not vectorized and ran
    /// 2.5 times slower than the serial kernel (BENCHMARKS.md, "Small inputs"). The output's own
    /// arrays are the region's to borrow and are left alone.
    pub(super) fn put_region_copies(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (&b, name) in &self.names {
            let copy = match b {
                Binding::Dim { .. } | Binding::LevelSize { .. } => true,
                Binding::LevelArray { param, .. } | Binding::Vals { param } => param != 0,
                Binding::Gather { .. } => true,
            };
            if copy {
                out.extend(quote! { let #name = #name; });
            }
        }
        out
    }

    /// The assembly local.
    pub(super) fn assembly(&self) -> &Ident {
        &self.assembly
    }

    /// The `let` statements of the dimensions, which the shape checks read.
    pub(super) fn put_dims(&self, kernel: &Kernel) -> TokenStream {
        let mut out = TokenStream::new();
        for (&b, name) in &self.names {
            if let Binding::Dim { .. } = b {
                out.extend(self.put_binding(kernel, b, name));
            }
        }
        out
    }

    /// The `let` statements of everything else, in binding order with the output's values last;
    /// converted copies of inputs come first.
    pub(super) fn put_data(&self, kernel: &Kernel) -> TokenStream {
        let root = &self.root;
        let output_vals = self.names.get(&Binding::Vals { param: 0 });
        let split = output_vals.is_some();
        let mut out = TokenStream::new();
        for (k, (p, copy)) in kernel.params.iter().zip(&self.sources).enumerate() {
            if let Some(format) = &p.convert_to {
                let source = &kernel.params[p.copy_of.unwrap_or(k)].name;
                let (source, ty) = (
                    ident(source),
                    super::signature::put_format_type(format, root),
                );
                out.extend(quote! { let #copy: #root::Tensor<T, #ty> = #source.convert()?; });
            }
        }
        for (&b, name) in &self.names {
            match b {
                Binding::Dim { .. } | Binding::Vals { param: 0 } => {}
                Binding::LevelArray { param: 0, .. } if split => {}
                _ => out.extend(self.put_binding(kernel, b, name)),
            }
        }
        if let Some(vals) = output_vals {
            out.extend(self.put_output_values(kernel, vals));
        }
        out
    }

    /// The output's values, mutable. When the kernel also reads the output's level arrays (a
    /// kernel that computes into an assembled structure), both come from one split borrow.
    fn put_output_values(&self, kernel: &Kernel, vals: &Ident) -> TokenStream {
        let root = &self.root;
        let output = ident(&kernel.params[0].name);
        let arrays: Vec<(Binding, &Ident)> = self
            .names
            .iter()
            .filter(|(b, _)| matches!(b, Binding::LevelArray { param: 0, .. }))
            .map(|(&b, name)| (b, name))
            .collect();
        if arrays.is_empty() {
            return quote! { let #vals: &mut [T] = #output.values_mut(); };
        }
        let levels = &self.output_levels;
        let mut out = quote! {
            let (#levels, #vals): (&[#root::Level], &mut [T]) =
                #root::__private::levels_and_values_mut(&mut *#output);
        };
        for (b, name) in arrays {
            if let Binding::LevelArray { level, array, .. } = b {
                let (ty, method) = array_access(array, root);
                let level = lit(level);
                out.extend(quote! { let #name: #ty = #levels[#level].#method(); });
            }
        }
        out
    }

    fn put_binding(&self, kernel: &Kernel, b: Binding, name: &Ident) -> TokenStream {
        match b {
            Binding::Dim { param, dim } => {
                // A tensor local to the kernel has the shape of the input it copies.
                let source = kernel.params[param].copy_of.unwrap_or(param);
                let (p, dim) = (ident(&kernel.params[source].name), lit(dim));
                quote! { let #name: usize = #p.shape()[#dim]; }
            }
            Binding::LevelSize { param, level } => {
                let (p, level) = (&self.sources[param], lit(level));
                quote! { let #name: usize = #p.level(#level).size(); }
            }
            Binding::LevelArray {
                param,
                level,
                array,
            } => {
                let (p, level) = (&self.sources[param], lit(level));
                let (ty, method) = array_access(array, &self.root);
                quote! { let #name: #ty = #p.level(#level).#method(); }
            }
            // A scalar passed by value is the one element of its values array.
            Binding::Vals { param } if kernel.params[param].by_value => {
                let p = &self.sources[param];
                quote! { let #name: &[T] = ::core::slice::from_ref(&#p); }
            }
            Binding::Vals { param } => {
                let p = &self.sources[param];
                quote! { let #name: &[T] = #p.values(); }
            }
            Binding::Gather { vals, param, level } => {
                let (p, root) = (&self.sources[param], &self.root);
                // A parameter is a reference; a converted copy is a tensor of the kernel's own.
                let p = match kernel.params[param].convert_to {
                    Some(_) => quote! { &#p },
                    None => quote! { &*#p },
                };
                let values = &self.names[&Binding::Vals { param: vals }];
                let crd = &self.names[&Binding::LevelArray {
                    param,
                    level,
                    array: LevelArray::Crd,
                }];
                let level = lit(level);
                quote! {
                    let #name: #root::__private::Gather<'_, T> =
                        #root::__private::Gather::new(#p, #level, #crd, #values);
                }
            }
        }
    }
}

/// The slice type of a level array and the `Level` method that returns it.
fn array_access(array: LevelArray, root: &Root) -> (TokenStream, Ident) {
    let (ty, method) = match array {
        LevelArray::Pos => (quote! { &[#root::Idx] }, "pos"),
        LevelArray::Crd => (quote! { &[#root::Idx] }, "crd"),
        LevelArray::Named { name, elem } => {
            let elem = match elem {
                Type::Signed => quote! { i64 },
                Type::Bool => quote! { bool },
                Type::Index | Type::Value => quote! { #root::Idx },
            };
            (quote! { &[#elem] }, name)
        }
    };
    (ty, ident(method))
}

fn base_name(kernel: &Kernel, b: Binding) -> String {
    let tensor = |param: usize| &kernel.params[param].name;
    match b {
        Binding::Dim { param, dim } => format!("__{}_shape{dim}", tensor(param)),
        Binding::LevelSize { param, level } => format!("__{}_l{level}_size", tensor(param)),
        Binding::LevelArray {
            param,
            level,
            array,
        } => {
            let what = match array {
                LevelArray::Pos => "pos",
                LevelArray::Crd => "crd",
                LevelArray::Named { name, .. } => name,
            };
            format!("__{}_l{level}_{what}", tensor(param))
        }
        Binding::Vals { param } => format!("__{}_vals", tensor(param)),
        Binding::Gather { vals, param, level } => {
            format!("__{}_at_{}_l{level}", tensor(vals), tensor(param))
        }
    }
}

/// An identifier for a name the walk has checked (or a fixed one of the emitter).
pub(super) fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// An unsuffixed integer literal (`3`, not `3usize`): every place the emitter puts one has its
/// type fixed by context.
pub(super) fn lit(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

/// Whether `name` can be an identifier of the generated code: what `Ident::new` accepts, and not
/// a keyword (the parser already rejects those in user names; the lowerer never makes them).
fn is_ident(name: &str) -> bool {
    syn::parse_str::<Ident>(name).is_ok()
}

/// The walk: what the IR uses, and whether it keeps the invariants.
struct Walk<'k> {
    kernel: &'k Kernel,
    used: BTreeSet<Binding>,
    /// The names of the IR's locals, which bindings must avoid.
    locals: BTreeSet<String>,
}

impl Walk<'_> {
    fn check_params(&self) -> Result<(), String> {
        let params = &self.kernel.params;
        if !is_ident(&self.kernel.name) {
            return Err(format!("`{}` is not an identifier", self.kernel.name));
        }
        match params.first() {
            Some(p) if p.output && p.convert_to.is_some() => {
                return Err("the output is read through a converted copy".into());
            }
            Some(p) if p.output => {}
            _ => return Err("the first parameter is not the output".into()),
        }
        if params.iter().skip(1).any(|p| p.output) {
            return Err("more than one output".into());
        }
        match params
            .iter()
            .find(|p| !is_ident(&p.name) || p.name.starts_with("__"))
        {
            Some(p) => Err(format!("`{}` cannot name a parameter", p.name)),
            None => Ok(()),
        }
    }

    fn param(&self, param: usize) -> Result<(), String> {
        if param < self.kernel.params.len() {
            Ok(())
        } else {
            Err(format!("parameter {param} does not exist"))
        }
    }

    fn dim(&mut self, param: usize, dim: usize) -> Result<(), String> {
        self.param(param)?;
        if dim >= self.kernel.params[param].order {
            return Err(format!(
                "dimension {dim} of `{}` does not exist",
                self.kernel.params[param].name
            ));
        }
        self.used.insert(Binding::Dim { param, dim });
        Ok(())
    }

    fn local(&mut self, var: &Var) -> Result<(), String> {
        if !is_ident(&var.0) || !var.0.starts_with("__") {
            return Err(format!("`{}` cannot name a local", var.0));
        }
        self.locals.insert(var.0.clone());
        Ok(())
    }

    fn array(&mut self, array: &Array) -> Result<(), String> {
        let (param, level, which) = match array {
            Array::Pos { param, level } => (*param, *level, LevelArray::Pos),
            Array::Crd { param, level } => (*param, *level, LevelArray::Crd),
            Array::Level {
                param,
                level,
                name,
                elem,
            } => {
                if !is_ident(name) || *elem == Type::Value {
                    return Err(format!("{array:?} cannot be bound"));
                }
                let which = LevelArray::Named { name, elem: *elem };
                (*param, *level, which)
            }
            Array::Vals { param } => {
                self.param(*param)?;
                self.used.insert(Binding::Vals { param: *param });
                return Ok(());
            }
            Array::Temp(var) => return self.local(var),
        };
        self.param(param)?;
        self.used.insert(Binding::LevelArray {
            param,
            level,
            array: which,
        });
        Ok(())
    }

    fn stmts(&mut self, stmts: &[Stmt]) -> Result<(), String> {
        stmts.iter().try_for_each(|s| self.stmt(s))
    }

    /// What `stmt` binds: its expressions', plus the arrays it names outside them. Whether
    /// it may write them is the verifier's question, asked before.
    fn stmt(&mut self, stmt: &Stmt) -> Result<(), String> {
        if let Some(var) = crate::ir::visit::declared(stmt) {
            self.local(var)?;
        }
        for expr in crate::ir::visit::stmt_exprs(stmt) {
            self.expr(expr)?;
        }
        match stmt {
            Stmt::Update { place, .. } => match place {
                Place::Var(var) => self.local(var)?,
                Place::Elem(array, _) => self.array(array)?,
            },
            Stmt::SortPrefix { array, .. } => self.local(array)?,
            Stmt::Host(HostStep::ZeroOutput { .. })
            | Stmt::Parallel(Region {
                output:
                    OutputAccess::Blocks { .. }
                    | OutputAccess::Scattered
                    | OutputAccess::Runs { .. }
                    | OutputAccess::Reduced { .. },
                ..
            }) => {
                self.used.insert(Binding::Vals { param: 0 });
            }
            Stmt::Host(HostStep::CopyStructure { from }) => self.param(*from)?,
            Stmt::Prefetch { array, .. } => self.array(array)?,
            Stmt::RowDots {
                vals,
                crd,
                weights,
                pos,
                ..
            } => {
                self.gather(vals, crd)?;
                self.array(weights)?;
                self.array(pos)?;
                self.array(&Array::Vals { param: 0 })?;
            }
            Stmt::RowAxpys {
                vals,
                crd,
                weights,
                pos,
                ..
            } => {
                self.gather(vals, crd)?;
                self.array(weights)?;
                self.array(pos)?;
                self.array(&Array::Vals { param: 0 })?;
            }
            Stmt::GatherAxpy {
                acc,
                vals,
                crd,
                weights,
                ..
            } => {
                self.gather(vals, crd)?;
                self.array(weights)?;
                self.local(acc)?;
            }
            Stmt::PrefetchGather { array, crd, .. } => {
                self.array(array)?;
                self.array(crd)?;
            }
            _ => {}
        }
        stmt.bodies().into_iter().try_for_each(|b| self.stmts(b))
    }

    /// The arrays of a gather of `vals` at the coordinates `crd`, and the gather itself.
    fn gather(&mut self, vals: &Array, crd: &Array) -> Result<(), String> {
        self.array(vals)?;
        self.array(crd)?;
        if let (Array::Vals { param: x }, Array::Crd { param, level }) = (vals, crd) {
            self.used.insert(Binding::Gather {
                vals: *x,
                param: *param,
                level: *level,
            });
        }
        Ok(())
    }

    /// What `expr` binds: the arrays it reads, the sizes it names, its locals, at any depth.
    fn expr(&mut self, expr: &Expr) -> Result<(), String> {
        match expr {
            Expr::Var(var) => self.local(var)?,
            Expr::GatherDot {
                vals, crd, weights, ..
            } => {
                self.array(weights)?;
                self.gather(vals, crd)?;
            }
            Expr::Gather { vals, crd, .. } => self.gather(vals, crd)?,
            Expr::DenseDot { a, b, .. } => {
                self.array(a)?;
                self.array(b)?;
            }
            Expr::Load(array, _)
            | Expr::Len(array)
            | Expr::Hinted(array)
            | Expr::CountUpTo { array, .. }
            | Expr::BinarySearchAfter { array, .. } => {
                self.array(array)?;
            }
            Expr::Dim { param, dim } => self.dim(*param, *dim)?,
            Expr::LevelSize { param, level } => {
                self.param(*param)?;
                self.used.insert(Binding::LevelSize {
                    param: *param,
                    level: *level,
                });
            }
            _ => {}
        }
        (crate::ir::visit::operands(expr).into_iter()).try_for_each(|e| self.expr(e))
    }
}
