//! The IR's statements: what a kernel's body is made of, and the host steps around its compute.

use super::{Array, Expr, Literal, ReduceOp, Region, TempType, Type, Var};

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
