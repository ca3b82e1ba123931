//! `nalgebra-sparse` (feature `nalgebra-sparse`): [`CsrMatrix`], [`CscMatrix`] and
//! [`CooMatrix`] to and from tensors.
//!
//! nalgebra-sparse indexes with `usize`, the tensors with `u32`: the values `Vec` is moved and the
//! index arrays are converted (a copy; an error where an index does not fit `u32`). A
//! [`CooMatrix`] may hold duplicates in any order; it becomes a tensor of any format by packing,
//! duplicates summed as nalgebra-sparse defines them.
//!
//! ```
//! use nalgebra_sparse::{CooMatrix, CsrMatrix};
//! use sparse_runtime::{Csr, Dcsr, Tensor};
//!
//! let a = Tensor::<f64, Csr>::from_entries([2, 3], [([0, 2], 1.0), ([1, 0], 2.0)])?;
//! let m = CsrMatrix::try_from(a.clone())?;
//! assert_eq!(m.row_offsets(), &[0, 1, 2]);
//! assert_eq!(Tensor::<f64, Csr>::try_from(m)?, a);
//!
//! let coo = CooMatrix::try_from_triplets(2, 2, vec![1, 0, 1], vec![1, 0, 1], vec![1.0, 5.0, 2.0])
//!     .expect("in bounds");
//! let t = Tensor::<f64, Dcsr>::try_from(coo)?;
//! assert_eq!(t.to_dense(), vec![5.0, 0.0, 0.0, 3.0]);
//! # Ok::<(), sparse_runtime::FormatError>(())
//! ```

use nalgebra_sparse::{CooMatrix, CscMatrix, CsrMatrix};

use super::{Compressed, to_idx, to_usize};
use crate::storage::Level;
use crate::{Coo, Csc, Csr, Entries, ExplicitZeros, Format, FormatError, Scalar, Tensor};

/// nalgebra-sparse refused arrays a tensor gave it, which only a bug on one side can cause.
const REJECTED: FormatError = FormatError::Unrepresentable {
    format: "nalgebra-sparse",
    level: 1,
    reason: "nalgebra-sparse rejected the structure",
};

impl<T: Scalar> TryFrom<Tensor<T, Csr>> for CsrMatrix<T> {
    type Error = FormatError;

    /// The CSR matrix of the same arrays, indices widened to `usize`; an error for a tensor
    /// whose fill value is not zero ([`FormatError::FillNotZero`]).
    fn try_from(tensor: Tensor<T, Csr>) -> Result<Self, FormatError> {
        let c = Compressed::from_tensor(tensor, "nalgebra-sparse")?;
        let [rows, cols] = c.shape;
        CsrMatrix::try_from_csr_data(rows, cols, to_usize(c.pos), to_usize(c.crd), c.vals)
            .map_err(|_| REJECTED)
    }
}

impl<T: Scalar> TryFrom<Tensor<T, Csc>> for CscMatrix<T> {
    type Error = FormatError;

    /// The CSC matrix of the same arrays, indices widened to `usize`; an error for a tensor
    /// whose fill value is not zero ([`FormatError::FillNotZero`]).
    fn try_from(tensor: Tensor<T, Csc>) -> Result<Self, FormatError> {
        let c = Compressed::from_tensor(tensor, "nalgebra-sparse")?;
        let [rows, cols] = c.shape;
        CscMatrix::try_from_csc_data(rows, cols, to_usize(c.pos), to_usize(c.crd), c.vals)
            .map_err(|_| REJECTED)
    }
}

impl<T: Scalar> TryFrom<CsrMatrix<T>> for Tensor<T, Csr> {
    type Error = FormatError;

    /// The tensor of the same arrays; an error where an index does not fit `u32`.
    fn try_from(matrix: CsrMatrix<T>) -> Result<Self, FormatError> {
        let (rows, cols) = (matrix.nrows(), matrix.ncols());
        let (offsets, indices, vals) = matrix.disassemble();
        let c = Compressed {
            shape: [rows, cols],
            pos: to_idx(offsets, "a row offset of the CSR matrix")?,
            crd: to_idx(indices, "a column index of the CSR matrix")?,
            vals,
        };
        c.into_tensor(rows)
    }
}

impl<T: Scalar> TryFrom<CscMatrix<T>> for Tensor<T, Csc> {
    type Error = FormatError;

    /// The tensor of the same arrays; an error where an index does not fit `u32`.
    fn try_from(matrix: CscMatrix<T>) -> Result<Self, FormatError> {
        let (rows, cols) = (matrix.nrows(), matrix.ncols());
        let (offsets, indices, vals) = matrix.disassemble();
        let c = Compressed {
            shape: [rows, cols],
            pos: to_idx(offsets, "a column offset of the CSC matrix")?,
            crd: to_idx(indices, "a row index of the CSC matrix")?,
            vals,
        };
        c.into_tensor(cols)
    }
}

impl<T: Scalar> TryFrom<Tensor<T, Coo<2>>> for CooMatrix<T> {
    type Error = FormatError;

    /// The triplets of the COO tensor, in its (row-major) order, indices widened to `usize`; an
    /// error for a tensor whose fill value is not zero ([`FormatError::FillNotZero`]).
    fn try_from(tensor: Tensor<T, Coo<2>>) -> Result<Self, FormatError> {
        super::check_zero_fill(&tensor, "nalgebra-sparse")?;
        let (shape, levels, vals) = tensor.into_parts();
        let (
            Ok([rows, cols]),
            Ok(
                [
                    Level::Compressed { crd: i, .. },
                    Level::Singleton { crd: j },
                ],
            ),
        ) = (
            <[usize; 2]>::try_from(shape),
            <[Level; 2]>::try_from(levels),
        )
        else {
            return Err(REJECTED);
        };
        CooMatrix::try_from_triplets(rows, cols, to_usize(i), to_usize(j), vals)
            .map_err(|_| REJECTED)
    }
}

impl<T: Scalar, F: Format> TryFrom<CooMatrix<T>> for Tensor<T, F> {
    type Error = FormatError;

    /// The triplets packed into format `F` (of order 2), duplicates summed; explicit zeros are
    /// kept, as the matrix stores them.
    fn try_from(matrix: CooMatrix<T>) -> Result<Self, FormatError> {
        let (rows, cols) = (matrix.nrows(), matrix.ncols());
        let mut list = Entries::with_capacity([rows, cols], matrix.nnz());
        for (i, j, &v) in matrix.triplet_iter() {
            list.push(&[i, j], v)?;
        }
        Tensor::from_entry_list(&list, ExplicitZeros::Keep)
    }
}
