//! Conversions between tensors and other crates' matrices and arrays, each behind a cargo feature
//! of the same name (forwarded by the facade): `sprs`, `nalgebra-sparse`, `ndarray`.
//!
//! By-value conversions move the values `Vec`, and the index `Vec`s where both sides use the same
//! integer type (`u32` indices of `sprs`); other index types are converted, which copies them and
//! fails with [`FormatError::TooLarge`] where an index does not fit. Every conversion into a
//! tensor validates the arrays as [`Tensor::from_parts`] does.

#[cfg(feature = "nalgebra-sparse")]
mod with_nalgebra;
#[cfg(feature = "ndarray")]
mod with_ndarray;
#[cfg(feature = "sprs")]
mod with_sprs;

use std::any::Any;

use sparse_format::Format;

use crate::storage::{Idx, Level};
use crate::{FormatError, Scalar, Tensor};

/// The arrays of a matrix stored as dense outer coordinates over compressed inner ones (CSR's
/// rows over columns, CSC's columns over rows).
pub(crate) struct Compressed<T> {
    /// Rows and columns.
    pub shape: [usize; 2],
    pub pos: Vec<Idx>,
    pub crd: Vec<Idx>,
    pub vals: Vec<T>,
}

impl<T: Scalar> Compressed<T> {
    /// Takes a CSR or CSC tensor apart without copying; `target` names the destination for the
    /// error of a tensor whose fill is not zero.
    pub fn from_tensor<F: Format>(
        tensor: Tensor<T, F>,
        target: &'static str,
    ) -> Result<Self, FormatError> {
        check_zero_fill(&tensor, target)?;
        let (shape, levels, vals) = tensor.into_parts();
        let (Ok(shape), Ok([Level::Dense { .. }, Level::Compressed { pos, crd }])) = (
            <[usize; 2]>::try_from(shape),
            <[Level; 2]>::try_from(levels),
        ) else {
            return Err(FormatError::Unrepresentable {
                format: F::NAME,
                level: 0,
                reason: "only a dense level over a compressed one converts to compressed rows",
            });
        };
        Ok(Compressed {
            shape,
            pos,
            crd,
            vals,
        })
    }

    /// The tensor these arrays form in `F` (`Csr` or `Csc`), validated.
    pub fn into_tensor<F: Format>(self, outer: usize) -> Result<Tensor<T, F>, FormatError> {
        let levels = vec![
            Level::Dense { size: outer },
            Level::Compressed {
                pos: self.pos,
                crd: self.crd,
            },
        ];
        Tensor::from_parts(self.shape.to_vec(), levels, self.vals)
    }
}

/// Refuses a tensor whose fill value is not zero: the other crates' sparse matrices have none.
pub(crate) fn check_zero_fill<T: Scalar, F: Format>(
    tensor: &Tensor<T, F>,
    target: &'static str,
) -> Result<(), FormatError> {
    if tensor.fill() == T::ZERO {
        return Ok(());
    }
    Err(FormatError::FillNotZero {
        target,
        fill: tensor.fill().to_string(),
    })
}

/// `indices` as `J`s: the same `Vec` when `I` is `J`, else each converted by `convert`;
/// [`FormatError::TooLarge`] naming `what` when one does not fit.
pub(crate) fn cast_indices<I: Copy + 'static, J: 'static>(
    indices: Vec<I>,
    what: &'static str,
    limit: usize,
    convert: impl Fn(I) -> Option<J>,
) -> Result<Vec<J>, FormatError> {
    let mut slot = Some(indices);
    if let Some(same) = (&mut slot as &mut dyn Any).downcast_mut::<Option<Vec<J>>>() {
        return Ok(same.take().unwrap_or_default());
    }
    slot.unwrap_or_default()
        .into_iter()
        .map(|i| {
            convert(i).ok_or(FormatError::TooLarge {
                what,
                value: None,
                limit,
            })
        })
        .collect()
}

/// `usize` indices as the tensor's `u32`s.
pub(crate) fn to_idx(indices: Vec<usize>, what: &'static str) -> Result<Vec<Idx>, FormatError> {
    cast_indices(indices, what, Idx::MAX as usize, |i| Idx::try_from(i).ok())
}

/// The tensor's `u32` indices as `usize`s (a copy; never fails on 32- and 64-bit targets).
pub(crate) fn to_usize(indices: Vec<Idx>) -> Vec<usize> {
    indices.into_iter().map(|i| i as usize).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_of_the_same_type_keep_their_allocation() {
        let v: Vec<u32> = vec![3, 1, 4];
        let address = v.as_ptr();
        let same: Vec<u32> = cast_indices(v, "an index", 0, |_: u32| None).unwrap();
        assert_eq!(same.as_ptr(), address);
        assert_eq!(same, vec![3, 1, 4]);
    }

    #[test]
    fn indices_that_do_not_fit_are_an_error() {
        assert_eq!(to_idx(vec![0, 7], "a column").unwrap(), vec![0, 7]);
        let err = to_idx(vec![0, u32::MAX as usize + 1], "a column").unwrap_err();
        assert_eq!(
            err,
            FormatError::TooLarge {
                what: "a column",
                value: None,
                limit: u32::MAX as usize
            }
        );
        assert_eq!(to_usize(vec![5, 0]), vec![5, 0]);
    }
}
