//! The runtime of `sparse`: everything a generated kernel and its caller need at run time.
//!
//! - [`Tensor<T, F>`]: a coordinate hierarchy of levels plus a values array, in a format `F` that is
//!   a type ([`Format`], with the named formats [`Csr`], [`Coo`], [`Ell`], ...).
//! - The level formats as data ([`Level`]) and as declarations ([`LevelSpec`]).
//! - Packing from entries in any order, conversion between formats, validation of raw arrays.
//! - [`Scalar`]: the value types, with SIMD lanes and the atomic add of the `Atomics` strategy.
//! - [`io`]: Matrix Market and FROSTT `.tns` files.
//! - Conversions to and from `sprs`, `nalgebra-sparse` and `ndarray` types, behind the cargo
//!   features of those names (`TryFrom` impls).
//!
//! What belongs here: data structures and routines that run when a program runs. What does not:
//! anything that looks at index notation or emits code (that is `sparse-compiler`).

#![deny(missing_docs)]

mod assembly;
mod atomic;
mod dense_dot;
mod dot;
mod entries;
mod error;
mod gather;
#[cfg(any(feature = "sprs", feature = "nalgebra-sparse", feature = "ndarray"))]
mod interop;
pub mod io;
mod pack;
mod parts;
mod pattern;
mod prefetch;
mod row_axpy;
mod row_dots;
mod runs;
mod scalar;
mod search;
mod storage;
mod team;
mod tensor;
mod threads;
pub mod validate;
mod walk;
mod zero;

pub use entries::Entries;
pub use error::{FormatError, KernelError, Problem};
pub use pack::ExplicitZeros;
pub use scalar::Scalar;
pub use sparse_format::{
    Bcsr, BitVec, Coo, Coord, Csc, Csf, Csr, Custom, Dcsc, Dcsr, Dense, DenseMat, DenseVec, Dia,
    Ell, Format, HashMat, HashVec, LevelKind, LevelSpec, Properties, SparseVec, check_levels,
    encode_levels,
};
pub use storage::{EMPTY, Idx, Level};
pub use tensor::Tensor;

/// What generated kernels use and users do not: output assembly, the atomic cells of the
/// `Atomics` strategy, rayon for `CpuThread` loops and whether a loop is worth its threads,
/// prefetch hints for loops over a level's positions, the search that starts a coordinate tile,
/// zeroing an output on rayon's threads. Not a
/// stable interface.
#[doc(hidden)]
pub mod __private {
    pub use crate::assembly::{
        Assembly, RowsPart, begin_assembly, begin_entries, begin_entries_merged, copy_structure,
        end_assembly, end_entries, levels_and_values_mut,
    };
    pub use crate::atomic::{AtomicCell, AtomicF32, AtomicF64, as_atomic};
    pub use crate::dense_dot::dense_dot;
    pub use crate::error::check_fill;
    pub use crate::gather::Gather;
    pub use crate::parts::{AssemblyPart, TaskParts, part_count};
    pub use crate::prefetch::{prefetch_ahead, prefetch_gather, prefetch_wanted};
    pub use crate::runs::{Run, for_each_run};
    pub use crate::search::{binary_search_after, count_up_to};
    pub use crate::team::{
        TEAM_MIN_WORK, for_each_block, for_each_block_balanced, for_each_task, set_unsplit_below,
        unsplit_below,
    };
    pub use crate::threads::{PARALLEL_MIN_WORK, min_len, pieces};
    pub use crate::zero::{fill_in_parallel, zero_in_parallel};
    pub use rayon;
}
