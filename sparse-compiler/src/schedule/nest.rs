//! Walks over concrete index notation that several commands share: finding a perfect loop nest,
//! rewriting the loop over one variable, and listing the accesses of the right-hand side with
//! the variables of their levels.

use crate::notation::{Cin, Expr, IndexVar};

/// The loops of the perfect nest at the top of `cin`, outermost first, and what they enclose.
pub(super) fn split_nest(cin: &Cin) -> (Vec<IndexVar>, &Cin) {
    let mut nest = Vec::new();
    let mut node = cin;
    while let Cin::Forall { var, body } = node {
        nest.push(*var);
        node = body;
    }
    (nest, node)
}

/// What lies inside the loops of `nest` when `cin` begins with exactly those loops, in that order.
/// Other producers may loop over some of the same variables (`j` and `i` around one operand,
/// `j`, an ELL operand's slots and `i` around another); only the nest found is rewritten.
pub(super) fn below_nest<'c>(cin: &'c Cin, nest: &[IndexVar]) -> Option<&'c Cin> {
    nest.iter().try_fold(cin, |node, &v| match node {
        Cin::Forall { var, body } if *var == v => Some(&**body),
        _ => None,
    })
}

/// `cin` with the loop over `v` replaced by nested loops over `with`, outermost first.
pub(super) fn replace_forall(cin: &Cin, v: IndexVar, with: &[IndexVar]) -> Cin {
    match cin {
        Cin::Forall { var, body } if *var == v => Cin::forall_over(with, (**body).clone()),
        Cin::Forall { var, body } => Cin::Forall {
            var: *var,
            body: Box::new(replace_forall(body, v, with)),
        },
        Cin::Where { .. } | Cin::Sequence { .. } => match cin.parts() {
            Some((a, b)) => cin.with_parts(replace_forall(a, v, with), replace_forall(b, v, with)),
            None => cin.clone(),
        },
        Cin::Assign { .. } => cin.clone(),
    }
}

/// The loops nested inside the loop over `v`.
pub(crate) fn loops_below(cin: &Cin, v: IndexVar) -> Vec<IndexVar> {
    match cin {
        Cin::Forall { var, body } if *var == v => body.loops(),
        Cin::Forall { body, .. } => loops_below(body, v),
        Cin::Where { .. } | Cin::Sequence { .. } => (cin.parts().into_iter())
            .flat_map(|(a, b)| [loops_below(a, v), loops_below(b, v)])
            .flatten()
            .collect(),
        Cin::Assign { .. } => Vec::new(),
    }
}

/// Every access of tensor `t` (all accesses for `usize::MAX`): its number and level variables.
pub(super) fn accesses_of(e: &Expr, t: usize) -> Vec<(usize, Vec<IndexVar>)> {
    match e {
        Expr::Access { id, access } if t == usize::MAX || access.tensor == t => {
            vec![(*id, access.level_vars.clone())]
        }
        Expr::Access { .. } | Expr::Temp(_) | Expr::Literal(_) => Vec::new(),
        Expr::Op(_, args) => args.iter().flat_map(|a| accesses_of(a, t)).collect(),
    }
}

/// The level variables of access number `access` (none if there is no such access).
pub(super) fn access_level_vars(e: &Expr, access: usize) -> Vec<IndexVar> {
    accesses_of(e, usize::MAX)
        .into_iter()
        .find(|(id, _)| *id == access)
        .map(|(_, v)| v)
        .unwrap_or_default()
}

/// The tensor that access number `id` reads (the output, 0, if there is no such access).
pub(super) fn access_tensor(e: &Expr, id: usize) -> usize {
    e.find_access(id).map_or(0, |a| a.tensor)
}
