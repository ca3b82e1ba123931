//! `assemble(T, Append|Insert)`: how the output is assembled. Only the output can be named, and a
//! sparse output is appended to (inserting into one is not supported).

use proc_macro2::Span;
use syn::Ident;

use crate::error::{Error, ErrorKind};
use crate::format::LevelKind;

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
            .any(|l| l.kind != LevelKind::Dense);
        if insert && sparse {
            return Err(Error::new(
                span,
                ErrorKind::Unsupported("`Insert` assembly of a sparse output".into()),
            ));
        }
        Ok(())
    }
}
