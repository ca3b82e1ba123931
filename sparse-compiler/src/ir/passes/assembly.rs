//! A row-parallel assembly as explicit phases (Chou et al. 2018's count / scan / fill form of
//! parallel output assembly): the loop that appends whole rows runs once counting each row's
//! entries, the host lays out `pos` by prefix sums of the counts, and the loop runs again writing
//! each iteration's coordinates and values into its own part of the arrays.

use crate::ir::{HostStep, Kernel, OutputAccess, Region, Stmt};

/// `kernel` with every `AppendRows` region replaced by its three phases.
pub(super) fn split_phases(mut kernel: Kernel) -> Kernel {
    kernel.body = stmts(kernel.body);
    kernel
}

fn stmts(list: Vec<Stmt>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(list.len());
    for stmt in list {
        match stmt {
            Stmt::Parallel(region) if let OutputAccess::AppendRows { level } = region.output => {
                out.extend(phases(region, level));
            }
            mut other => {
                for body in other.bodies_mut() {
                    *body = stmts(std::mem::take(body));
                }
                out.push(other);
            }
        }
    }
    out
}

/// Count, lay out, fill.
fn phases(region: Region, level: usize) -> [Stmt; 3] {
    [
        Stmt::Parallel(Region {
            body: count(&region.body),
            output: OutputAccess::CountRows { level },
            ..region.clone()
        }),
        Stmt::Host(HostStep::LayoutRows { level }),
        Stmt::Parallel(Region {
            body: fill(&region.body),
            output: OutputAccess::FillRows { level },
            ..region
        }),
    ]
}

/// The count phase: each append to the row is one entry, each finished segment closes a row, and
/// values are not computed.
fn count(body: &[Stmt]) -> Vec<Stmt> {
    rewrite(body, &|stmt| match stmt {
        Stmt::Append { .. } => Some(vec![Stmt::CountEntry]),
        Stmt::AppendValue(_) => Some(Vec::new()),
        Stmt::FinishSegment { parent, .. } => Some(vec![Stmt::CloseRow {
            parent: parent.clone(),
        }]),
        _ => None,
    })
}

/// The fill phase: appends write into the iteration's part; the rows are already laid out.
fn fill(body: &[Stmt]) -> Vec<Stmt> {
    rewrite(body, &|stmt| match stmt {
        Stmt::Append { coord, .. } => Some(vec![Stmt::FillCoord(coord.clone())]),
        Stmt::AppendValue(value) => Some(vec![Stmt::FillValue(value.clone())]),
        Stmt::FinishSegment { .. } => Some(Vec::new()),
        _ => None,
    })
}

/// `body` with each statement that `replace` maps replaced, at any depth.
fn rewrite(body: &[Stmt], replace: &impl Fn(&Stmt) -> Option<Vec<Stmt>>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(body.len());
    for stmt in body {
        if let Some(replacement) = replace(stmt) {
            out.extend(replacement);
            continue;
        }
        let mut stmt = stmt.clone();
        for nested in stmt.bodies_mut() {
            *nested = rewrite(nested, replace);
        }
        out.push(stmt);
    }
    out
}
