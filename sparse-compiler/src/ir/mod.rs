//! The imperative IR: the only thing backends see (DESIGN.md §2).
//!
//! A [`Kernel`] is a function over tensor parameters whose body is a tree of structured statements
//! over typed local variables. It knows nothing of lattices or formats: every level function has
//! already been expanded into loads, loops and arithmetic by `lower`. Backends know nothing of index
//! notation: they print what is here.
//!
//! Semantics a backend may rely on:
//! - Index expressions ([`Type::Index`]) are unsigned and never negative; loads from index arrays
//!   ([`Array::Pos`], [`Array::Crd`], index workspaces) yield indices. Arithmetic on indices never
//!   underflows (lowering orders subtractions so).
//! - Value expressions ([`Type::Value`]) are of the kernel's scalar type `T`.
//! - Signed expressions ([`Type::Signed`]) are 64-bit signed integers: loads from signed level
//!   arrays and differences that may be negative. They meet indices only through [`Expr::Cast`];
//!   a cast of a signed expression to an index is of a value the level function that built it
//!   proves to be in `0..=usize::MAX` (on validated tensors), and a cast of an index to signed is of
//!   a size or coordinate, which validated tensors keep below `i64::MAX`.
//! - Every variable is declared by [`Stmt::Let`] before use, in an enclosing block; names are unique
//!   in a kernel (the namer in `lower` guarantees it) and never collide with parameter names.
//! - Out-of-bounds accesses cannot happen on validated tensors, but backends may keep bounds checks.

mod print;

pub use print::print_kernel;

/// Local names a backend may introduce in the code it emits for IR statements (lane loops,
/// parallel pieces, binary searches), and that IR passes after lowering may declare (the
/// compute-only cursor). The lowerer never names a variable with one of these, so they cannot
/// hide the kernel's.
pub const RESERVED_LOCALS: &[&str] = &[
    "__acc",
    "__add",
    "__at",
    "__chunk",
    "__compute_cursor",
    "__counts",
    "__crd_part",
    "__cursor",
    "__from",
    "__hi",
    "__lanes",
    "__lanes_end",
    "__len",
    "__lo",
    "__n",
    "__out",
    "__out_cells",
    "__out_chunk",
    "__out_offset",
    "__out_row",
    "__out_rows",
    "__part",
    "__partial",
    "__partials",
    "__parts",
    "__piece",
    "__pieces",
    "__row",
    "__segments",
    "__span",
    "__to",
    "__vals_part",
    "__width",
    "__x",
];

/// Families of backend locals numbered per operand (`__row_0`, `__row_1`, ...): a name that is one
/// of these prefixes followed by digits only is reserved too.
pub const RESERVED_FAMILIES: &[&str] = &["__chunk_", "__row_", "__splat_"];

/// Whether `name` is a backend's local: listed in [`RESERVED_LOCALS`] or numbered in one of the
/// [`RESERVED_FAMILIES`].
pub fn is_reserved_local(name: &str) -> bool {
    RESERVED_LOCALS.contains(&name)
        || RESERVED_FAMILIES.iter().any(|family| {
            name.strip_prefix(family)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
}

use crate::format::FormatType;

/// A local variable, named by the lowerer.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Var(pub String);

/// The type of a local variable or expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Type {
    /// An unsigned index or position (`usize`).
    Index,
    /// A signed integer (`i64`): a stored offset, or arithmetic that may go below zero.
    Signed,
    /// A value of the kernel's scalar type.
    Value,
    /// A boolean.
    Bool,
}

/// A generated function.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The function's name.
    pub name: String,
    /// The tensor parameters: the output first, then the inputs in order of first appearance.
    pub params: Vec<Param>,
    /// Index variables whose extents are checked before anything runs: for each, the dimensions
    /// that must all be equal.
    pub shape_checks: Vec<ShapeCheck>,
    /// The statements after the shape checks.
    pub body: Vec<Stmt>,
}

/// A tensor parameter.
#[derive(Clone, Debug)]
pub struct Param {
    /// The name as written by the user.
    pub name: String,
    /// Whether the kernel writes it.
    pub output: bool,
    /// Its order.
    pub order: usize,
    /// Its format's runtime type.
    pub format: FormatType,
    /// A format the kernel iterates instead: the input is converted to it (a copy) before the
    /// kernel runs, because no loop order visits it concordantly with the other tensors.
    pub convert_to: Option<FormatType>,
}

/// One index variable's extent: every listed (parameter, dimension) must have the same size.
#[derive(Clone, Debug)]
pub struct ShapeCheck {
    /// The index variable (for the error message).
    pub index: String,
    /// (parameter index, dimension) pairs; the first sets the extent.
    pub dims: Vec<(usize, usize)>,
}

/// An array a statement can read or write.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Array {
    /// `pos` of level `level` of parameter `param`.
    Pos {
        /// The parameter.
        param: usize,
        /// The level.
        level: usize,
    },
    /// `crd` of level `level` of parameter `param`.
    Crd {
        /// The parameter.
        param: usize,
        /// The level.
        level: usize,
    },
    /// Another array of level `level` of parameter `param`, named by the level format that reads
    /// it (a range level's `offsets`); a backend binds it by that name. Loads yield `elem`:
    /// [`Type::Index`] (stored as `Idx`, widened), [`Type::Signed`] or [`Type::Bool`].
    Level {
        /// The parameter.
        param: usize,
        /// The level.
        level: usize,
        /// The array's name, an identifier.
        name: &'static str,
        /// The element type of its loads.
        elem: Type,
    },
    /// The values of parameter `param`.
    Vals {
        /// The parameter.
        param: usize,
    },
    /// A workspace declared by [`Stmt::Workspace`].
    Temp(Var),
}

/// A workspace's element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TempType {
    /// Values, initialized to zero.
    Value,
    /// Indices, initialized to zero.
    Index,
    /// Flags, initialized to false.
    Bool,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A variable.
    Var(Var),
    /// An index constant.
    Index(usize),
    /// A value constant, as written (an integer literal stays exact for integer kernels).
    Value(Literal),
    /// A boolean constant.
    Bool(bool),
    /// `array[index]`.
    Load(Array, Box<Expr>),
    /// The size of dimension `dim` of parameter `param`.
    Dim {
        /// The parameter.
        param: usize,
        /// The dimension.
        dim: usize,
    },
    /// The stored size of a dense, range or hashed level (dense: the dimension or block or slot
    /// count; range: the rows; hashed: buckets per parent).
    LevelSize {
        /// The parameter.
        param: usize,
        /// The level.
        level: usize,
    },
    /// The number of elements of an array.
    Len(Array),
    /// The number of coordinates appended so far to level `level` of the output being assembled
    /// (valid between [`Stmt::BeginAssembly`] and [`Stmt::EndAssembly`]).
    AppendedLen {
        /// The output level.
        level: usize,
    },
    /// A binary operation; both sides have the same type except for comparisons (bool result).
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// Arithmetic negation of a value or a signed integer.
    Neg(Box<Expr>),
    /// Logical negation.
    Not(Box<Expr>),
    /// A signed integer constant.
    Signed(i64),
    /// Conversion between [`Type::Index`] and [`Type::Signed`] (see the module doc for when it is
    /// exact).
    Cast(Type, Box<Expr>),
    /// Selects between two expressions of the same type.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// The number of leading elements of a sorted index array that are `<= target` (a binary
    /// search; coordinate recovery's search for the segment that holds a position).
    CountUpTo {
        /// The sorted array (a `pos` array).
        array: Array,
        /// The target.
        target: Box<Expr>,
    },
}

/// A literal value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    /// An integer, converted to `T` exactly.
    Int(i64),
    /// A float, converted to `T` (integer kernels refuse float literals at compile time).
    Float(f64),
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` on indices.
    Div,
    /// `/` on values: IEEE for floats; an integer division by zero gives zero (so a kernel never
    /// panics on data), and `MIN / -1` wraps.
    Quotient,
    /// Minimum of two indices or signed integers.
    Min,
    /// Maximum of two indices or signed integers.
    Max,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&&`
    And,
    /// `||`
    Or,
}

/// How the iterations of a [`Stmt::ParallelFor`] write the output's values.
#[derive(Clone, Debug, PartialEq)]
pub enum ParallelWrites {
    /// Iteration `v` (the loop starts at 0) writes only the output positions
    /// `[v * chunk, (v + 1) * chunk)`: each iteration owns a plain slice of the values, so its
    /// stores need no atomics and can use SIMD lanes. (`NoRaces` over the output's rows.)
    Rows {
        /// The number of value positions per iteration.
        chunk: Expr,
    },
    /// Each entry is written by one iteration only (`NoRaces`, `IgnoreRaces`): through atomic
    /// cells with relaxed loads and stores, plain moves.
    Exclusive,
    /// Iterations may add into one entry (`Atomics`): atomic read-modify-writes.
    Atomic,
    /// Each iteration appends whole rows of the output's last level `level` (compressed, under
    /// dense rows), in row order. Backends run the body twice in parallel: once counting each
    /// row's appends (a row ends at its [`Stmt::FinishSegment`]), then, after laying out `pos` by
    /// prefix sums, once writing each iteration's coordinates and values into its own part of the
    /// arrays (between [`Stmt::BeginAssembly`] and [`Stmt::EndAssembly`]).
    AssembleRows {
        /// The output level appended to.
        level: usize,
    },
    /// Each task adds into its own zeroed copy of the output; the copies are added into the output
    /// afterwards in task order (`Temporary`, `ParallelReduction`), so the result does not depend
    /// on scheduling for a given thread count.
    Partials,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// Declares `var` of `ty`, initialized to `init`.
    Let {
        /// The variable.
        var: Var,
        /// Its type.
        ty: Type,
        /// Its initial value.
        init: Expr,
        /// Whether later statements assign it.
        mutable: bool,
    },
    /// `var = value` (or `var += value` when `accumulate`).
    Assign {
        /// The variable.
        var: Var,
        /// The value.
        value: Expr,
        /// Whether to add instead of overwrite.
        accumulate: bool,
    },
    /// `array[index] = value` (or `+=` when `accumulate`); the array is an output's values or a
    /// workspace.
    Store {
        /// The array.
        array: Array,
        /// The index.
        index: Expr,
        /// The value.
        value: Expr,
        /// Whether to add instead of overwrite.
        accumulate: bool,
    },
    /// Declares a workspace of `len` elements of `ty`, zeroed.
    Workspace {
        /// Its name.
        var: Var,
        /// The element type.
        ty: TempType,
        /// The number of elements.
        len: Expr,
    },
    /// Sorts the first `len` elements of an index workspace.
    SortPrefix {
        /// The workspace.
        array: Var,
        /// How many elements.
        len: Expr,
    },
    /// `for var in lo..hi { body }`, `var` an index.
    For {
        /// The loop variable, declared by the loop.
        var: Var,
        /// The first value.
        lo: Expr,
        /// One past the last value.
        hi: Expr,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `for var in lo..hi { body }` with iterations spread over threads. The body may only write
    /// the output's values (as `writes` says) and locals it declares.
    ParallelFor {
        /// The loop variable.
        var: Var,
        /// The first value.
        lo: Expr,
        /// One past the last value.
        hi: Expr,
        /// The body.
        body: Vec<Stmt>,
        /// How iterations write the output.
        writes: ParallelWrites,
    },
    /// `for var in lo..hi { body }` to be computed in SIMD lanes where the body allows it: a body
    /// that stores `out[b + var] (+)= f(loads at c + var, loop invariants)` runs `T::LANES` values
    /// at a time, with a scalar tail; any other body runs as a plain loop.
    VectorFor {
        /// The loop variable.
        var: Var,
        /// The first value.
        lo: Expr,
        /// One past the last value.
        hi: Expr,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `while cond { body }`.
    While {
        /// The condition.
        cond: Expr,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `if cond { then } else { otherwise }`.
    If {
        /// The condition.
        cond: Expr,
        /// Taken when true.
        then: Vec<Stmt>,
        /// Taken when false (may be empty).
        otherwise: Vec<Stmt>,
    },
    /// Sets every value of the output to zero (an `=` kernel into a dense output); on the
    /// backend's threads when `parallel` (the kernel runs a thread-parallel loop anyway).
    ZeroOutput {
        /// Whether the zeroing may use threads.
        parallel: bool,
    },
    /// Gives the output the structure of input `from`'s first levels, values zeroed: the kernel
    /// then writes values at that input's positions. Only in the kernel's prologue, the run of
    /// [`Stmt::CheckBound`] and `CopyStructure` statements that starts its body, before anything
    /// reads the output (backends run the prologue before binding the output's arrays).
    CopyStructure {
        /// The input parameter whose structure the output takes.
        from: usize,
    },
    /// Starts assembling a sparse output: its levels are cleared (capacity kept) and rebuilt by
    /// the [`Stmt::Append`] and [`Stmt::FinishSegment`] statements that follow.
    BeginAssembly,
    /// Appends coordinate `coord` to compressed or singleton level `level` of the output (and,
    /// on the last level, `value` to its values).
    Append {
        /// The output level.
        level: usize,
        /// The coordinate.
        coord: Expr,
    },
    /// Appends a value to the output's values array.
    AppendValue(Expr),
    /// Closes the segment of compressed output level `level` under parent position `parent`:
    /// `pos[parent + 1]` = the level's current length (append_edges, the one-pass form).
    FinishSegment {
        /// The output level.
        level: usize,
        /// The parent position.
        parent: Expr,
    },
    /// Ends the assembly: the rebuilt levels are validated and installed in the output.
    EndAssembly,
    /// Starts collecting the output's entries, for an output whose levels cannot be appended to
    /// in order (hashed levels): the entries are packed into its format at [`Stmt::EndEntries`].
    BeginEntries,
    /// Adds an entry at logical coordinates `coords`.
    AppendEntry {
        /// One coordinate per dimension of the output.
        coords: Vec<Expr>,
        /// The value.
        value: Expr,
    },
    /// Packs the collected entries into the output's format and installs them.
    EndEntries,
    /// Returns from the kernel with an error: the output's existing structure is not the one the
    /// kernel computes (compute-only kernels).
    FailStructureMismatch,
    /// A hint: the loop that follows reads `array` in order from `from`, and the next run of the
    /// enclosing loop reads on from where this one stops (a compressed level under a parent whose
    /// position steps by one), so a backend may start fetching ahead of `from`. It changes
    /// nothing the kernel computes; a backend may ignore it.
    Prefetch {
        /// The array read.
        array: Array,
        /// The first position the loop reads.
        from: Expr,
    },
    /// A hint (a `prefetch` command): the loop gathers from `array` at coordinates it reads from
    /// `crd`, and the run that reads position `at` will read `array[offset + crd[at] * stride]`
    /// (for a matrix gathered by rows, the first element of a row), so a backend may fetch that
    /// now. Nothing happens when `at` is past the end of `crd`. Like [`Stmt::Prefetch`], it
    /// changes nothing the kernel computes; a backend may ignore it.
    PrefetchGather {
        /// The array gathered from (an input's values).
        array: Array,
        /// The coordinates the gathers follow.
        crd: Array,
        /// The position whose gather to fetch for.
        at: Expr,
        /// Where the gathered level's coordinate 0 is, given the levels above.
        offset: Expr,
        /// Elements per coordinate of the gathered level.
        stride: Expr,
    },
    /// Returns with an error unless `extent` equals `bound` (`exact`) or is at most `bound`: the
    /// promise a `bound` schedule command makes about an index variable's extent.
    CheckBound {
        /// The index variable (for the message).
        index: String,
        /// Its extent.
        extent: Expr,
        /// The bound.
        bound: usize,
        /// Whether the extent must equal the bound rather than not exceed it.
        exact: bool,
    },
}

impl Stmt {
    /// The statement lists nested directly inside this statement.
    pub fn bodies(&self) -> Vec<&[Stmt]> {
        match self {
            Stmt::For { body, .. }
            | Stmt::ParallelFor { body, .. }
            | Stmt::VectorFor { body, .. }
            | Stmt::While { body, .. } => vec![body],
            Stmt::If {
                then, otherwise, ..
            } => vec![then, otherwise],
            _ => Vec::new(),
        }
    }

    /// Whether this statement belongs to a kernel's prologue, which backends run before binding
    /// the output's arrays: bound checks and structure copies ([`Stmt::CopyStructure`]).
    pub fn is_prologue(&self) -> bool {
        matches!(self, Stmt::CheckBound { .. } | Stmt::CopyStructure { .. })
    }
}

/// Whether `holds` is true of a statement of `stmts` or of one nested in them, at any depth.
pub fn any_stmt(stmts: &[Stmt], holds: &impl Fn(&Stmt) -> bool) -> bool {
    (stmts.iter()).any(|s| holds(s) || s.bodies().into_iter().any(|b| any_stmt(b, holds)))
}
