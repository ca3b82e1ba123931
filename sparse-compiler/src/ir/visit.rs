//! Walks over IR expressions and statements that passes, the verifier and back ends share.

use std::collections::BTreeSet;

use super::{Expr, Kernel, Place, Region, Stmt, Var};

/// `a op b`.
pub fn bin(op: super::BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

/// The expressions directly inside `expr`.
pub fn operands(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::Load(_, a) | Expr::Neg(a) | Expr::Not(a) | Expr::Cast(_, a) => vec![a],
        Expr::Gather { at, .. } => vec![at],
        Expr::GatherDot { range, .. } => vec![&range.0, &range.1],
        Expr::DenseDot { at, len, .. } => vec![&at.0, &at.1, len],
        Expr::CountUpTo { target, .. } => vec![target],
        Expr::BinarySearchAfter { lo, hi, target, .. } => vec![lo, hi, target],
        Expr::Binary(_, a, b) => vec![a, b],
        Expr::Select(a, b, c) => vec![a, b, c],
        Expr::Call(_, args) => args.iter().collect(),
        Expr::Var(_)
        | Expr::Signed(_)
        | Expr::Index(_)
        | Expr::Value(_)
        | Expr::Bool(_)
        | Expr::Dim { .. }
        | Expr::LevelSize { .. }
        | Expr::Len(_)
        | Expr::AppendedLen { .. }
        | Expr::ParallelMinWork
        | Expr::UnsplitBelow
        | Expr::Hinted(_) => Vec::new(),
    }
}

/// `expr` with every direct operand replaced by `f` of it.
pub fn map_operands(expr: &Expr, f: &mut impl FnMut(&Expr) -> Expr) -> Expr {
    let mut g = |e: &Expr| Box::new(f(e));
    match expr {
        Expr::Load(array, index) => Expr::Load(array.clone(), g(index)),
        Expr::Gather { vals, crd, at } => Expr::Gather {
            vals: vals.clone(),
            crd: crd.clone(),
            at: g(at),
        },
        Expr::GatherDot {
            vals,
            crd,
            weights,
            range,
        } => Expr::GatherDot {
            vals: vals.clone(),
            crd: crd.clone(),
            weights: weights.clone(),
            range: Box::new((f(&range.0), f(&range.1))),
        },
        Expr::DenseDot { a, b, at, len } => Expr::DenseDot {
            a: a.clone(),
            b: b.clone(),
            at: Box::new((f(&at.0), f(&at.1))),
            len: Box::new(f(len)),
        },
        Expr::Neg(a) => Expr::Neg(g(a)),
        Expr::Not(a) => Expr::Not(g(a)),
        Expr::Binary(op, a, b) => Expr::Binary(*op, g(a), g(b)),
        Expr::Cast(ty, a) => Expr::Cast(*ty, g(a)),
        Expr::Select(a, b, c) => Expr::Select(g(a), g(b), g(c)),
        Expr::Call(f, args) => Expr::Call(*f, args.iter().map(|a| *g(a)).collect()),
        Expr::CountUpTo { array, target } => Expr::CountUpTo {
            array: array.clone(),
            target: g(target),
        },
        Expr::BinarySearchAfter {
            array,
            lo,
            hi,
            target,
        } => Expr::BinarySearchAfter {
            array: array.clone(),
            lo: g(lo),
            hi: g(hi),
            target: g(target),
        },
        leaf => leaf.clone(),
    }
}

/// Whether `expr` reads `var`.
pub fn mentions(var: &Var, expr: &Expr) -> bool {
    match expr {
        Expr::Var(v) => v == var,
        _ => operands(expr).into_iter().any(|e| mentions(var, e)),
    }
}

/// `expr` with `var` replaced by `value`.
pub fn substitute(expr: &Expr, var: &Var, value: &Expr) -> Expr {
    match expr {
        Expr::Var(v) if v == var => value.clone(),
        _ => map_operands(expr, &mut |e| substitute(e, var, value)),
    }
}

/// `base` where `init` is `base + var` or `var + base`: a position `var` steps through from
/// `base` (a row of a dense level).
pub fn offset_of<'e>(init: &'e Expr, var: &Var) -> Option<&'e Expr> {
    let Expr::Binary(super::BinOp::Add, a, b) = init else {
        return None;
    };
    match (&**a, &**b) {
        (base, Expr::Var(v)) | (Expr::Var(v), base) if v == var => Some(base),
        _ => None,
    }
}

/// The expressions a statement reads directly (not those of statements nested in it).
pub fn stmt_exprs(stmt: &Stmt) -> Vec<&Expr> {
    match stmt {
        Stmt::Let { init, .. } => vec![init],
        Stmt::Update { place, value, .. } => match place {
            Place::Var(_) => vec![value],
            Place::Elem(_, index) => vec![index, value],
        },
        Stmt::Workspace { len, init, .. } => vec![len, init],
        Stmt::SortPrefix { len, .. } => vec![len],
        Stmt::For { lo, hi, .. } => vec![lo, hi],
        Stmt::RowDots { rows, .. } => vec![&rows.0, &rows.1],
        Stmt::RowAxpys {
            at, out_at, rows, ..
        } => vec![&at.0, &at.1, &out_at.0, &out_at.1, &rows.0, &rows.1],
        Stmt::GatherAxpy {
            stride,
            offset,
            range,
            ..
        } => vec![stride, offset, &range.0, &range.1],
        Stmt::Parallel(Region {
            lo,
            hi,
            output,
            work,
            ..
        }) => {
            let mut exprs = vec![lo, hi];
            if let super::OutputAccess::Blocks { chunk, .. } = output {
                exprs.push(chunk);
            }
            exprs.extend(work);
            exprs
        }
        Stmt::While { cond, .. } | Stmt::If { cond, .. } => vec![cond],
        Stmt::Host(super::HostStep::CheckBound { extent, .. }) => vec![extent],
        Stmt::Host(_) | Stmt::Tile { .. } | Stmt::CountEntry | Stmt::FailStructureMismatch => {
            Vec::new()
        }
        Stmt::Append { coord, .. } => vec![coord],
        Stmt::AppendValue(value) => vec![value],
        Stmt::FinishSegment { parent, .. } | Stmt::CloseRow { parent } => vec![parent],
        Stmt::FillCoord(e) | Stmt::FillValue(e) => vec![e],
        Stmt::AppendEntry { coords, value } => coords.iter().chain([value]).collect(),
        Stmt::Prefetch { from, .. } => vec![from],
        Stmt::PrefetchGather {
            at, offset, stride, ..
        } => vec![at, offset, stride],
    }
}

/// The expressions a statement reads directly, to change.
pub fn stmt_exprs_mut(stmt: &mut Stmt) -> Vec<&mut Expr> {
    match stmt {
        Stmt::Let { init, .. } => vec![init],
        Stmt::Update { place, value, .. } => match place {
            Place::Var(_) => vec![value],
            Place::Elem(_, index) => vec![index, value],
        },
        Stmt::Workspace { len, init, .. } => vec![len, init],
        Stmt::SortPrefix { len, .. } => vec![len],
        Stmt::For { lo, hi, .. } => vec![lo, hi],
        Stmt::RowDots { rows, .. } => {
            let (lo, hi) = &mut **rows;
            vec![lo, hi]
        }
        Stmt::RowAxpys {
            at, out_at, rows, ..
        } => {
            let ((stride, offset), (out_stride, out_offset)) = (&mut **at, &mut **out_at);
            let (lo, hi) = &mut **rows;
            vec![stride, offset, out_stride, out_offset, lo, hi]
        }
        Stmt::GatherAxpy {
            stride,
            offset,
            range,
            ..
        } => {
            let (lo, hi) = &mut **range;
            vec![stride, offset, lo, hi]
        }
        Stmt::Parallel(Region {
            lo,
            hi,
            output,
            work,
            ..
        }) => {
            let mut exprs = vec![lo, hi];
            if let super::OutputAccess::Blocks { chunk, .. } = output {
                exprs.push(chunk);
            }
            exprs.extend(work);
            exprs
        }
        Stmt::While { cond, .. } | Stmt::If { cond, .. } => vec![cond],
        Stmt::Host(super::HostStep::CheckBound { extent, .. }) => vec![extent],
        Stmt::Host(_) | Stmt::Tile { .. } | Stmt::CountEntry | Stmt::FailStructureMismatch => {
            Vec::new()
        }
        Stmt::Append { coord, .. } => vec![coord],
        Stmt::AppendValue(value) => vec![value],
        Stmt::FinishSegment { parent, .. } | Stmt::CloseRow { parent } => vec![parent],
        Stmt::FillCoord(e) | Stmt::FillValue(e) => vec![e],
        Stmt::AppendEntry { coords, value } => coords.iter_mut().chain([value]).collect(),
        Stmt::Prefetch { from, .. } => vec![from],
        Stmt::PrefetchGather {
            at, offset, stride, ..
        } => vec![at, offset, stride],
    }
}

/// The variable a statement declares for what follows it or for its body.
pub fn declared(stmt: &Stmt) -> Option<&Var> {
    match stmt {
        Stmt::Let { var, .. }
        | Stmt::Workspace { var, .. }
        | Stmt::For { var, .. }
        | Stmt::Tile { var, .. }
        | Stmt::Parallel(Region { var, .. }) => Some(var),
        _ => None,
    }
}

/// Every name the kernel's statements declare.
pub fn declared_names(kernel: &Kernel) -> BTreeSet<String> {
    fn walk(stmts: &[Stmt], names: &mut BTreeSet<String>) {
        for stmt in stmts {
            if let Some(var) = declared(stmt) {
                names.insert(var.0.clone());
            }
            for body in stmt.bodies() {
                walk(body, names);
            }
        }
    }
    let mut names = BTreeSet::new();
    walk(&kernel.body, &mut names);
    names
}

/// Whether `holds` is true of a statement of `stmts` or of one nested in them, at any depth.
pub fn any_stmt(stmts: &[Stmt], holds: &impl Fn(&Stmt) -> bool) -> bool {
    (stmts.iter()).any(|s| holds(s) || s.bodies().into_iter().any(|b| any_stmt(b, holds)))
}

/// The inputs (parameters other than the output) whose values `stmts` read, at any depth.
pub fn inputs_read(body: &[Stmt]) -> BTreeSet<usize> {
    fn expr(e: &Expr, out: &mut BTreeSet<usize>) {
        let read = match e {
            Expr::Load(array, _) | Expr::Gather { vals: array, .. } => vec![array],
            Expr::GatherDot { vals, weights, .. } => vec![vals, weights],
            Expr::DenseDot { a, b, .. } => vec![a, b],
            _ => Vec::new(),
        };
        read.into_iter().for_each(|a| array(a, out));
        operands(e).into_iter().for_each(|e| expr(e, out));
    }
    fn array(array: &super::Array, out: &mut BTreeSet<usize>) {
        if let super::Array::Vals { param } = array
            && *param != 0
        {
            out.insert(*param);
        }
    }
    fn stmts(body: &[Stmt], out: &mut BTreeSet<usize>) {
        for stmt in body {
            if let Stmt::RowDots { vals, weights, .. }
            | Stmt::GatherAxpy { vals, weights, .. }
            | Stmt::RowAxpys { vals, weights, .. } = stmt
            {
                [vals, weights].into_iter().for_each(|a| array(a, out));
            }
            stmt_exprs(stmt).into_iter().for_each(|e| expr(e, out));
            stmt.bodies().into_iter().for_each(|b| stmts(b, out));
        }
    }
    let mut out = BTreeSet::new();
    stmts(body, &mut out);
    out
}
