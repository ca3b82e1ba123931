//! `parallelize(i, unit, race)`: the loop over `i` runs on the given hardware, its writes to
//! shared output entries made safe by the race strategy. Races that depend on the iteration
//! lattice (co-iteration) are checked by lowering, with the span recorded here; those of GPU units,
//! which depend on the final loop order, once the whole chain is applied (`gpu.rs`).

use proc_macro2::Span;
use syn::Ident;

use crate::error::{Error, ErrorKind};
use crate::format::level_of;
use crate::notation::IndexVar;

use super::nest::loops_below;
use super::{Direction, Parallel, Race, Relation, State, Unit};

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
        if unit == Unit::CpuThread && self.program.assembles_output() && !self.assembles_by_rows(v)
        {
            return Err(Error::new(
                span,
                ErrorKind::ParallelSparseOutput(self.program.tensors[0].name.clone()),
            ));
        }
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

    /// Whether the output is CSR-like (dense rows over one ordered, unique compressed level) and `v`
    /// runs over its rows (the row variable, or the outer part of a `Down` split of it): then the
    /// rows can be assembled in parallel (count, prefix sum, fill).
    fn assembles_by_rows(&self, v: IndexVar) -> bool {
        let out = &self.program.tensors[0];
        let [row_level, col_level] = &out.levels[..] else {
            return false;
        };
        let csr_like = level_of(row_level).full()
            && level_of(col_level).segments()
            && col_level.unique
            && col_level.ordered;
        let row = self.program.output.level_vars.first().copied();
        let over_rows = match self.scheduled.deriving(v) {
            None => Some(v) == row,
            Some(Relation::Split {
                parent,
                outer,
                direction: Direction::Down,
                ..
            }) => Some(parent) == row && outer == v,
            _ => false,
        };
        csr_like && over_rows
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
