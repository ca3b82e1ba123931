//! `assemble(T, Append|Insert)`: how the output is assembled. Only the output can be named, and a
//! sparse output is appended to (inserting into one is not supported).

use proc_macro2::Span;
use syn::Ident;

use crate::error::{Error, ErrorKind};
use crate::format::level_of;

use super::State;

impl State<'_> {
    pub(super) fn assemble(
        &mut self,
        tensor: &Ident,
        insert: bool,
        span: Span,
    ) -> Result<(), Error> {
        if tensor != self.program.tensors[0].name.as_str() {
            return Err(Error::new(
                tensor.span(),
                ErrorKind::NotAnInput(tensor.to_string()),
            ));
        }
        let sparse = self.program.tensors[0]
            .levels
            .iter()
            .any(|l| !level_of(l).full());
        if insert && sparse {
            return Err(Error::new(
                span,
                ErrorKind::Unsupported("`Insert` assembly of a sparse output".into()),
            ));
        }
        Ok(())
    }
}
