//! `sparse`: a sparse tensor algebra compiler that runs inside rustc.
//!
//! Write a kernel in index notation with a storage format for each tensor, and the
//! [`tensor_kernel!`] macro expands it to a specialized, safe Rust function. The tensors it takes
//! are [`Tensor<T, F>`] values whose format `F` is part of their type.
//!
//! ```
//! use sparse::prelude::*;
//!
//! let a = Tensor::<f64, Csr>::from_entries([3, 4], [([0, 1], 2.0), ([2, 3], 1.5)])?;
//! let coo: Tensor<f64, Coo<2>> = a.convert()?;
//! assert_eq!(coo.to_dense(), a.to_dense());
//! # Ok::<(), sparse::FormatError>(())
//! ```
//!
//! This crate is the facade users depend on: it re-exports the runtime and the macro.

pub use sparse_macros::tensor_kernel;
pub use sparse_runtime::*;

/// Everything a kernel's caller usually needs.
pub mod prelude {
    pub use sparse_macros::tensor_kernel;
    pub use sparse_runtime::{
        Bcsr, BitVec, Coo, Csc, Csf, Csr, Dcsc, Dcsr, Dense, DenseMat, DenseVec, Dia, Ell, Entries,
        ExplicitZeros, Format, FormatError, HashMat, HashVec, KernelError, Scalar, SparseVec,
        Tensor,
    };
}

/// The README's examples, compiled and run as doctests so the README stays true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
