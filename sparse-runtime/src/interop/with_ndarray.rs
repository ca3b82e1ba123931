//! `ndarray` (feature `ndarray`): dense tensors to and from [`Array`]s (`ArrayD`, `Array2`, ...).
//!
//! A dense tensor is a row-major array, the layout of an `ndarray` array in standard order, so
//! both directions move the `Vec`. An array in another layout (transposed, sliced with steps) is
//! copied into row-major order first. A dense tensor stores its fill value wherever no entry was
//! given, so the array of one whose fill is not zero holds that fill there (what `to_dense`
//! shows); an array becomes a tensor with fill zero.
//!
//! ```
//! use ndarray::{Array2, ArrayD, IxDyn};
//! use sparse_runtime::{DenseMat, Tensor};
//!
//! let a = ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![1.0, 0.0, 2.0, 0.0, 3.0, 0.0]).unwrap();
//! let t = Tensor::<f64, DenseMat>::try_from(a.clone())?;
//! assert_eq!(t.get(&[1, 1]), Some(3.0));
//! let back = ArrayD::try_from(t)?;
//! assert_eq!(back, a);
//! // A transposed view is copied into row-major order.
//! let t = Tensor::<f64, DenseMat>::try_from(a.t().to_owned())?;
//! assert_eq!(t.to_dense(), vec![1.0, 0.0, 0.0, 3.0, 2.0, 0.0]);
//! let m = Array2::try_from(t)?;
//! assert_eq!(m[[2, 0]], 2.0);
//! # Ok::<(), sparse_runtime::FormatError>(())
//! ```

use ndarray::{Array, Dimension, IxDyn};

use crate::{Dense, FormatError, Scalar, Tensor};

impl<T: Scalar, D: Dimension, const N: usize> TryFrom<Array<T, D>> for Tensor<T, Dense<N>> {
    type Error = FormatError;

    /// The dense tensor of the array's elements; an error when the array does not have `N`
    /// dimensions, or a dimension exceeds `u32::MAX`.
    fn try_from(array: Array<T, D>) -> Result<Self, FormatError> {
        let Ok(shape) = <[usize; N]>::try_from(array.shape()) else {
            return Err(FormatError::OrderMismatch {
                expected: N,
                found: array.ndim(),
            });
        };
        Tensor::from_vec(shape, row_major(array))
    }
}

impl<T: Scalar, D: Dimension, const N: usize> TryFrom<Tensor<T, Dense<N>>> for Array<T, D> {
    type Error = FormatError;

    /// The array of the tensor's values, which are already in its standard layout: an
    /// `ArrayD`, or an array of `N` fixed dimensions (`Array2` for a `DenseMat`). An error when
    /// `D` has another number of dimensions.
    fn try_from(tensor: Tensor<T, Dense<N>>) -> Result<Self, FormatError> {
        let order = FormatError::OrderMismatch {
            expected: D::NDIM.unwrap_or(N),
            found: N,
        };
        let shape = tensor.shape().to_vec();
        // One value per element of the shape, as every dense tensor holds: ndarray accepts it.
        let array = Array::from_shape_vec(IxDyn(&shape), tensor.into_vec()).map_err(|_| {
            FormatError::DenseLength {
                expected: shape.iter().product(),
                found: 0,
            }
        })?;
        array.into_dimensionality::<D>().map_err(|_| order)
    }
}

/// The elements in row-major order: the array's own `Vec` when it is in standard layout and
/// starts at its beginning, a copy otherwise.
fn row_major<T: Scalar, D: Dimension>(array: Array<T, D>) -> Vec<T> {
    if array.is_standard_layout() {
        // Standard layout: the elements are contiguous, in order, from the offset on.
        let len = array.len();
        let (mut values, offset) = array.into_raw_vec_and_offset();
        let start = offset.unwrap_or(0);
        values.truncate(start.saturating_add(len));
        values.drain(..start.min(values.len()));
        return values;
    }
    array.iter().copied().collect()
}
