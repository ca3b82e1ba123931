//! Random chains of scheduling commands, shared by the fuzz tests of this directory.
// Each test target uses part of this module.
#![allow(dead_code)]

use std::panic::{AssertUnwindSafe, catch_unwind};

use proc_macro2::TokenStream;
use sparse_compiler::ErrorKind;

/// A kernel without its schedule, and what schedules may name in it.
pub struct Kernel {
    /// Everything of the invocation before `schedule<...>`.
    pub head: &'static str,
    /// The module of `tests/schedules_random.rs` that runs its random schedules, and the
    /// function that checks them.
    pub family: Option<(&'static str, &'static str)>,
    /// Index variables of the statement.
    pub vars: &'static [&'static str],
    /// Tensors (the output first).
    pub tensors: &'static [&'static str],
    /// Subexpressions of the right-hand side, for `precompute`.
    pub exprs: &'static [&'static str],
}

const FACTORS: &[&str] = &["0", "1", "2", "3", "7", "16"];
const UNITS: &[&str] = &["CpuThread", "CpuVector", "GpuBlock"];
const RACES: &[&str] = &[
    "NoRaces",
    "IgnoreRaces",
    "Atomics",
    "Temporary",
    "ParallelReduction",
];

/// Writes a chain of commands from raw draws, so that proptest shrinks draws, not strings. Most
/// arguments that name an existing variable take one the statement or an earlier command defined
/// (otherwise nearly every chain stops at "unknown index variable"); one in eight is a name never
/// defined, and new variables are fresh names or, one in eight, an existing one.
struct Chain<'k> {
    kernel: &'k Kernel,
    defined: Vec<String>,
    fresh: usize,
}

impl Chain<'_> {
    /// Half the time one of the two newest variables: chains then build on what the previous
    /// commands made (`pos` then `split` of the position, `split` then `coord` of its part).
    fn existing(&self, draw: u8) -> String {
        let newest = &self.defined[self.defined.len().saturating_sub(2)..];
        match draw % 8 {
            0 => "nowhere".to_string(),
            1..4 if self.fresh > 0 => newest[usize::from(draw / 8) % newest.len()].clone(),
            _ => self.defined[usize::from(draw / 8) % self.defined.len()].clone(),
        }
    }

    fn new_var(&mut self, draw: u8) -> String {
        if draw.is_multiple_of(8) {
            return self.existing((draw / 8) | 1);
        }
        self.fresh += 1;
        let name = format!("v{}", self.fresh);
        self.defined.push(name.clone());
        name
    }

    fn pick<'a>(options: &[&'a str], draw: u8) -> &'a str {
        options[usize::from(draw) % options.len()]
    }

    fn command(&mut self, kind: u8, d: [u8; 5]) -> String {
        let tensor = |draw| Self::pick(self.kernel.tensors, draw);
        match kind % 11 {
            0 => format!(
                "pos({}, {}, {})",
                self.existing(d[0]),
                self.new_var(d[1]),
                tensor(d[2])
            ),
            1 => format!("coord({}, {})", self.existing(d[0]), self.new_var(d[1])),
            2 => {
                let (outer, inner) = (self.existing(d[0]), self.existing(d[1]));
                format!("collapse({outer}, {inner}, {})", self.new_var(d[2]))
            }
            3 => {
                let var = self.existing(d[0]);
                let (outer, inner) = (self.new_var(d[1]), self.new_var(d[2]));
                let direction = Self::pick(&["Down", "Up"], d[3]);
                let factor = Self::pick(FACTORS, d[4]);
                format!("split({var}, {outer}, {inner}, {direction}, {factor})")
            }
            4 => {
                let count = 2 + usize::from(d[0] % 3);
                let vars: Vec<String> = d[1..=count].iter().map(|&v| self.existing(v)).collect();
                format!("reorder({})", vars.join(", "))
            }
            5 => {
                let expr = Self::pick(self.kernel.exprs, d[0]);
                let var = self.existing(d[1]);
                format!("precompute({expr}, {var}, {}, W)", self.new_var(d[2]))
            }
            6 => {
                let var = self.existing(d[0]);
                let bound = self.new_var(d[1]);
                let kind = Self::pick(
                    &["MaxExact", "MinExact", "MaxConstraint", "MinConstraint"],
                    d[3],
                );
                format!(
                    "bound({var}, {bound}, {}, {kind})",
                    Self::pick(FACTORS, d[2])
                )
            }
            7 => format!(
                "unroll({}, {})",
                self.existing(d[0]),
                Self::pick(FACTORS, d[1])
            ),
            8 => {
                let var = self.existing(d[0]);
                let (unit, race) = (Self::pick(UNITS, d[1]), Self::pick(RACES, d[2]));
                format!("parallelize({var}, {unit}, {race})")
            }
            9 => format!(
                "assemble({}, {})",
                tensor(d[0]),
                Self::pick(&["Append", "Insert"], d[1])
            ),
            _ => format!("prefetch({}, {})", tensor(d[0]), Self::pick(FACTORS, d[1])),
        }
    }
}

/// The commands that `draws` make for `kernel`, joined by dots.
pub fn chain_of(kernel: &Kernel, draws: impl IntoIterator<Item = (u8, [u8; 5])>) -> String {
    let mut chain = Chain {
        kernel,
        defined: kernel.vars.iter().map(|v| v.to_string()).collect(),
        fresh: 0,
    };
    let commands: Vec<String> = (draws.into_iter())
        .map(|(kind, d)| chain.command(kind, d))
        .collect();
    commands.join(".")
}

/// Compiles `source`; `Err` with the panic's message if the compiler panicked.
pub fn compile_without_panic(source: &str) -> Result<(), String> {
    let tokens: TokenStream = source.parse().expect("the generator writes valid tokens");
    let compiled =
        catch_unwind(AssertUnwindSafe(|| sparse_compiler::compile(tokens))).map_err(|panic| {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
            format!("the compiler panicked: {message:?}")
        })?;
    match compiled {
        Ok(expansion) => syn::parse2::<syn::File>(expansion)
            .map(|_| ())
            .map_err(|e| format!("the expansion is not Rust items: {e}")),
        Err(errors) => match errors
            .iter()
            .find(|e| matches!(e.kind, ErrorKind::Internal(_)))
        {
            Some(internal) => Err(internal.message()),
            None => Ok(()),
        },
    }
}

/// How many commands of `chain` transform loops (not `unroll`, `assemble` or `prefetch`, which
/// leave the iteration alone), so the listed chains exercise the provenance graph.
pub fn transforms(chain: &str) -> usize {
    let commands = chain.split(").").map(|c| c.trim_start_matches('.'));
    let plain = ["unroll(", "assemble(", "prefetch("];
    commands
        .filter(|c| !plain.iter().any(|p| c.starts_with(p)))
        .count()
}

/// Compiles `source`: `Err` with the first error's message when it does not compile.
pub fn compile(source: &str) -> Result<(), String> {
    let tokens: TokenStream = source.parse().map_err(|e| format!("no tokens: {e}"))?;
    sparse_compiler::compile(tokens)
        .map(|_| ())
        .map_err(|errors| errors[0].message())
}
