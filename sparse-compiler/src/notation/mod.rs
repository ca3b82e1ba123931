//! AST + resolved formats -> index notation ([`Program`]) -> concrete index notation ([`Cin`]).
//!
//! Index notation here is the statement with names resolved: tensors are numbered output first,
//! then inputs by first appearance (the signature's order is apart, `params.rs`), index variables
//! in order of first appearance, and every access knows its tensor's levels. Concretization
//! (Kjolstad 2020) makes the loops explicit: a forall per index variable in the default loop order
//! (every tensor, dense ones and the output included, iterated concordantly with its levels where
//! some order allows it; where none does, dense levels and the output yield first, `order.rs`),
//! implicit sums turned into `+=` into the output or into scalar temporaries introduced by
//! `where`, and a dense workspace where a sparse output could not be appended to in order
//! (Gustavson's SpGEMM).

mod concrete;
mod convert;
mod inline;
mod multi;
mod order;
mod params;
mod pattern;
mod plan;
mod print;
mod reread;
mod rowwise;
mod written;

pub use concrete::{Cin, Lhs, concretize};
pub use multi::{MultiKernel, split_multi};
pub use order::order_edges;
pub use plan::{Copies, PlannedCopy, Rule, plan_copies};
pub use print::{print_cin, print_plan};
pub use written::build_written;

use std::collections::BTreeMap;

use proc_macro2::Span;

use crate::algebra::{Iteration, Op, Operand};
use crate::error::{Error, ErrorKind, Errors};
use crate::format::{Coord, FormatType, LevelSpec, TensorFormat, level_of};
use crate::syntax::ast::{self, AssignOp, LiteralValue};

/// An index variable, numbered in order of first appearance (output indices first).
pub type IndexVar = usize;

/// A tensor of the statement, numbered output first (0), then inputs by first appearance.
#[derive(Clone, Debug)]
pub struct Tensor {
    /// The name as written.
    pub name: String,
    /// The number of dimensions.
    pub order: usize,
    /// The levels as the user wrote them, root first. The kernel may iterate a copy in other
    /// levels: later stages ask [`Program::iterated_levels`].
    pub levels: Vec<LevelSpec>,
    /// The runtime type of its format, as the user wrote it.
    pub format: FormatType,
    /// Where it was first written.
    pub span: Span,
    /// Whether the function takes it as a plain value (an order-0 input in `scalars<...>`).
    pub by_value: bool,
    /// For a tensor local to the kernel, the input it is a run-time copy of: the reads of that
    /// input in an index order its storage cannot follow, given a copy of their own by the
    /// planner ([`Rule::Reread`]). The function does not take it as a parameter.
    pub copy_of: Option<usize>,
    /// The fill value `fills<...>` gives it, as written (zero where it names none).
    pub fill: Option<LiteralValue>,
}

impl Tensor {
    /// Its fill value: what it holds where it stores nothing.
    pub fn fill_value(&self) -> f64 {
        self.fill.map_or(0.0, literal_value)
    }
}

/// The value of a literal, in `f64` as the algebra evaluates it.
pub fn literal_value(l: LiteralValue) -> f64 {
    match l {
        LiteralValue::Int(n) => n as f64,
        LiteralValue::Float(f) => f,
    }
}

/// A fill value, compared by its bits (so the type is `Eq` and NaN is itself).
#[derive(Clone, Copy, Debug, Default)]
pub struct Fill(pub f64);

impl PartialEq for Fill {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for Fill {}

/// A reduction named in `reduce<...>`: the variables it reduces over and its operator. It covers
/// the whole right-hand side.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// The operator (`+`, `*`, `min`, `max`, `||`, `&&`).
    pub op: Op,
    /// The variables named, in written order.
    pub vars: Vec<IndexVar>,
    /// Where the (first) operator is written.
    pub span: Span,
}

/// One access `A(i, j)` of the right-hand side, or the output's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// The tensor.
    pub tensor: usize,
    /// The index variable of each logical dimension.
    pub indices: Vec<IndexVar>,
    /// The variable each stored level iterates: the dimension's variable for a level that stores
    /// a whole dimension, a hidden variable for a slot level (ELL's `k`, DIA's diagonal) or one
    /// part of a blocked dimension (BCSR).
    pub level_vars: Vec<IndexVar>,
    /// The tensor's fill value: what the access reads where the tensor stores nothing.
    pub fill: Fill,
}

/// A variable recovered from the two hidden variables of a blocked dimension: `outer * block +
/// inner` (Senanayake et al. 2020, coordinate recovery).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Derived {
    /// The block-row (or column) variable.
    pub outer: IndexVar,
    /// The offset inside the block.
    pub inner: IndexVar,
    /// The block size.
    pub block: usize,
}

/// An expression of index notation.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A tensor access; `id` numbers the accesses of the statement (the output's is 0).
    Access {
        /// The access's number.
        id: usize,
        /// The access.
        access: Access,
    },
    /// A scalar temporary introduced by concretization.
    Temp(usize),
    /// A literal.
    Literal(LiteralValue),
    /// An operator applied to its operands, in order.
    Op(Op, Vec<Expr>),
}

/// The statement in index notation, names resolved.
#[derive(Clone, Debug)]
pub struct Program {
    /// The tensors: the output first, then the inputs in order of first appearance.
    pub tensors: Vec<Tensor>,
    /// The tensor numbers in the order the generated function takes them (the output first).
    pub signature: Vec<usize>,
    /// Where the right-hand side first reads the output, if it does.
    pub output_read: Option<Span>,
    /// The index variables' names, by number.
    pub vars: Vec<String>,
    /// The output access (access number 0).
    pub output: Access,
    /// `=` or `+=`.
    pub op: AssignOp,
    /// The right-hand side.
    pub rhs: Expr,
    /// The number of accesses (output included).
    pub access_count: usize,
    /// Variables that are no loops of their own but recovered from a blocked dimension's parts.
    pub derived: BTreeMap<IndexVar, Derived>,
    /// The inputs the kernel iterates through a run-time copy ([`plan_copies`]).
    pub copies: Copies,
    /// The reduction `reduce<...>` names, if any (otherwise sums are implicit `+`).
    pub reduction: Option<Reduction>,
    /// The user operators of `ops<...>` (calls are inlined; a reduction with one names it).
    pub ops: Vec<ast::OpDef>,
}

impl Program {
    /// The operator the statement reduces with: the one `reduce<...>` names, else `+`.
    pub fn reduce_op(&self) -> Op {
        self.reduction.as_ref().map_or(Op::Add, |r| r.op)
    }

    /// How messages name the reduction's operator: its symbol, or a user operator's name.
    pub fn reduce_op_name(&self) -> String {
        operator_name(self.reduce_op(), &self.ops)
    }

    /// The identity of [`Program::reduce_op`]: what a reduction over nothing gives.
    pub fn identity(&self) -> f64 {
        self.reduce_op().reduction_identity().unwrap_or(0.0)
    }

    /// The output's fill value.
    pub fn output_fill(&self) -> f64 {
        self.tensors[self.output.tensor].fill_value()
    }

    /// Whether the statement reduces into the output (it sums over a variable the output does not
    /// have, or is `+=`).
    pub fn accumulates(&self) -> bool {
        let out = self.loop_vars_of(&self.output.indices);
        let mut vars = Vec::new();
        self.rhs.collect_loop_vars(&mut vars);
        self.op == AssignOp::AddAssign || self.loop_vars_of(&vars).iter().any(|v| !out.contains(v))
    }

    /// The value the loops may leave an output coordinate at without computing it: the identity
    /// of the reduction where the statement reduces (a term equal to it changes nothing), the
    /// output's fill otherwise (what a coordinate it does not write holds).
    pub fn skip_value(&self) -> f64 {
        match self.accumulates() {
            true => self.identity(),
            false => self.output_fill(),
        }
    }

    /// Whether the output has sparse levels that the kernel rebuilds (it does not take an
    /// input's structure, [`Program::pattern_source`]).
    pub fn assembles_output(&self) -> bool {
        let sparse = (self.iterated_levels(self.output.tensor).iter()).any(|l| !level_of(l).full());
        sparse && self.pattern_source().is_none()
    }

    /// `vars` with every derived variable replaced by the variables it is recovered from.
    pub fn loop_vars_of(&self, vars: &[IndexVar]) -> Vec<IndexVar> {
        let mut out = Vec::new();
        for &v in vars {
            let parts = match self.derived.get(&v) {
                Some(d) => vec![d.outer, d.inner],
                None => vec![v],
            };
            for p in parts {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        out
    }
}

impl Program {
    /// Builds the program from the parsed kernel and its resolved formats (one per tensor, output
    /// first), checking what only the whole statement can tell: the parameter list, the scalars
    /// and the reads of the output among them.
    pub fn build(
        kernel: &ast::Kernel,
        formats: &[(syn::Ident, TensorFormat)],
    ) -> Result<Self, Errors> {
        let (tensors, signature, mut errors) = params::tensors_of(kernel, formats);
        let mut builder = Builder::new(&tensors, &kernel.ops);
        let output = builder.access(&kernel.assignment.lhs);
        let rhs = builder.expr(&kernel.assignment.rhs);
        errors.extend(builder.errors);
        check_output(kernel, &output, &rhs, &builder.vars, &mut errors);
        let output_read = check_output_reads(kernel, &tensors[0], &mut errors);
        if output.level_vars.iter().any(|v| builder.hidden.contains(v)) {
            let span = kernel.assignment.lhs.span;
            let what = "outputs in formats with slot or block levels (ELL, DIA, BCSR)";
            errors.push(Error::new(span, ErrorKind::Unsupported(what.into())));
        }
        let reduction = reduction(kernel, &builder.vars, &output, &mut errors);
        if !errors.is_empty() {
            return Err(errors);
        }
        let program = Program {
            tensors,
            signature,
            output_read,
            vars: builder.vars,
            output,
            op: kernel.assignment.op,
            rhs,
            access_count: builder.accesses,
            derived: builder.derived,
            copies: Copies::default(),
            reduction,
            ops: kernel.ops.clone(),
        };
        program.check_sparse_output_fill(kernel)?;
        Ok(program)
    }

    /// A sparse output stores nothing where the reduction reduces nothing, so its fill must be
    /// the reduction's identity.
    fn check_sparse_output_fill(&self, kernel: &ast::Kernel) -> Result<(), Errors> {
        let out = &self.tensors[self.output.tensor];
        let sparse = out.levels.iter().any(|l| !level_of(l).full());
        let (fill, identity) = (self.output_fill(), self.identity());
        if !sparse || !self.accumulates() || crate::algebra::same(fill, identity) {
            return Ok(());
        }
        let span = (kernel.fills.iter())
            .find(|f| f.tensor == out.name)
            .map_or(kernel.assignment.lhs.span, |f| f.span);
        let kind = ErrorKind::SparseOutputFill {
            tensor: out.name.clone(),
            fill: format_value(fill),
            op: self.reduce_op_name(),
            identity: format_value(identity),
        };
        Err(vec![Error::new(span, kind)])
    }
}

/// How messages name `op`: its symbol (`+`, `min`), or the name a user operator has in `ops<...>`.
pub fn operator_name(op: Op, ops: &[ast::OpDef]) -> String {
    match op {
        Op::User { index, .. } => ops
            .get(usize::from(index))
            .map_or_else(|| op.symbol(), |def| def.name.to_string()),
        _ => op.symbol(),
    }
}

/// A value as a message shows it: `inf`, `-inf`, `0`, `2.5`.
pub fn format_value(v: f64) -> String {
    format!("{v}")
}

/// The reduction `reduce<...>` names: each variable must be one the right-hand side reduces over,
/// named once, and every operator the same; `+=` only with `+`.
fn reduction(
    kernel: &ast::Kernel,
    vars: &[String],
    output: &Access,
    errors: &mut Errors,
) -> Option<Reduction> {
    let mut reduction: Option<Reduction> = None;
    for decl in &kernel.reduce {
        let name = decl.var.to_string();
        let error = |kind| Error::new(decl.var.span(), kind);
        let Some(v) = vars.iter().position(|x| *x == name) else {
            errors.push(error(ErrorKind::UnknownReduction(name)));
            continue;
        };
        if output.indices.contains(&v) {
            errors.push(error(ErrorKind::ReduceOutputIndex(name)));
            continue;
        }
        match &mut reduction {
            Some(r) if r.vars.contains(&v) => {
                errors.push(error(ErrorKind::DuplicateReduction(name)));
            }
            Some(r) if r.op != decl.op => {
                let kind = ErrorKind::MixedReductions {
                    first: operator_name(r.op, &kernel.ops),
                    second: operator_name(decl.op, &kernel.ops),
                };
                errors.push(Error::new(decl.span, kind));
            }
            Some(r) => r.vars.push(v),
            None => {
                reduction = Some(Reduction {
                    op: decl.op,
                    vars: vec![v],
                    span: decl.span,
                });
            }
        }
    }
    if let Some(r) = &reduction
        && r.op != Op::Add
        && kernel.assignment.op == AssignOp::AddAssign
    {
        let kind = ErrorKind::AccumulateReduction(operator_name(r.op, &kernel.ops));
        errors.push(Error::new(kernel.assignment.op_span, kind));
    }
    reduction
}

struct Builder {
    by_name: BTreeMap<String, usize>,
    levels: Vec<Vec<LevelSpec>>,
    names: Vec<String>,
    fills: Vec<f64>,
    vars: Vec<String>,
    hidden: Vec<IndexVar>,
    derived: BTreeMap<IndexVar, Derived>,
    /// The tensor whose blocks define each entry of `derived`.
    blocked_by: BTreeMap<IndexVar, String>,
    errors: Errors,
    accesses: usize,
    /// The user operators of `ops<...>`, inlined where the statement calls them.
    ops: Vec<ast::OpDef>,
}

impl Builder {
    fn new(tensors: &[Tensor], ops: &[ast::OpDef]) -> Self {
        Builder {
            by_name: (tensors.iter().enumerate())
                .map(|(k, t)| (t.name.clone(), k))
                .collect(),
            levels: tensors.iter().map(|t| t.levels.clone()).collect(),
            names: tensors.iter().map(|t| t.name.clone()).collect(),
            fills: tensors.iter().map(Tensor::fill_value).collect(),
            vars: Vec::new(),
            hidden: Vec::new(),
            derived: BTreeMap::new(),
            blocked_by: BTreeMap::new(),
            errors: Vec::new(),
            accesses: 1,
            ops: ops.to_vec(),
        }
    }

    fn var(&mut self, name: &syn::Ident) -> IndexVar {
        let name = name.to_string();
        match self.vars.iter().position(|v| *v == name) {
            Some(v) => v,
            None => {
                self.vars.push(name);
                self.vars.len() - 1
            }
        }
    }

    fn access(&mut self, a: &ast::Access) -> Access {
        let tensor = self
            .by_name
            .get(&a.tensor.to_string())
            .copied()
            .unwrap_or(0);
        let indices: Vec<IndexVar> = a.indices.iter().map(|i| self.var(i)).collect();
        for (k, i) in a.indices.iter().enumerate() {
            if a.indices[..k].iter().any(|j| j == i) {
                self.errors.push(Error::new(
                    i.span(),
                    ErrorKind::RepeatedIndex(i.to_string()),
                ));
            }
        }
        let level_vars = self.level_vars(tensor, &indices, a);
        Access {
            tensor,
            indices,
            level_vars,
            fill: Fill(self.fills.get(tensor).copied().unwrap_or(0.0)),
        }
    }

    fn hidden_var(&mut self, name: String) -> IndexVar {
        self.vars.push(name);
        self.hidden.push(self.vars.len() - 1);
        self.vars.len() - 1
    }

    /// The variable of each level of an access; slot and block levels get hidden variables, and a
    /// blocked dimension's variable becomes derived from its two parts.
    fn level_vars(
        &mut self,
        tensor: usize,
        indices: &[IndexVar],
        a: &ast::Access,
    ) -> Vec<IndexVar> {
        let levels = self.levels[tensor].clone();
        let name = self.names[tensor].clone();
        let mut vars = Vec::with_capacity(levels.len());
        let mut outer = BTreeMap::new();
        for (k, level) in levels.iter().enumerate() {
            let v = match level.coord {
                Coord::Dim(d) => indices.get(d).copied().unwrap_or(0),
                Coord::Slot => self.hidden_var(format!("{name}_slot{k}")),
                Coord::BlockOuter { dim, .. } => {
                    let v = self.hidden_var(format!(
                        "{}_outer",
                        self.vars[indices.get(dim).copied().unwrap_or(0)]
                    ));
                    outer.insert(dim, v);
                    v
                }
                Coord::BlockInner { dim, block } => {
                    let inner = self.hidden_var(format!(
                        "{}_inner",
                        self.vars[indices.get(dim).copied().unwrap_or(0)]
                    ));
                    let var = indices.get(dim).copied().unwrap_or(0);
                    let derived = Derived {
                        outer: outer.get(&dim).copied().unwrap_or(inner),
                        inner,
                        block,
                    };
                    self.block(var, derived, &name, a.span);
                    inner
                }
            };
            vars.push(v);
        }
        vars
    }

    /// Records that `tensor` blocks `var`; a second tensor blocking it in blocks of another size
    /// gives the variable two extents inside a block.
    fn block(&mut self, var: IndexVar, derived: Derived, tensor: &str, span: Span) {
        let Some((first, first_tensor)) = self.derived.get(&var).zip(self.blocked_by.get(&var))
        else {
            self.derived.insert(var, derived);
            self.blocked_by.insert(var, tensor.to_string());
            return;
        };
        let kind = if first.block != derived.block {
            ErrorKind::ExtentMismatch {
                index: self.vars[var].clone(),
                first: format!("the {}-wide blocks of `{first_tensor}`", first.block),
                second: format!("the {}-wide blocks of `{tensor}`", derived.block),
            }
        } else {
            ErrorKind::Unsupported(format!("index `{}` blocked by two tensors", self.vars[var]))
        };
        self.errors.push(Error::new(span, kind));
    }

    fn expr(&mut self, e: &ast::Expr) -> Expr {
        match e {
            ast::Expr::Access(a) => {
                let access = self.access(a);
                self.accesses += 1;
                Expr::Access {
                    id: self.accesses - 1,
                    access,
                }
            }
            ast::Expr::Literal(l) => Expr::Literal(l.value),
            ast::Expr::Op { op, args, .. } => {
                Expr::Op(*op, args.iter().map(|a| self.expr(a)).collect())
            }
            ast::Expr::Call { name, args, .. } => self.inline_call(name, args),
        }
    }
}

/// The output's indices must all be used on the right: their extents come from there.
fn check_output(
    kernel: &ast::Kernel,
    output: &Access,
    rhs: &Expr,
    vars: &[String],
    errors: &mut Errors,
) {
    let lhs = &kernel.assignment.lhs;
    let mut used = Vec::new();
    rhs.collect_vars(&mut used);
    for (k, &v) in output.indices.iter().enumerate() {
        if !used.contains(&v) {
            errors.push(Error::new(
                lhs.indices[k].span(),
                ErrorKind::UnboundOutputIndex(vars[v].clone()),
            ));
        }
    }
}

/// The output may be read on the right only when it is dense and every read uses its own
/// indices in its own order: then the iteration that writes an element is the one that reads
/// it (whether it reads it first is lowering's question). Returns where it is first read.
fn check_output_reads(kernel: &ast::Kernel, output: &Tensor, errors: &mut Errors) -> Option<Span> {
    let lhs = &kernel.assignment.lhs;
    let mut reads = Vec::new();
    accesses_of(&kernel.assignment.rhs, &lhs.tensor, &mut reads);
    for read in &reads {
        if read.indices != lhs.indices {
            errors.push(Error::new(
                read.span,
                ErrorKind::OutputReadIndices {
                    tensor: lhs.tensor.to_string(),
                    found: written(read),
                    expected: written(lhs),
                },
            ));
        }
    }
    let first = reads.first()?.span;
    if output.levels.iter().any(|l| !level_of(l).full()) {
        errors.push(Error::new(
            first,
            ErrorKind::OutputReadSparse(output.name.clone()),
        ));
    }
    Some(first)
}

/// An access as the user wrote it, for messages.
fn written(access: &ast::Access) -> String {
    if access.indices.is_empty() {
        return access.tensor.to_string();
    }
    let indices: Vec<String> = access.indices.iter().map(ToString::to_string).collect();
    format!("{}({})", access.tensor, indices.join(","))
}

/// The accesses of tensor `name` in `e`, left to right.
fn accesses_of<'e>(e: &'e ast::Expr, name: &syn::Ident, out: &mut Vec<&'e ast::Access>) {
    match e {
        ast::Expr::Access(a) if a.tensor == *name => out.push(a),
        ast::Expr::Access(_) | ast::Expr::Literal(_) => {}
        ast::Expr::Op { args, .. } | ast::Expr::Call { args, .. } => {
            for a in args {
                accesses_of(a, name, out);
            }
        }
    }
}

impl Expr {
    /// The terms of the expression as a sum: its operands of `+` and `-`, through negations.
    pub fn sum_terms(&self) -> Vec<&Expr> {
        match self {
            Expr::Op(op, args) if op.separates_terms() || *op == Op::Neg => {
                args.iter().flat_map(Expr::sum_terms).collect()
            }
            _ => vec![self],
        }
    }

    /// The access numbered `id`.
    pub fn find_access(&self, id: usize) -> Option<&Access> {
        match self {
            Expr::Access { id: a, access } => (*a == id).then_some(access),
            Expr::Op(_, args) => args.iter().find_map(|a| a.find_access(id)),
            Expr::Temp(_) | Expr::Literal(_) => None,
        }
    }

    /// Appends the index variables the expression's accesses use, in order of first appearance.
    pub fn collect_vars(&self, out: &mut Vec<IndexVar>) {
        self.collect(out, |a| &a.indices);
    }

    /// Appends the variables the expression's levels iterate (hidden ones included, derived ones
    /// excluded): the loops the expression needs.
    pub fn collect_loop_vars(&self, out: &mut Vec<IndexVar>) {
        self.collect(out, |a| &a.level_vars);
    }

    fn collect(&self, out: &mut Vec<IndexVar>, vars_of: fn(&Access) -> &Vec<IndexVar>) {
        match self {
            Expr::Access { access, .. } => {
                for &v in vars_of(access) {
                    if !out.contains(&v) {
                        out.push(v);
                    }
                }
            }
            Expr::Temp(_) | Expr::Literal(_) => {}
            Expr::Op(_, args) => {
                for a in args {
                    a.collect(out, vars_of);
                }
            }
        }
    }

    /// Whether the expression uses index variable `v`, as a logical index or a level's variable.
    pub fn uses(&self, v: IndexVar) -> bool {
        let mut vars = Vec::new();
        self.collect_vars(&mut vars);
        self.collect_loop_vars(&mut vars);
        vars.contains(&v)
    }
}

impl Expr {
    /// The value of an expression of literals only (in `f64`, as the algebra evaluates it);
    /// `None` where it reads a tensor or a temporary.
    pub fn constant(&self) -> Option<f64> {
        match self {
            Expr::Literal(LiteralValue::Int(n)) => Some(*n as f64),
            Expr::Literal(LiteralValue::Float(f)) => Some(*f),
            Expr::Access { .. } | Expr::Temp(_) => None,
            Expr::Op(op, args) => {
                let values: Option<Vec<f64>> = args.iter().map(Expr::constant).collect();
                values.map(|v| op.eval(&v))
            }
        }
    }

    /// The expression's value where every tensor it reads stores nothing (each access at its
    /// fill); `None` where that is not known (a temporary's value).
    pub fn fill(&self) -> Option<f64> {
        self.fill_with(&|_| None)
    }

    /// [`Expr::fill`], with `temp(t)` the value of temporary `t` where its producer stored
    /// nothing.
    pub fn fill_with(&self, temp: &dyn Fn(usize) -> Option<f64>) -> Option<f64> {
        match self {
            Expr::Access { access, .. } => Some(access.fill.0),
            Expr::Temp(t) => temp(*t),
            Expr::Literal(l) => Some(literal_value(*l)),
            Expr::Op(op, args) => {
                let operands: Vec<Operand> = args.iter().map(|a| a.operand_with(temp)).collect();
                op.fill_of(&operands)
            }
        }
    }

    /// The expression as an operand of the algebra's iteration rule.
    pub fn operand_with(&self, temp: &dyn Fn(usize) -> Option<f64>) -> Operand {
        match self.constant() {
            Some(v) => Operand::Constant(v),
            None => Operand::Varying {
                fill: self.fill_with(temp),
            },
        }
    }

    /// The iteration space of the operator at the root over its operands (see `algebra`),
    /// relative to the expression's own fill (where it may differ from it); `None` for a leaf.
    pub fn iteration(&self) -> Option<Iteration> {
        self.iteration_with(&|_| None)
    }

    /// [`Expr::iteration`] with the values of temporaries where their producers stored nothing.
    pub fn iteration_with(&self, temp: &dyn Fn(usize) -> Option<f64>) -> Option<Iteration> {
        let Expr::Op(op, args) = self else {
            return None;
        };
        let operands: Vec<Operand> = args.iter().map(|a| a.operand_with(temp)).collect();
        Some(op.iteration_at(&operands, None))
    }

    /// The operands of the root operator whose fill alone decides the expression.
    pub fn required_operands(&self) -> Vec<usize> {
        match self.iteration() {
            Some(Iteration::Sparse { required }) => {
                (0..required.len()).filter(|&k| required[k]).collect()
            }
            Some(Iteration::Dense) | None => Vec::new(),
        }
    }

    /// The expression's value where the accesses `absent` picks store nothing (each at its
    /// fill), if that alone decides it: an absorbing operand decides its operator (a factor of a
    /// product), and an operator whose operands are all decided is.
    pub fn value_without(&self, absent: &dyn Fn(&Access) -> bool) -> Option<f64> {
        match self {
            Expr::Access { access, .. } => absent(access).then_some(access.fill.0),
            Expr::Temp(_) => None,
            Expr::Literal(l) => Some(literal_value(*l)),
            Expr::Op(op, args) => {
                let values: Vec<Option<f64>> =
                    args.iter().map(|a| a.value_without(absent)).collect();
                let absorbed =
                    (values.iter().enumerate()).find_map(|(k, v)| v.and_then(|v| op.absorbs(k, v)));
                absorbed.or_else(|| {
                    let all: Option<Vec<f64>> = values.into_iter().collect();
                    all.map(|v| op.eval(&v))
                })
            }
        }
    }

    /// Whether the expression is `skip` wherever the accesses `absent` picks store nothing, by
    /// the algebra of its operators ([`Expr::value_without`]).
    pub fn vanishes_without(&self, absent: &dyn Fn(&Access) -> bool, skip: f64) -> bool {
        self.value_without(absent)
            .is_some_and(|v| crate::algebra::same(v, skip))
    }
}
