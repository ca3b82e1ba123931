//! The syntax tree of one `tensor_kernel!` invocation, with the span of every token a later stage
//! may point an error at. Nothing here is checked beyond the grammar: names are not resolved and
//! formats are not interpreted (that is `format::resolve` and `notation`).

use proc_macro2::Span;
use syn::{Attribute, Ident, Visibility};

/// A whole invocation: `[attrs] [pub] fn NAME; ASSIGNMENT; [formats<...>;] [schedule<...>;]`.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// Doc comments and attributes written before `fn`, carried to the generated function.
    pub attrs: Vec<Attribute>,
    /// The visibility of the generated function.
    pub vis: Visibility,
    /// The function's name.
    pub name: Ident,
    /// The index-notation statement.
    pub assignment: Assignment,
    /// The `formats<...>` clause, in written order (empty when absent).
    pub formats: Vec<FormatDecl>,
    /// The `schedule<...>` clause, if written.
    pub schedule: Option<Schedule>,
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
    /// `-e`.
    Neg {
        /// The operand.
        operand: Box<Expr>,
        /// The span of the `-` token.
        span: Span,
    },
    /// `a op b`.
    Binary {
        /// The operator.
        op: BinOp,
        /// The left operand.
        lhs: Box<Expr>,
        /// The right operand.
        rhs: Box<Expr>,
        /// The span of the operator token.
        span: Span,
    },
}

/// A binary operator of index notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+` (a union of iteration spaces).
    Add,
    /// `-` (a union).
    Sub,
    /// `*` (an intersection).
    Mul,
    /// `/` (an intersection: the right operand must be nonzero wherever the left is).
    Div,
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

/// One scheduling command: a name and its arguments, not yet interpreted.
#[derive(Clone, Debug)]
pub struct Command {
    /// The command's name (`split`, `pos`, ...).
    pub name: Ident,
    /// The arguments.
    pub args: Vec<CommandArg>,
    /// The span of the whole command.
    pub span: Span,
}

/// An argument of a scheduling command.
#[derive(Clone, Debug)]
pub enum CommandArg {
    /// A bare identifier: an index variable, a tensor, or a keyword such as `Down` or `CpuThread`.
    Ident(Ident),
    /// An integer.
    Int(usize, Span),
    /// An access or expression with parentheses: `A(i, j)` or `A(i,j) * x(j)` (for `precompute`).
    Expr(Expr),
}
