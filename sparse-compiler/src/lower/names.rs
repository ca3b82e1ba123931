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
    /// A name not handed out before and not a backend's own local ([`crate::ir::is_reserved_local`]),
    /// built from `hint`: `__i`, then `__i_1`, `__i_2`, ...
    pub fn fresh(&mut self, hint: &str) -> Var {
        // Every `__row_<n>` is a backend's, so a hint whose numbered names would all be taken
        // gets another base.
        let family = format!("__{hint}_");
        let hint = match crate::ir::RESERVED_FAMILIES.contains(&family.as_str()) {
            true => format!("{hint}_v"),
            false => hint.to_string(),
        };
        let mut name = format!("__{hint}");
        let mut n = 0;
        while self.issued.contains(&name) || crate::ir::is_reserved_local(&name) {
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
        // So are the lane loop's count and numbered rows, and the row counter of parallel assembly.
        assert_eq!(namer.fresh("n").0, "__n_1");
        assert_eq!(namer.fresh("compute_cursor").0, "__compute_cursor_1");
        assert_eq!(namer.fresh("row").0, "__row_v");
        assert_eq!(namer.fresh("row").0, "__row_v_1");
        assert_eq!(namer.fresh("row_0").0, "__row_0_1");
        assert_eq!(namer.fresh("chunk_12").0, "__chunk_12_1");
        assert_eq!(namer.fresh("splat").0, "__splat_v");
    }
}
