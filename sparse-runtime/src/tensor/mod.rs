//! [`Tensor<T, F>`]: a coordinate hierarchy (one [`Level`] per stored level of the format `F`) and a
//! values array indexed by the last level's positions (Chou et al. 2018).

mod access;
mod build;
mod traits;
mod transpose;

use std::marker::PhantomData;

use crate::pack::{ExplicitZeros, Filled, pack};
use crate::storage::Level;
use crate::walk::{logical_coords, walk};
use crate::{Entries, FormatError, Scalar};
use sparse_format::{Format, LevelSpec, check_levels};

/// Forces [`check_levels`] on a format when a tensor of it is first built, so that a custom format
/// with an invalid level list is a compile error. Sealed by the blanket impl. Every public
/// constructor names it itself (not only through the function it delegates to), so the error's
/// "while instantiating" note points at the caller's line.
trait Checked: Format {
    const VALID: ();
}

impl<F: Format> Checked for F {
    const VALID: () = check_levels(F::ORDER, F::LEVELS);
}

/// A tensor of `T` values stored in format `F`.
///
/// The format is part of the type: a kernel compiled for `Tensor<f64, Csr>` does not accept a
/// `Tensor<f64, Coo<2>>`. Every constructor leaves the levels consistent with `F::LEVELS` (the
/// invariant generated kernels rely on), so reading a tensor never fails.
///
/// Every tensor has a *fill value*, the value of every element it does not store: zero unless it
/// was built with [`Tensor::from_entries_with_fill`] or [`Tensor::filled`] (`+inf` for the
/// distances of a min-plus product, say). Dense levels store the fill where no entry was given,
/// and [`Tensor::to_dense`] and [`Tensor::get`] show it where nothing is stored. Conversions keep
/// it; a kernel checks that each tensor it gets has the fill its `fills<...>` clause declares.
///
/// ```
/// use sparse_runtime::{Csr, Tensor};
///
/// let inf = f64::INFINITY;
/// let d = Tensor::<f64, Csr>::from_entries_with_fill([2, 2], [([0, 1], 3.0)], inf)?;
/// assert_eq!(d.fill(), inf);
/// assert_eq!(d.to_dense(), vec![inf, 3.0, inf, inf]);
/// # Ok::<(), sparse_runtime::FormatError>(())
/// ```
///
/// ```
/// use sparse_runtime::{Csr, Tensor};
///
/// let a = Tensor::<f64, Csr>::from_entries([2, 3], [([1, 2], 5.0), ([0, 0], 1.0), ([1, 2], 1.0)])?;
/// assert_eq!(a.nnz(), 2); // duplicates are summed
/// assert_eq!(a.level(1).pos(), &[0, 1, 2]);
/// assert_eq!(a.to_dense(), vec![1.0, 0.0, 0.0, 0.0, 0.0, 6.0]);
/// # Ok::<(), sparse_runtime::FormatError>(())
/// ```
///
/// A format that is not named is a marker type implementing [`Format`]:
///
/// ```
/// use sparse_runtime::{Format, LevelSpec, Tensor};
///
/// /// Rows dense, each row's columns in a hash table.
/// #[derive(Clone, Copy, Debug, Default)]
/// struct RowHash;
/// impl Format for RowHash {
///     const NAME: &'static str = "row-hash";
///     const ORDER: usize = 2;
///     const LEVELS: &'static [LevelSpec] = &[LevelSpec::dense(0), LevelSpec::hashed(1)];
/// }
///
/// let t = Tensor::<f64, RowHash>::from_entries([2, 5], [([1, 4], 2.0), ([0, 0], 1.0)])?;
/// assert_eq!(t.to_dense(), vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0]);
/// # Ok::<(), sparse_runtime::FormatError>(())
/// ```
#[derive(Clone)]
pub struct Tensor<T, F> {
    shape: Vec<usize>,
    // Crate-visible for output assembly (`assembly.rs`), which rebuilds them in place. Every
    // write to `levels` must reset `crd_bounds` (`Tensor::levels_changed`): `Gather` relies on it.
    pub(crate) levels: Vec<Level>,
    /// Per level, one more than its largest coordinate (0 for a level without any), computed
    /// on first use by [`crate::Gather`] and reset whenever the levels change.
    pub(crate) crd_bounds: std::sync::OnceLock<Vec<usize>>,
    pub(crate) vals: Vec<T>,
    pub(crate) filled: Option<Filled>,
    pub(crate) nnz: usize,
    /// The value of every element not stored.
    pub(crate) fill: T,
    format: PhantomData<F>,
}

impl<T: Scalar, F: Format> Tensor<T, F> {
    /// Packs entries given in any order; duplicates are summed and entries that sum to zero are
    /// not stored. The format is usually inferred from where the tensor is used.
    pub fn from_entries<const N: usize>(
        shape: [usize; N],
        entries: impl IntoIterator<Item = ([usize; N], T)>,
    ) -> Result<Self, FormatError> {
        let () = <F as Checked>::VALID;
        Self::from_entries_with(shape, entries, ExplicitZeros::Drop)
    }

    /// Like [`Tensor::from_entries`], choosing whether explicit zeros are stored.
    pub fn from_entries_with<const N: usize>(
        shape: [usize; N],
        entries: impl IntoIterator<Item = ([usize; N], T)>,
        zeros: ExplicitZeros,
    ) -> Result<Self, FormatError> {
        Self::from_entry_list(&Self::list_of(shape, entries)?, zeros)
    }

    /// Packs entries given in any order into a tensor whose unstored elements are `fill`
    /// rather than zero. Duplicates are summed, and entries whose value is the fill are not
    /// stored; dense levels hold the fill where no entry was given.
    ///
    /// ```
    /// use sparse_runtime::{DenseVec, Tensor};
    ///
    /// let inf = f64::INFINITY;
    /// let x = Tensor::<f64, DenseVec>::from_entries_with_fill([3], [([1], 2.0)], inf)?;
    /// assert_eq!(x.values(), &[inf, 2.0, inf]);
    /// assert_eq!(x.get(&[0]), Some(inf));
    /// # Ok::<(), sparse_runtime::FormatError>(())
    /// ```
    pub fn from_entries_with_fill<const N: usize>(
        shape: [usize; N],
        entries: impl IntoIterator<Item = ([usize; N], T)>,
        fill: T,
    ) -> Result<Self, FormatError> {
        Self::pack_list(&Self::list_of(shape, entries)?, ExplicitZeros::Drop, fill)
    }

    /// The entries of a `from_entries*` call as a list, each checked against `shape`.
    fn list_of<const N: usize>(
        shape: [usize; N],
        entries: impl IntoIterator<Item = ([usize; N], T)>,
    ) -> Result<Entries<T>, FormatError> {
        let () = <F as Checked>::VALID;
        const {
            assert!(
                N == F::ORDER,
                "the shape's length must equal the format's order"
            )
        };
        let entries = entries.into_iter();
        let mut list = Entries::with_capacity(shape, entries.size_hint().0);
        for (c, v) in entries {
            list.push(&c, v)?;
        }
        Ok(list)
    }

    /// Packs an [`Entries`] list (what the file readers return).
    pub fn from_entry_list(
        entries: &Entries<T>,
        zeros: ExplicitZeros,
    ) -> Result<Self, FormatError> {
        let () = <F as Checked>::VALID;
        Self::pack_list(entries, zeros, T::ZERO)
    }

    /// Packs an [`Entries`] list into a tensor whose unstored elements are `fill`; with
    /// [`ExplicitZeros::Drop`], entries whose value is the fill are not stored.
    pub fn from_entry_list_with_fill(
        entries: &Entries<T>,
        zeros: ExplicitZeros,
        fill: T,
    ) -> Result<Self, FormatError> {
        let () = <F as Checked>::VALID;
        Self::pack_list(entries, zeros, fill)
    }

    /// [`Tensor::from_entry_list_with_fill`] without naming [`Checked`] (its callers do).
    fn pack_list(entries: &Entries<T>, zeros: ExplicitZeros, fill: T) -> Result<Self, FormatError> {
        check_order::<F>(entries.shape())?;
        let packed = pack(F::NAME, F::LEVELS, entries, zeros, fill)?;
        Ok(Tensor {
            shape: entries.shape().to_vec(),
            levels: packed.levels,
            crd_bounds: std::sync::OnceLock::new(),
            vals: packed.vals,
            filled: packed.filled,
            nnz: packed.nnz,
            fill,
            format: PhantomData,
        })
    }

    /// Packs a dense row-major array; zeros are not stored (except in dense levels).
    pub fn from_dense(shape: impl AsRef<[usize]>, values: &[T]) -> Result<Self, FormatError> {
        let () = <F as Checked>::VALID;
        let shape = shape.as_ref();
        check_order::<F>(shape)?;
        let expected = dense_len(shape)?;
        if values.len() != expected {
            return Err(FormatError::DenseLength {
                expected,
                found: values.len(),
            });
        }
        let mut list = Entries::with_capacity(shape, values.len());
        let mut coords = vec![0usize; shape.len()];
        for &v in values {
            if v != T::ZERO {
                list.push(&coords, v)?;
            }
            increment(&mut coords, shape);
        }
        Self::from_entry_list(&list, ExplicitZeros::Drop)
    }

    /// A tensor of `shape` with no stored entries (every value of a dense format zero).
    ///
    /// # Panics
    /// If a dimension exceeds `u32::MAX` or the dense size overflows memory; [`Tensor::try_zeros`]
    /// returns those as errors.
    pub fn zeros(shape: impl AsRef<[usize]>) -> Self {
        let () = <F as Checked>::VALID;
        match Self::try_zeros(shape) {
            Ok(t) => t,
            Err(e) => panic!("Tensor::zeros: {e}"),
        }
    }

    /// A tensor of `shape` with no stored entries, or why it cannot be made.
    pub fn try_zeros(shape: impl AsRef<[usize]>) -> Result<Self, FormatError> {
        let () = <F as Checked>::VALID;
        Self::from_entry_list(&Entries::new(shape.as_ref()), ExplicitZeros::Drop)
    }

    /// A tensor of `shape` with no stored entries whose fill value is `fill`: every element reads
    /// as `fill`, and a dense format stores it everywhere. What a kernel that declares the fill
    /// of its output (`fills< y: inf >`) writes into.
    ///
    /// ```
    /// use sparse_runtime::{DenseVec, Tensor};
    ///
    /// let y = Tensor::<f64, DenseVec>::filled([2], f64::INFINITY);
    /// assert_eq!(y.fill(), f64::INFINITY);
    /// assert_eq!(y.to_dense(), vec![f64::INFINITY; 2]);
    /// ```
    ///
    /// # Panics
    /// As [`Tensor::zeros`] does; [`Tensor::try_filled`] returns those as errors.
    pub fn filled(shape: impl AsRef<[usize]>, fill: T) -> Self {
        let () = <F as Checked>::VALID;
        match Self::try_filled(shape, fill) {
            Ok(t) => t,
            Err(e) => panic!("Tensor::filled: {e}"),
        }
    }

    /// A tensor of `shape` with no stored entries whose fill value is `fill`, or why it cannot be
    /// made.
    pub fn try_filled(shape: impl AsRef<[usize]>, fill: T) -> Result<Self, FormatError> {
        let () = <F as Checked>::VALID;
        Self::pack_list(&Entries::new(shape.as_ref()), ExplicitZeros::Drop, fill)
    }

    /// The fill value: what every element that is not stored holds (zero unless the tensor was
    /// made with one, [`Tensor::from_entries_with_fill`], [`Tensor::filled`]).
    pub fn fill(&self) -> T {
        self.fill
    }

    /// Builds a tensor from raw level arrays after checking that they form a valid coordinate
    /// hierarchy of format `F` (see [`crate::validate`]). Padding cannot be told apart from
    /// explicit zeros in raw arrays, so every stored position inside the shape counts as an entry.
    pub fn from_parts(
        shape: Vec<usize>,
        levels: Vec<Level>,
        vals: Vec<T>,
    ) -> Result<Self, FormatError> {
        let () = <F as Checked>::VALID;
        check_order::<F>(&shape)?;
        crate::validate::validate(F::LEVELS, &shape, &levels, vals.len())?;
        crate::validate::check_absent_values(&levels, &vals)?;
        let nnz = crate::assembly::count_entries(F::LEVELS, &shape, &levels, vals.len());
        Ok(Tensor {
            shape,
            levels,
            crd_bounds: std::sync::OnceLock::new(),
            vals,
            filled: None,
            nnz,
            fill: T::ZERO,
            format: PhantomData,
        })
    }

    /// The shape, the levels and the values (the fill is not among them: a tensor rebuilt from
    /// them by [`Tensor::from_parts`] has fill zero).
    pub fn into_parts(self) -> (Vec<usize>, Vec<Level>, Vec<T>) {
        (self.shape, self.levels, self.vals)
    }

    /// The logical shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of logical dimensions.
    pub fn order(&self) -> usize {
        F::ORDER
    }

    /// The format's level list.
    pub fn format_levels(&self) -> &'static [LevelSpec] {
        F::LEVELS
    }

    /// The number of stored entries, padding excluded. Every position of an all-dense format is
    /// stored, so there it is the product of the shape.
    pub fn nnz(&self) -> usize {
        self.nnz
    }

    /// The length of the values array, padding and empty hash buckets included: `stored_len() -
    /// nnz()` is what a padded format (ELL, DIA, BCSR) pays for its regular layout.
    pub fn stored_len(&self) -> usize {
        self.vals.len()
    }

    /// The levels, root first.
    pub fn levels(&self) -> &[Level] {
        &self.levels
    }

    /// Level `k` (0 is the root).
    ///
    /// # Panics
    /// If `k` is not below the format's level count.
    pub fn level(&self, k: usize) -> &Level {
        &self.levels[k]
    }

    /// One more than the largest coordinate of level `k` (0 when it stores none, or for a level
    /// without coordinates), computed once and kept until the levels change.
    pub(crate) fn crd_bound(&self, k: usize) -> usize {
        let bounds = self.crd_bounds.get_or_init(|| {
            (self.levels.iter())
                .map(|l| l.crd().iter().max().map_or(0, |&c| c as usize + 1))
                .collect()
        });
        bounds.get(k).copied().unwrap_or(0)
    }

    /// Forgets the coordinate bounds of [`Tensor::crd_bound`]: every write to the levels calls it.
    pub(crate) fn levels_changed(&mut self) {
        self.crd_bounds = std::sync::OnceLock::new();
    }

    /// The values array, indexed by the last level's positions.
    pub fn values(&self) -> &[T] {
        &self.vals
    }

    /// The values array, mutable: the structure stays fixed, so kernels that only compute values
    /// (and users scaling a matrix) can write it in place.
    pub fn values_mut(&mut self) -> &mut [T] {
        &mut self.vals
    }

    /// Whether value position `p` holds an entry rather than padding.
    pub fn is_entry(&self, p: usize) -> bool {
        self.filled.as_ref().is_none_or(|f| f.get(p))
    }

    /// Calls `visit(coordinates, value)` for every stored entry, in storage order.
    pub fn for_each_entry(&self, mut visit: impl FnMut(&[usize], T)) {
        let mut out = vec![0usize; self.shape.len()];
        walk(&self.levels, |level_coords, p| {
            if self.is_entry(p) && logical_coords(F::LEVELS, level_coords, &self.shape, &mut out) {
                visit(&out, self.vals[p]);
            }
        });
    }

    /// The stored entries in logical coordinates, in storage order.
    pub fn entries(&self) -> Entries<T> {
        let mut list = Entries::with_capacity(self.shape.clone(), self.nnz);
        // Coordinates come from a validated hierarchy, so `push` cannot fail.
        self.for_each_entry(|c, v| {
            let _ = list.push(c, v);
        });
        list
    }

    /// The tensor as a dense row-major array over its logical dimensions: the stored values
    /// (duplicates summed), and the fill value where nothing is stored.
    ///
    /// # Panics
    /// If the dense size overflows memory.
    pub fn to_dense(&self) -> Vec<T> {
        let len = self.shape.iter().product();
        let strides = strides(&self.shape);
        let at = |c: &[usize]| -> usize { c.iter().zip(&strides).map(|(c, s)| c * s).sum() };
        if self.fill == T::ZERO {
            let mut dense = vec![T::ZERO; len];
            self.for_each_entry(|c, v| dense[at(c)] += v);
            return dense;
        }
        // A stored entry replaces the fill; a duplicate of it adds to it.
        let mut dense = vec![self.fill; len];
        let mut stored = vec![false; len];
        self.for_each_entry(|c, v| {
            let k = at(c);
            dense[k] = if stored[k] { dense[k] + v } else { v };
            stored[k] = true;
        });
        dense
    }

    /// The same tensor in format `G`; explicit zeros are kept, and so is the fill value.
    pub fn convert<G: Format>(&self) -> Result<Tensor<T, G>, FormatError> {
        let () = <G as Checked>::VALID;
        if let Some(fast) = self.permuted_rows(&[0, 1]) {
            return Ok(fast);
        }
        Tensor::from_entry_list_with_fill(&self.entries(), ExplicitZeros::Keep, self.fill)
    }
}

fn check_order<F: Format>(shape: &[usize]) -> Result<(), FormatError> {
    if shape.len() != F::ORDER {
        return Err(FormatError::OrderMismatch {
            expected: F::ORDER,
            found: shape.len(),
        });
    }
    Ok(())
}

fn dense_len(shape: &[usize]) -> Result<usize, FormatError> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or(FormatError::TooLarge {
            what: "the dense size",
            value: None,
            limit: usize::MAX,
        })
}

/// Advances row-major coordinates by one.
fn increment(coords: &mut [usize], shape: &[usize]) {
    for d in (0..coords.len()).rev() {
        coords[d] += 1;
        if coords[d] < shape[d] {
            return;
        }
        coords[d] = 0;
    }
}

fn strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}
