//! Errors of the runtime: building or validating a tensor ([`FormatError`]) and running a
//! generated kernel ([`KernelError`]). All wording lives in the `Display` impls here.

use std::fmt;

/// Why a tensor could not be built, converted or validated. No input makes the runtime panic: every
/// problem with user data comes back as one of these.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormatError {
    /// The shape has a different number of dimensions than the format.
    OrderMismatch {
        /// The format's order.
        expected: usize,
        /// The shape's length.
        found: usize,
    },
    /// An entry has a different number of coordinates than the shape.
    EntryArity {
        /// Index of the entry in the input.
        entry: usize,
        /// The shape's length.
        expected: usize,
        /// The entry's coordinate count.
        found: usize,
    },
    /// An entry's coordinate is outside the shape.
    EntryOutOfBounds {
        /// Index of the entry in the input.
        entry: usize,
        /// The logical dimension.
        dim: usize,
        /// The coordinate given.
        coord: usize,
        /// The dimension size.
        size: usize,
    },
    /// A dense slice does not have one value per element of the shape.
    DenseLength {
        /// The product of the shape.
        expected: usize,
        /// The slice's length.
        found: usize,
    },
    /// A size does not fit the index type or the address space.
    TooLarge {
        /// What is too large.
        what: &'static str,
        /// Its value, where it could be computed without overflow.
        value: Option<usize>,
        /// The largest value allowed.
        limit: usize,
    },
    /// Duplicate entries at one coordinate sum past the value type's range.
    ValueOverflow {
        /// The logical coordinates of the entries.
        coords: Vec<usize>,
    },
    /// Memory for the tensor could not be reserved.
    OutOfMemory {
        /// The number of elements asked for.
        elements: usize,
    },
    /// The format cannot hold these entries (for example two entries under one parent of a
    /// singleton level).
    Unrepresentable {
        /// The format's name.
        format: &'static str,
        /// The level that cannot hold them.
        level: usize,
        /// What went wrong.
        reason: &'static str,
    },
    /// A list of dimensions that is not a permutation of the tensor's dimensions.
    InvalidPermutation {
        /// The list given.
        perm: Vec<usize>,
        /// The tensor's order.
        order: usize,
    },
    /// The tensor's fill value is not zero, and the destination (another crate's sparse matrix)
    /// has no fill value: every element it does not store is zero.
    FillNotZero {
        /// What the tensor was converted to.
        target: &'static str,
        /// The tensor's fill value, as `T` displays it.
        fill: String,
    },
    /// Raw level arrays are inconsistent: the level, the position in its arrays and the problem.
    Corrupt {
        /// The level (0 is the root); equal to the level count for the values array.
        level: usize,
        /// The position in the level's arrays where the problem was found.
        position: usize,
        /// What is wrong there.
        problem: Problem,
    },
}

/// What is wrong with raw level arrays ([`FormatError::Corrupt`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// The level's data is of another level format than the format declares.
    WrongKind {
        /// The declared level format.
        expected: &'static str,
        /// The level format of the data.
        found: &'static str,
    },
    /// An array has the wrong length.
    Length {
        /// Which array.
        array: &'static str,
        /// The length it must have.
        expected: usize,
        /// Its length.
        found: usize,
    },
    /// `pos` does not start at zero.
    PosStart(Idx),
    /// `pos[p] > pos[p + 1]`.
    PosDecreasing {
        /// `pos[p]`.
        before: Idx,
        /// `pos[p + 1]`.
        after: Idx,
    },
    /// A coordinate is not below the dimension size.
    CrdOutOfBounds {
        /// The coordinate.
        crd: Idx,
        /// The dimension size.
        size: usize,
    },
    /// Siblings are not increasing on a level declared ordered.
    Unsorted {
        /// The previous sibling.
        before: Idx,
        /// This one.
        after: Idx,
    },
    /// A coordinate repeats among siblings on a level declared unique.
    Duplicate(Idx),
    /// A hashed coordinate is not reachable by linear probing from its home bucket.
    HashMisplaced(Idx),
    /// A dense or range level's size does not match the shape.
    SizeMismatch {
        /// The size the shape implies.
        expected: usize,
        /// The stored size.
        found: usize,
    },
    /// A DIA offset places a diagonal entirely outside the matrix.
    OffsetOutOfRange(i64),
    /// A value position that a bitmap level marks absent holds a nonzero value.
    AbsentNotZero,
}

use crate::storage::Idx;

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::OrderMismatch { expected, found } => write!(
                f,
                "the shape has {found} dimensions but the format stores tensors of order {expected}"
            ),
            FormatError::EntryArity {
                entry,
                expected,
                found,
            } => {
                write!(
                    f,
                    "entry {entry} has {found} coordinates; the shape has {expected}"
                )
            }
            FormatError::EntryOutOfBounds {
                entry,
                dim,
                coord,
                size,
            } => write!(
                f,
                "entry {entry}: coordinate {coord} in dimension {dim} is outside its size {size}"
            ),
            FormatError::DenseLength { expected, found } => {
                write!(
                    f,
                    "the dense data has {found} values; the shape holds {expected}"
                )
            }
            FormatError::TooLarge {
                what,
                value: Some(v),
                limit,
            } => {
                write!(
                    f,
                    "{what} is {v}, more than the limit {limit} of u32 indices"
                )
            }
            FormatError::TooLarge {
                what,
                value: None,
                limit,
            } => {
                write!(f, "{what} overflows (the limit is {limit})")
            }
            FormatError::ValueOverflow { coords } => write!(
                f,
                "the duplicate entries at {coords:?} sum past the range of the value type"
            ),
            FormatError::OutOfMemory { elements } => {
                write!(f, "could not reserve memory for {elements} elements")
            }
            FormatError::Unrepresentable {
                format,
                level,
                reason,
            } => {
                write!(
                    f,
                    "format `{format}` cannot store these entries at level {level}: {reason}"
                )
            }
            FormatError::InvalidPermutation { perm, order } => write!(
                f,
                "{perm:?} is not a permutation of the {order} dimensions 0..{order}"
            ),
            FormatError::FillNotZero { target, fill } => write!(
                f,
                "the tensor's fill value is {fill}, but {target} stores only matrices whose \
                 unstored elements are zero"
            ),
            FormatError::Corrupt {
                level,
                position,
                problem,
            } => {
                write!(f, "level {level}, position {position}: {problem}")
            }
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::WrongKind { expected, found } => {
                write!(
                    f,
                    "the format declares a {expected} level but the data is {found}"
                )
            }
            Problem::Length {
                array,
                expected,
                found,
            } => {
                write!(f, "`{array}` has length {found}; expected {expected}")
            }
            Problem::PosStart(p) => write!(f, "`pos` starts at {p}; expected 0"),
            Problem::PosDecreasing { before, after } => {
                write!(f, "`pos` decreases from {before} to {after}")
            }
            Problem::CrdOutOfBounds { crd, size } => {
                write!(f, "coordinate {crd} is outside the dimension size {size}")
            }
            Problem::Unsorted { before, after } => write!(
                f,
                "coordinate {after} follows {before} on a level declared ordered"
            ),
            Problem::Duplicate(c) => {
                write!(f, "coordinate {c} repeats on a level declared unique")
            }
            Problem::HashMisplaced(c) => write!(
                f,
                "coordinate {c} cannot be found by probing from its home bucket"
            ),
            Problem::SizeMismatch { expected, found } => {
                write!(
                    f,
                    "the level has size {found}; the shape implies {expected}"
                )
            }
            Problem::OffsetOutOfRange(o) => {
                write!(f, "diagonal offset {o} lies entirely outside the matrix")
            }
            Problem::AbsentNotZero => write!(
                f,
                "the value is not zero, but a bitmap level marks its position absent"
            ),
        }
    }
}

impl std::error::Error for FormatError {}

/// Why a generated kernel refused to run. Kernels check every shape before touching data.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KernelError {
    /// Two tensors disagree on the extent of an index variable.
    ShapeMismatch {
        /// The index variable.
        index: &'static str,
        /// The tensor whose dimension disagrees.
        tensor: &'static str,
        /// Its dimension.
        dim: usize,
        /// The extent fixed by an earlier tensor.
        expected: usize,
        /// This tensor's size.
        found: usize,
    },
    /// Assembling a sparse output failed.
    Format(FormatError),
    /// An index variable's extent breaks the `bound` a schedule declared for it.
    BoundViolated {
        /// The index variable.
        index: &'static str,
        /// The declared bound.
        bound: usize,
        /// The extent of the inputs.
        extent: usize,
        /// Whether the bound is exact (`MaxExact`) rather than an upper limit (`MaxConstraint`).
        exact: bool,
    },
    /// A compute-only kernel found an output structure other than the one it computes: call the
    /// assembling kernel first (with inputs of the same structure).
    StructureMismatch {
        /// The output.
        tensor: &'static str,
    },
    /// A tensor's fill value is not the one the kernel declares for it (`fills<...>`, zero where
    /// it names none): make it with that fill ([`Tensor::filled`](crate::Tensor::filled),
    /// [`Tensor::from_entries_with_fill`](crate::Tensor::from_entries_with_fill)).
    FillMismatch {
        /// The tensor.
        tensor: &'static str,
        /// The fill the kernel declares, as `T` displays it.
        expected: String,
        /// The tensor's fill.
        found: String,
    },
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelError::ShapeMismatch {
                index,
                tensor,
                dim,
                expected,
                found,
            } => write!(
                f,
                "index `{index}` has extent {expected}, but dimension {dim} of `{tensor}` is {found}"
            ),
            KernelError::Format(e) => write!(f, "assembling the output: {e}"),
            KernelError::BoundViolated {
                index,
                bound,
                extent,
                exact,
            } => write!(
                f,
                "index `{index}` has extent {extent}, but the schedule bounds it {} {bound}",
                if *exact { "to exactly" } else { "to at most" }
            ),
            KernelError::StructureMismatch { tensor } => write!(
                f,
                "the structure of `{tensor}` is not the one this kernel computes; assemble it \
                 first with the assembling kernel"
            ),
            KernelError::FillMismatch {
                tensor,
                expected,
                found,
            } => write!(
                f,
                "`{tensor}` has fill value {found}, but the kernel declares {expected} for it"
            ),
        }
    }
}

impl std::error::Error for KernelError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            KernelError::Format(e) => Some(e),
            KernelError::ShapeMismatch { .. }
            | KernelError::StructureMismatch { .. }
            | KernelError::FillMismatch { .. }
            | KernelError::BoundViolated { .. } => None,
        }
    }
}

/// A kernel's check that `tensor` (named `name`) has the fill value it declares for it. Inlined
/// into every kernel call, one compare per tensor; the error is built out of line.
#[inline]
pub fn check_fill<T: crate::Scalar, F: sparse_format::Format>(
    tensor: &crate::Tensor<T, F>,
    name: &'static str,
    declared: T,
) -> Result<(), KernelError> {
    let found = tensor.fill();
    if found == declared {
        return Ok(());
    }
    Err(fill_mismatch(name, declared, found))
}

#[cold]
#[inline(never)]
fn fill_mismatch<T: crate::Scalar>(name: &'static str, declared: T, found: T) -> KernelError {
    KernelError::FillMismatch {
        tensor: name,
        expected: declared.to_string(),
        found: found.to_string(),
    }
}

impl From<FormatError> for KernelError {
    fn from(e: FormatError) -> Self {
        KernelError::Format(e)
    }
}
