//! The standard traits of [`Tensor`]: equality of the tensors as values, a short `Display`, a
//! compact `Debug`.

use std::fmt;

use sparse_format::Format;

use super::Tensor;
use crate::{Entries, Scalar};

/// How many entries `Display` prints before it elides the rest.
const SHOWN_ENTRIES: usize = 6;

/// Two tensors of one format are equal when they have the same shape, the same fill value and
/// the same value at every coordinate. Storage is not compared: an explicitly stored zero (a
/// stored fill) equals an entry that is not stored, padding is ignored, and so is the order of an
/// unordered level. Values compare as `T` does, so a tensor holding a NaN is not equal to itself.
///
/// ```
/// use sparse_runtime::{Csr, ExplicitZeros, Tensor};
///
/// let a = Tensor::<f64, Csr>::from_entries([2, 2], [([0, 1], 2.0)])?;
/// let zeros = [([0, 1], 2.0), ([1, 1], 0.0)];
/// let b = Tensor::<f64, Csr>::from_entries_with([2, 2], zeros, ExplicitZeros::Keep)?;
/// assert_ne!(a.nnz(), b.nnz());
/// assert_eq!(a, b);
/// # Ok::<(), sparse_runtime::FormatError>(())
/// ```
impl<T: Scalar, F: Format> PartialEq for Tensor<T, F> {
    fn eq(&self, other: &Self) -> bool {
        self.shape == other.shape && self.fill == other.fill && nonzeros(self) == nonzeros(other)
    }
}

/// The entries sorted by coordinates, duplicates summed, those equal to the fill dropped.
fn nonzeros<T: Scalar, F: Format>(t: &Tensor<T, F>) -> Entries<T> {
    let mut entries = t.entries();
    entries.canonicalize();
    let mut kept = Entries::with_capacity(t.shape.clone(), entries.len());
    for (c, v) in entries.iter().filter(|&(_, v)| v != t.fill) {
        // Coordinates of a tensor's own entries are inside its shape: `push` cannot fail.
        let _ = kept.push(c, v);
    }
    kept
}

/// One line: the format, the shape, the fill value where it is not zero, the stored entries and
/// the first few of them.
///
/// ```
/// use sparse_runtime::{Csr, Tensor};
///
/// let a = Tensor::<f64, Csr>::from_entries([3, 4], [([0, 1], 2.0), ([2, 3], 1.5)])?;
/// assert_eq!(a.to_string(), "csr 3x4, 2 stored: (0, 1) 2, (2, 3) 1.5");
/// # Ok::<(), sparse_runtime::FormatError>(())
/// ```
impl<T: Scalar, F: Format> fmt::Display for Tensor<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape: Vec<String> = self.shape.iter().map(usize::to_string).collect();
        write!(f, "{} {}", F::NAME, shape.join("x"))?;
        if self.fill != T::ZERO {
            write!(f, ", fill {}", self.fill)?;
        }
        write!(f, ", {} stored", self.nnz)?;
        let mut shown = 0;
        let mut result = Ok(());
        self.for_each_entry(|c, v| {
            if shown < SHOWN_ENTRIES && result.is_ok() {
                let sep = if shown == 0 { ":" } else { "," };
                let coords: Vec<String> = c.iter().map(usize::to_string).collect();
                result = write!(f, "{sep} ({}) {v}", coords.join(", "));
            }
            shown += 1;
        });
        result?;
        if shown > SHOWN_ENTRIES {
            write!(f, ", ... ({} more)", shown - SHOWN_ENTRIES)?;
        }
        Ok(())
    }
}

/// The format, shape, entry count and the length of each array, not the arrays themselves, and
/// the fill value where it is not zero.
///
/// ```
/// use sparse_runtime::{Csr, Tensor};
///
/// let a = Tensor::<f64, Csr>::from_entries([3, 4], [([0, 1], 2.0), ([2, 3], 1.5)])?;
/// assert_eq!(
///     format!("{a:?}"),
///     "Tensor { format: \"csr\", shape: [3, 4], nnz: 2, stored_len: 2, \
///      levels: [dense 3, compressed (pos 4, crd 2)] }"
/// );
/// # Ok::<(), sparse_runtime::FormatError>(())
/// ```
impl<T: Scalar, F: Format> fmt::Debug for Tensor<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let levels: Vec<LevelSummary<'_>> = self.levels.iter().map(LevelSummary).collect();
        let mut s = f.debug_struct("Tensor");
        s.field("format", &F::NAME).field("shape", &self.shape);
        if self.fill != T::ZERO {
            s.field("fill", &self.fill);
        }
        s.field("nnz", &self.nnz)
            .field("stored_len", &self.vals.len())
            .field("levels", &levels)
            .finish()
    }
}

/// A level as its kind and the sizes of its arrays.
struct LevelSummary<'a>(&'a crate::Level);

impl fmt::Debug for LevelSummary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::Level;
        let kind = self.0.kind().name();
        match self.0 {
            Level::Dense { size } => write!(f, "{kind} {size}"),
            Level::Compressed { pos, crd } => {
                write!(f, "{kind} (pos {}, crd {})", pos.len(), crd.len())
            }
            Level::Singleton { crd } => write!(f, "{kind} (crd {})", crd.len()),
            Level::Range { size, offsets, .. } => {
                write!(f, "{kind} {size} (offsets {})", offsets.len())
            }
            Level::Offset => write!(f, "{kind}"),
            Level::Hashed { buckets, crd } => {
                write!(f, "{kind} {buckets} buckets (crd {})", crd.len())
            }
            Level::Bitmap { size, present } => {
                write!(f, "{kind} {size} (present {})", present.len())
            }
        }
    }
}
