//! The Rust emitter's own locals (lane rows, parallel pieces, the output's chunk): named here,
//! away from every name the IR declares, so the lowerer needs to know none of them.

use std::collections::BTreeSet;

use proc_macro2::Ident;

use super::bindings::ident;
use crate::ir::{Kernel, declared_names};

/// Hands out the emitter's locals for one kernel.
pub(super) struct Locals {
    taken: BTreeSet<String>,
}

impl Locals {
    /// Locals that avoid every name `kernel` declares.
    pub(super) fn new(kernel: &Kernel) -> Self {
        Locals {
            taken: declared_names(kernel),
        }
    }

    /// The local the emitter calls `base`: `base` itself unless the IR declares that name, then
    /// `base_e1`, `base_e2`, ... (a form no other emitter local takes).
    pub(super) fn get(&self, base: &str) -> Ident {
        let mut name = base.to_string();
        let mut n = 0;
        while self.taken.contains(&name) {
            n += 1;
            name = format!("{base}_e{n}");
        }
        ident(&name)
    }
}
