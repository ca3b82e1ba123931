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
pub mod twin;
pub mod verify;
pub(crate) mod visit;

pub use intrinsic::Intrinsic;
pub use print::{format_type, print_kernel};
pub use reduce::{COMBINE_OPERANDS, ReduceOp};
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

/// Where an [`Stmt::Update`] writes.
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    /// A local variable.
    Var(Var),
    /// An element of an array: the output's values or a workspace.
    Elem(Array, Expr),
}

/// How an [`Stmt::Update`] combines its value with what the place holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UpdateOp {
    /// Overwrite.
    Set,
    /// Combine with a reduction operator.
    Reduce(ReduceOp),
}

/// Whether an [`Stmt::Update`] must synchronize with other iterations of the region around it.
/// Lowering decides it once, from the schedule's race strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sync {
    /// No other iteration writes the place while this one does: a plain write.
    Owned,
    /// Other iterations may update the place concurrently: an atomic read-modify-write.
    Atomic,
}

/// A step that runs on the host around the kernel's compute (assembly of a sparse output, bound
/// checks, copies): a GPU back end runs these on the CPU side of its launcher.
#[derive(Clone, Debug, PartialEq)]
pub enum HostStep {
    /// Sets every value of the output to zero (an `=` kernel into a dense output); on the
    /// back end's threads when `parallel` (the kernel runs a thread-parallel region anyway).
    ZeroOutput {
        /// Whether the zeroing may use threads.
        parallel: bool,
    },
    /// Sets every value of the output to `value` (an `=` kernel into a dense output whose
    /// reduction's identity or fill is not zero), as [`HostStep::ZeroOutput`] zeroes it.
    FillOutput {
        /// The value.
        value: Literal,
        /// Whether the filling may use threads.
        parallel: bool,
    },
    /// Gives the output the structure of input `from`'s first levels, values zeroed: the kernel
    /// then writes values at that input's positions. Only in the kernel's prologue, the run of
    /// [`HostStep::CheckBound`] and `CopyStructure` steps that starts its body, before anything
    /// reads the output (back ends run the prologue before binding the output's arrays).
    CopyStructure {
        /// The input parameter whose structure the output takes.
        from: usize,
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
    /// Starts assembling a sparse output: its levels are cleared (capacity kept) and rebuilt by
    /// the [`Stmt::Append`] and [`Stmt::FinishSegment`] statements that follow.
    BeginAssembly,
    /// Between the phases of a row-parallel assembly: lays out `pos` of output level `level` by
    /// prefix sums of the counted rows, and gives each fill iteration its part of the arrays.
    LayoutRows {
        /// The output level appended to.
        level: usize,
    },
    /// Ends the assembly: the rebuilt levels are validated and installed in the output.
    EndAssembly,
    /// Starts collecting the output's entries as coordinate/value triples (scatter assembly),
    /// for an output whose levels cannot be appended to in order (hashed levels, loops against
    /// its level order, a sum outside its loops, `+=`): at [`HostStep::EndEntries`] they are
    /// sorted, repeated coordinates summed and the result packed into its format.
    BeginEntries {
        /// `+=`: the output's stored entries are collected first, so the new ones add to them.
        merge: bool,
    },
    /// Sorts the collected entries, sums repeated coordinates, packs them into the output's
    /// format and installs them.
    EndEntries,
}

/// Where a workspace lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Private to the iteration (or thread) that declares it: registers, the stack, the heap.
    Local,
    /// Shared by the threads of a GPU block.
    Shared,
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
    /// `place = value`, or `place = place op value`: into a local, the output's values or a
    /// workspace.
    Update {
        /// Where.
        place: Place,
        /// Overwrite or combine.
        op: UpdateOp,
        /// The value.
        value: Expr,
        /// Whether the write synchronizes with other iterations of the enclosing region.
        sync: Sync,
    },
    /// Declares a workspace of `len` elements of `ty`, each `init`.
    Workspace {
        /// Its name.
        var: Var,
        /// The element type.
        ty: TempType,
        /// The number of elements.
        len: Expr,
        /// Every element's first value (a constant of the element type).
        init: Expr,
        /// Where it lives.
        space: Space,
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
    /// `for var in 0..width { body }` over a register tile (the `row_tile` pass): every values
    /// array the body reads or writes at `base + var`, `base` the same in every iteration, has
    /// `width` elements from `base` in a valid tensor, so a back end may take each such row as a
    /// chunk of constant length and unroll the loop; where a chunk is missing (a corrupted
    /// tensor) the loop may not run at all.
    Tile {
        /// The loop variable, declared by the loop.
        var: Var,
        /// The number of iterations.
        width: usize,
        /// The body.
        body: Vec<Stmt>,
    },
    /// For every row `r` in `lo..hi`, the output's `vals[r]` set to (or, with
    /// [`UpdateOp::Reduce`] of `Add`, added to) `Σ weights[p] · vals[crd[p]]` over the positions
    /// `pos[r]..pos[r + 1]`, each sum in any order (the `dots` pass: a loop of SpMV rows, each
    /// an [`Expr::GatherDot`], into a dense output indexed by the row). A back end may hint
    /// each row's coordinates and weights ahead as [`Stmt::Prefetch`] does.
    RowDots {
        /// Overwrite or add.
        op: UpdateOp,
        /// The gathered input's values.
        vals: Array,
        /// The level's coordinates.
        crd: Array,
        /// The values at the level's positions.
        weights: Array,
        /// The level's segment bounds ([`Array::Pos`] of the level of `crd`).
        pos: Array,
        /// The first row and one past the last.
        rows: Box<(Expr, Expr)>,
    },
    /// For every position `p` in `lo..hi` and `t` in `0..width`, in order of `p`:
    /// `acc[t] += weights[p] · vals[crd[p] · stride + offset + t]` (the `axpy` pass: SpMM's row
    /// of `A` times rows of `B` into a register tile). A position whose row of `vals` does not
    /// hold `width` elements from there adds nothing. With `ahead` above zero, a back end may
    /// hint the row that position `p + ahead` reads, as [`Stmt::PrefetchGather`] does.
    GatherAxpy {
        /// The workspace summed into (at least `width` elements).
        acc: Var,
        /// The tile's width.
        width: usize,
        /// The gathered input's values (a dense matrix's).
        vals: Array,
        /// The level's coordinates.
        crd: Array,
        /// The values at the level's positions.
        weights: Array,
        /// Elements of `vals` per coordinate.
        stride: Expr,
        /// The first element read in each row.
        offset: Expr,
        /// The first position and one past the last.
        range: Box<(Expr, Expr)>,
        /// How many positions ahead rows are hinted (0: none).
        ahead: usize,
    },
    /// For every row `r` in `lo..hi`: the output's `vals[r · out_stride + out_offset + t]`, for
    /// `t` in `0..width`, set to the sum a [`Stmt::GatherAxpy`] makes from a tile of zeros over
    /// the positions `pos[r]..pos[r + 1]` (the `axpy` pass: a loop of SpMM rows, each a tile
    /// of `C` summed over a row of `A`). A row of the output that does not hold `width`
    /// elements there is skipped. A back end may hint each row's coordinates and weights ahead
    /// as [`Stmt::Prefetch`] does, and rows `ahead` positions ahead as the axpy does.
    RowAxpys {
        /// The tile's width.
        width: usize,
        /// The gathered input's values (a dense matrix's).
        vals: Array,
        /// The level's coordinates.
        crd: Array,
        /// The values at the level's positions.
        weights: Array,
        /// The level's segment bounds ([`Array::Pos`] of the level of `crd`).
        pos: Array,
        /// Elements of `vals` per coordinate, and the first element read in each row.
        at: Box<(Expr, Expr)>,
        /// Elements of the output per row, and the first element written in each row.
        out_at: Box<(Expr, Expr)>,
        /// The first row and one past the last.
        rows: Box<(Expr, Expr)>,
        /// How many positions ahead rows are hinted (0: none).
        ahead: usize,
    },
    /// A loop whose iterations run in parallel.
    Parallel(Region),
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
    /// A step on the host around the compute.
    Host(HostStep),
    /// Appends coordinate `coord` to compressed or singleton level `level` of the output being
    /// assembled (between [`HostStep::BeginAssembly`] and [`HostStep::EndAssembly`]).
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
    /// In a [`OutputAccess::CountRows`] region: one more entry in the current row.
    CountEntry,
    /// In a [`OutputAccess::CountRows`] region: the current row, under parent position
    /// `parent`, holds the entries counted since the last one closed.
    CloseRow {
        /// The parent position.
        parent: Expr,
    },
    /// In a [`OutputAccess::FillRows`] region: writes the coordinate of the iteration's next
    /// entry.
    FillCoord(Expr),
    /// In a [`OutputAccess::FillRows`] region: writes the value of the iteration's next entry and
    /// moves on to the one after it.
    FillValue(Expr),
    /// Adds an entry at logical coordinates `coords` to the entries collected since
    /// [`HostStep::BeginEntries`].
    AppendEntry {
        /// One coordinate per dimension of the output.
        coords: Vec<Expr>,
        /// The value.
        value: Expr,
    },
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
}

impl Stmt {
    /// The statement lists nested directly inside this statement.
    pub fn bodies(&self) -> Vec<&[Stmt]> {
        match self {
            Stmt::For { body, .. }
            | Stmt::Tile { body, .. }
            | Stmt::Parallel(Region { body, .. })
            | Stmt::While { body, .. } => vec![body],
            Stmt::If {
                then, otherwise, ..
            } => vec![then, otherwise],
            _ => Vec::new(),
        }
    }

    /// The statement lists nested directly inside this statement, to change.
    pub fn bodies_mut(&mut self) -> Vec<&mut Vec<Stmt>> {
        match self {
            Stmt::For { body, .. }
            | Stmt::Tile { body, .. }
            | Stmt::Parallel(Region { body, .. })
            | Stmt::While { body, .. } => vec![body],
            Stmt::If {
                then, otherwise, ..
            } => vec![then, otherwise],
            _ => Vec::new(),
        }
    }

    /// Whether this statement belongs to a kernel's prologue, which backends run before binding
    /// the output's arrays: bound checks and structure copies ([`HostStep::CopyStructure`]).
    pub fn is_prologue(&self) -> bool {
        matches!(
            self,
            Stmt::Host(HostStep::CheckBound { .. } | HostStep::CopyStructure { .. })
        )
    }

    /// Whether this statement adds to the output being assembled.
    pub fn is_append(&self) -> bool {
        matches!(
            self,
            Stmt::Append { .. } | Stmt::AppendValue(_) | Stmt::FinishSegment { .. }
        )
    }
}
