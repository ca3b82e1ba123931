//! `sprs` (feature `sprs`): [`CsMatI`] to and from CSR and CSC tensors.
//!
//! A CSR tensor becomes a CSR matrix and a CSC tensor a CSC one; a matrix becomes either tensor
//! (sprs converts its storage first when the orders differ, a copy). The values `Vec` is moved;
//! the index `Vec`s too for `CsMatI<T, u32>`, the tensor's own index type, and are converted
//! otherwise (`CsMat<T>` has `usize` indices).
//!
//! ```
//! use sparse_runtime::{Csr, Tensor};
//! use sprs::{CsMat, CsMatI};
//!
//! let a = Tensor::<f64, Csr>::from_entries([2, 3], [([0, 2], 1.0), ([1, 0], 2.0)])?;
//! let m: CsMatI<f64, u32> = a.clone().try_into()?; // no copy
//! assert_eq!(m.indptr().raw_storage(), &[0, 1, 2]);
//! let wide: CsMat<f64> = a.clone().try_into()?; // usize indices: a copy
//! assert_eq!(wide.get(1, 0), Some(&2.0));
//! let back = Tensor::<f64, Csr>::try_from(m)?;
//! assert_eq!(back, a);
//! # Ok::<(), sparse_runtime::FormatError>(())
//! ```

use sprs::{CsMatI, SpIndex};

use super::{Compressed, cast_indices};
use crate::storage::Idx;
use crate::{Csc, Csr, FormatError, Scalar, Tensor};

impl<T: Scalar, I: SpIndex + 'static, Iptr: SpIndex + 'static> TryFrom<Tensor<T, Csr>>
    for CsMatI<T, I, Iptr>
{
    type Error = FormatError;

    /// The CSR matrix of the same arrays; an error where an index does not fit `I` or `Iptr`,
    /// or the tensor's fill value is not zero ([`FormatError::FillNotZero`]).
    fn try_from(tensor: Tensor<T, Csr>) -> Result<Self, FormatError> {
        into_sprs(Compressed::from_tensor(tensor, "sprs")?, false)
    }
}

impl<T: Scalar, I: SpIndex + 'static, Iptr: SpIndex + 'static> TryFrom<Tensor<T, Csc>>
    for CsMatI<T, I, Iptr>
{
    type Error = FormatError;

    /// The CSC matrix of the same arrays; an error where an index does not fit `I` or `Iptr`,
    /// or the tensor's fill value is not zero ([`FormatError::FillNotZero`]).
    fn try_from(tensor: Tensor<T, Csc>) -> Result<Self, FormatError> {
        into_sprs(Compressed::from_tensor(tensor, "sprs")?, true)
    }
}

impl<T: Scalar, I: SpIndex + 'static, Iptr: SpIndex + 'static> TryFrom<CsMatI<T, I, Iptr>>
    for Tensor<T, Csr>
{
    type Error = FormatError;

    /// The matrix's rows (converted from CSC storage if need be); an error where an index does
    /// not fit `u32` or the arrays are not a valid CSR structure.
    fn try_from(matrix: CsMatI<T, I, Iptr>) -> Result<Self, FormatError> {
        let (rows, _) = matrix.shape();
        from_sprs(matrix.into_csr())?.into_tensor(rows)
    }
}

impl<T: Scalar, I: SpIndex + 'static, Iptr: SpIndex + 'static> TryFrom<CsMatI<T, I, Iptr>>
    for Tensor<T, Csc>
{
    type Error = FormatError;

    /// The matrix's columns (converted from CSR storage if need be); an error where an index
    /// does not fit `u32` or the arrays are not a valid CSC structure.
    fn try_from(matrix: CsMatI<T, I, Iptr>) -> Result<Self, FormatError> {
        let (_, cols) = matrix.shape();
        from_sprs(matrix.into_csc())?.into_tensor(cols)
    }
}

fn into_sprs<T: Scalar, I: SpIndex + 'static, Iptr: SpIndex + 'static>(
    c: Compressed<T>,
    csc: bool,
) -> Result<CsMatI<T, I, Iptr>, FormatError> {
    let narrow = FormatError::Unrepresentable {
        format: "sprs",
        level: 1,
        reason: "an index does not fit the matrix's index type",
    };
    let indptr = cast_indices(c.pos, "a position", 0, |p| Iptr::try_from_usize(p as usize))
        .map_err(|_| narrow.clone())?;
    let indices = cast_indices(c.crd, "a coordinate", 0, |i| I::try_from_usize(i as usize))
        .map_err(|_| narrow)?;
    let shape = (c.shape[0], c.shape[1]);
    let built = if csc {
        CsMatI::try_new_csc(shape, indptr, indices, c.vals)
    } else {
        CsMatI::try_new(shape, indptr, indices, c.vals)
    };
    // A tensor's compressed arrays are sorted, unique and in bounds, which is all sprs checks.
    built.map_err(|_| FormatError::Unrepresentable {
        format: "sprs",
        level: 1,
        reason: "sprs rejected the structure",
    })
}

fn from_sprs<T: Scalar, I: SpIndex + 'static, Iptr: SpIndex + 'static>(
    matrix: CsMatI<T, I, Iptr>,
) -> Result<Compressed<T>, FormatError> {
    let (rows, cols) = matrix.shape();
    let (indptr, indices, vals) = matrix.into_raw_storage();
    let limit = Idx::MAX as usize;
    let to_idx = |i: usize| Idx::try_from(i).ok();
    Ok(Compressed {
        shape: [rows, cols],
        pos: cast_indices(indptr, "a position of the sprs matrix", limit, |p| {
            p.try_index().and_then(to_idx)
        })?,
        crd: cast_indices(indices, "an index of the sprs matrix", limit, |i| {
            i.try_index().and_then(to_idx)
        })?,
        vals,
    })
}
