//! Concrete index notation written by the user (`forall`, `where`, `sequence`), turned into
//! [`Cin`] directly: the loops are kept in the order written, and the statement's meaning is the
//! user's. What the statement must satisfy is checked here, spanned on the offending name: every
//! index bound by an enclosing `forall` (once), every temporary declared, produced before it is
//! read and read after it is produced, `=` never inside a loop its place does not vary with, and
//! every sparse level iterated below the levels above it.
//!
//! The program's right-hand side is what the output's assignments compute, temporaries replaced
//! by what their producers compute: the lowerer finds every access there, and the output's
//! structure follows from it as for index notation.

use std::collections::BTreeMap;

use super::params::tensors_of;
use super::{Access, Builder, Copies, Expr, IndexVar, Program, reduction};
use crate::algebra::Op;
use crate::error::{CinMistake, Error, ErrorKind, Errors};
use crate::format::{TensorFormat, level_of};
use crate::notation::{Cin, Lhs};
use crate::syntax::ast::{self, AssignOp, CinStmt, LiteralValue, TempDecl};
use crate::syntax::cin::span_of;

/// Builds the program and the concrete statement of a kernel written in concrete index notation.
pub fn build_written(
    kernel: &ast::Kernel,
    formats: &[(syn::Ident, TensorFormat)],
    written: &CinStmt,
) -> Result<(Program, Cin), Errors> {
    let (tensors, signature, mut errors) = tensors_of(kernel, formats);
    let mut builder = Builder::new(&tensors, &kernel.ops);
    let output = builder.access(&kernel.assignment.lhs);
    let mut walk = Walk {
        kernel,
        builder,
        output_name: kernel.assignment.lhs.tensor.to_string(),
        output_indices: output.indices.clone(),
        output_sparse: tensors[0].levels.iter().any(|l| !level_of(l).full()),
        loops: Vec::new(),
        producer_depth: None,
        available: Vec::new(),
        produced: BTreeMap::new(),
        workspace_var: BTreeMap::new(),
        first_op: None,
        computed: Vec::new(),
        errors: Vec::new(),
    };
    let cin = walk.stmt(written);
    let Walk {
        builder,
        first_op,
        computed,
        errors: walked,
        ..
    } = walk;
    errors.extend(builder.errors);
    errors.extend(walked);
    if output.level_vars.iter().any(|v| builder.hidden.contains(v)) {
        let what = "outputs in formats with slot or block levels (ELL, DIA, BCSR)";
        let span = kernel.assignment.lhs.span;
        errors.push(Error::new(span, ErrorKind::Unsupported(what.into())));
    }
    let reduction = reduction(kernel, &builder.vars, &output, &mut errors);
    let (Some(cin), true) = (cin, errors.is_empty()) else {
        if errors.is_empty() {
            let what = "a written statement refused without an error".to_string();
            errors.push(Error::new(kernel.name.span(), ErrorKind::Internal(what)));
        }
        return Err(errors);
    };
    let rhs = (computed.into_iter())
        .reduce(|a, b| Expr::Op(Op::Add, vec![a, b]))
        .unwrap_or(Expr::Literal(LiteralValue::Int(0)));
    let program = Program {
        tensors,
        signature,
        output_read: None,
        vars: builder.vars,
        output,
        op: first_op.unwrap_or(AssignOp::Assign),
        rhs,
        access_count: builder.accesses,
        derived: builder.derived,
        copies: Copies::default(),
        reduction,
        ops: kernel.ops.clone(),
    };
    program.check_sparse_output_fill(kernel)?;
    Ok((program, cin))
}

/// The walk over the written statement, outermost first.
struct Walk<'k> {
    kernel: &'k ast::Kernel,
    builder: Builder,
    output_name: String,
    output_indices: Vec<IndexVar>,
    output_sparse: bool,
    /// The enclosing foralls, outermost first.
    loops: Vec<(IndexVar, syn::Ident)>,
    /// The number of enclosing foralls outside the innermost `where` producer being walked.
    producer_depth: Option<usize>,
    /// The temporaries the statement being walked may read (their producers enclose it).
    available: Vec<usize>,
    /// What each produced temporary computes, in terms of the inputs.
    produced: BTreeMap<usize, Expr>,
    /// The index variable each dense temporary is written at.
    workspace_var: BTreeMap<usize, IndexVar>,
    /// The operator of the first assignment to the output.
    first_op: Option<AssignOp>,
    /// What each assignment to the output computes, in terms of the inputs.
    computed: Vec<Expr>,
    errors: Errors,
}

impl Walk<'_> {
    fn mistake(&mut self, span: proc_macro2::Span, mistake: CinMistake) {
        self.errors.push(Error::new(span, ErrorKind::Cin(mistake)));
    }

    fn unsupported(&mut self, span: proc_macro2::Span, what: &str) {
        let kind = ErrorKind::Unsupported(what.to_string());
        self.errors.push(Error::new(span, kind));
    }

    fn temp(&self, name: &syn::Ident) -> Option<(usize, &'_ TempDecl)> {
        (self.kernel.temporaries.iter().enumerate()).find(|(_, d)| d.name == *name)
    }

    fn stmt(&mut self, s: &CinStmt) -> Option<Cin> {
        match s {
            CinStmt::Forall { var, body } => self.forall(var, body),
            CinStmt::Where {
                consumer,
                producer,
                span,
            } => self.where_(consumer, producer, *span),
            CinStmt::Sequence {
                first,
                second,
                span,
            } => {
                if self.output_sparse {
                    let what = "`sequence(..)` into a sparse output (its entries are assembled \
                                in one pass); use a dense output";
                    self.unsupported(*span, what);
                }
                let first = self.stmt(first);
                let second = self.stmt(second)?;
                Some(Cin::Sequence {
                    first: Box::new(first?),
                    second: Box::new(second),
                })
            }
            CinStmt::Multi { span, .. } => {
                let what = "the stages of a kernel computing several outputs (`multi(..)`) \
                            one at a time: view each output's statements as a kernel of its own";
                self.unsupported(*span, what);
                None
            }
            CinStmt::Assign(a) => self.assign(a),
        }
    }

    fn forall(&mut self, var: &syn::Ident, body: &CinStmt) -> Option<Cin> {
        if self.loops.iter().any(|(_, w)| w == var) {
            self.mistake(var.span(), CinMistake::Rebound(var.to_string()));
            return None;
        }
        if !indexes(body, var, &self.kernel.temporaries) {
            self.mistake(var.span(), CinMistake::NoExtent(var.to_string()));
        }
        let v = self.builder.var(var);
        self.loops.push((v, var.clone()));
        let body = self.stmt(body);
        self.loops.pop();
        Some(Cin::Forall {
            var: v,
            body: Box::new(body?),
        })
    }

    fn where_(
        &mut self,
        consumer: &CinStmt,
        producer: &CinStmt,
        span: proc_macro2::Span,
    ) -> Option<Cin> {
        if has_sequence(producer) {
            self.unsupported(
                span,
                "`sequence(..)` or `multi(..)` inside a `where` producer",
            );
            return None;
        }
        let saved = self.producer_depth.replace(self.loops.len());
        let produced = self.stmt(producer);
        self.producer_depth = saved;
        let produced = produced?;
        let Some(t) = produced_temp(&produced) else {
            self.mistake(produced_span(producer), CinMistake::ProducerWritesOutput);
            return None;
        };
        if let Some(&var) = self.workspace_var.get(&t) {
            self.check_workspace_consumer(consumer, t, var, span);
        }
        self.available.push(t);
        let consumed = self.stmt(consumer);
        self.available.pop();
        let consumed = consumed?;
        if !consumed.reads_temp(t) {
            let name = self.kernel.temporaries[t].name.to_string();
            self.mistake(produced_span(producer), CinMistake::Unread(name));
            return None;
        }
        Some(Cin::Where {
            consumer: Box::new(consumed),
            producer: Box::new(produced),
        })
    }

    /// A dense temporary is consumed as `forall(j, A(.., j) = w(j))`: its touched coordinates
    /// are appended (or stored) in order, the lowering of Gustavson's workspace.
    fn check_workspace_consumer(
        &mut self,
        consumer: &CinStmt,
        t: usize,
        var: IndexVar,
        span: proc_macro2::Span,
    ) {
        let name = &self.kernel.temporaries[t].name;
        let shape = match consumer {
            CinStmt::Forall { var: j, body } => match &**body {
                CinStmt::Assign(a) => {
                    let read = matches!(&a.rhs, ast::Expr::Access(r) if r.tensor == *name);
                    let last = a.lhs.indices.last() == Some(j);
                    let own = self.builder.vars.get(var).is_some_and(|v| *j == *v);
                    a.op == AssignOp::Assign
                        && a.lhs.tensor == self.output_name
                        && read
                        && last
                        && own
                }
                _ => false,
            },
            _ => false,
        };
        if !shape {
            let what = format!(
                "a dense temporary consumed other than as `forall(j, A(.., j) = {name}(j))`, with \
                 `j` the index `{name}` is written at and the output's last"
            );
            self.unsupported(span, &what);
        }
    }

    fn assign(&mut self, a: &ast::Assignment) -> Option<Cin> {
        let bound = self.bind_indices(&a.lhs.indices);
        let (lhs, depth, place) = self.lhs(a)?;
        let lhs_vars: Vec<IndexVar> = bound?;
        let reduced: Vec<syn::Ident> = (self.loops[depth..].iter())
            .filter(|(v, _)| !lhs_vars.contains(v))
            .map(|(_, name)| name.clone())
            .collect();
        let accumulate = a.op == AssignOp::AddAssign;
        if let (false, Some(var)) = (accumulate, reduced.first()) {
            let mistake = CinMistake::Overwrite {
                place,
                var: var.to_string(),
            };
            self.mistake(a.op_span, mistake);
        }
        let named = (self.kernel.reduce.iter()).find(|r| reduced.contains(&r.var));
        let op = named.map_or(Op::Add, |r| r.op);
        let rhs = self.expr(&a.rhs)?;
        let computed = substitute(&rhs, &self.produced);
        match &lhs {
            Lhs::Output => self.computed.push(computed),
            Lhs::Scalar(t) | Lhs::Workspace { temp: t, .. } | Lhs::Precomputed { temp: t, .. } => {
                self.produced.insert(*t, computed);
            }
        }
        Some(Cin::Assign {
            lhs,
            accumulate,
            op,
            rhs,
        })
    }

    /// What an assignment writes, the number of enclosing loops outside the place's life (all
    /// for the output, those outside the producer for a temporary), and the place as written.
    fn lhs(&mut self, a: &ast::Assignment) -> Option<(Lhs, usize, String)> {
        let access = &a.lhs;
        let place = super::written(access);
        if let Some((t, decl)) = self.temp(&access.tensor) {
            let dense = decl.dense;
            let name = access.tensor.to_string();
            if access.indices.len() != usize::from(dense) {
                self.mistake(access.span, CinMistake::TempIndices { name, dense });
                return None;
            }
            let Some(depth) = self.producer_depth else {
                self.mistake(access.tensor.span(), CinMistake::OutsideProducer(name));
                return None;
            };
            let lhs = match access.indices.first() {
                Some(j) => {
                    let var = self.builder.var(j);
                    self.workspace_var.insert(t, var);
                    Lhs::Workspace { temp: t, var }
                }
                None => Lhs::Scalar(t),
            };
            return Some((lhs, depth, place));
        }
        let name = access.tensor.to_string();
        if self.producer_depth.is_some() {
            self.mistake(access.tensor.span(), CinMistake::Undeclared(name));
            return None;
        }
        if name != self.output_name {
            let mistake = CinMistake::SecondOutput {
                output: self.output_name.clone(),
                other: name,
            };
            self.mistake(access.tensor.span(), mistake);
            return None;
        }
        let indices: Vec<IndexVar> = access.indices.iter().map(|i| self.builder.var(i)).collect();
        if indices != self.output_indices {
            self.mistake(access.span, CinMistake::OutputIndices(name));
            return None;
        }
        if self.first_op.is_some() && a.op == AssignOp::Assign {
            self.mistake(a.op_span, CinMistake::SecondOverwrite(name));
        }
        self.first_op.get_or_insert(a.op);
        Some((Lhs::Output, 0, place))
    }

    /// The variables of `indices`, each of which an enclosing forall must bind.
    fn bind_indices(&mut self, indices: &[syn::Ident]) -> Option<Vec<IndexVar>> {
        let mut vars = Vec::new();
        for i in indices {
            match self.loops.iter().find(|(_, w)| w == i) {
                Some(&(v, _)) => vars.push(v),
                None => {
                    self.mistake(i.span(), CinMistake::Unbound(i.to_string()));
                    return None;
                }
            }
        }
        Some(vars)
    }

    fn expr(&mut self, e: &ast::Expr) -> Option<Expr> {
        match e {
            ast::Expr::Access(a) => match self.temp(&a.tensor) {
                Some((t, decl)) => {
                    let dense = decl.dense;
                    self.temp_read(a, t, dense)
                }
                None => self.access(a),
            },
            ast::Expr::Literal(l) => Some(Expr::Literal(l.value)),
            ast::Expr::Op { op, args, .. } => {
                let args: Vec<Option<Expr>> = args.iter().map(|a| self.expr(a)).collect();
                Some(Expr::Op(*op, args.into_iter().collect::<Option<_>>()?))
            }
            ast::Expr::Call { name, args, .. } => {
                let args: Vec<Option<Expr>> = args.iter().map(|a| self.expr(a)).collect();
                let args: Vec<Expr> = args.into_iter().collect::<Option<_>>()?;
                Some(self.builder.inline(name, &args))
            }
        }
    }

    fn temp_read(&mut self, a: &ast::Access, t: usize, dense: bool) -> Option<Expr> {
        let name = a.tensor.to_string();
        if a.indices.len() != usize::from(dense) {
            self.mistake(a.span, CinMistake::TempIndices { name, dense });
            return None;
        }
        if !self.available.contains(&t) {
            self.mistake(a.span, CinMistake::ReadBeforeWrite(name));
            return None;
        }
        let vars = self.bind_indices(&a.indices)?;
        if let (Some(&v), Some(&at)) = (vars.first(), self.workspace_var.get(&t))
            && v != at
        {
            let expected = self.builder.vars[at].clone();
            self.mistake(a.span, CinMistake::TempIndex { name, expected });
            return None;
        }
        Some(Expr::Temp(t))
    }

    fn access(&mut self, a: &ast::Access) -> Option<Expr> {
        if a.tensor == self.output_name {
            let what = format!(
                "reading the output `{}` in concrete index notation; read a copy, or a temporary",
                a.tensor
            );
            self.unsupported(a.span, &what);
            return None;
        }
        self.bind_indices(&a.indices)?;
        let access = self.builder.access(a);
        if access
            .level_vars
            .iter()
            .any(|v| self.builder.hidden.contains(v))
        {
            let what = "formats with slot or block levels (ELL, DIA, BCSR) in concrete index \
                        notation, whose hidden loops cannot be written";
            self.unsupported(a.span, what);
            return None;
        }
        self.check_order(a, &access);
        self.builder.accesses += 1;
        Some(Expr::Access {
            id: self.builder.accesses - 1,
            access,
        })
    }

    /// Every sparse level is iterated inside the loops of the levels above it: its positions
    /// exist only below its parent's.
    fn check_order(&mut self, a: &ast::Access, access: &Access) {
        let depth = |v: IndexVar| self.loops.iter().position(|(w, _)| *w == v);
        let levels = &self.builder.levels[access.tensor];
        for (k, level) in levels.iter().enumerate() {
            if level_of(level).full() {
                continue;
            }
            let inner = access.level_vars[k];
            let mut above = access.level_vars[..k].iter();
            if let Some(&outer) = above.find(|&&v| depth(v) > depth(inner)) {
                let mistake = CinMistake::Order {
                    tensor: a.tensor.to_string(),
                    inner: self.builder.vars[inner].clone(),
                    outer: self.builder.vars[outer].clone(),
                };
                self.mistake(a.span, mistake);
                return;
            }
        }
    }
}

/// The temporary a producer statement assigns: its assignment under foralls and the consumers
/// of `where`s.
fn produced_temp(cin: &Cin) -> Option<usize> {
    match cin {
        Cin::Forall { body, .. } => produced_temp(body),
        Cin::Where { consumer, .. } => produced_temp(consumer),
        Cin::Assign {
            lhs: Lhs::Scalar(t) | Lhs::Workspace { temp: t, .. },
            ..
        } => Some(*t),
        _ => None,
    }
}

/// Where a producer assigns what it produces: the left side of its assignment under foralls and
/// the consumers of `where`s.
fn produced_span(cin: &CinStmt) -> proc_macro2::Span {
    match cin {
        CinStmt::Forall { body, .. } => produced_span(body),
        CinStmt::Where { consumer, .. } => produced_span(consumer),
        CinStmt::Assign(a) => a.lhs.span,
        CinStmt::Sequence { .. } | CinStmt::Multi { .. } => span_of(cin),
    }
}

/// Whether some tensor access inside `cin` (a temporary's excepted) is indexed by `var`.
fn indexes(cin: &CinStmt, var: &syn::Ident, temps: &[TempDecl]) -> bool {
    let mut assignments = Vec::new();
    crate::syntax::cin::assignments_of(cin, &mut assignments);
    let tensor = |a: &ast::Access| !temps.iter().any(|t| t.name == a.tensor);
    assignments.iter().any(|a| {
        let mut accesses = vec![&a.lhs];
        accesses_of(&a.rhs, &mut accesses);
        (accesses.into_iter()).any(|x| tensor(x) && x.indices.contains(var))
    })
}

/// Every access of `e`, in order.
pub(super) fn accesses_of<'e>(e: &'e ast::Expr, out: &mut Vec<&'e ast::Access>) {
    match e {
        ast::Expr::Access(a) => out.push(a),
        ast::Expr::Literal(_) => {}
        ast::Expr::Op { args, .. } | ast::Expr::Call { args, .. } => {
            args.iter().for_each(|a| accesses_of(a, out));
        }
    }
}

fn has_sequence(cin: &CinStmt) -> bool {
    match cin {
        CinStmt::Forall { body, .. } => has_sequence(body),
        CinStmt::Where {
            consumer, producer, ..
        } => has_sequence(consumer) || has_sequence(producer),
        CinStmt::Sequence { .. } | CinStmt::Multi { .. } => true,
        CinStmt::Assign(_) => false,
    }
}

/// `e` with each temporary replaced by what its producer computes.
fn substitute(e: &Expr, produced: &BTreeMap<usize, Expr>) -> Expr {
    match e {
        Expr::Temp(t) => produced.get(t).cloned().unwrap_or(Expr::Temp(*t)),
        Expr::Access { .. } | Expr::Literal(_) => e.clone(),
        Expr::Op(op, args) => Expr::Op(*op, args.iter().map(|a| substitute(a, produced)).collect()),
    }
}
