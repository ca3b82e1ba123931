//! The namer: fresh, unique local variable names. Every generated name starts with `__`, which the
//! parser forbids in user names, so generated locals never shadow a tensor parameter.

use std::collections::BTreeSet;

use crate::ir::Var;

/// Hands out unique names from readable hints.
pub struct Namer {
    issued: BTreeSet<String>,
}

impl Default for Namer {
    /// A namer that never hands out the names backends reserve for their own locals.
    fn default() -> Self {
        let issued = crate::ir::RESERVED_LOCALS
            .iter()
            .map(|s| s.to_string())
            .collect();
        Namer { issued }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_avoid_backend_locals() {
        let mut namer = Namer::default();
        assert_eq!(namer.fresh("i").0, "__i");
        assert_eq!(namer.fresh("i").0, "__i_1");
        // `__x` is a backend's local, so an index named `x` is renamed.
        assert_eq!(namer.fresh("x").0, "__x_1");
    }
}
