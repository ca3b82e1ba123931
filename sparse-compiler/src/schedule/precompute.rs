//! `precompute(expr, i, iw, W)`: a subexpression is computed into a workspace `W` by a producer
//! loop, and the consumer reads `W` in its place.

use proc_macro2::Span;
use syn::Ident;

use crate::error::{Error, ErrorKind};
use crate::format::level_of;
use crate::notation::{Cin, Expr, IndexVar, Lhs, Program};
use crate::syntax::ast;

use super::nest::{access_tensor, accesses_of, split_nest};
use super::{Relation, State};

impl State<'_> {
    /// `precompute(expr, i, iw, W)` (Senanayake et al. 2020): the innermost loop `∀i out += rhs`
    /// becomes `(∀i out += rhs[expr := W(i)]) where (∀iw W(iw) = expr)`, `iw` iterating what `i`
    /// does. Only the innermost loop can be precomputed: a workspace over an outer loop would hold
    /// the sums of the loops inside it, a placement this command does not choose.
    pub(super) fn precompute(
        &mut self,
        expr: &ast::Expr,
        var: &Ident,
        workspace_var: &Ident,
        workspace: &Ident,
        span: Span,
    ) -> Result<(), Error> {
        if !self.statement_contains(expr) {
            return Err(Error::new(span, ErrorKind::PrecomputeNotFound));
        }
        let i = self.loop_var(var)?;
        let named = |n: &str| {
            self.program.tensors.iter().any(|t| t.name == n)
                || self.program.vars.iter().any(|v| v == n)
                || self.scheduled.workspaces.values().any(|w| w == n)
        };
        if named(&workspace.to_string()) {
            return Err(Error::new(
                workspace.span(),
                ErrorKind::ReusedIndex(workspace.to_string()),
            ));
        }
        let iw = self.fresh(workspace_var)?;
        let target = expr_text(expr);
        let t = self.cin.next_temp();
        if let Some(tensor) = self.sparse_level_of(i) {
            let what = format!(
                "`precompute` over `{var}`, which iterates a sparse level of `{tensor}` (the \
                 producer would have to iterate it too); precompute over its position variable, \
                 from `pos({var}, ..., {tensor})`"
            );
            return Err(Error::new(var.span(), ErrorKind::Unsupported(what)));
        }
        self.cin = self
            .precompute_nest(i, iw, &target, t)
            .map_err(|what| Error::new(var.span(), what))?;
        self.scheduled.relations.push(Relation::Precompute {
            parent: i,
            child: iw,
        });
        self.scheduled.workspaces.insert(t, workspace.to_string());
        Ok(())
    }

    /// The statement with `precompute`'s `where`: the loops from the first one that only the
    /// precomputed expression reads (the sums it holds) or from `i`, down to the assignment, move
    /// into the producer (`i` renamed `iw`, adding into `W` when it sums), and the consumer keeps
    /// only `i`:
    ///
    /// `∀i ∀k ∀l ∀j A += B*D*C` with `precompute(B*D, j, jw, W)` becomes
    /// `∀i ∀k ((∀j A += W(j)*C) where (∀l ∀jw W(jw) += B*D))`.
    ///
    /// A sum moves into the workspace only when the expression is a factor of the right-hand side
    /// (the sum distributes over the product), and every loop below the `where` must be such a
    /// sum or `i`.
    fn precompute_nest(
        &self,
        i: IndexVar,
        iw: IndexVar,
        target: &str,
        t: usize,
    ) -> Result<Cin, ErrorKind> {
        let (nest, body) = split_nest(&self.cin);
        if self.program.reduce_op() != crate::algebra::Op::Add {
            let what = format!(
                "`precompute` in a statement with a `{}` reduction",
                self.program.reduce_op_name()
            );
            return Err(ErrorKind::Unsupported(what));
        }
        let Cin::Assign {
            lhs: Lhs::Output,
            accumulate,
            op,
            rhs,
        } = body
        else {
            let what = "`precompute` of a statement that already has a `where`";
            return Err(ErrorKind::Unsupported(what.into()));
        };
        let (consumed, produced, _) =
            replace_subexpr(self.program, rhs, target, t).ok_or(ErrorKind::PrecomputeNotFound)?;
        let mut rest = self.program.loop_vars_of(&self.program.output.indices);
        consumed.collect_loop_vars(&mut rest);
        let summed = |v: IndexVar| {
            v != i
                && self
                    .scheduled
                    .underived(v)
                    .iter()
                    .all(|r| !rest.contains(r))
        };
        let cut = nest
            .iter()
            .position(|&v| v == i || summed(v))
            .ok_or_else(|| {
                ErrorKind::Unsupported(
                    "`precompute` over a loop the statement does not have".into(),
                )
            })?;
        let below = &nest[cut..];
        if let Some(&v) = below.iter().find(|&&v| v != i && !summed(v)) {
            let what = format!(
                "`precompute` over `{}` with the loop over `{}` inside it, which the rest of the \
                 statement reads (a workspace over `{}` cannot hold it); reorder so that `{}` is \
                 inside every such loop",
                self.program.vars[i],
                self.program.vars[v],
                self.program.vars[i],
                self.program.vars[i]
            );
            return Err(ErrorKind::Unsupported(what));
        }
        let sums = below.len() > 1;
        if sums && !is_factor(self.program, rhs, target) {
            let what = "`precompute` that moves a sum into the workspace, of an expression that is \
                        not a factor of the right-hand side (the sum would not distribute over \
                        the rest)";
            return Err(ErrorKind::Unsupported(what.into()));
        }
        let consumer = Cin::Forall {
            var: i,
            body: Box::new(Cin::Assign {
                lhs: Lhs::Output,
                accumulate: *accumulate,
                op: *op,
                rhs: consumed,
            }),
        };
        let producer_loops: Vec<IndexVar> =
            below.iter().map(|&v| if v == i { iw } else { v }).collect();
        let producer = Cin::forall_over(
            &producer_loops,
            Cin::Assign {
                lhs: Lhs::Precomputed { temp: t, var: i },
                accumulate: sums,
                op: *op,
                rhs: produced,
            },
        );
        Ok(Cin::forall_over(
            &nest[..cut],
            Cin::where_of(consumer, producer),
        ))
    }

    /// The name of an input that stores coordinate variable `v` in a level other than dense.
    fn sparse_level_of(&self, v: IndexVar) -> Option<String> {
        if self.scheduled.deriving(v).is_some() {
            return None;
        }
        accesses_of(&self.program.rhs, usize::MAX)
            .into_iter()
            .find_map(|(id, level_vars)| {
                let t = access_tensor(&self.program.rhs, id);
                let tensor = &self.program.tensors[t];
                let k = level_vars.iter().position(|&x| x == v)?;
                (!level_of(&self.program.iterated_levels(t)[k]).full()).then(|| tensor.name.clone())
            })
    }

    fn statement_contains(&self, expr: &ast::Expr) -> bool {
        subexpr_texts(self.program, &self.program.rhs).contains(&expr_text(expr))
    }
}

/// `rhs` with its subexpression whose text is `target` read as temporary `t`; that
/// subexpression; and `t`.
fn replace_subexpr(
    program: &Program,
    rhs: &Expr,
    target: &str,
    t: usize,
) -> Option<(Expr, Expr, usize)> {
    if notation_text(program, rhs) == target {
        return Some((Expr::Temp(t), rhs.clone(), t));
    }
    let Expr::Op(op, args) = rhs else {
        return None;
    };
    (0..args.len()).find_map(|k| {
        let (x, e, t) = replace_subexpr(program, &args[k], target, t)?;
        let mut args = args.clone();
        args[k] = x;
        Some((Expr::Op(*op, args), e, t))
    })
}

/// Whether the subexpression with text `target` is a factor of `rhs`: `rhs` itself, or a factor
/// of an operand the operator is linear in (a product, a quotient's numerator, a negation). (Concretization already places a
/// sum only where it distributes, so this guards the rewrite rather than the user.)
fn is_factor(program: &Program, rhs: &Expr, target: &str) -> bool {
    if notation_text(program, rhs) == target {
        return true;
    }
    let Expr::Op(op, args) = rhs else {
        return false;
    };
    (0..args.len()).any(|k| op.is_linear_in(k) && is_factor(program, &args[k], target))
}

/// A syntax expression as text, in the form [`notation_text`] writes the statement's.
fn expr_text(e: &ast::Expr) -> String {
    match e {
        ast::Expr::Access(a) => {
            let idx: Vec<String> = a.indices.iter().map(ToString::to_string).collect();
            if idx.is_empty() {
                a.tensor.to_string()
            } else {
                format!("{}({})", a.tensor, idx.join(","))
            }
        }
        ast::Expr::Literal(l) => format!("{:?}", l.value),
        ast::Expr::Op { op, args, .. } => {
            let args: Vec<String> = args.iter().map(expr_text).collect();
            format!("{op:?}({})", args.join(","))
        }
        ast::Expr::Call { name, args, .. } => {
            let args: Vec<String> = args.iter().map(expr_text).collect();
            format!("{name}({})", args.join(","))
        }
    }
}

/// The text of every subexpression of the statement.
fn subexpr_texts(program: &Program, e: &Expr) -> Vec<String> {
    let mut out = vec![notation_text(program, e)];
    match e {
        Expr::Op(_, args) => {
            for a in args {
                out.extend(subexpr_texts(program, a));
            }
        }
        Expr::Access { .. } | Expr::Temp(_) | Expr::Literal(_) => {}
    }
    out
}

fn notation_text(program: &Program, e: &Expr) -> String {
    match e {
        Expr::Access { access, .. } => {
            let name = &program.tensors[access.tensor].name;
            let idx: Vec<&str> = access
                .indices
                .iter()
                .map(|&v| program.vars[v].as_str())
                .collect();
            if idx.is_empty() {
                name.clone()
            } else {
                format!("{name}({})", idx.join(","))
            }
        }
        Expr::Literal(l) => format!("{l:?}"),
        Expr::Temp(t) => format!("t{t}"),
        Expr::Op(op, args) => {
            let args: Vec<String> = args.iter().map(|a| notation_text(program, a)).collect();
            format!("{op:?}({})", args.join(","))
        }
    }
}
