//! The namer: fresh, unique local variable names. Every generated name starts with `__`, which the
//! parser forbids in user names, so generated locals never shadow a tensor parameter.

use std::collections::BTreeSet;

use crate::ir::Var;

/// Hands out unique names from readable hints.
pub struct Namer {
    issued: BTreeSet<String>,
}

impl Default for Namer {
    /// A namer that has handed out nothing yet.
    fn default() -> Self {
        Namer {
            issued: BTreeSet::new(),
        }
    }
}

impl Namer {
    /// A name not handed out before, built from `hint`: `__i`, then `__i_1`, `__i_2`, ...
    /// Back ends name their own locals away from these, so no name here is off limits.
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
    fn names_are_unique() {
        let mut namer = Namer::default();
        assert_eq!(namer.fresh("i").0, "__i");
        assert_eq!(namer.fresh("i").0, "__i_1");
        assert_eq!(namer.fresh("i_1").0, "__i_1_1");
        // Back ends keep their own locals apart, so their names are the lowerer's to take.
        assert_eq!(namer.fresh("x").0, "__x");
        assert_eq!(namer.fresh("row").0, "__row");
    }
}
