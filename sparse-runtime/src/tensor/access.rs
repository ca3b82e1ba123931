//! Reading single entries and fibers: [`Tensor::get`], [`Tensor::iter`], [`Tensor::row`].
//!
//! `get` locates a coordinate level by level with the level functions of Chou et al. 2018
//! (a dense level computes the position, a compressed level searches its segment, a hashed
//! level probes its buckets), so it reads one path of the hierarchy, not every entry. Formats
//! whose levels store something other than one logical dimension each (ELL's slots, DIA's
//! diagonals, BCSR's blocks) are read by a walk over their entries instead.

use sparse_format::{Coord, Format, LevelKind, LevelSpec};

use super::Tensor;
use crate::Scalar;
use crate::storage::{EMPTY, Idx, Level};

impl<T: Scalar, F: Format> Tensor<T, F> {
    /// The value at `coords`: `None` when `coords` is outside the shape (or has another length
    /// than the order), as for a slice's `get`; `Some(fill)` where nothing is stored (zero,
    /// unless the tensor has another [fill value](Tensor::fill)); the stored value otherwise (an
    /// explicit zero reads as zero, and the duplicates a format with non-unique levels may hold
    /// are summed).
    ///
    /// ```
    /// use sparse_runtime::{Csr, Tensor};
    ///
    /// let a = Tensor::<f64, Csr>::from_entries([2, 3], [([1, 2], 5.0)])?;
    /// assert_eq!(a.get(&[1, 2]), Some(5.0));
    /// assert_eq!(a.get(&[0, 0]), Some(0.0));
    /// assert_eq!(a.get(&[2, 0]), None);
    /// # Ok::<(), sparse_runtime::FormatError>(())
    /// ```
    pub fn get(&self, coords: &[usize]) -> Option<T> {
        let inside =
            coords.len() == self.shape.len() && coords.iter().zip(&self.shape).all(|(c, n)| c < n);
        if !inside {
            return None;
        }
        let mut sum: Option<T> = None;
        let mut add = |v: T| sum = Some(sum.map_or(v, |s| s.wrapping_add(v)));
        if !locatable(F::LEVELS) {
            self.for_each_entry(|c, v| {
                if c == coords {
                    add(v);
                }
            });
            return Some(sum.unwrap_or(self.fill));
        }
        let target: Vec<usize> = F::LEVELS.iter().map(|s| level_coord(s, coords)).collect();
        self.locate(0, 0, &target, &mut add);
        Some(sum.unwrap_or(self.fill))
    }

    /// Calls `add` with the values at every position of level `k` under parent position
    /// `parent` that holds `target[k]`, and so on down to the values.
    fn locate(&self, k: usize, parent: usize, target: &[usize], sum: &mut impl FnMut(T)) {
        let Some(level) = self.levels.get(k) else {
            if self.is_entry(parent) {
                sum(self.vals[parent]);
            }
            return;
        };
        let c = target[k];
        match level {
            Level::Dense { size } => self.locate(k + 1, parent * size + c, target, sum),
            Level::Bitmap { size, present } => {
                let p = parent * size + c;
                if present[p] {
                    self.locate(k + 1, p, target, sum);
                }
            }
            Level::Compressed { pos, crd } => {
                let (lo, hi) = (pos[parent] as usize, pos[parent + 1] as usize);
                let segment = &crd[lo..hi];
                let matches = if F::LEVELS[k].ordered {
                    let start = segment.partition_point(|&x| (x as usize) < c);
                    let end = segment.partition_point(|&x| (x as usize) <= c);
                    start..end
                } else {
                    0..segment.len()
                };
                for p in matches {
                    if segment[p] as usize == c {
                        self.locate(k + 1, lo + p, target, sum);
                    }
                }
            }
            Level::Singleton { crd } => {
                if crd[parent] as usize == c {
                    self.locate(k + 1, parent, target, sum);
                }
            }
            Level::Hashed { buckets, crd } => {
                let base = parent * buckets;
                for (p, &x) in (base..).zip(&crd[base..base + buckets]) {
                    if x != EMPTY && x as usize == c {
                        self.locate(k + 1, p, target, sum);
                    }
                }
            }
            // `locatable` sends formats with these levels to the walk.
            Level::Range { .. } | Level::Offset => {}
        }
    }

    /// Every stored entry as (logical coordinates, value), in storage order; padding is skipped,
    /// explicit zeros are not. The entries are collected first (one `Vec` of coordinates each);
    /// [`Tensor::for_each_entry`] visits them without allocating.
    ///
    /// ```
    /// use sparse_runtime::{Coo, Tensor};
    ///
    /// let a = Tensor::<i32, Coo<2>>::from_entries([2, 2], [([1, 0], 3), ([0, 1], 4)])?;
    /// let entries: Vec<_> = a.iter().collect();
    /// assert_eq!(entries, vec![(vec![0, 1], 4), (vec![1, 0], 3)]);
    /// # Ok::<(), sparse_runtime::FormatError>(())
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Vec<usize>, T)> + use<T, F> {
        let mut out = Vec::with_capacity(self.nnz);
        self.for_each_entry(|c, v| out.push((c.to_vec(), v)));
        out.into_iter()
    }

    /// The fiber under coordinate `i` of a format made of a dense level over a compressed one
    /// (CSR's row `i`, CSC's column `i`): its coordinates (column indices for CSR) and values,
    /// in storage order. `None` for other formats, or when `i` is past the dense level.
    ///
    /// ```
    /// use sparse_runtime::{Csr, Tensor};
    ///
    /// let a = Tensor::<f64, Csr>::from_entries([3, 4], [([0, 3], 1.0), ([0, 1], 2.0)])?;
    /// assert_eq!(a.row(0), Some((&[1, 3][..], &[2.0, 1.0][..])));
    /// assert_eq!(a.row(1), Some((&[][..], &[][..])));
    /// assert_eq!(a.row(3), None);
    /// # Ok::<(), sparse_runtime::FormatError>(())
    /// ```
    pub fn row(&self, i: usize) -> Option<(&[Idx], &[T])> {
        let [Level::Dense { size }, Level::Compressed { pos, crd }] = self.levels.as_slice() else {
            return None;
        };
        if i >= *size {
            return None;
        }
        let (lo, hi) = (pos[i] as usize, pos[i + 1] as usize);
        Some((&crd[lo..hi], &self.vals[lo..hi]))
    }
}

/// Whether every level stores one logical dimension and has a locate or a search `get` can use.
fn locatable(specs: &[LevelSpec]) -> bool {
    specs.iter().all(|s| {
        matches!(s.coord, Coord::Dim(_)) && !matches!(s.kind, LevelKind::Range | LevelKind::Offset)
    })
}

/// The coordinate level `spec` stores for the logical `coords` (`locatable` levels only).
fn level_coord(spec: &LevelSpec, coords: &[usize]) -> usize {
    match spec.coord {
        Coord::Dim(d) => coords[d],
        _ => 0,
    }
}
