//! Placeholder until the format resolution lands (keeps the workspace building).

use super::TensorFormat;
use crate::Errors;
use crate::syntax::ast::Kernel;

/// Resolves the `formats<...>` clause.
pub fn resolve_formats(_kernel: &Kernel) -> Result<Vec<(syn::Ident, TensorFormat)>, Errors> {
    Ok(Vec::new())
}
