//! The Rust emitter's own locals (lane rows, parallel pieces, the output's chunk): named here,
//! away from every name the IR declares, so the lowerer needs to know none of them.

use std::collections::BTreeSet;

use proc_macro2::Ident;

use super::bindings::ident;
use crate::ir::{Kernel, Stmt, TempType, Type, Var, declared, declared_names};

/// Hands out the emitter's locals for one kernel, and knows which of the kernel's own names
/// hold values.
pub(super) struct Locals {
    taken: BTreeSet<String>,
    values: BTreeSet<String>,
}

impl Locals {
    /// Locals that avoid every name `kernel` declares.
    pub(super) fn new(kernel: &Kernel) -> Self {
        let mut values = BTreeSet::new();
        let mut others = BTreeSet::new();
        collect_values(&kernel.body, &mut values, &mut others);
        Locals {
            taken: declared_names(kernel),
            values: values.difference(&others).cloned().collect(),
        }
    }

    /// Whether the kernel declares `var` as a value (a `let` of a value, a workspace of values)
    /// and never as anything else.
    pub(super) fn is_value(&self, var: &Var) -> bool {
        self.values.contains(&var.0)
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

/// Sorts the names `stmts` declare into values and everything else.
fn collect_values(stmts: &[Stmt], values: &mut BTreeSet<String>, others: &mut BTreeSet<String>) {
    for stmt in stmts {
        let value = matches!(
            stmt,
            Stmt::Let {
                ty: Type::Value,
                ..
            } | Stmt::Workspace {
                ty: TempType::Value,
                ..
            }
        );
        if let Some(var) = declared(stmt) {
            match value {
                true => values.insert(var.0.clone()),
                false => others.insert(var.0.clone()),
            };
        }
        for body in stmt.bodies() {
            collect_values(body, values, others);
        }
    }
}
