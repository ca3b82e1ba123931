//! The function of a kernel computing several outputs (`multi(..)`): it takes every output
//! first (`&mut`), then the inputs, and holds one nested function per output, the kernel of that
//! output's statement. It runs every part's checks (shapes, fills) before any part writes, so a
//! `KernelError` leaves every output as it was, then runs the parts in order.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Visibility};

use super::bindings::ident;
use super::emit_rust;
use super::root::Root;
use super::signature::put_format_type;
use crate::ir::Kernel;

/// One output's kernel and, where it assembles a sparse output in one pass, its compute-only
/// twin.
pub struct MultiPart {
    /// The kernel.
    pub kernel: Kernel,
    /// The twin that reuses the output's structure.
    pub compute: Option<Kernel>,
}

/// The function `name` over `params` (outputs first) running `parts` in order, and its
/// `_compute` twin when some part has one (the parts without one run in full).
pub fn emit_multi(
    name: &str,
    params: &[String],
    parts: &[MultiPart],
    attrs: &[Attribute],
    vis: &Visibility,
    root: &Root,
) -> TokenStream {
    let mut out = write_wrapper(name, params, parts, false, attrs, vis, root);
    if parts.iter().any(|p| p.compute.is_some()) {
        let doc = format!(
            " Like [`{name}`], but reuses the structure of each sparse output assembled in one \
             pass (by an earlier call with inputs of the same structure) and computes only its \
             values."
        );
        let attrs: Vec<Attribute> = vec![syn::parse_quote!(#[doc = #doc])];
        let twin = format!("{name}_compute");
        out.extend(write_wrapper(&twin, params, parts, true, &attrs, vis, root));
    }
    out
}

fn write_wrapper(
    name: &str,
    params: &[String],
    parts: &[MultiPart],
    compute: bool,
    attrs: &[Attribute],
    vis: &Visibility,
    root: &Root,
) -> TokenStream {
    let inherited = Visibility::Inherited;
    let mut items = TokenStream::new();
    let mut checks = TokenStream::new();
    let mut runs = TokenStream::new();
    for part in parts {
        let run = match (&part.compute, compute) {
            (Some(twin), true) => twin,
            _ => &part.kernel,
        };
        let check = Kernel {
            name: format!("{}_check", part.kernel.name),
            body: Vec::new(),
            ..part.kernel.clone()
        };
        items.extend(emit_rust(&check, &[], &inherited, root));
        items.extend(emit_rust(run, &[], &inherited, root));
        let args = put_args(&part.kernel);
        let (check, run) = (ident(&check.name), ident(&run.name));
        checks.extend(quote! { #check(#args)?; });
        runs.extend(quote! { #run(#args)?; });
    }
    let name = ident(name);
    let params = put_params(params, parts, root);
    quote! {
        #(#attrs)*
        #[allow(non_snake_case, clippy::all, clippy::pedantic, clippy::nursery)]
        #vis fn #name<T: #root::Scalar>(#params)
            -> ::core::result::Result<(), #root::KernelError>
        {
            #items
            #checks
            #runs
            ::core::result::Result::Ok(())
        }
    }
}

/// The arguments of one part's call, in its signature's order: outputs reborrowed.
fn put_args(kernel: &Kernel) -> TokenStream {
    let args = kernel.signature.iter().map(|&k| {
        let p = &kernel.params[k];
        let name = ident(&p.name);
        if p.output {
            quote! { &mut *#name }
        } else {
            quote! { #name }
        }
    });
    quote! { #(#args),* }
}

/// The function's parameters, each typed as the part that takes it declares it.
fn put_params(params: &[String], parts: &[MultiPart], root: &Root) -> TokenStream {
    let params = params.iter().filter_map(|name| {
        let p = (parts.iter())
            .flat_map(|part| &part.kernel.params)
            .find(|p| p.name == *name && p.copy_of.is_none())?;
        let id = ident(name);
        let format = put_format_type(&p.format, root);
        let tensor = quote! { #root::Tensor<T, #format> };
        Some(match (p.output, p.by_value) {
            (true, _) => quote! { #id: &mut #tensor },
            (false, true) => quote! { #id: T },
            (false, false) => quote! { #id: &#tensor },
        })
    });
    quote! { #(#params),* }
}
