//! `unroll(i, n)`: the loop over `i` is unrolled by `n`. It transforms nothing here; lowering
//! reads the factor.

use syn::Ident;

use crate::error::Error;

use super::State;

impl State<'_> {
    pub(super) fn unroll(&mut self, var: &Ident, factor: usize) -> Result<(), Error> {
        let v = self.loop_var(var)?;
        self.scheduled.unroll.insert(v, factor);
        Ok(())
    }
}
