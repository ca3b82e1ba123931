//! Outputs that take an input's structure (SDDMM, TTV into a sparse output): which access gives
//! it, and whether its levels are converted on the way (dense output levels where the input's are
//! compressed).

use super::{Access, Expr, Program};
use crate::format::{LevelKind, LevelSpec, level_of};
use crate::syntax::ast::AssignOp;

impl Program {
    /// The access whose nonzeros contain the output's, when the output is sparse, overwritten
    /// (`=`), stored in the same levels as that input over the same variables, and the right-hand
    /// side is zero wherever that input is (it is a factor of a product): SDDMM, TTV into a
    /// sparse output. The output then takes that input's structure and is written at its
    /// positions, with no assembly (so it can also be written in parallel).
    pub fn pattern_source(&self) -> Option<usize> {
        let out = self.iterated_levels(self.output.tensor);
        if self.op != AssignOp::Assign || out.iter().all(|l| level_of(l).full()) {
            return None;
        }
        if !self
            .rhs
            .fill()
            .is_some_and(|f| crate::algebra::same(f, self.skip_value()))
        {
            return None;
        }
        let mut factors = Vec::new();
        product_factors(&self.rhs, &mut factors);
        factors.into_iter().find_map(|(id, access)| {
            let source = self.iterated_levels(access.tensor);
            let n = out.len();
            let prefix = source.get(..n);
            // A converted structure only where it is exactly the output's pattern: every other
            // operand dense, so nothing else can rule out one of its coordinates.
            let converted = prefix.is_some_and(|s| pattern_levels(s, out)) && self.only_sparse(id);
            let same_levels = prefix == Some(out) || converted;
            let same_vars = access.level_vars.get(..n) == Some(&self.output.level_vars[..]);
            let copied = self.copies.get(access.tensor).is_some();
            (same_levels && same_vars && !copied).then_some(id)
        })
    }

    /// Whether the output takes an input's structure through a conversion (`pattern_source`
    /// with dense output levels where the input's are compressed: TTV from a CSF tensor into a
    /// CSR result), which only the host runtime makes.
    pub fn pattern_converted(&self) -> bool {
        let out = self.iterated_levels(self.output.tensor);
        let Some(source) = self.pattern_source() else {
            return false;
        };
        let mut factors = Vec::new();
        product_factors(&self.rhs, &mut factors);
        (factors.iter()).any(|&(id, access)| {
            id == source && self.iterated_levels(access.tensor).get(..out.len()) != Some(out)
        })
    }

    /// Whether access `id` is the right-hand side's only operand with a sparse level.
    fn only_sparse(&self, id: usize) -> bool {
        let mut all = Vec::new();
        every_access(&self.rhs, &mut all);
        (all.into_iter()).all(|(a, access)| {
            a == id || (self.iterated_levels(access.tensor).iter()).all(|l| level_of(l).full())
        })
    }
}

/// The accesses whose zero makes the whole expression zero through operands that annihilate it
/// (the factors of a product, the operand of a negation or of `sqrt`, ...).
fn product_factors<'e>(e: &'e Expr, out: &mut Vec<(usize, &'e Access)>) {
    match e {
        Expr::Access { id, access } => out.push((*id, access)),
        Expr::Op(_, args) => {
            for k in e.required_operands() {
                product_factors(&args[k], out);
            }
        }
        Expr::Temp(_) | Expr::Literal(_) => {}
    }
}

fn every_access<'e>(e: &'e Expr, out: &mut Vec<(usize, &'e Access)>) {
    match e {
        Expr::Access { id, access } => out.push((*id, access)),
        Expr::Op(_, args) => args.iter().for_each(|a| every_access(a, out)),
        Expr::Temp(_) | Expr::Literal(_) => {}
    }
}

/// Whether an output stored in levels `out` can take the structure of an input's first levels
/// `source` and sit at its positions: the same levels, or dense output levels where the input's
/// are compressed (unique and ordered, so the dense level enumerates a superset of the same
/// coordinates in the same order) above compressed levels that match, ending in a level that
/// matches. The last level's positions are then the input's, which is what the kernel writes at.
fn pattern_levels(source: &[LevelSpec], out: &[LevelSpec]) -> bool {
    let converted = |s: &LevelSpec, o: &LevelSpec| {
        o.kind == LevelKind::Dense
            && s.kind == LevelKind::Compressed
            && s.unique
            && s.ordered
            && s.coord == o.coord
    };
    let Some(first) = (source.iter().zip(out)).position(|(s, o)| s != o) else {
        return source.len() == out.len();
    };
    let matches_below = |k: usize| source[k] == out[k] && out[k].kind == LevelKind::Compressed;
    (first..out.len()).all(|k| converted(&source[k], &out[k]) || matches_below(k))
        && out.last().is_some_and(|l| l.kind == LevelKind::Compressed)
        && out.last() == source.get(out.len() - 1)
}
