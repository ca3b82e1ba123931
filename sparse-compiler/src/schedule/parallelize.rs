//! `parallelize(i, unit, race)`: the loop over `i` runs on the given hardware, its writes to
//! shared output entries made safe by the race strategy. Races that depend on the iteration
//! lattice (co-iteration) are checked by lowering, with the span recorded here; those of GPU units,
//! which depend on the final loop order, once the whole chain is applied (`gpu.rs`).

use proc_macro2::Span;
use syn::Ident;

use crate::error::{Error, ErrorKind};
use crate::notation::IndexVar;

use super::nest::loops_below;
use super::{Parallel, Race, State, Unit};

impl State<'_> {
    /// The loop runs in parallel only where `race` makes its writes safe: `NoRaces` needs each
    /// iteration to own the output entries it writes (and a vector loop to sum nothing inside
    /// it), while `Temporary` and `ParallelReduction` need iterations that share entries.
    pub(super) fn parallelize(
        &mut self,
        var: &Ident,
        unit: Unit,
        race: Race,
        span: Span,
    ) -> Result<(), Error> {
        let v = self.loop_var(var)?;
        if self.scheduled.parallel.contains_key(&v) {
            return Err(Error::new(
                var.span(),
                ErrorKind::ParallelTwice(var.to_string()),
            ));
        }
        let outputs = self.program.loop_vars_of(&self.program.output.indices);
        let roots = self.scheduled.underived(v);
        // A position of the input whose pattern the output takes is one output entry, so it writes
        // without races like an output coordinate does.
        let positions_own_entries = self.program.pattern_source().is_some();
        let output_like = roots.iter().all(|r| outputs.contains(r))
            && (!self.scheduled.is_position(v)
                || positions_own_entries
                || self.scheduled.tiles_coordinates(v));
        let reduces_inside = self.reduces_below(v);
        match race {
            Race::NoRaces if !output_like || (unit == Unit::CpuVector && reduces_inside) => {
                return Err(Error::new(
                    var.span(),
                    ErrorKind::ParallelRaces(var.to_string()),
                ));
            }
            Race::Temporary | Race::ParallelReduction if output_like => {
                return Err(Error::new(
                    var.span(),
                    ErrorKind::ParallelRaceNotOver(var.to_string()),
                ));
            }
            _ => {}
        }
        self.scheduled
            .parallel
            .insert(v, Parallel { unit, race, span });
        self.parallelized.get_or_insert(span);
        Ok(())
    }

    /// Whether a loop nested inside `v`'s iterates a variable the output is not indexed by.
    fn reduces_below(&self, v: IndexVar) -> bool {
        let outputs = self.program.loop_vars_of(&self.program.output.indices);
        let inner = loops_below(&self.cin, v);
        inner.iter().any(|&x| {
            !self
                .scheduled
                .underived(x)
                .iter()
                .all(|r| outputs.contains(r))
        })
    }
}
