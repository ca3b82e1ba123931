//! Tensors made from other data or from other tensors: identity and diagonal matrices, a dense
//! tensor over an owned `Vec`, permuted (transposed) and pruned copies.

use std::marker::PhantomData;

use sparse_format::{Dense, Format};

use super::{Checked, Tensor, dense_len};
use crate::pack::check_shape;
use crate::storage::Level;
use crate::{Entries, ExplicitZeros, FormatError, Scalar};

impl<T: Scalar, F: Format> Tensor<T, F> {
    /// The `n` x `n` identity matrix; an error for a format whose order is not 2.
    ///
    /// ```
    /// use sparse_runtime::{Csr, Tensor};
    ///
    /// let i = Tensor::<f64, Csr>::identity(2)?;
    /// assert_eq!(i.to_dense(), vec![1.0, 0.0, 0.0, 1.0]);
    /// # Ok::<(), sparse_runtime::FormatError>(())
    /// ```
    pub fn identity(n: usize) -> Result<Self, FormatError> {
        let () = <F as Checked>::VALID;
        Self::from_diagonal(&vec![T::ONE; n])
    }

    /// The square matrix with `diagonal` on its diagonal; zeros on it are not stored. An error
    /// for a format whose order is not 2.
    pub fn from_diagonal(diagonal: &[T]) -> Result<Self, FormatError> {
        let () = <F as Checked>::VALID;
        let n = diagonal.len();
        let mut list = Entries::with_capacity([n, n], n);
        for (i, &v) in diagonal.iter().enumerate() {
            if v != T::ZERO {
                list.push(&[i, i], v)?;
            }
        }
        Self::from_entry_list(&list, ExplicitZeros::Drop)
    }

    /// The tensor with its dimensions permuted, in format `G`: dimension `d` of the result is
    /// dimension `perm[d]` of `self`, so entry `c` moves to `[c[perm[0]], c[perm[1]], ...]`.
    /// Explicit zeros and the fill value are kept. An error when `perm` is not a permutation of
    /// `0..order`.
    ///
    /// ```
    /// use sparse_runtime::{Coo, Csf, Tensor};
    ///
    /// let t = Tensor::<f64, Coo<3>>::from_entries([2, 3, 4], [([1, 2, 3], 5.0)])?;
    /// let p: Tensor<f64, Csf<3>> = t.permute(&[2, 0, 1])?;
    /// assert_eq!(p.shape(), &[4, 2, 3]);
    /// assert_eq!(p.get(&[3, 1, 2]), Some(5.0));
    /// # Ok::<(), sparse_runtime::FormatError>(())
    /// ```
    pub fn permute<G: Format>(&self, perm: &[usize]) -> Result<Tensor<T, G>, FormatError> {
        let () = <G as Checked>::VALID;
        check_permutation(perm, self.shape.len())?;
        if let Some(fast) = self.permuted_rows(perm) {
            return Ok(fast);
        }
        let shape: Vec<usize> = perm.iter().map(|&d| self.shape[d]).collect();
        let mut list = Entries::with_capacity(shape, self.nnz);
        let mut moved = vec![0; perm.len()];
        let mut pushed = Ok(());
        self.for_each_entry(|c, v| {
            for (m, &d) in moved.iter_mut().zip(perm) {
                *m = c[d];
            }
            if pushed.is_ok() {
                pushed = list.push(&moved, v);
            }
        });
        pushed?;
        Tensor::from_entry_list_with_fill(&list, ExplicitZeros::Keep, self.fill)
    }

    /// The transpose of a matrix, in format `G` (`Csc` for the transpose of a `Csr` matrix
    /// stores the same arrays); explicit zeros and the fill value are kept. An error for a
    /// tensor whose order is not 2.
    pub fn transpose<G: Format>(&self) -> Result<Tensor<T, G>, FormatError> {
        let () = <G as Checked>::VALID;
        self.permute(&[1, 0])
    }

    /// The same tensor without its stored zeros (explicit zeros kept by
    /// [`ExplicitZeros::Keep`], [`Tensor::convert`] or a kernel), or, for a tensor with another
    /// fill value, without the stored entries equal to the fill. Dense levels still store every
    /// position.
    pub fn prune(&self) -> Result<Self, FormatError> {
        let fill = self.fill;
        self.retain(|v| v != fill)
    }

    /// The same tensor without the stored entries whose magnitude is below `threshold` (zeros
    /// included when `threshold` is positive); NaN entries are kept. The entries left out then
    /// read as the fill value.
    ///
    /// ```
    /// use sparse_runtime::{Csr, ExplicitZeros, Tensor};
    ///
    /// let entries = [([0, 0], 1e-12), ([0, 1], 0.0), ([1, 1], -2.0)];
    /// let a = Tensor::<f64, Csr>::from_entries_with([2, 2], entries, ExplicitZeros::Keep)?;
    /// assert_eq!(a.nnz(), 3);
    /// assert_eq!(a.prune()?.nnz(), 2);
    /// let b = a.prune_below(1e-9)?;
    /// assert_eq!(b.iter().collect::<Vec<_>>(), vec![(vec![1, 1], -2.0)]);
    /// # Ok::<(), sparse_runtime::FormatError>(())
    /// ```
    pub fn prune_below(&self, threshold: T) -> Result<Self, FormatError> {
        // Written without `|v|`, which overflows at an integer type's minimum.
        let below = |v: T| threshold > T::ZERO && v < threshold && v > -threshold;
        self.retain(|v| !below(v))
    }

    /// The entries for which `keep(value)` holds, repacked.
    fn retain(&self, mut keep: impl FnMut(T) -> bool) -> Result<Self, FormatError> {
        let mut list = Entries::with_capacity(self.shape.clone(), self.nnz);
        // The coordinates come from this tensor's own hierarchy, inside its shape, so `push`
        // cannot fail.
        self.for_each_entry(|c, v| {
            if keep(v) {
                let _ = list.push(c, v);
            }
        });
        Self::from_entry_list_with_fill(&list, ExplicitZeros::Keep, self.fill)
    }
}

impl<T: Scalar, const N: usize> Tensor<T, Dense<N>> {
    /// A dense tensor over `values`, row-major, without copying them. An error when `values` does
    /// not hold one value per element of `shape`, or a dimension exceeds `u32::MAX`.
    ///
    /// ```
    /// use sparse_runtime::{DenseMat, Tensor};
    ///
    /// let a = Tensor::<f64, DenseMat>::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(a.get(&[1, 0]), Some(3.0));
    /// assert_eq!(a.into_vec(), vec![1.0, 2.0, 3.0, 4.0]);
    /// # Ok::<(), sparse_runtime::FormatError>(())
    /// ```
    pub fn from_vec(shape: [usize; N], values: Vec<T>) -> Result<Self, FormatError> {
        let () = <Dense<N> as Checked>::VALID;
        check_shape(&shape)?;
        let expected = dense_len(&shape)?;
        if values.len() != expected {
            return Err(FormatError::DenseLength {
                expected,
                found: values.len(),
            });
        }
        Ok(Tensor {
            shape: shape.to_vec(),
            levels: shape.iter().map(|&size| Level::Dense { size }).collect(),
            crd_bounds: std::sync::OnceLock::new(),
            nnz: values.len(),
            vals: values,
            filled: None,
            fill: T::ZERO,
            format: PhantomData,
        })
    }

    /// The values, row-major, without copying them.
    pub fn into_vec(self) -> Vec<T> {
        self.vals
    }

    /// The same values with fill value `fill`. A dense tensor stores every element, so its
    /// values do not change: the fill only says which of them a kernel may treat as absent (a
    /// vector of distances, `+inf` where a vertex is not reached, handed to a kernel that
    /// declares `fills< x: inf >`).
    ///
    /// ```
    /// use sparse_runtime::{DenseVec, Tensor};
    ///
    /// let inf = f64::INFINITY;
    /// let d = Tensor::<f64, DenseVec>::from_vec([3], vec![0.0, inf, 2.0])?.with_fill(inf);
    /// assert_eq!((d.fill(), d.to_dense()), (inf, vec![0.0, inf, 2.0]));
    /// # Ok::<(), sparse_runtime::FormatError>(())
    /// ```
    pub fn with_fill(mut self, fill: T) -> Self {
        self.fill = fill;
        self
    }
}

fn check_permutation(perm: &[usize], order: usize) -> Result<(), FormatError> {
    let mut seen = vec![false; order];
    let valid = perm.len() == order
        && perm
            .iter()
            .all(|&d| d < order && !std::mem::replace(&mut seen[d], true));
    if valid {
        Ok(())
    } else {
        Err(FormatError::InvalidPermutation {
            perm: perm.to_vec(),
            order,
        })
    }
}
