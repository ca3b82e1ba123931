//! The syntax tree of one `tensor_kernel!` invocation, with the span of every token a later stage
//! may point an error at. Nothing here is checked beyond the grammar and the arguments each
//! scheduling command takes: names are not resolved and formats are not interpreted (that is
//! `format::resolve`, `notation` and `schedule`).

use proc_macro2::Span;
use syn::{Attribute, Ident, Visibility};

pub use super::cin::{CinStmt, TempDecl};
use crate::algebra::Op;

/// A whole invocation: `[attrs] [pub] fn NAME[(PARAMS)]; STATEMENT;` then, in any order,
/// `[formats<...>;] [scalars<...>;] [fills<...>;] [reduce<...>;] [ops<...>;] [temporaries<...>;]
/// [schedule<...>;]`.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// Doc comments and attributes written before `fn`, carried to the generated function.
    pub attrs: Vec<Attribute>,
    /// The visibility of the generated function.
    pub vis: Visibility,
    /// The function's name.
    pub name: Ident,
    /// The explicit parameter list `(y, alpha, x)` after the name, if written.
    pub params: Option<ParamList>,
    /// The index-notation statement.
    pub assignment: Assignment,
    /// The `formats<...>` clause, in written order (empty when absent).
    pub formats: Vec<FormatDecl>,
    /// The `scalars<...>` clause: order-0 inputs passed as plain values, in written order (empty
    /// when absent).
    pub scalars: Vec<Ident>,
    /// The `fills<...>` clause: tensors whose fill value is not zero, in written order (empty
    /// when absent).
    pub fills: Vec<FillDecl>,
    /// The `reduce<...>` clause: index variables reduced with an operator other than the
    /// implicit sum, in written order (empty when absent).
    pub reduce: Vec<ReduceDecl>,
    /// The `ops<...>` clause: user-defined operators, in written order (empty when absent).
    pub ops: Vec<OpDef>,
    /// The `schedule<...>` clause, if written.
    pub schedule: Option<Schedule>,
    /// The statement, when it is written in concrete index notation (`assignment` is then its
    /// summary for format resolution: `syntax::cin::summary`).
    pub cin: Option<CinStmt>,
    /// The `temporaries<...>` clause, in written order (empty when absent).
    pub temporaries: Vec<TempDecl>,
}

/// `(y, alpha, x)` on the `fn` line: the generated function's parameters, in order.
#[derive(Clone, Debug)]
pub struct ParamList {
    /// The tensor names, as written.
    pub names: Vec<Ident>,
    /// The span of the parentheses, for a tensor the list leaves out.
    pub span: Span,
}

/// `lhs = rhs` or `lhs += rhs`.
#[derive(Clone, Debug)]
pub struct Assignment {
    /// The output access.
    pub lhs: Access,
    /// `=` or `+=`.
    pub op: AssignOp,
    /// The span of the operator token(s).
    pub op_span: Span,
    /// The right-hand side.
    pub rhs: Expr,
}

/// The assignment operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    /// `=`: the output is overwritten.
    Assign,
    /// `+=`: the output is accumulated into.
    AddAssign,
}

/// A tensor access `A(i, j)`, or a scalar tensor `alpha` written without parentheses.
#[derive(Clone, Debug)]
pub struct Access {
    /// The tensor's name.
    pub tensor: Ident,
    /// The index variables, in mode order (empty for a scalar).
    pub indices: Vec<Ident>,
    /// The span of the whole access.
    pub span: Span,
}

/// A right-hand-side expression.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A tensor access.
    Access(Access),
    /// A numeric literal.
    Literal(Literal),
    /// An operator applied to its operands: `-x`, `a + b`, `sqrt(x)`, `x as i32`, in the order
    /// written (`heaviside(x)` already has its second operand, 0).
    Op {
        /// The operator.
        op: Op,
        /// The operands, as many as the operator's arity.
        args: Vec<Expr>,
        /// The span of the operator token, the function's name or the cast's `as TYPE`.
        span: Span,
    },
    /// A call of a user operator of `ops<...>`, by name (checked to name one, with its arity,
    /// once every clause is parsed).
    Call {
        /// The operator's name.
        name: Ident,
        /// The arguments.
        args: Vec<Expr>,
        /// The span of the name and the parentheses.
        span: Span,
    },
}

/// `name(x, y) = body [over REGION] [when REGION => body].. [identity v] [annihilator v]` in the
/// `ops<...>` clause. The bodies are expressions whose accesses are the parameters, written
/// without parentheses.
#[derive(Clone, Debug)]
pub struct OpDef {
    /// The operator's name.
    pub name: Ident,
    /// The parameters, in order.
    pub params: Vec<Ident>,
    /// The body, computed inside `over` (or wherever an operand is present without it).
    pub body: Expr,
    /// `over REGION`: where the body is computed with the operands' values.
    pub over: Option<Region>,
    /// `when REGION => body` clauses, tried in order before `over`.
    pub whens: Vec<(Region, Expr)>,
    /// `identity v`: `op(x, v) == op(v, x) == x`, the start of a reduction with it.
    pub identity: Option<(LiteralValue, Span)>,
    /// `annihilator v`: `op(x, v) == op(v, x) == v`.
    pub annihilator: Option<(LiteralValue, Span)>,
}

/// Where operands are present: parameter names combined with `&`, `|` and `!`.
#[derive(Clone, Debug)]
pub enum Region {
    /// The parameter at this position is present.
    Param(usize),
    /// Both hold.
    And(Box<Region>, Box<Region>),
    /// Either holds.
    Or(Box<Region>, Box<Region>),
    /// The region does not hold.
    Not(Box<Region>),
}

/// A numeric literal as written.
#[derive(Clone, Debug)]
pub struct Literal {
    /// The value.
    pub value: LiteralValue,
    /// Its span.
    pub span: Span,
}

/// The value of a literal: integers stay integers so that integer kernels can use them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LiteralValue {
    /// An integer literal.
    Int(i64),
    /// A floating-point literal.
    Float(f64),
}

/// `A: v` in the `fills<...>` clause: tensor `A` holds `v` where it stores nothing.
#[derive(Clone, Debug)]
pub struct FillDecl {
    /// The tensor.
    pub tensor: Ident,
    /// The fill value: a number, `inf` or `-inf`.
    pub value: LiteralValue,
    /// The span of the value.
    pub span: Span,
}

/// `j: op` in the `reduce<...>` clause: the sum over `j` is a reduction with `op`.
#[derive(Clone, Debug)]
pub struct ReduceDecl {
    /// The index variable.
    pub var: Ident,
    /// The operator (one with a reduction identity: `algebra::REDUCTIONS`).
    pub op: Op,
    /// The span of the operator.
    pub span: Span,
}

/// `A: FORMAT` in the `formats<...>` clause.
#[derive(Clone, Debug)]
pub struct FormatDecl {
    /// The tensor the format is for.
    pub tensor: Ident,
    /// The format.
    pub format: FormatExpr,
}

/// A format as written.
#[derive(Clone, Debug)]
pub enum FormatExpr {
    /// A named format, with integer arguments where it takes them: `csr`, `bcsr(4, 4)`.
    Named {
        /// The name.
        name: Ident,
        /// The arguments, with their spans.
        args: Vec<(usize, Span)>,
        /// The span of the whole format.
        span: Span,
    },
    /// An explicit level list with an optional mode ordering:
    /// `(dense, compressed(unordered)) order(1, 0)`.
    Levels {
        /// The levels, root first.
        levels: Vec<LevelDecl>,
        /// `order(...)`: the logical dimension each level stores, with spans.
        order: Option<(Vec<(usize, Span)>, Span)>,
        /// The span of the whole format.
        span: Span,
    },
}

/// One level of an explicit level list: `compressed(unordered, nonunique)`.
#[derive(Clone, Debug)]
pub struct LevelDecl {
    /// The level format's name.
    pub kind: Ident,
    /// Property modifiers (`unordered`, `nonunique`, ...).
    pub properties: Vec<Ident>,
}

/// The `schedule<...>` clause.
#[derive(Clone, Debug)]
pub enum Schedule {
    /// `schedule<auto>`.
    Auto(Span),
    /// A method chain of commands, in order: `split(i, i0, i1, Down, 16).parallelize(i0, ...)`.
    Commands(Vec<Command>),
}

/// One scheduling command, its arguments already typed. Names stay identifiers so that
/// `schedule` can point its errors at them; whether they name anything is for `schedule` to
/// decide.
#[derive(Clone, Debug)]
pub struct Command {
    /// The command and its arguments.
    pub kind: CommandKind,
    /// The span of the whole command, `name(...)`.
    pub span: Span,
}

/// A scheduling command with its arguments.
#[derive(Clone, Debug)]
pub enum CommandKind {
    /// `pos(i, p, A)`: the loop over `i` iterates the positions of `A`'s level that `i` indexes.
    Pos {
        /// The coordinate variable.
        var: Ident,
        /// The new position variable.
        pos: Ident,
        /// The tensor whose positions are iterated (`A` or `A(i, j)` as written).
        tensor: Ident,
    },
    /// `coord(p, i)`: the tile loop of a split position variable iterates coordinates again.
    Coord {
        /// The position variable.
        pos: Ident,
        /// The new coordinate variable.
        coord: Ident,
    },
    /// `collapse(i, j, f)` or `fuse(i, j, f)`.
    Collapse {
        /// The outer variable.
        outer: Ident,
        /// The inner variable, directly nested in the outer one.
        inner: Ident,
        /// The new collapsed variable.
        fused: Ident,
    },
    /// `split(i, i0, i1, Down|Up, n)`, or `divide(i, i0, i1, n)` for `Up`.
    Split {
        /// The variable split.
        var: Ident,
        /// The new outer variable.
        outer: Ident,
        /// The new inner variable.
        inner: Ident,
        /// Which of the two loops has the constant size.
        direction: Direction,
        /// That size (at least 1), with its span.
        factor: (usize, Span),
    },
    /// `reorder(a, b, ...)`: the listed loops in this relative order.
    Reorder {
        /// The variables, two or more.
        vars: Vec<Ident>,
    },
    /// `precompute(expr, i, iw, W)`.
    Precompute {
        /// The subexpression to precompute (a bare name is a scalar access).
        expr: Expr,
        /// The variable whose loop is precomputed over.
        var: Ident,
        /// The new variable of the producer's loop.
        workspace_var: Ident,
        /// The name of the new workspace.
        workspace: Ident,
    },
    /// `bound(i, ib, n, kind)`.
    Bound {
        /// The variable bounded.
        var: Ident,
        /// The new bounded variable.
        bound: Ident,
        /// The bound, with its span.
        value: (usize, Span),
        /// The kind of bound.
        kind: BoundKind,
    },
    /// `unroll(i, n)`.
    Unroll {
        /// The variable whose loop is unrolled.
        var: Ident,
        /// The factor (at least 1), with its span.
        factor: (usize, Span),
    },
    /// `parallelize(i, unit, race)`.
    Parallelize {
        /// The variable whose loop runs in parallel.
        var: Ident,
        /// The hardware.
        unit: Unit,
        /// The race strategy.
        race: Race,
    },
    /// `assemble(T, Append|Insert)`.
    Assemble {
        /// The tensor assembled.
        tensor: Ident,
        /// `Insert` rather than `Append`.
        insert: bool,
    },
    /// `prefetch(x, d)`: a hint to fetch the element of `x` a gather reads `d` nonzeros ahead.
    Prefetch {
        /// The dense input read.
        tensor: Ident,
        /// How many nonzeros ahead (at least 1), with its span.
        distance: (usize, Span),
    },
}

impl CommandKind {
    /// The command's name for messages (`collapse` for `fuse`, `split` for `divide`).
    pub fn name(&self) -> &'static str {
        match self {
            CommandKind::Pos { .. } => "pos",
            CommandKind::Coord { .. } => "coord",
            CommandKind::Collapse { .. } => "collapse",
            CommandKind::Split { .. } => "split",
            CommandKind::Reorder { .. } => "reorder",
            CommandKind::Precompute { .. } => "precompute",
            CommandKind::Bound { .. } => "bound",
            CommandKind::Unroll { .. } => "unroll",
            CommandKind::Parallelize { .. } => "parallelize",
            CommandKind::Assemble { .. } => "assemble",
            CommandKind::Prefetch { .. } => "prefetch",
        }
    }
}

/// Split direction: which of the two new loops has the constant size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// The inner loop has the constant size (strip-mining).
    Down,
    /// The outer loop has the constant size (a fixed number of blocks).
    Up,
}

/// The hardware a parallel loop maps to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Rayon tasks.
    CpuThread,
    /// `wide` SIMD lanes.
    CpuVector,
    /// CUDA thread blocks.
    GpuBlock,
    /// CUDA warps.
    GpuWarp,
    /// CUDA threads.
    GpuThread,
}

/// How a parallel loop's writes to shared output entries are made safe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Race {
    /// There are none (checked).
    NoRaces,
    /// The user asserts there are none.
    IgnoreRaces,
    /// Atomic adds.
    Atomics,
    /// Per-task temporaries reduced afterwards.
    Temporary,
    /// A reduction across lanes or tasks.
    ParallelReduction,
}

/// `bound` kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundKind {
    /// The loop runs exactly to the bound.
    MaxExact,
    /// The loop starts exactly at the bound.
    MinExact,
    /// The loop runs at most to the bound.
    MaxConstraint,
    /// The loop starts at least at the bound.
    MinConstraint,
}
