//! The parameter list (each tensor with its format's runtime type) and the shape checks that open
//! the body.

use proc_macro2::TokenStream;
use quote::quote;

use super::bindings::{Binding, Bindings, ident, lit};
use super::root::Root;
use crate::format::{Coord, FormatType, LevelSpec};
use crate::ir::Kernel;

/// `y: &mut #root::Tensor<T, F>, A: &#root::Tensor<T, G>, alpha: T, ...` in the order of the
/// signature: the output (always first) mutable, the inputs shared, scalars by value.
pub(super) fn put_params(kernel: &Kernel, root: &Root) -> TokenStream {
    let params = kernel.signature.iter().map(|&k| {
        let p = &kernel.params[k];
        let name = ident(&p.name);
        let format = put_format_type(&p.format, root);
        let tensor = quote! { #root::Tensor<T, #format> };
        match (p.output, p.by_value) {
            (true, _) => quote! { #name: &mut #tensor },
            (false, true) => quote! { #name: T },
            (false, false) => quote! { #name: &#tensor },
        }
    });
    quote! { #(#params),* }
}

/// One `if` per dimension after the first of each index variable: it must equal the first.
pub(super) fn put_shape_checks(kernel: &Kernel, bindings: &Bindings) -> TokenStream {
    let root = &bindings.root;
    let mut out = TokenStream::new();
    for check in &kernel.shape_checks {
        let Some((&(first_param, first_dim), rest)) = check.dims.split_first() else {
            continue;
        };
        let expected = bindings.name(Binding::Dim {
            param: first_param,
            dim: first_dim,
        });
        for &(param, dim) in rest {
            let found = bindings.name(Binding::Dim { param, dim });
            let index = &check.index;
            let tensor = &kernel.params[param].name;
            let dim = lit(dim);
            out.extend(quote! {
                if #found != #expected {
                    return ::core::result::Result::Err(#root::KernelError::ShapeMismatch {
                        index: #index,
                        tensor: #tensor,
                        dim: #dim,
                        expected: #expected,
                        found: #found,
                    });
                }
            });
        }
    }
    out
}

/// One check per tensor the function takes: its fill value must be the one the kernel declares
/// (zero where `fills<...>` names none).
pub(super) fn put_fill_checks(kernel: &Kernel, root: &Root) -> TokenStream {
    let mut out = TokenStream::new();
    for &k in &kernel.signature {
        let p = &kernel.params[k];
        if p.by_value || p.copy_of.is_some() {
            continue;
        }
        let name = ident(&p.name);
        let tensor = &p.name;
        let expected = super::expr::put_value(p.fill, root);
        out.extend(quote! { #root::__private::check_fill(&*#name, #tensor, #expected)?; });
    }
    out
}

/// The runtime type of a format: `#root::Csr`, `#root::Bcsr<4, 4>`, or a `Custom` type
/// whose const argument encodes an explicit level list.
pub(super) fn put_format_type(format: &FormatType, root: &Root) -> TokenStream {
    match format {
        FormatType::Named {
            type_name,
            type_args,
        } => {
            let name = ident(type_name);
            if type_args.is_empty() {
                quote! { #root::#name }
            } else {
                let args = type_args.iter().map(|&a| lit(a));
                quote! { #root::#name<#(#args),*> }
            }
        }
        FormatType::Custom(levels) => {
            let levels = levels.iter().map(|l| put_level_spec(l, root));
            quote! { #root::Custom<{ #root::encode_levels(&[#(#levels),*]) }> }
        }
    }
}

/// A level as its `const` constructor and modifiers (`LevelSpec::compressed(0).unordered()`); a
/// combination the modifiers cannot reach (an ordered hashed level, which the level-list check
/// rejects anyway) is written field by field so nothing is lost.
fn put_level_spec(spec: &LevelSpec, root: &Root) -> TokenStream {
    let (constructor, variant) = (spec.kind.name(), spec.kind.variant_name());
    let default = LevelSpec::new(spec.kind, 0);
    if spec.ordered && !default.ordered {
        // The generated code spells the spec as data: `LevelKind` here is a path in the output,
        // not a decision of the compiler.
        let (kind, coord) = (ident(variant), put_coord(spec.coord, root));
        let (ordered, unique) = (spec.ordered, spec.unique);
        return quote! {
            #root::LevelSpec {
                kind: #root::LevelKind::#kind,
                coord: #coord,
                ordered: #ordered,
                unique: #unique,
            }
        };
    }
    let constructor = ident(constructor);
    let mut out = match spec.coord {
        Coord::Dim(d) => {
            let d = lit(d);
            quote! { #root::LevelSpec::#constructor(#d) }
        }
        coord => {
            let coord = put_coord(coord, root);
            quote! { #root::LevelSpec::#constructor(0).with_coord(#coord) }
        }
    };
    if default.ordered && !spec.ordered {
        out.extend(quote! { .unordered() });
    }
    if !spec.unique {
        out.extend(quote! { .non_unique() });
    }
    out
}

fn put_coord(coord: Coord, root: &Root) -> TokenStream {
    match coord {
        Coord::Dim(d) => {
            let d = lit(d);
            quote! { #root::Coord::Dim(#d) }
        }
        Coord::BlockOuter { dim, block } => {
            let (dim, block) = (lit(dim), lit(block));
            quote! { #root::Coord::BlockOuter { dim: #dim, block: #block } }
        }
        Coord::BlockInner { dim, block } => {
            let (dim, block) = (lit(dim), lit(block));
            quote! { #root::Coord::BlockInner { dim: #dim, block: #block } }
        }
        Coord::Slot => quote! { #root::Coord::Slot },
    }
}
