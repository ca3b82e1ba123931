//! The imperative IR: the only thing backends see (docs/architecture.md).
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
//! - Every variable is declared (by [`Stmt::Let`], a loop, a region or a workspace) before use, in
//!   an enclosing block, and never declared again where it is visible; names never collide with
//!   parameter names. Back ends name their own locals away from every name the kernel declares.
//! - A [`Region`] says where its iterations run ([`Unit`]), how they reach the output
//!   ([`OutputAccess`]) and which scalars they reduce into ([`Reduction`]); each [`Stmt::Update`]
//!   says whether it synchronizes ([`Sync`]). Lowering decides these from the schedule's race
//!   strategy; a back end only spells them.
//! - Steps that run on the host around the compute are [`Stmt::Host`]; a row-parallel assembly
//!   is three explicit phases (count, [`HostStep::LayoutRows`], fill).
//! - [`verify::verify`] checks these invariants after lowering and after every pass.
//! - Out-of-bounds accesses cannot happen on validated tensors, but backends may keep bounds checks.

mod build;
mod intrinsic;
pub mod passes;
mod print;
mod reduce;
mod stmt;
pub mod twin;
pub mod verify;
pub(crate) mod visit;

pub use intrinsic::Intrinsic;
pub use print::{format_type, print_kernel};
pub use reduce::{COMBINE_OPERANDS, ReduceOp};
pub use stmt::{HostStep, Place, Space, Stmt, Sync, UpdateOp};
pub use visit::{any_stmt, bin, declared, declared_names, mentions, offset_of, substitute};

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
    /// The tensor parameters, numbered as the statement's tensors: the output first, then the
    /// inputs in order of first appearance.
    pub params: Vec<Param>,
    /// The order of the generated function's parameters, as indices into `params` (the output
    /// first; the explicit parameter list can order the inputs otherwise).
    pub signature: Vec<usize>,
    /// Index variables whose extents are checked before anything runs: for each, the dimensions
    /// that must all be equal.
    pub shape_checks: Vec<ShapeCheck>,
    /// The statements after the shape checks.
    pub body: Vec<Stmt>,
    /// For a reduction with a user operator ([`ReduceOp::User`]), how it combines: an expression
    /// of the accumulator and the value ([`COMBINE_OPERANDS`]).
    pub combine: Option<Expr>,
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
    /// Whether the function takes it as a plain value `T` (an order-0 input in `scalars<...>`):
    /// its values array is then that one value.
    pub by_value: bool,
    /// For a tensor local to the kernel, the parameter it is copied from (into `convert_to`)
    /// before the kernel runs: the reads of that input in an index order its storage cannot
    /// follow. The function does not take it, and its shape is that parameter's.
    pub copy_of: Option<usize>,
    /// The fill value the kernel declares for it (`fills<...>`; zero where it names none): the
    /// kernel checks that the tensor it gets has it.
    pub fill: Literal,
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
    /// Values (initialized as [`Stmt::Workspace`] says).
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
    /// `vals[crd[at]]`: an input's values read at the coordinate a level stores at position `at`
    /// (the `gather` pass; SpMV's `x[j]` with `j = crd[p]`). A back end may read `vals` there
    /// without a bounds check once it has checked, per call, that every coordinate of the level
    /// is inside `vals`.
    Gather {
        /// The input's values ([`Array::Vals`] of an input).
        vals: Array,
        /// The level's coordinates ([`Array::Crd`]).
        crd: Array,
        /// The position.
        at: Box<Expr>,
    },
    /// `Σ weights[p] · vals[crd[p]]` over `p` in `lo..hi`, summed in any order (the `dots` pass:
    /// an SpMV row); `weights` is the values of the input whose level `crd` is.
    GatherDot {
        /// The gathered input's values.
        vals: Array,
        /// The level's coordinates.
        crd: Array,
        /// The values at the level's positions.
        weights: Array,
        /// The first position and one past the last.
        range: Box<(Expr, Expr)>,
    },
    /// `Σ a[at.0 + k] · b[at.1 + k]` over `k` in `0..len`, summed in any order (the `dots`
    /// pass: SDDMM's product of a row of `C` and a row of `D`); reads stop at either array's end.
    DenseDot {
        /// The first input's values.
        a: Array,
        /// The second input's values.
        b: Array,
        /// Where the two rows start.
        at: Box<(Expr, Expr)>,
        /// How many products.
        len: Box<Expr>,
    },
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
    /// (valid between [`HostStep::BeginAssembly`] and [`HostStep::EndAssembly`]).
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
    /// An intrinsic applied to values.
    Call(Intrinsic, Vec<Expr>),
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
    /// The runtime's work threshold: the stored values below which a CPU thread region runs on
    /// the calling thread ([`Region::work`]); below it coordinate tiles run unsplit.
    ParallelMinWork,
    /// The runtime's work below which a kernel runs the serial form of a split (`ir::twin`).
    UnsplitBelow,
    /// Whether the runtime gives the [`Stmt::Prefetch`] hints for `array`: it is larger than the
    /// caches. A loop whose hints it would skip runs a copy without them (the `hints` pass).
    Hinted(Array),
    /// The first position in `[lo, hi)` whose element of `array` is `>= target`, or `hi` when
    /// there is none: a binary search over a segment of a level's sorted coordinates (`crd`),
    /// Senanayake et al.'s `binarySearchAfter`, which finds where a coordinate tile starts in a
    /// compressed level. `array[lo..hi]` is sorted (non-decreasing) and `lo <= hi <= len`.
    BinarySearchAfter {
        /// The sorted array (a `crd` array).
        array: Array,
        /// The segment's first position.
        lo: Box<Expr>,
        /// One past the segment's last position.
        hi: Box<Expr>,
        /// The coordinate searched for.
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

/// The unit a [`Region`]'s iterations are spread over (Senanayake et al., the `parallelize`
/// command's hardware units). A back end maps each to what it has: rayon tasks, SIMD lanes, CUDA
/// blocks, warps and threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// CPU threads.
    CpuThread,
    /// SIMD lanes of one thread.
    CpuVector,
    /// GPU thread blocks.
    GpuBlock,
    /// GPU warps of a block.
    GpuWarp,
    /// GPU threads of a warp or block.
    GpuThread,
}

/// How a [`Region`]'s iterations reach the output's values.
#[derive(Clone, Debug, PartialEq)]
pub enum OutputAccess {
    /// The region writes no output value.
    Untouched,
    /// Iteration `v` (from 0) owns output positions `[v * chunk, (v + 1) * chunk)` and writes
    /// only those (`NoRaces` over dense rows), with plain updates; one whose block starts past
    /// the output's end (an `Up` split's last tiles) writes nothing, and may be skipped.
    Blocks {
        /// The number of value positions per iteration.
        chunk: Expr,
        /// For shares of equal entries: the `pos` of the rows' segments, and rows an iteration.
        balance: Option<(Array, usize)>,
    },
    /// The iterations write one shared output; each [`Stmt::Update`] of it says whether it
    /// synchronizes ([`Sync`]).
    Scattered,
    /// As [`OutputAccess::Scattered`], for the tasks of a nonzero split over a dense vector
    /// output whose rows are `pos`'s segments, iteration `v` walking the positions from `start`
    /// (of `v`, ascending) to the next iteration's start: the rows that start and end inside an
    /// iteration's positions are that iteration's own (plain stores, a run of dot products),
    /// the rows at the iterations' starts are shared (atomic adds). Only sets and sums into the
    /// output.
    Runs {
        /// The compressed level whose positions the iterations walk.
        pos: Array,
        /// An iteration's first position, in terms of the region's variable.
        start: Expr,
    },
    /// Each unit of `scope` updates its own copy of the output's values, which starts at the
    /// identity of `op`; after the region the copies are combined into the output with `op`, in
    /// a fixed order, so the result does not depend on scheduling (`Temporary`,
    /// `ParallelReduction`).
    Reduced {
        /// How the copies combine.
        op: ReduceOp,
        /// Who owns a copy.
        scope: Scope,
    },
    /// Each iteration appends whole rows of output level `level` (compressed, under dense rows),
    /// in row order. Only between lowering and the assembly pass, which splits the region into
    /// its count and fill phases.
    AppendRows {
        /// The output level appended to.
        level: usize,
    },
    /// Per-task parts of an assembly by append: the iterations are cut into contiguous pieces in
    /// order, each piece appends (coordinates, values, closed segments) into a part of its own,
    /// counting positions from the part's start, and after the region the parts are
    /// concatenated in piece order, their positions shifted, which gives the arrays a serial run
    /// appends. The region's iterations must append in the output's storage order, each after
    /// the one before (the outer loop over the output's first coordinate, or over its tiles).
    AppendParts,
    /// Per-task lists of coordinate/value triples: each piece of the iterations pushes into a list
    /// of its own, and the lists are appended to the kernel's in piece order after the region
    /// (the triples are sorted and summed when the output is packed, so any order is right).
    EntryParts,
    /// The count phase of a row-parallel assembly: each iteration counts the entries it appends
    /// to each row of output level `level` ([`Stmt::CountEntry`], [`Stmt::CloseRow`]).
    CountRows {
        /// The output level appended to.
        level: usize,
    },
    /// The fill phase of a row-parallel assembly, after [`HostStep::LayoutRows`]: each
    /// iteration writes its coordinates and values into its own part of the output's arrays
    /// ([`Stmt::FillCoord`], [`Stmt::FillValue`]).
    FillRows {
        /// The output level appended to.
        level: usize,
    },
}

/// Who owns a private copy in a reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Each SIMD lane.
    Lanes,
    /// Each task of a thread-parallel region.
    Tasks,
    /// Each thread of a GPU warp, combined by shuffles.
    Warp,
    /// Each thread of a GPU block, combined through shared memory.
    Block,
}

/// A scalar that a region's iterations reduce into: each unit of `scope` adds into its own copy,
/// which starts at the identity of `op`, and the copies are combined into `var` with `op` after
/// the region.
#[derive(Clone, Debug, PartialEq)]
pub struct Reduction {
    /// The variable, declared before the region.
    pub var: Var,
    /// How the copies combine.
    pub op: ReduceOp,
    /// Who owns a copy.
    pub scope: Scope,
}

/// A loop whose iterations run in parallel on `unit`: `for var in lo..hi { body }`. The body may
/// write only the output's values (as `output` says), the reductions' variables, and locals and
/// workspaces it declares (each iteration's own).
#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    /// Where the iterations run.
    pub unit: Unit,
    /// The loop variable, declared by the region.
    pub var: Var,
    /// The first value.
    pub lo: Expr,
    /// One past the last value.
    pub hi: Expr,
    /// The body.
    pub body: Vec<Stmt>,
    /// How the iterations reach the output's values.
    pub output: OutputAccess,
    /// The scalars the iterations reduce into.
    pub reductions: Vec<Reduction>,
    /// How many units the region occupies when that is fixed at compile time (GPU warps and
    /// threads: the block's shape); iterations from `hi` to `lo + units` idle.
    pub units: Option<usize>,
    /// For CPU threads, the work the region stands for (its inputs' stored values): below the
    /// runtime's measured threshold it runs on the calling thread, as under OpenMP's `if`.
    pub work: Option<Expr>,
}
