//! `prefetch(x, d)`: a hint, transforming no loop, to fetch the element of dense input `x` that a
//! gather reads `d` nonzeros ahead.

use proc_macro2::Span;
use syn::Ident;

use crate::error::{Error, ErrorKind};
use crate::format::level_of;

use super::{Prefetch, State};

impl State<'_> {
    /// `prefetch(x, d)`: `x` must be a dense input, named once. Whether a loop gathers from it is
    /// known only while lowering, which reports a hint that applies nowhere.
    pub(super) fn prefetch(
        &mut self,
        tensor: &Ident,
        distance: usize,
        span: Span,
    ) -> Result<(), Error> {
        let Some(t) = (0..self.program.tensors.len())
            .find(|&t| tensor == self.program.tensors[t].name.as_str())
        else {
            let name = tensor.to_string();
            return Err(Error::new(tensor.span(), ErrorKind::UnknownTensor(name)));
        };
        let dense = self
            .program
            .iterated_levels(t)
            .iter()
            .all(|l| level_of(l).full());
        if t == 0 || !dense {
            let name = tensor.to_string();
            return Err(Error::new(tensor.span(), ErrorKind::PrefetchNotDense(name)));
        }
        let hint = Prefetch { distance, span };
        if self.scheduled.prefetch.insert(t, hint).is_some() {
            let name = tensor.to_string();
            return Err(Error::new(tensor.span(), ErrorKind::PrefetchTwice(name)));
        }
        Ok(())
    }
}
