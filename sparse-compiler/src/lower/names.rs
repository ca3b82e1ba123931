//! The namer: fresh, unique local variable names. Every generated name starts with `__`, which the
//! parser forbids in user names, so generated locals never shadow a tensor parameter.

use std::collections::BTreeSet;

use crate::ir::Var;

/// Hands out unique names from readable hints.
#[derive(Default)]
pub struct Namer {
    issued: BTreeSet<String>,
}

impl Namer {
    /// A name not handed out before, built from `hint`: `__i`, then `__i_1`, `__i_2`, ...
    pub fn fresh(&mut self, hint: &str) -> Var {
        let mut name = format!("__{hint}");
        let mut n = 0;
        while self.issued.contains(&name) {
            n += 1;
            name = format!("__{hint}_{n}");
        }
        self.issued.insert(name.clone());
        Var(name)
    }
}
