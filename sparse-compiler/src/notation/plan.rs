//! The copy planner: every run-time copy of an input, decided in one place.
//!
//! Some inputs cannot be iterated in the format the user gave them: a hashed level merged with
//! another operand's sparse level, CSR `.*` CSC, a DIA range level under a sparse loop, an ELL
//! slot loop that would repeat another term. Such an input is copied, when the kernel runs, into a
//! format the kernel can iterate. Each kind of copy is a [`Rule`]: it looks at the program and the
//! copies planned so far and proposes copies. [`plan_copies`] runs the rules to a fixpoint, an
//! earlier rule taking precedence: after any copy it starts again from the first rule, and it stops
//! when no rule changes the plan.
//!
//! The plan is a side table ([`Copies`]) keyed by tensor: each input keeps the format the user
//! wrote, and every later stage asks [`Program::iterated_levels`] for the levels it iterates. The
//! accesses of a copied input name the copy's level variables (they describe what is iterated).
//! One copy per tensor serves every read of it, except where a tensor is read in index orders that
//! no one copy can follow (`A(i,j) + A(j,i)`): the reads in one of those orders then get a tensor of
//! their own, local to the kernel and copied from the input when it runs ([`Rule::Reread`]).

use std::collections::BTreeMap;

use super::convert::{concordant_copies, nested_copies, range_copies, slot_copies, sorted_copies};
use super::reread::reread_splits;
use super::rowwise::row_wise_changes;
use super::{Expr, IndexVar, Program};
use crate::error::{Error, ErrorKind, Errors};
use crate::format::{FormatType, LevelSpec};

/// A kind of run-time copy, in the order the planner tries them (the first that proposes a copy
/// wins, then the planner starts again from the first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    /// Iterator conversion (Chou et al. 2018): a hashed or unordered level merged with
    /// another operand's sparse level is copied into a sorted one.
    Sorted,
    /// A range level (DIA's rows) merged with another operand's sparse level is copied into
    /// dense rows over compressed levels.
    Range,
    /// A tensor read in several index orders that no loop order (or no single copy) can visit in
    /// storage order: the reads in one order get a copy of their own, which the later rules then
    /// put in an order the loops follow.
    Reread,
    /// No loop order is concordant with every operand's storage order: an operand is copied with
    /// its levels in an order concordant with the others.
    Concordant,
    /// A `where` producer's loops, nested in the consumer's, visit an operand against its
    /// storage order: it is copied with its levels in the order of those loops.
    Nested,
    /// A product into a sparse matrix whose default loops run a sum outside the output's loops
    /// (AᵀA) or inside a dense loop over its compressed level (A Aᵀ): the operands against
    /// Gustavson's row-wise order are copied (transposed) so the sums run between the output's
    /// loops, into a workspace. Into a masked output (one that takes a factor's structure, as
    /// triangle counting's does) the sums run innermost instead, one dot product per entry.
    RowWise,
    /// A sum inside an operand's slot loop (ELL, DIA, BCSR) has a term that does not read the
    /// operand and would be added once per slot: it is copied into dense rows over compressed
    /// levels.
    Slot,
}

impl Rule {
    /// Every rule, in precedence order. Sorting comes before the range copies: an unordered level
    /// that meets DIA's rows is sorted even though DIA is then copied into dense rows, so a
    /// schedule may still take its positions (`pos` over a hashed level is not supported). A
    /// tensor read in two orders is split before the concordant copies, which would otherwise
    /// report the conflict as unresolvable.
    pub const ALL: [Rule; 7] = [
        Rule::Sorted,
        Rule::Range,
        Rule::Reread,
        Rule::Concordant,
        Rule::Nested,
        Rule::RowWise,
        Rule::Slot,
    ];

    /// The rule's name, as the code viewer prints it.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Sorted => "sorted",
            Rule::Range => "range",
            Rule::Reread => "reread",
            Rule::Concordant => "concordant",
            Rule::Nested => "nested",
            Rule::RowWise => "row-wise",
            Rule::Slot => "slot",
        }
    }

    /// Why the rule copies an input, in a few words.
    pub fn why(self) -> &'static str {
        match self {
            Rule::Sorted => "an unordered level meets another operand's sparse level",
            Rule::Range => "a range level meets another operand's sparse level",
            Rule::Reread => "read in another index order too, and this read gets its own copy",
            Rule::Concordant => "no loop order follows every operand's storage order",
            Rule::Nested => "a producer's loops visit it against its storage order",
            Rule::RowWise => {
                "transposed so the sums run inside the sparse output's loops (Gustavson's \
                 row-wise product, or a masked output's dot product per stored coordinate)"
            }
            Rule::Slot => "a sum inside its slot loop has a term not zero where it stores nothing",
        }
    }

    /// The changes the rule proposes for `program` as planned so far: copies of inputs, each in
    /// the levels to iterate it in, or reads split off into a tensor of their own. A rule that
    /// cannot resolve what it looks for reports the error.
    fn propose(self, program: &Program) -> Result<Vec<Change>, Errors> {
        let copies = |proposals: Vec<Proposal>| proposals.into_iter().map(Change::Copy).collect();
        match self {
            Rule::Sorted => Ok(copies(sorted_copies(program))),
            Rule::Range => Ok(copies(range_copies(program))),
            Rule::Reread => Ok(reread_splits(program)),
            Rule::Concordant => concordant_copies(program).map(copies),
            Rule::Nested => nested_copies(program).map(copies),
            Rule::RowWise => Ok(row_wise_changes(program)),
            Rule::Slot => Ok(copies(slot_copies(program))),
        }
    }
}

/// A copy a rule proposes: input `tensor` iterated in `levels`.
pub(super) type Proposal = (usize, Vec<LevelSpec>);

/// A change a rule proposes to the plan.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Change {
    /// Iterate an input in other levels ([`Proposal`]).
    Copy(Proposal),
    /// Give the reads of input `tensor` at `indices` a tensor of their own, a copy of the input
    /// local to the kernel.
    Split {
        /// The input.
        tensor: usize,
        /// The indices of the reads that move.
        indices: Vec<IndexVar>,
    },
}

/// One planned copy of an input.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedCopy {
    /// The levels the kernel iterates, root first.
    pub levels: Vec<LevelSpec>,
    /// The rules that shaped the copy, in the order they applied (a concordant copy of a hashed
    /// matrix is then sorted).
    pub rules: Vec<Rule>,
}

impl PlannedCopy {
    /// The copy's runtime format type.
    pub fn format(&self) -> FormatType {
        FormatType::Custom(self.levels.clone())
    }
}

/// The side table of planned copies, keyed by tensor (its index in the program).
#[derive(Clone, Debug, Default)]
pub struct Copies {
    by_tensor: BTreeMap<usize, PlannedCopy>,
}

impl Copies {
    /// The copy planned for tensor `t`, if any.
    pub fn get(&self, t: usize) -> Option<&PlannedCopy> {
        self.by_tensor.get(&t)
    }

    /// Every planned copy, by tensor number.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &PlannedCopy)> {
        self.by_tensor.iter().map(|(&t, c)| (t, c))
    }

    /// Whether no copy is planned.
    pub fn is_empty(&self) -> bool {
        self.by_tensor.is_empty()
    }
}

/// How many times the planner may change the plan per tensor before it gives up: a rule changes a
/// tensor's copy a few times at most (a concordant order, then sorted levels), so running out is a
/// bug in the rules (two of them undoing each other), reported rather than looped on.
const ROUNDS_PER_TENSOR: usize = 8;

/// Plans every run-time copy `program` needs, recording them in `program.copies`.
pub fn plan_copies(program: &mut Program) -> Result<(), Errors> {
    fixpoint(program, &|rule, program| rule.propose(program))
}

/// Whether the rules other than [`Rule::Reread`] plan `program` as it stands: then no read needs
/// a tensor of its own.
pub(super) fn plans_without_splits(program: &Program) -> bool {
    let others = |rule: Rule, program: &Program| match rule {
        Rule::Reread => Ok(Vec::new()),
        _ => rule.propose(program),
    };
    fixpoint(&mut program.clone(), &others).is_ok()
}

/// What a rule proposes for a program: [`Rule::propose`], or a stand-in in tests.
type Propose<'a> = &'a dyn Fn(Rule, &Program) -> Result<Vec<Change>, Errors>;

fn fixpoint(program: &mut Program, propose: Propose<'_>) -> Result<(), Errors> {
    // Each split adds a tensor, and so more rounds.
    let mut round = 0;
    while round < ROUNDS_PER_TENSOR * program.tensors.len() {
        round += 1;
        let Some((rule, changes)) = first_proposal(program, propose)? else {
            return Ok(());
        };
        for change in changes {
            match change {
                Change::Copy((t, levels)) => program.record_copy(t, levels, rule),
                Change::Split { tensor, indices } => program.split_reads(tensor, &indices),
            }
        }
    }
    let what = "the copy planner's rules did not reach a fixpoint";
    let span = program.tensors[program.output.tensor].span;
    Err(vec![Error::new(span, ErrorKind::Internal(what.into()))])
}

/// The first rule that proposes a change to the plan, with the proposals that change it. A copy in
/// the levels the user wrote is still a change: it is what a rule asked for.
fn first_proposal(
    program: &Program,
    propose: Propose<'_>,
) -> Result<Option<(Rule, Vec<Change>)>, Errors> {
    for rule in Rule::ALL {
        let changes: Vec<Change> = (propose(rule, program)?.into_iter())
            .filter(|change| match change {
                Change::Copy((t, levels)) => {
                    program.copies.get(*t).map(|c| &c.levels) != Some(levels)
                }
                Change::Split { .. } => true,
            })
            .collect();
        if !changes.is_empty() {
            return Ok(Some((rule, changes)));
        }
    }
    Ok(None)
}

impl Program {
    /// The levels the kernel iterates for tensor `t`: its planned copy's, or the ones the user
    /// wrote.
    pub fn iterated_levels(&self, t: usize) -> &[LevelSpec] {
        match self.copies.get(t) {
            Some(copy) => &copy.levels,
            None => &self.tensors[t].levels,
        }
    }

    /// Records that the kernel iterates input `t` in `levels`, as `rule` decided, and points the
    /// level variables of `t`'s accesses at those levels.
    pub(super) fn record_copy(&mut self, t: usize, levels: Vec<LevelSpec>, rule: Rule) {
        relabel(&mut self.rhs, t, &levels);
        // A variable whose blocks no level iterates any more is a loop of its own again.
        let mut iterated = self.output.level_vars.clone();
        self.rhs.collect_loop_vars(&mut iterated);
        (self.derived).retain(|_, d| iterated.contains(&d.outer) || iterated.contains(&d.inner));
        let copy = (self.copies.by_tensor)
            .entry(t)
            .or_insert_with(|| PlannedCopy {
                levels: Vec::new(),
                rules: Vec::new(),
            });
        copy.levels = levels;
        if !copy.rules.contains(&rule) {
            copy.rules.push(rule);
        }
    }
}

/// Points the level variables of tensor `t`'s accesses at its new levels (a copy's levels each
/// store a whole dimension, so each takes that dimension's variable).
fn relabel(e: &mut Expr, t: usize, levels: &[LevelSpec]) {
    match e {
        Expr::Access { access, .. } if access.tensor == t => {
            access.level_vars = levels
                .iter()
                .map(|l| {
                    l.coord
                        .dim()
                        .and_then(|d| access.indices.get(d).copied())
                        .unwrap_or(0)
                })
                .collect();
        }
        Expr::Access { .. } | Expr::Temp(_) | Expr::Literal(_) => {}
        Expr::Op(_, args) => {
            for a in args {
                relabel(a, t, levels);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{Coord, LevelKind, resolve_formats};
    use crate::syntax::parse_kernel;
    use proc_macro2::TokenStream;
    use quote::quote;

    fn program(tokens: TokenStream) -> Program {
        let kernel = parse_kernel(tokens).expect("parses");
        let formats = resolve_formats(&kernel).expect("resolves");
        Program::build(&kernel, &formats).expect("builds")
    }

    fn planned(tokens: TokenStream) -> Program {
        let mut program = program(tokens);
        plan_copies(&mut program).expect("plans");
        program
    }

    /// The level variables of the first access of tensor `t`.
    fn level_vars(e: &Expr, t: usize) -> Option<Vec<usize>> {
        match e {
            Expr::Access { access, .. } => (access.tensor == t).then(|| access.level_vars.clone()),
            Expr::Op(_, args) => args.iter().find_map(|a| level_vars(a, t)),
            Expr::Temp(_) | Expr::Literal(_) => None,
        }
    }

    #[test]
    fn a_kernel_that_needs_no_copy_plans_none() {
        let p = planned(quote! { fn k; y(i) = A(i,j) * x(j); formats<A: csr>; });
        assert!(p.copies.is_empty());
        assert_eq!(p.iterated_levels(1), &p.tensors[1].levels[..]);
    }

    #[test]
    fn a_copy_leaves_the_users_format_and_is_what_later_stages_iterate() {
        let p = planned(quote! {
            fn k; A(i,j) = B(i,j) * C(i,j); formats<A: csr, B: csr, C: csc>;
        });
        assert!(p.copies.get(1).is_none());
        let copy = p.copies.get(2).expect("C is copied");
        assert_eq!(copy.rules, [Rule::Concordant]);
        let coords: Vec<Coord> = copy.levels.iter().map(|l| l.coord).collect();
        assert_eq!(coords, [Coord::Dim(0), Coord::Dim(1)]);
        // The user's CSC stays as written, columns first; the access walks the copy's rows first.
        assert_eq!(p.tensors[2].levels[0].coord, Coord::Dim(1));
        assert!(matches!(
            p.tensors[2].format,
            FormatType::Named {
                type_name: "Csc",
                ..
            }
        ));
        assert_eq!(p.iterated_levels(2), &copy.levels[..]);
        assert_eq!(level_vars(&p.rhs, 2), Some(vec![0, 1]));
    }

    #[test]
    fn a_later_rule_refines_a_copy_and_each_rule_is_recorded() {
        let p = planned(quote! {
            fn k; A(j) = B(i,k) * C(i,j) + 2; formats<B: dia, C: hash>;
        });
        assert_eq!(
            p.copies.get(1).map(|c| &c.rules[..]),
            Some(&[Rule::Range][..])
        );
        let copy = p.copies.get(2).expect("C is copied");
        assert_eq!(copy.rules, [Rule::Nested, Rule::Sorted]);
        assert!((copy.levels.iter()).all(|l| l.ordered && l.kind != LevelKind::Hashed));
        assert_eq!(p.tensors[2].levels[1].kind, LevelKind::Hashed);
    }

    /// The reads in one order move to a tensor of their own, a copy of the input local to the
    /// kernel; the other reads keep the input as stored.
    #[test]
    fn a_tensor_read_in_two_orders_gives_one_order_its_own_copy() {
        let p = planned(quote! {
            fn k; C(i,j) = A(i,j) + A(j,i); formats<A: csr, C: csr>;
        });
        assert!(p.copies.get(1).is_none());
        assert_eq!(p.tensors.len(), 3);
        assert_eq!(
            (p.tensors[2].name.as_str(), p.tensors[2].copy_of),
            ("A_j_i", Some(1))
        );
        assert_eq!(p.signature, [0, 1]);
        let copy = p.copies.get(2).expect("the local tensor is a copy");
        assert_eq!(copy.rules, [Rule::Reread, Rule::Concordant]);
        let coords: Vec<Coord> = copy.levels.iter().map(|l| l.coord).collect();
        assert_eq!(coords, [Coord::Dim(1), Coord::Dim(0)]);
        assert_eq!(level_vars(&p.rhs, 1), Some(vec![0, 1]));
        assert_eq!(level_vars(&p.rhs, 2), Some(vec![0, 1]));
    }

    /// Of the orders that could move, the one that leaves the fewest copies does: `A(i,j)`, since
    /// the loops follow `A(j,i)` and `D(j,i)`.
    #[test]
    fn the_read_that_moves_is_the_one_needing_fewest_copies() {
        let p = planned(quote! {
            fn k; C(i,j) = A(i,j) * A(j,i) * D(j,i); formats<A: csr, D: csr>;
        });
        assert_eq!(p.copies.iter().count(), 1);
        let (t, copy) = p.copies.iter().next().expect("one copy");
        assert_eq!(p.tensors[t].copy_of, Some(1));
        assert_eq!(p.tensors[t].name, "A_i_j");
        assert_eq!(copy.rules, [Rule::Reread, Rule::Concordant]);
    }

    /// No split without a conflict, and an error where one split is not enough.
    #[test]
    fn reads_split_only_where_that_resolves_a_conflict() {
        let p = planned(quote! { fn k; C(i,j) = A(i,j) * A(i,j); formats<A: csr>; });
        assert!(p.copies.is_empty() && p.tensors.len() == 2);
        let p = planned(quote! { fn k; C(i,j) = A(i,j) + A(j,i); });
        assert!(p.copies.is_empty() && p.tensors.len() == 2);
        let mut three = program(quote! {
            fn k; B(i,j,k) = A(i,j,k) + A(j,k,i) + A(k,i,j); formats<A: csf, B: csf>;
        });
        let errors = plan_copies(&mut three).expect_err("three orders");
        assert!(matches!(
            &errors[0].kind,
            ErrorKind::NoConcordantOrder { .. }
        ));
    }

    /// AᵀA and A Aᵀ into CSR: one read of A moves to a local copy, transposed for the row-wise
    /// product; in triangle counting's masked product, the column reads move. Where the loops already run a sum between the output's loops (SpGEMM), where a
    /// sparse level drives the output's inner loop, or where the output is dense, nothing moves.
    #[test]
    fn products_into_a_sparse_matrix_are_planned_row_wise() {
        for kernel in [
            quote! { fn k; G(i,j) = A(k,i) * A(k,j); formats<A: csr, G: csr>; },
            quote! { fn k; G(i,j) = A(i,k) * A(j,k); formats<A: csr, G: csr>; },
        ] {
            let p = planned(kernel);
            assert_eq!(p.tensors.len(), 3);
            let copy = p.copies.get(2).expect("the local copy");
            assert_eq!(copy.rules, [Rule::Reread, Rule::RowWise]);
            let coords: Vec<Coord> = copy.levels.iter().map(|l| l.coord).collect();
            assert_eq!(coords, [Coord::Dim(1), Coord::Dim(0)]);
        }
        let masked = planned(quote! {
            fn k; C(i,j) = A(i,j) * A(i,k) * A(k,j); formats<A: csr, C: csr>;
        });
        let copy = masked.copies.get(2).expect("the column reads' copy");
        assert_eq!(
            (masked.tensors[2].name.as_str(), &copy.rules[..]),
            ("A_k_j", &[Rule::Reread, Rule::RowWise][..])
        );
        let csc = planned(quote! {
            fn k; A(i,j) = B(i,k) * C(k,j); formats<A: csr, B: csc, C: csr>;
        });
        assert_eq!(
            csc.copies.get(1).map(|c| &c.rules[..]),
            Some(&[Rule::RowWise][..])
        );
        for unchanged in [
            quote! { fn k; A(i,j) = B(i,k) * C(k,j); formats<A: csr, B: csr, C: csr>; },
            quote! { fn k; G(i,j) = A(i,k) * B(j,k); formats<A: csr, B: dcsr, G: csr>; },
            quote! { fn k; G(i,j) = A(k,i) * A(k,j); formats<A: csr>; },
        ] {
            assert!(planned(unchanged).copies.is_empty());
        }
    }

    #[test]
    fn rules_that_undo_each_other_stop_with_an_internal_error() {
        let mut p = program(quote! { fn k; y(i) = A(i,j) * x(j); formats<A: csr>; });
        let rows = p.tensors[1].levels.clone();
        let columns: Vec<LevelSpec> = rows.iter().rev().copied().collect();
        let flip = |rule: Rule, p: &Program| {
            let next = match p.iterated_levels(1) == &rows[..] {
                true => columns.clone(),
                false => rows.clone(),
            };
            Ok(match rule {
                Rule::Sorted => vec![Change::Copy((1, next))],
                _ => Vec::new(),
            })
        };
        let errors = fixpoint(&mut p, &flip).expect_err("no fixpoint");
        assert!(matches!(&errors[0].kind, ErrorKind::Internal(_)));
    }
}
