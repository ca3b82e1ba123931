//! The compiler's errors: every mistake a user can make in a `tensor_kernel!` invocation, and the
//! few things the compiler does not support yet, each with the span it points at. All wording lives
//! in [`Error::message`]; the macro shell turns errors into spanned `compile_error!`s.

mod cin;

pub use cin::CinMistake;
use proc_macro2::Span;

/// A compile error with the span of the offending tokens.
#[derive(Clone, Debug)]
pub struct Error {
    /// Where the error points.
    pub span: Span,
    /// What is wrong.
    pub kind: ErrorKind,
}

/// What is wrong. Grouped by the stage that finds it.
#[derive(Clone, Debug, PartialEq)]
pub enum ErrorKind {
    // syntax
    /// The grammar did not match; the message comes from the parser.
    Syntax(String),

    // format resolution
    /// A `formats<...>` entry names a tensor that the statement does not use.
    UnknownTensor(String),
    /// A tensor is given two formats.
    DuplicateFormat(String),
    /// A level format name that does not exist.
    UnknownLevel(String),
    /// A level property that does not exist, or does not apply to that level.
    UnknownProperty {
        /// The property written.
        property: String,
        /// The level it was written on.
        level: &'static str,
        /// The properties that level takes.
        allowed: &'static [&'static str],
    },
    /// A named format that does not exist.
    UnknownFormat(String),
    /// A named format given the wrong number of arguments.
    FormatArguments {
        /// The format.
        format: String,
        /// What it takes.
        expected: &'static str,
    },
    /// A level list whose length does not match the tensor's order.
    LevelCount {
        /// The tensor.
        tensor: String,
        /// Its order in the statement.
        order: usize,
        /// The number of levels written.
        levels: usize,
    },
    /// A named format for a tensor of another order (`csr` on a vector).
    FormatOrder {
        /// The tensor.
        tensor: String,
        /// The format.
        format: String,
        /// The orders the format stores.
        expected: &'static str,
        /// The tensor's order in the statement.
        found: usize,
    },
    /// `order(...)` is not a permutation of the tensor's dimensions.
    NotPermutation {
        /// The tensor.
        tensor: String,
        /// Its order.
        order: usize,
    },
    /// A level list the runtime cannot store (a range level not followed by offset, ...).
    InvalidLevels(&'static str),
    /// An output format with a level that cannot be assembled (range, offset).
    OutputNotAssemblable {
        /// The output tensor.
        tensor: String,
        /// The level format.
        level: &'static str,
    },

    // notation
    /// A tensor used with two different orders (`A(i)` and `A(i, j)`).
    InconsistentOrder(String),
    /// The same index variable used twice in one access (`A(i, i)`).
    RepeatedIndex(String),
    /// An index variable of the output that the right-hand side never uses.
    UnboundOutputIndex(String),
    /// The output is read on the right-hand side at other indices than its own.
    OutputReadIndices {
        /// The output.
        tensor: String,
        /// The access as written on the right.
        found: String,
        /// The output's own access.
        expected: String,
    },
    /// A sparse output read on the right-hand side.
    OutputReadSparse(String),
    /// The output is read on the right-hand side of a kernel that writes some of its elements
    /// before reading them, or not through the iteration that reads them.
    OutputReadUnsafe {
        /// The output.
        tensor: String,
        /// What the kernel does to it.
        why: String,
    },

    // parameters
    /// A name in the parameter list that is not a tensor of the statement.
    UnknownParam(String),
    /// A tensor listed twice in the parameter list.
    DuplicateParam(String),
    /// A tensor the parameter list leaves out.
    MissingParam(String),
    /// A parameter list that does not start with the output.
    OutputNotFirst {
        /// The output.
        output: String,
        /// The first name listed.
        first: String,
    },
    /// A parameter list of a `multi(..)` kernel whose first names are not its outputs, in order.
    OutputsNotFirst {
        /// The outputs, in order, as the message lists them.
        outputs: String,
        /// The name listed where an output belongs.
        first: String,
    },
    /// A name in `scalars<...>` that is not a tensor of the statement.
    UnknownScalar(String),
    /// A name in `scalars<...>` whose tensor is written with indices.
    ScalarWithIndices {
        /// The tensor.
        tensor: String,
        /// Its number of indices.
        order: usize,
    },
    /// The output declared in `scalars<...>`.
    ScalarOutput(String),
    /// A name listed twice in `scalars<...>`.
    DuplicateScalar(String),
    /// A scalar input also given a format.
    ScalarFormat(String),
    /// An index variable whose extent two accesses fix differently at compile time (the block
    /// sizes of two blocked formats; dimension sizes are only known, and checked, at run time).
    ExtentMismatch {
        /// The index variable.
        index: String,
        /// Where its first extent comes from.
        first: String,
        /// Where the conflicting one comes from.
        second: String,
    },
    /// No loop order visits every tensor in the order of its levels.
    NoConcordantOrder {
        /// A tensor whose level order conflicts with the others'.
        tensor: String,
        /// A suggestion, e.g. the transposed format.
        suggestion: String,
    },

    // schedule
    /// A command name that does not exist.
    UnknownCommand(String),
    /// A command given the wrong arguments; the text says what it takes.
    CommandArgs {
        /// The command.
        command: String,
        /// What it takes.
        expected: &'static str,
    },
    /// An index variable the statement (or an earlier command) does not define.
    UnknownIndex(String),
    /// A command names a new index variable that already exists.
    ReusedIndex(String),
    /// A split or unroll factor of zero.
    ZeroFactor(String),
    /// A lower bound other than where a loop that starts at 0 starts.
    LowerBound {
        /// The bounded variable.
        var: String,
        /// The bound given.
        value: usize,
    },
    /// A command after `parallelize`.
    AfterParallelize(String),
    /// `prefetch` of the output or of a tensor with a sparse level.
    PrefetchNotDense(String),
    /// Two `prefetch` commands for one tensor.
    PrefetchTwice(String),
    /// `prefetch` of a tensor no loop reads at coordinates read from a compressed level.
    PrefetchNotGathered(String),
    /// `pos` or `precompute` names a tensor the statement does not read.
    NotAnInput(String),
    /// `pos` on a variable the access does not use.
    PosNotIndexing {
        /// The variable.
        var: String,
        /// The tensor.
        tensor: String,
    },
    /// `pos` over a tensor where the statement is not zero wherever the tensor is.
    PosNotAnnihilating {
        /// The variable.
        var: String,
        /// The tensor.
        tensor: String,
    },
    /// `pos` on a dense level.
    PosOnDense {
        /// The tensor.
        tensor: String,
        /// The variable.
        var: String,
    },
    /// `pos` on a variable already in position space.
    PosOfPosition(String),
    /// `coord` on a variable in coordinate space.
    CoordOfCoordinate(String),
    /// `collapse` of variables that are not directly nested, outer first.
    CollapseNotNested {
        /// The outer variable.
        outer: String,
        /// The inner variable.
        inner: String,
    },
    /// `collapse` with a position-space outer variable.
    CollapseOuterPosition(String),
    /// `pos` over a collapsed variable whose parts are not consecutive levels of the tensor.
    CollapseNotContiguous {
        /// The tensor.
        tensor: String,
    },
    /// `reorder` of variables that are not directly nested.
    ReorderNotAdjacent,
    /// `parallelize` of a variable already parallelized.
    ParallelTwice(String),
    /// `reorder` that puts the inner part of a split output coordinate outside its outer part, for
    /// an output assembled in order.
    ReorderAppendOrder(String),
    /// `reorder` naming a variable twice.
    ReorderTwice(String),
    /// `reorder` that iterates a tensor against its storage order.
    ReorderModeOrder {
        /// The tensor.
        tensor: String,
    },
    /// `reorder` that moves a loop across a `where` (an operation out of its reduction).
    ReorderAcrossReduction,
    /// `parallelize` (or `CpuVector`) of a loop that merges several sparse operands.
    ParallelCoiteration(String),
    /// `parallelize(.., NoRaces)` of a loop whose iterations add into the same output entries.
    ParallelRaces(String),
    /// `Temporary`/`ParallelReduction` where the race is not over the parallel variable.
    ParallelRaceNotOver(String),
    /// `parallelize` of a loop that appends to a sparse output.
    ParallelSparseOutput(String),
    /// `precompute` of an expression that is not in the statement.
    PrecomputeNotFound,

    // fills and reductions
    /// A `fills<...>` entry names something that is not a tensor of the statement.
    UnknownFill(String),
    /// A tensor is given two fill values.
    DuplicateFill(String),
    /// A `fills<...>` entry for a scalar passed by value, which has no unstored elements.
    ScalarFill(String),
    /// A `reduce<...>` entry names a variable the statement does not use.
    UnknownReduction(String),
    /// A `reduce<...>` entry names an index of the output.
    ReduceOutputIndex(String),
    /// A variable is reduced twice.
    DuplicateReduction(String),
    /// Two reductions with different operators: the order of their loops would change the
    /// result.
    MixedReductions {
        /// The first operator.
        first: String,
        /// The other.
        second: String,
    },
    /// `+=` with a reduction other than `+`.
    AccumulateReduction(String),
    /// A sparse output whose fill is not the identity of the statement's reduction.
    SparseOutputFill {
        /// The output.
        tensor: String,
        /// Its fill.
        fill: String,
        /// The reduction's operator.
        op: String,
        /// The reduction's identity.
        identity: String,
    },

    /// A GPU precondition (the README).
    Gpu(GpuPrecondition),
    /// A mistake in concrete index notation written directly.
    Cin(CinMistake),

    // not supported yet, and bugs
    /// A feature of the contract that this version does not compile yet.
    Unsupported(String),
    /// An inconsistency inside the compiler: a bug, never the user's mistake.
    Internal(String),
}

impl Error {
    /// An error of `kind` at `span`.
    pub fn new(span: Span, kind: ErrorKind) -> Self {
        Error { span, kind }
    }

    /// The message shown to the user.
    pub fn message(&self) -> String {
        match &self.kind {
            ErrorKind::Syntax(m) => m.clone(),
            ErrorKind::UnknownTensor(t) => {
                format!("unknown tensor `{t}`: the statement does not use it")
            }
            ErrorKind::DuplicateFormat(t) => format!("tensor `{t}` is given a format twice"),
            ErrorKind::UnknownLevel(l) => {
                let names: Vec<String> = crate::format::level_keywords()
                    .map(|name| format!("`{name}`"))
                    .collect();
                format!(
                    "unknown level format `{l}`; expected one of {}",
                    names.join(", ")
                )
            }
            ErrorKind::UnknownProperty {
                property,
                level,
                allowed,
            } => property_message(property, level, allowed),
            ErrorKind::UnknownFormat(f) => format!(
                "unknown format `{f}`; expected a level list such as `(dense, compressed)` or one \
                 of `dense`, `sparse`, `csr`, `csc`, `coo`, `dcsr`, `dcsc`, `csf`, `ell`, `dia`, \
                 `bcsr(R, C)`, `hash`, `bitvec`"
            ),
            ErrorKind::FormatArguments { format, expected } => {
                format!("format `{format}` takes {expected}")
            }
            ErrorKind::LevelCount {
                tensor,
                order,
                levels,
            } => format!(
                "tensor `{tensor}` has order {order} but its format lists {levels} level{}",
                if *levels == 1 { "" } else { "s" }
            ),
            ErrorKind::FormatOrder {
                tensor,
                format,
                expected,
                found,
            } => format!(
                "format `{format}` stores tensors of order {expected}, but `{tensor}` has order \
                 {found}"
            ),
            ErrorKind::NotPermutation { tensor, order } => format!(
                "the mode order of `{tensor}` must be a permutation of 0..{order}, each dimension \
                 once"
            ),
            ErrorKind::InvalidLevels(why) => format!("invalid level list: {why}"),
            ErrorKind::OutputNotAssemblable { tensor, level } => format!(
                "output `{tensor}` cannot be assembled: a {level} level supports neither insert \
                 nor append; store the output in a format of dense, compressed, singleton or \
                 hashed levels"
            ),
            ErrorKind::InconsistentOrder(t) => {
                format!("tensor `{t}` is used with different numbers of indices")
            }
            ErrorKind::RepeatedIndex(i) => {
                format!(
                    "index `{i}` appears twice in one access; diagonal accesses are not supported"
                )
            }
            ErrorKind::UnboundOutputIndex(i) => format!(
                "index `{i}` of the output does not appear on the right-hand side, so its extent \
                 is unknown"
            ),
            ErrorKind::OutputReadIndices {
                tensor,
                found,
                expected,
            } => format!(
                "output `{tensor}` is read as `{found}`; the output may be read only at its own \
                 indices, `{expected}`, so that each element is read before it is written"
            ),
            ErrorKind::OutputReadSparse(t) => format!(
                "output `{t}` is sparse and is read on the right-hand side; only a dense output \
                 may be read (a sparse one is rebuilt while it is computed): make `{t}` dense, \
                 or pass its old value as another input"
            ),
            ErrorKind::OutputReadUnsafe { tensor, why } => format!(
                "output `{tensor}` is read on the right-hand side, but {why}; each element must \
                 be read by the iteration that writes it, before it writes it"
            ),
            ErrorKind::UnknownParam(t) => {
                format!("`{t}` in the parameter list is not a tensor of this kernel's statement")
            }
            ErrorKind::DuplicateParam(t) => {
                format!("`{t}` is listed twice in the parameter list")
            }
            ErrorKind::MissingParam(t) => format!(
                "the parameter list leaves out `{t}`; list every tensor of the statement once"
            ),
            ErrorKind::OutputNotFirst { output, first } => format!(
                "the parameter list starts with `{first}`; the output `{output}` must come first"
            ),
            ErrorKind::OutputsNotFirst { outputs, first } => format!(
                "the parameter list has `{first}` where the outputs come, first and in the \
                 order the statements assign them: `{outputs}`"
            ),
            ErrorKind::UnknownScalar(t) => {
                format!("`{t}` in `scalars<...>` is not a tensor of this kernel's statement")
            }
            ErrorKind::ScalarWithIndices { tensor, order } => format!(
                "`{tensor}` is written with {order} {}; `scalars<...>` declares order-0 inputs, \
                 written without parentheses",
                if *order == 1 { "index" } else { "indices" }
            ),
            ErrorKind::ScalarOutput(t) => format!(
                "the output `{t}` cannot be a scalar parameter: the kernel writes it, so it is \
                 passed as `&mut Tensor<T, Dense<0>>`"
            ),
            ErrorKind::DuplicateScalar(t) => format!("`{t}` is listed twice in `scalars<...>`"),
            ErrorKind::ScalarFormat(t) => format!(
                "`{t}` is declared in `scalars<...>`, so it is passed as a plain value and takes \
                 no format; remove it from `formats<...>`"
            ),
            ErrorKind::NoConcordantOrder { tensor, suggestion } => format!(
                "no loop order visits every tensor in its storage order: `{tensor}` conflicts \
                 with the others; {suggestion}"
            ),
            ErrorKind::UnknownCommand(c) => format!(
                "unknown scheduling command `{c}`; expected one of `pos`, `coord`, `collapse`, \
                 `fuse`, `split`, `reorder`, `precompute`, `bound`, `unroll`, `parallelize`, \
                 `assemble`, `prefetch`"
            ),
            ErrorKind::CommandArgs { command, expected } => format!("`{command}` takes {expected}"),
            ErrorKind::UnknownIndex(i) => {
                format!(
                    "unknown index variable `{i}`: neither the statement nor an earlier command defines it"
                )
            }
            ErrorKind::ReusedIndex(i) => format!(
                "`{i}` already names an index variable or a tensor; a command's new variables \
                 need fresh names"
            ),
            ErrorKind::ZeroFactor(c) => format!("`{c}` needs a factor of at least 1"),
            ErrorKind::LowerBound { var, value } => format!(
                "the loop over `{var}` starts at 0, so a lower bound of {value} never holds \
                 (`MinExact` and `MinConstraint` state where a loop starts; they do not skip \
                 iterations)"
            ),
            ErrorKind::AfterParallelize(c) => format!(
                "`{c}` after `parallelize`: transformations assume serial loops, so `parallelize` \
                 must come last"
            ),
            ErrorKind::PrefetchNotDense(t) => format!(
                "`prefetch` needs a dense input read through another tensor's coordinates; `{t}` \
                 is the output or has a sparse level, whose reads follow its own positions"
            ),
            ErrorKind::PrefetchTwice(t) => format!("`{t}` is prefetched twice"),
            ErrorKind::PrefetchNotGathered(t) => format!(
                "no loop reads `{t}` at a coordinate read from a compressed level (as `x(j)` in \
                 `A(i,j) * x(j)` with `A` compressed in `j`), so there is nothing to prefetch"
            ),
            ErrorKind::NotAnInput(t) => {
                format!(
                    "`{t}` is not an input of the statement (the output cannot be iterated in position space)"
                )
            }
            ErrorKind::PosNotIndexing { var, tensor } => {
                format!(
                    "index `{var}` does not index `{tensor}`, so `{tensor}` has no positions for it"
                )
            }
            ErrorKind::PosNotAnnihilating { var, tensor } => format!(
                "`pos` makes the loop over `{var}` visit only the entries of `{tensor}`, but a term \
                 of the statement without `{tensor}` as a factor is nonzero elsewhere; use `pos` \
                 on a tensor that every term multiplies, or return its tiles to coordinates \
                 with `coord`"
            ),
            ErrorKind::PosOnDense { tensor, var } => format!(
                "`pos` is not valid on the dense level of `{tensor}` that `{var}` indexes: its \
                 positions are its coordinates; split `{var}` itself instead"
            ),
            ErrorKind::PosOfPosition(v) => format!("`{v}` is already in position space"),
            ErrorKind::CoordOfCoordinate(v) => format!("`{v}` is already in coordinate space"),
            ErrorKind::CollapseNotNested { outer, inner } => {
                format!("`collapse` needs `{inner}` directly nested inside `{outer}`")
            }
            ErrorKind::CollapseOuterPosition(v) => {
                format!(
                    "`collapse` needs the outer variable in coordinate space, but `{v}` is a position"
                )
            }
            ErrorKind::CollapseNotContiguous { tensor } => format!(
                "the collapsed variables are not consecutive levels of `{tensor}`, in its storage order"
            ),
            ErrorKind::ReorderNotAdjacent => {
                "`reorder` needs variables whose loops are directly nested".to_string()
            }
            ErrorKind::ParallelTwice(v) => format!("`{v}` is parallelized twice"),
            ErrorKind::ReorderAppendOrder(t) => format!(
                "this order visits the coordinates of output `{t}` out of order (a split's inner \
                 part outside its outer part), but `{t}` is assembled by appending in order"
            ),
            ErrorKind::ReorderTwice(v) => {
                format!("`reorder` names `{v}` twice; each variable takes one place in the order")
            }
            ErrorKind::ReorderModeOrder { tensor } => format!(
                "this order iterates `{tensor}` against its storage order; store it in a format \
                 with that mode order instead"
            ),
            ErrorKind::ReorderAcrossReduction => "this `reorder` moves a loop across a `where`: \
                 an operation would move into or out of a sum it does not distribute over"
                .to_string(),
            ErrorKind::ParallelCoiteration(v) => format!(
                "the loop over `{v}` merges operands (a `while` loop, or cursors advanced per \
                 coordinate) and cannot be parallelized or vectorized"
            ),
            ErrorKind::ParallelRaces(v) => format!(
                "iterations of `{v}` add into the same output entries; use `Atomics`, \
                 `Temporary` or `ParallelReduction` instead of `NoRaces`"
            ),
            ErrorKind::ParallelRaceNotOver(v) => format!(
                "`Temporary` and `ParallelReduction` need the race to be over `{v}` itself (a sum \
                 over it); here iterations of `{v}` write different output entries"
            ),
            ErrorKind::ParallelSparseOutput(t) => format!(
                "output `{t}` is assembled by appending in order, and these parallel \
                 iterations do not each append whole rows of it: parallelize the loop over its \
                 first coordinate (or the outer loop of a `Down` split of it), or use a dense \
                 output"
            ),
            ErrorKind::PrecomputeNotFound => {
                "the expression to precompute is not a subexpression of the statement".to_string()
            }
            ErrorKind::Gpu(p) => p.message(),
            ErrorKind::Cin(m) => m.message(),
            ErrorKind::ExtentMismatch {
                index,
                first,
                second,
            } => format!(
                "index `{index}` is used with two different extents: it ranges over {first} and \
                 over {second}; give both tensors the same block size"
            ),
            ErrorKind::UnknownFill(t) => format!(
                "`{t}` in `fills<...>` is not a tensor of the statement; a fill value belongs to \
                 a tensor the statement reads or writes"
            ),
            ErrorKind::DuplicateFill(t) => format!("tensor `{t}` is given a fill value twice"),
            ErrorKind::ScalarFill(t) => format!(
                "`{t}` is passed by value (`scalars<...>`): it has no unstored elements to fill"
            ),
            ErrorKind::UnknownReduction(v) => {
                format!("`{v}` in `reduce<...>` is not an index variable of the statement")
            }
            ErrorKind::ReduceOutputIndex(v) => format!(
                "`{v}` indexes the output, so nothing is reduced over it; `reduce<...>` names \
                 the variables that appear only on the right"
            ),
            ErrorKind::DuplicateReduction(v) => {
                format!("`{v}` is given a reduction twice in `reduce<...>`")
            }
            ErrorKind::MixedReductions { first, second } => format!(
                "not supported yet: reductions with two operators (`{first}` and `{second}`): \
                 their order would decide the result; reduce every variable with one operator"
            ),
            ErrorKind::AccumulateReduction(op) => format!(
                "not supported yet: `+=` with a `{op}` reduction; write `=`, or reduce with `+`"
            ),
            ErrorKind::SparseOutputFill {
                tensor,
                fill,
                op,
                identity,
            } => format!(
                "sparse output `{tensor}` has fill value {fill}, but the `{op}` reduction gives \
                 {identity} where nothing is reduced, which it would have to store; give `{tensor}` \
                 fill {identity} or a dense format"
            ),
            ErrorKind::Unsupported(what) => format!("not supported yet: {what}"),
            ErrorKind::Internal(what) => format!(
                "internal error in the sparse compiler: {what} (a bug: please report this kernel)"
            ),
        }
    }

    /// The error as a `syn::Error`, for the macro shell.
    pub fn to_syn(&self) -> syn::Error {
        syn::Error::new(self.span, self.message())
    }
}

/// The GPU preconditions of the README, each a spanned error on the `parallelize` command.
#[derive(Clone, Debug, PartialEq)]
pub enum GpuPrecondition {
    /// A `GpuWarp` or `GpuThread` loop with no enclosing `GpuBlock` loop.
    NoBlock {
        /// The variable.
        var: String,
        /// Its unit.
        unit: String,
    },
    /// A `GpuBlock` loop that is not the kernel's outermost loop.
    BlockNotOutermost(String),
    /// A GPU loop nested inside a GPU loop of the same or a finer unit.
    Nesting {
        /// The inner variable and its unit.
        var: String,
        /// Its unit.
        unit: String,
        /// The enclosing variable.
        outer: String,
        /// Its unit.
        outer_unit: String,
    },
    /// A `GpuWarp` or `GpuThread` loop whose extent is not a compile-time constant.
    ExtentNotConstant {
        /// The variable.
        var: String,
        /// Its unit.
        unit: String,
    },
    /// More threads per block than CUDA allows.
    TooManyThreads {
        /// The variable that sets the block size.
        var: String,
        /// Threads per block.
        threads: usize,
    },
    /// A `GpuThread` loop under a `GpuWarp` loop whose extent is not 32.
    WarpThreads {
        /// The thread variable.
        var: String,
        /// Its extent.
        extent: usize,
    },
    /// A CPU unit in a kernel with GPU units.
    MixedUnits {
        /// The CPU-parallel variable.
        var: String,
        /// Its unit.
        unit: String,
    },
    /// A race strategy a GPU unit cannot implement.
    Race {
        /// The variable.
        var: String,
        /// Its unit.
        unit: String,
        /// The strategy.
        race: String,
    },
    /// `Atomics` on a block or warp loop of a statement that sums nothing into its output.
    AtomicsNoSum(String),
    /// A sparse output that a GPU kernel would have to assemble.
    SparseOutput(String),
    /// An input the kernel would copy into other levels before it runs.
    Copied(String),
}

impl GpuPrecondition {
    /// What is wrong and what to change.
    pub fn message(&self) -> String {
        match self {
            GpuPrecondition::NoBlock { var, unit } => format!(
                "`{var}` runs on `{unit}` but no enclosing loop runs on `GpuBlock`; parallelize a loop \
             around it with `GpuBlock` (a GPU kernel is a grid of blocks, each of warps and threads)"
            ),
            GpuPrecondition::BlockNotOutermost(v) => format!(
                "`{v}` runs on `GpuBlock` but is not the kernel's outermost loop; reorder it \
             outermost, so that the whole kernel runs in one GPU launch of one block per iteration"
            ),
            GpuPrecondition::Nesting {
                var,
                unit,
                outer,
                outer_unit,
            } => format!(
                "`{var}` (`{unit}`) is nested inside `{outer}` (`{outer_unit}`); GPU loops nest as \
             `GpuBlock`, then `GpuWarp`, then `GpuThread`: reorder them into that order"
            ),
            GpuPrecondition::ExtentNotConstant { var, unit } => format!(
                "the extent of `{var}` (`{unit}`) must be a compile-time constant, the size of a \
             CUDA block; make `{var}` the inner part of a `split` (its factor), the outer part \
             of a split of a constant loop, or `bound` it with `MaxExact`"
            ),
            GpuPrecondition::TooManyThreads { var, threads } => format!(
                "`{var}` makes {threads} threads per GPU block, over CUDA's limit of 1024; use a \
             smaller split factor"
            ),
            GpuPrecondition::WarpThreads { var, extent } => format!(
                "under a `GpuWarp` loop, the `GpuThread` loop `{var}` must have extent 32 (the \
             threads of one warp), not {extent}; split it with factor 32"
            ),
            GpuPrecondition::MixedUnits { var, unit } => format!(
                "`{var}` runs on `{unit}` in a kernel with GPU units; a kernel runs on the CPU or \
             on the GPU, so parallelize it with a GPU unit or not at all"
            ),
            GpuPrecondition::Race { var, unit, race } => format!(
                "`{unit}` cannot implement `{race}` for `{var}` (a private partial and a warp \
             shuffle reduction are per thread); use `NoRaces`, `IgnoreRaces` or `Atomics`, or \
             give `{race}` to the `GpuThread` loop"
            ),
            GpuPrecondition::AtomicsNoSum(v) => format!(
                "`Atomics` on `{v}`, but nothing is summed into the output (no reduction, no \
             `+=`); use `NoRaces` or `IgnoreRaces`"
            ),
            GpuPrecondition::SparseOutput(t) => format!(
                "GPU kernels write dense outputs or sparse outputs with an input's structure \
             (SDDMM, TTV); output `{t}` would be assembled, which a GPU kernel cannot do: make \
             `{t}` dense, or give it the levels of the input whose pattern it has"
            ),
            GpuPrecondition::Copied(t) => format!(
                "no loop order of this kernel visits `{t}` in its storage order, and a GPU kernel \
             reads its inputs on the device as they are stored (it cannot copy them into another \
             order first): store `{t}` in the order the loops follow, or read it in one index \
             order"
            ),
        }
    }
}

/// "unknown property" for a word that is no property, "does not apply" for one that is, and what
/// the level takes.
fn property_message(property: &str, level: &str, allowed: &[&str]) -> String {
    let head = if matches!(property, "unordered" | "nonunique") {
        format!("property `{property}` does not apply to a {level} level")
    } else {
        format!("unknown property `{property}` for a {level} level")
    };
    match allowed {
        [] => format!("{head}, which takes no properties"),
        [one] => format!("{head}; expected `{one}`"),
        [rest @ .., last] => {
            let rest: Vec<String> = rest.iter().map(|p| format!("`{p}`")).collect();
            format!("{head}; expected {} or `{last}`", rest.join(", "))
        }
    }
}

impl From<syn::Error> for Error {
    fn from(e: syn::Error) -> Self {
        Error::new(e.span(), ErrorKind::Syntax(e.to_string()))
    }
}

/// Several independent errors, reported together.
pub type Errors = Vec<Error>;
