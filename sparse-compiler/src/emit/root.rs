//! The path generated code names the facade crate by: `::sparse` unless the user's manifest
//! renamed the dependency (the macro shell finds the name), `crate`-relative paths never.
//!
//! Every item a kernel uses at run time is spelled `#root::Item` from this one value, so a kernel
//! compiles under whatever name the facade has in the calling crate.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

/// An absolute path to the facade, such as `::sparse` or `::sp`.
#[derive(Clone, Debug)]
pub struct Root(TokenStream);

impl Root {
    /// The facade under the name `name` in the calling crate (`::name`); `None` when `name` is
    /// not an identifier.
    pub fn named(name: &str) -> Option<Self> {
        let ident: proc_macro2::Ident = syn::parse_str(name).ok()?;
        Some(Root(quote! { ::#ident }))
    }
}

/// `::sparse`, the facade's package name: what a crate that did not rename it writes.
impl Default for Root {
    fn default() -> Self {
        Root(quote! { ::sparse })
    }
}

impl ToTokens for Root {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        self.0.to_tokens(tokens);
    }
}
