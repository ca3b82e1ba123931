//! `multi(S1, S2, ..)` written directly: a kernel computing several outputs (Kjolstad, "Sparse
//! Tensor Algebra Compilation": the two statements of a `multi` have separate results and are
//! lowered one after the other). The statement is split into one statement per output, each a
//! kernel of its own that the whole pipeline compiles; the generated function takes every output
//! first, in the order the statements first assign them, then the inputs, and runs the parts in
//! that order.
//!
//! The split distributes what encloses a `multi` over its statements: `forall(i, multi(S1, S2))`
//! becomes `multi(forall(i, S1), forall(i, S2))`, `where(multi(S1, S2), P)` gives `P` to each
//! statement that reads its temporary, and `sequence` keeps each output's statements in order.
//! This is exact because no statement of a `multi` reads another's output (refused here): each
//! loop nest computes its output from inputs alone. The loops are fissioned, not fused: each
//! output's nest runs on its own.

use std::collections::BTreeSet;

use proc_macro2::Span;

use super::written::accesses_of;
use crate::error::{CinMistake, Error, ErrorKind, Errors};
use crate::syntax::ast::{self, CinStmt, Kernel, ParamList};
use crate::syntax::cin::{assignments_of, summary};

/// A kernel of several outputs, split into one kernel per output.
pub struct MultiKernel {
    /// The kernels, one per output, in the order of `outputs`.
    pub parts: Vec<Kernel>,
    /// Every parameter of the function, in order: the outputs, then the inputs.
    pub params: Vec<String>,
    /// The first `multi` keyword, for errors about the whole kernel.
    pub span: Span,
}

/// One output's statement, with where its output is first assigned.
struct Part {
    output: String,
    at: Span,
    stmt: CinStmt,
}

/// The kernel split per output, if its written statement has a `multi` outside every `where`
/// producer (one inside a producer is refused with the rest of the statement).
pub fn split_multi(kernel: &Kernel) -> Result<Option<MultiKernel>, Errors> {
    let Some(cin) = &kernel.cin else {
        return Ok(None);
    };
    let Some(span) = multi_span(cin) else {
        return Ok(None);
    };
    let temps: Vec<String> = kernel
        .temporaries
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    let mut errors = Errors::new();
    let parts = split(cin, &temps, &mut errors);
    let outputs: Vec<String> = parts.iter().map(|p| p.output.clone()).collect();
    for part in &parts {
        check_reads(part, &outputs, &mut errors);
    }
    let inputs = inputs_of(cin, &temps, &outputs);
    let params = match &kernel.params {
        Some(list) => check_list(list, &outputs, &inputs, &mut errors),
        None => outputs.iter().chain(&inputs).cloned().collect(),
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    let parts = (parts.iter().enumerate())
        .map(|(k, part)| part_kernel(kernel, part, k, &params, &temps))
        .collect();
    Ok(Some(MultiKernel {
        parts,
        params,
        span,
    }))
}

/// The span of the first `multi` outside every `where` producer.
fn multi_span(cin: &CinStmt) -> Option<Span> {
    match cin {
        CinStmt::Multi { span, .. } => Some(*span),
        CinStmt::Forall { body, .. } => multi_span(body),
        CinStmt::Where { consumer, .. } => multi_span(consumer),
        CinStmt::Sequence { first, second, .. } => multi_span(first).or_else(|| multi_span(second)),
        CinStmt::Assign(_) => None,
    }
}

/// The statement of each output, in order of first assignment.
fn split(cin: &CinStmt, temps: &[String], errors: &mut Errors) -> Vec<Part> {
    match cin {
        CinStmt::Assign(a) => vec![Part {
            output: a.lhs.tensor.to_string(),
            at: a.lhs.tensor.span(),
            stmt: cin.clone(),
        }],
        CinStmt::Forall { var, body } => (split(body, temps, errors).into_iter())
            .map(|p| Part {
                stmt: CinStmt::Forall {
                    var: var.clone(),
                    body: Box::new(p.stmt),
                },
                ..p
            })
            .collect(),
        CinStmt::Multi { first, second, .. } => {
            let mut parts = split(first, temps, errors);
            for part in split(second, temps, errors) {
                if parts.iter().any(|p| p.output == part.output) {
                    let mistake = CinMistake::MultiSameOutput(part.output.clone());
                    errors.push(Error::new(part.at, ErrorKind::Cin(mistake)));
                } else {
                    parts.push(part);
                }
            }
            parts
        }
        CinStmt::Sequence {
            first,
            second,
            span,
        } => {
            let mut rest = split(second, temps, errors);
            let mut parts: Vec<Part> = (split(first, temps, errors).into_iter())
                .map(|p| match rest.iter().position(|q| q.output == p.output) {
                    Some(k) => Part {
                        stmt: CinStmt::Sequence {
                            first: Box::new(p.stmt),
                            second: Box::new(rest.remove(k).stmt),
                            span: *span,
                        },
                        ..p
                    },
                    None => p,
                })
                .collect();
            parts.extend(rest);
            parts
        }
        CinStmt::Where {
            consumer,
            producer,
            span,
        } => {
            let produced = written_temps(producer, temps);
            let parts = split(consumer, temps, errors);
            // The statements that read the temporary get the producer; when none does, the
            // first keeps it, to report the temporary unread.
            let mut readers: Vec<bool> = (parts.iter())
                .map(|p| reads_any(&p.stmt, &produced))
                .collect();
            if let (false, Some(first)) = (readers.contains(&true), readers.first_mut()) {
                *first = true;
            }
            (parts.into_iter().zip(readers))
                .map(|(p, reads)| {
                    if !reads {
                        return p;
                    }
                    Part {
                        stmt: CinStmt::Where {
                            consumer: Box::new(p.stmt),
                            producer: producer.clone(),
                            span: *span,
                        },
                        ..p
                    }
                })
                .collect()
        }
    }
}

/// The temporaries `producer` assigns.
fn written_temps(producer: &CinStmt, temps: &[String]) -> BTreeSet<String> {
    let mut assignments = Vec::new();
    assignments_of(producer, &mut assignments);
    (assignments.iter())
        .map(|a| a.lhs.tensor.to_string())
        .filter(|t| temps.contains(t))
        .collect()
}

/// Whether some right-hand side in `cin` reads one of `names`.
fn reads_any(cin: &CinStmt, names: &BTreeSet<String>) -> bool {
    reads_of(cin)
        .iter()
        .any(|a| names.contains(&a.tensor.to_string()))
}

/// Every access on a right-hand side of `cin`, in written order.
fn reads_of(cin: &CinStmt) -> Vec<&ast::Access> {
    let mut assignments = Vec::new();
    assignments_of(cin, &mut assignments);
    let mut reads = Vec::new();
    for a in assignments {
        accesses_of(&a.rhs, &mut reads);
    }
    reads
}

/// A statement reads no other statement's output (its own is refused with the statement).
fn check_reads(part: &Part, outputs: &[String], errors: &mut Errors) {
    for read in reads_of(&part.stmt) {
        let name = read.tensor.to_string();
        if name != part.output && outputs.contains(&name) {
            let mistake = CinMistake::MultiReadsOutput {
                read: name,
                reader: part.output.clone(),
            };
            errors.push(Error::new(read.span, ErrorKind::Cin(mistake)));
        }
    }
}

/// The inputs of the whole statement, in order of first appearance.
fn inputs_of(cin: &CinStmt, temps: &[String], outputs: &[String]) -> Vec<String> {
    let mut inputs: Vec<String> = Vec::new();
    for read in reads_of(cin) {
        let name = read.tensor.to_string();
        if !temps.contains(&name) && !outputs.contains(&name) && !inputs.contains(&name) {
            inputs.push(name);
        }
    }
    inputs
}

/// The explicit parameter list, checked: every tensor exactly once, the outputs first and in
/// the order the statements assign them.
fn check_list(
    list: &ParamList,
    outputs: &[String],
    inputs: &[String],
    errors: &mut Errors,
) -> Vec<String> {
    let mut order: Vec<String> = Vec::new();
    for name in &list.names {
        let text = name.to_string();
        if !outputs.contains(&text) && !inputs.contains(&text) {
            errors.push(Error::new(name.span(), ErrorKind::UnknownParam(text)));
        } else if order.contains(&text) {
            errors.push(Error::new(name.span(), ErrorKind::DuplicateParam(text)));
        } else {
            order.push(text);
        }
    }
    for tensor in outputs.iter().chain(inputs) {
        if !order.contains(tensor) {
            let kind = ErrorKind::MissingParam(tensor.clone());
            errors.push(Error::new(list.span, kind));
        }
    }
    for (k, output) in outputs.iter().enumerate() {
        let Some(name) = list.names.get(k) else {
            break;
        };
        if *name != *output {
            let kind = ErrorKind::OutputsNotFirst {
                outputs: outputs.join(", "),
                first: name.to_string(),
            };
            errors.push(Error::new(name.span(), kind));
            break;
        }
    }
    order
}

/// The kernel computing one output: its statement, its parameters in the function's order,
/// and the clauses that name its tensors, variables and temporaries (a name no part uses stays
/// with the first, which reports it).
fn part_kernel(
    kernel: &Kernel,
    part: &Part,
    k: usize,
    params: &[String],
    temps: &[String],
) -> Kernel {
    let mut names = BTreeSet::new();
    let mut assignments = Vec::new();
    assignments_of(&part.stmt, &mut assignments);
    for a in &assignments {
        names.insert(a.lhs.tensor.to_string());
        names.extend(a.lhs.indices.iter().map(ToString::to_string));
    }
    let reads = reads_of(&part.stmt);
    for read in &reads {
        names.insert(read.tensor.to_string());
        names.extend(read.indices.iter().map(ToString::to_string));
    }
    let whole = kernel.cin.as_ref().map(all_names).unwrap_or_default();
    let keep = |name: &syn::Ident| {
        let name = name.to_string();
        names.contains(&name) || (k == 0 && !whole.contains(&name))
    };
    let ident = |name: &String| {
        let read = reads.iter().map(|a| &a.tensor).find(|t| *t == name);
        let written = assignments
            .iter()
            .map(|a| &a.lhs.tensor)
            .find(|t| *t == name);
        written.or(read).cloned()
    };
    let list_span = kernel
        .params
        .as_ref()
        .map_or(kernel.name.span(), |l| l.span);
    let own = params
        .iter()
        .filter(|p| names.contains(*p) && !temps.contains(p));
    let mut part_kernel = kernel.clone();
    part_kernel.name = syn::Ident::new(&format!("__sparse_part_{k}"), kernel.name.span());
    part_kernel.params = Some(ParamList {
        names: own.filter_map(ident).collect(),
        span: list_span,
    });
    part_kernel.formats.retain(|f| keep(&f.tensor));
    part_kernel.scalars.retain(|s| keep(s));
    part_kernel.fills.retain(|f| keep(&f.tensor));
    part_kernel.reduce.retain(|r| keep(&r.var));
    part_kernel.temporaries.retain(|t| keep(&t.name));
    part_kernel.assignment = summary(&part.stmt, &part_kernel.temporaries);
    part_kernel.cin = Some(part.stmt.clone());
    part_kernel
}

/// Every tensor, temporary and index variable named in `cin`.
fn all_names(cin: &CinStmt) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut assignments = Vec::new();
    assignments_of(cin, &mut assignments);
    for a in &assignments {
        let mut accesses = vec![&a.lhs];
        accesses_of(&a.rhs, &mut accesses);
        for access in accesses {
            names.insert(access.tensor.to_string());
            names.extend(access.indices.iter().map(ToString::to_string));
        }
    }
    names
}
