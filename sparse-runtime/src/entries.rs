//! [`Entries`]: a list of (logical coordinates, value) pairs with a shape. It is what tensors are
//! packed from and unpacked to, and what the file readers produce.

use crate::{FormatError, Scalar};

/// Entries of a tensor in logical coordinates, in no particular order, duplicates allowed.
#[derive(Clone, Debug, PartialEq)]
pub struct Entries<T> {
    shape: Vec<usize>,
    coords: Vec<usize>,
    values: Vec<T>,
}

impl<T: Scalar> Entries<T> {
    /// No entries, in a tensor of `shape`.
    pub fn new(shape: impl Into<Vec<usize>>) -> Self {
        Entries {
            shape: shape.into(),
            coords: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Like [`Entries::new`], with room for `capacity` entries.
    pub fn with_capacity(shape: impl Into<Vec<usize>>, capacity: usize) -> Self {
        let shape = shape.into();
        let coords = Vec::with_capacity(capacity.saturating_mul(shape.len()));
        Entries {
            shape,
            coords,
            values: Vec::with_capacity(capacity),
        }
    }

    /// Appends an entry after checking its arity and bounds.
    pub fn push(&mut self, coords: &[usize], value: T) -> Result<(), FormatError> {
        let entry = self.values.len();
        if coords.len() != self.shape.len() {
            return Err(FormatError::EntryArity {
                entry,
                expected: self.shape.len(),
                found: coords.len(),
            });
        }
        for (dim, (&coord, &size)) in coords.iter().zip(&self.shape).enumerate() {
            if coord >= size {
                return Err(FormatError::EntryOutOfBounds {
                    entry,
                    dim,
                    coord,
                    size,
                });
            }
        }
        self.coords.extend_from_slice(coords);
        self.values.push(value);
        Ok(())
    }

    /// Moves `other`'s entries after these (a parallel kernel's per-task lists, joined in
    /// order); both lists have the same shape.
    pub(crate) fn append(&mut self, mut other: Entries<T>) {
        if self.values.is_empty() {
            (self.coords, self.values) = (other.coords, other.values);
            return;
        }
        self.coords.append(&mut other.coords);
        self.values.append(&mut other.values);
    }

    /// The logical shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The coordinates of entry `k`.
    pub fn coords(&self, k: usize) -> &[usize] {
        let order = self.shape.len();
        &self.coords[k * order..(k + 1) * order]
    }

    /// The values, in entry order.
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// The entries as (coordinates, value) pairs.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&[usize], T)> + '_ {
        (0..self.len()).map(|k| (self.coords(k), self.values[k]))
    }

    /// Sorts the entries lexicographically by coordinates and sums duplicates (integer sums wrap;
    /// packing a tensor reports overflow instead), so two lists of the same tensor compare equal.
    pub fn canonicalize(&mut self) {
        let order = self.shape.len();
        let mut perm: Vec<usize> = (0..self.len()).collect();
        perm.sort_by(|&a, &b| self.coords(a).cmp(self.coords(b)));
        let mut coords = Vec::with_capacity(self.coords.len());
        let mut values: Vec<T> = Vec::with_capacity(self.len());
        for k in perm {
            let c = self.coords(k);
            let same = !values.is_empty() && &coords[coords.len() - order..] == c;
            match values.last_mut() {
                Some(last) if same => *last = last.wrapping_add(self.values[k]),
                _ => {
                    coords.extend_from_slice(c);
                    values.push(self.values[k]);
                }
            }
        }
        self.coords = coords;
        self.values = values;
    }
}
