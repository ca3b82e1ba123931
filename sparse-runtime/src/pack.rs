//! Packing: entries in any order -> the levels and values of any format.
//!
//! One generic algorithm serves every format (Chou et al. 2018, and the compact-and-pad
//! inspectors of Senanayake et al. 2020 for ELL, DIA and BCSR):
//! 1. map each entry to its *level coordinates* (the coordinate each level stores: a dimension,
//!    a block row, an offset inside a block),
//! 2. sort by the labeled level coordinates (a counting sort on the root level, then a comparison
//!    sort inside each bucket) and sum duplicates,
//! 3. number the slot levels (ELL's k-th entry of a row, DIA's diagonal),
//! 4. build the levels top-down, giving every entry its position in each level, and
//! 5. scatter the values to their final positions; positions no entry reached are padding.

use crate::storage::{EMPTY, Idx, Level};
use crate::{Entries, FormatError, Scalar};
use sparse_format::{Coord, LevelKind, LevelSpec};

/// Whether explicit zeros among the entries are stored or dropped. For a tensor with a fill value
/// other than zero ([`Tensor::from_entries_with_fill`](crate::Tensor::from_entries_with_fill)),
/// "zero" means the fill: entries whose value is the fill are what `Drop` leaves out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ExplicitZeros {
    /// Entries whose (summed) value is zero (the fill) are not stored.
    #[default]
    Drop,
    /// Every entry given is stored, zero or not.
    Keep,
}

/// A bit per value position: set where an entry was placed. Absent when every position holds one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filled {
    bits: Vec<u64>,
}

impl Filled {
    fn new(len: usize) -> Self {
        Filled {
            bits: vec![0; len.div_ceil(64)],
        }
    }

    fn set(&mut self, p: usize) {
        self.bits[p / 64] |= 1 << (p % 64);
    }

    /// Whether position `p` holds an entry rather than padding.
    pub fn get(&self, p: usize) -> bool {
        self.bits
            .get(p / 64)
            .is_some_and(|w| w & (1 << (p % 64)) != 0)
    }
}

/// The result of packing.
pub(crate) struct Packed<T> {
    pub levels: Vec<Level>,
    pub vals: Vec<T>,
    pub filled: Option<Filled>,
    pub nnz: usize,
}

/// Packs `entries` into the levels `specs`; `format` names the format in errors. Positions no
/// entry reaches (the unstored elements of dense levels, padding) hold `fill`, and `Drop` leaves
/// out the entries whose value is `fill`.
pub(crate) fn pack<T: Scalar>(
    format: &'static str,
    specs: &[LevelSpec],
    entries: &Entries<T>,
    zeros: ExplicitZeros,
    fill: T,
) -> Result<Packed<T>, FormatError> {
    let shape = entries.shape();
    check_shape(shape)?;
    let mut sorted = sort_and_sum(specs, entries, zeros, fill)?;
    number_slots(specs, &mut sorted);
    let nnz = sorted.vals.len();
    let mut builder = Builder {
        format,
        specs,
        shape,
        sorted,
        pos: vec![0; nnz],
        len: 1,
    };
    let mut levels = Vec::with_capacity(specs.len());
    for k in 0..specs.len() {
        levels.push(builder.build_level(k)?);
    }
    let (vals, filled) = builder.scatter_values(nnz, fill)?;
    let all_dense = specs
        .iter()
        .all(|s| s.kind == LevelKind::Dense && s.coord != Coord::Slot);
    // Every position of an all-dense tensor is a stored value, zero or not.
    let nnz = if all_dense { vals.len() } else { nnz };
    let filled = if vals.len() == nnz {
        None
    } else {
        Some(filled)
    };
    Ok(Packed {
        levels,
        vals,
        filled,
        nnz,
    })
}

/// Rejects dimensions that do not fit the index type.
pub(crate) fn check_shape(shape: &[usize]) -> Result<(), FormatError> {
    let limit = Idx::MAX as usize;
    match shape.iter().find(|&&n| n > limit) {
        Some(&n) => Err(FormatError::TooLarge {
            what: "a dimension",
            value: Some(n),
            limit,
        }),
        None => Ok(()),
    }
}

/// The entries in level order: `crd[e * levels + k]` is entry `e`'s coordinate at level `k`.
struct Sorted<T> {
    levels: usize,
    crd: Vec<Idx>,
    vals: Vec<T>,
}

impl<T> Sorted<T> {
    fn at(&self, e: usize, k: usize) -> Idx {
        self.crd[e * self.levels + k]
    }

    fn row(&self, e: usize) -> &[Idx] {
        &self.crd[e * self.levels..(e + 1) * self.levels]
    }

    /// Reorders the entries by `perm` (new entry `e` is old entry `perm[e]`).
    fn permute(&mut self, perm: &[usize])
    where
        T: Copy,
    {
        let mut crd = Vec::with_capacity(self.crd.len());
        for &e in perm {
            crd.extend_from_slice(self.row(e));
        }
        self.vals = perm.iter().map(|&e| self.vals[e]).collect();
        self.crd = crd;
    }
}

/// The level coordinate of logical coordinates `c` at a level storing `coord` (slots give 0 until
/// they are numbered). Coordinates fit `Idx` because the shape was checked.
fn level_coord(coord: Coord, c: &[usize]) -> Idx {
    let v = match coord {
        Coord::Dim(d) => c[d],
        Coord::BlockOuter { dim, block } => c[dim] / block,
        Coord::BlockInner { dim, block } => c[dim] % block,
        Coord::Slot => 0,
    };
    v as Idx
}

/// Steps 1–2: level coordinates, sorted by the labeled levels, duplicates summed.
fn sort_and_sum<T: Scalar>(
    specs: &[LevelSpec],
    entries: &Entries<T>,
    zeros: ExplicitZeros,
    fill: T,
) -> Result<Sorted<T>, FormatError> {
    if specs.iter().all(|s| s.coord != Coord::Slot) {
        match specs.len() {
            0..=2 => return sort_records::<u64, T>(specs, entries, zeros, fill),
            3..=4 => return sort_records::<u128, T>(specs, entries, zeros, fill),
            _ => {}
        }
    }
    let levels = specs.len();
    let n = entries.len();
    let mut crd = Vec::with_capacity(n * levels);
    for (c, _) in entries.iter() {
        crd.extend(specs.iter().map(|s| level_coord(s.coord, c)));
    }
    let unsorted = Sorted {
        levels,
        crd,
        vals: entries.values().to_vec(),
    };
    let perm = sort_permutation(&unsorted, |s, e| s.row(e));
    let mut out = Sorted {
        levels,
        crd: Vec::with_capacity(n * levels),
        vals: Vec::new(),
    };
    for e in perm {
        let row = unsorted.row(e);
        let value = unsorted.vals[e];
        let same = !out.vals.is_empty() && &out.crd[out.crd.len() - levels..] == row;
        match out.vals.last_mut() {
            Some(last) if same => {
                *last = Scalar::checked_add(*last, value).ok_or_else(|| {
                    FormatError::ValueOverflow {
                        coords: entries.coords(e).to_vec(),
                    }
                })?;
            }
            _ => {
                out.crd.extend_from_slice(row);
                out.vals.push(value);
            }
        }
    }
    if zeros == ExplicitZeros::Drop {
        drop_fill(&mut out, fill);
    }
    Ok(out)
}

/// Up to four `u32` level coordinates packed into one integer, the first most significant, so
/// integer order is the levels' lexicographic order.
trait PackedKey: Ord + Copy {
    fn pack(coords: impl Iterator<Item = Idx>) -> Self;
    fn unpack(self, levels: usize, out: &mut Vec<Idx>);
}

macro_rules! packed_key {
    ($t:ty) => {
        impl PackedKey for $t {
            #[inline]
            fn pack(coords: impl Iterator<Item = Idx>) -> Self {
                coords.fold(0, |key, c| (key << 32) | <$t>::from(c))
            }

            #[inline]
            fn unpack(self, levels: usize, out: &mut Vec<Idx>) {
                for k in (0..levels).rev() {
                    out.push((self >> (32 * k)) as Idx);
                }
            }
        }
    };
}

packed_key!(u64);
packed_key!(u128);

/// Steps 1–2 for up to four levels and no slots: each entry becomes one record (packed key,
/// value), and the records are sorted in place. The sort streams through memory, where sorting a
/// permutation and gathering through it reads at random (the difference is most of the time on
/// matrices larger than the cache).
fn sort_records<K: PackedKey, T: Scalar>(
    specs: &[LevelSpec],
    entries: &Entries<T>,
    zeros: ExplicitZeros,
    fill: T,
) -> Result<Sorted<T>, FormatError> {
    let levels = specs.len();
    let mut records: Vec<(K, T)> = entries
        .iter()
        .map(|(c, v)| (K::pack(specs.iter().map(|s| level_coord(s.coord, c))), v))
        .collect();
    records.sort_unstable_by_key(|r| r.0);
    let mut out = Sorted {
        levels,
        crd: Vec::with_capacity(records.len() * levels),
        vals: Vec::with_capacity(records.len()),
    };
    let mut last: Option<K> = None;
    for (key, value) in records {
        if last == Some(key) {
            if let Some(sum) = out.vals.last_mut() {
                *sum =
                    Scalar::checked_add(*sum, value).ok_or_else(|| FormatError::ValueOverflow {
                        coords: logical_of(specs, key, levels, entries.shape().len()),
                    })?;
            }
            continue;
        }
        key.unpack(levels, &mut out.crd);
        out.vals.push(value);
        last = Some(key);
    }
    if zeros == ExplicitZeros::Drop && out.vals.contains(&fill) {
        drop_fill(&mut out, fill);
    }
    Ok(out)
}

/// The logical coordinates of a packed key (for error messages).
fn logical_of<K: PackedKey>(
    specs: &[LevelSpec],
    key: K,
    levels: usize,
    order: usize,
) -> Vec<usize> {
    let mut crd = Vec::with_capacity(levels);
    key.unpack(levels, &mut crd);
    let level_coords: Vec<usize> = crd.iter().map(|&c| c as usize).collect();
    let mut out = vec![0; order];
    for (spec, c) in specs.iter().zip(level_coords) {
        match spec.coord {
            Coord::Dim(d) => out[d] = c,
            Coord::BlockOuter { dim, block } => out[dim] += c * block,
            Coord::BlockInner { dim, .. } => out[dim] += c,
            Coord::Slot => {}
        }
    }
    out
}

/// Leaves out the entries whose value is `fill` (zero for most tensors).
fn drop_fill<T: Scalar>(sorted: &mut Sorted<T>, fill: T) {
    let keep: Vec<usize> = (0..sorted.vals.len())
        .filter(|&e| sorted.vals[e] != fill)
        .collect();
    if keep.len() != sorted.vals.len() {
        sorted.permute(&keep);
    }
}

/// A permutation sorting the entries by `key`: a counting sort on the key's first element when its
/// range is small against the entry count (the common case: rows of a matrix), then a comparison
/// sort inside each bucket.
fn sort_permutation<T>(
    sorted: &Sorted<T>,
    key: impl Fn(&Sorted<T>, usize) -> &[Idx],
) -> Vec<usize> {
    let n = sorted.vals.len();
    let first = |e: usize| key(sorted, e).first().copied().unwrap_or(0) as usize;
    let extent = (0..n).map(|e| first(e) + 1).max().unwrap_or(0);
    if extent > 2 * n + 1024 {
        let mut perm: Vec<usize> = (0..n).collect();
        perm.sort_by(|&a, &b| key(sorted, a).cmp(key(sorted, b)));
        return perm;
    }
    let mut start = vec![0usize; extent + 1];
    for e in 0..n {
        start[first(e) + 1] += 1;
    }
    for b in 0..extent {
        start[b + 1] += start[b];
    }
    let mut next = start.clone();
    let mut perm = vec![0usize; n];
    for e in 0..n {
        let b = first(e);
        perm[next[b]] = e;
        next[b] += 1;
    }
    for b in 0..extent {
        let bucket = &mut perm[start[b]..start[b + 1]];
        if bucket.len() > 1 {
            bucket.sort_by(|&x, &y| key(sorted, x).cmp(key(sorted, y)));
        }
    }
    perm
}

/// Step 3: numbers the slot levels. A slot directly above a range level is DIA's diagonal number
/// (the rank of `column - row` among the stored diagonals); any other slot is ELL's `k`, the rank of
/// the entry among the entries that share every labeled coordinate other than singleton ones.
/// Entries are re-sorted in full level order afterwards.
fn number_slots<T: Scalar>(specs: &[LevelSpec], sorted: &mut Sorted<T>) {
    let slots: Vec<usize> = (0..specs.len())
        .filter(|&k| specs[k].coord == Coord::Slot)
        .collect();
    if slots.is_empty() {
        return;
    }
    let n = sorted.vals.len();
    let levels = specs.len();
    for &k in &slots {
        let diagonal = specs.get(k + 1).filter(|s| s.kind == LevelKind::Range);
        match diagonal {
            Some(range) => {
                let row = range.coord.dim().unwrap_or(0);
                let col = specs[k + 2].coord.dim().unwrap_or(0);
                let offsets = diagonal_offsets(specs, sorted, row, col);
                for e in 0..n {
                    let off = diagonal_of(specs, sorted, e, row, col);
                    sorted.crd[e * levels + k] = offsets.binary_search(&off).unwrap_or(0) as Idx;
                }
            }
            None => {
                let group: Vec<usize> = (0..levels)
                    .filter(|&j| {
                        specs[j].coord != Coord::Slot && specs[j].kind != LevelKind::Singleton
                    })
                    .collect();
                let mut rank = 0;
                for e in 0..n {
                    let same = e > 0
                        && group
                            .iter()
                            .all(|&j| sorted.at(e, j) == sorted.at(e - 1, j));
                    rank = if same { rank + 1 } else { 0 };
                    sorted.crd[e * levels + k] = rank;
                }
            }
        }
    }
    let perm = sort_permutation(sorted, |s, e| s.row(e));
    sorted.permute(&perm);
}

/// The logical (row, column) coordinates of entry `e`, read back from its level coordinates.
fn diagonal_of<T>(
    specs: &[LevelSpec],
    sorted: &Sorted<T>,
    e: usize,
    row: usize,
    col: usize,
) -> i64 {
    let mut rc = [0i64; 2];
    for (k, s) in specs.iter().enumerate() {
        let c = i64::from(sorted.at(e, k));
        let (dim, value) = match s.coord {
            Coord::Dim(d) => (d, c),
            Coord::BlockOuter { dim, block } => (dim, c * block as i64),
            Coord::BlockInner { dim, .. } => (dim, c),
            Coord::Slot => continue,
        };
        if dim == row {
            rc[0] += value;
        } else if dim == col {
            rc[1] += value;
        }
    }
    rc[1] - rc[0]
}

/// The sorted, distinct diagonals (`column - row`) of the entries.
fn diagonal_offsets<T>(
    specs: &[LevelSpec],
    sorted: &Sorted<T>,
    row: usize,
    col: usize,
) -> Vec<i64> {
    let mut offsets: Vec<i64> = (0..sorted.vals.len())
        .map(|e| diagonal_of(specs, sorted, e, row, col))
        .collect();
    offsets.sort_unstable();
    offsets.dedup();
    offsets
}

/// Step 4–5 state: entries in level order, each entry's position in the last level built, and that
/// level's number of positions.
struct Builder<'a, T> {
    format: &'static str,
    specs: &'a [LevelSpec],
    shape: &'a [usize],
    sorted: Sorted<T>,
    pos: Vec<usize>,
    len: usize,
}

impl<T: Scalar> Builder<'_, T> {
    fn build_level(&mut self, k: usize) -> Result<Level, FormatError> {
        let spec = self.specs[k];
        match spec.kind {
            LevelKind::Dense => {
                let size = self.dense_size(k);
                self.descend_dense(k, size)?;
                Ok(Level::Dense { size })
            }
            LevelKind::Range => {
                let size = self.shape[spec.coord.dim().unwrap_or(0)];
                let bound = self.shape[self.specs[k + 1].coord.dim().unwrap_or(0)];
                let offsets = self.range_offsets(k);
                self.descend_dense(k, size)?;
                Ok(Level::Range {
                    size,
                    bound,
                    offsets,
                })
            }
            LevelKind::Offset => Ok(Level::Offset),
            LevelKind::Compressed => self.build_compressed(k, spec.unique),
            LevelKind::Singleton => self.build_singleton(k),
            LevelKind::Hashed => self.build_hashed(k),
            LevelKind::Bitmap => {
                let size = self.dense_size(k);
                self.descend_dense(k, size)?;
                // Each entry left after summing (and dropping zeros) is present where it lands.
                let mut present = Vec::new();
                present
                    .try_reserve_exact(self.len)
                    .map_err(|_| FormatError::OutOfMemory { elements: self.len })?;
                present.resize(self.len, false);
                for &p in &self.pos {
                    present[p] = true;
                }
                Ok(Level::Bitmap { size, present })
            }
        }
    }

    /// The size of a dense level: its dimension, its block, or its slot count.
    fn dense_size(&self, k: usize) -> usize {
        match self.specs[k].coord {
            Coord::Dim(d) => self.shape[d],
            Coord::BlockOuter { dim, block } => self.shape[dim].div_ceil(block),
            Coord::BlockInner { block, .. } => block,
            Coord::Slot => {
                let n = self.sorted.vals.len();
                (0..n)
                    .map(|e| self.sorted.at(e, k) as usize + 1)
                    .max()
                    .unwrap_or(0)
            }
        }
    }

    fn descend_dense(&mut self, k: usize, size: usize) -> Result<(), FormatError> {
        self.len = self.len.checked_mul(size).ok_or(FormatError::TooLarge {
            what: "the number of positions of a dense level",
            value: None,
            limit: usize::MAX,
        })?;
        for e in 0..self.pos.len() {
            self.pos[e] = self.pos[e] * size + self.sorted.at(e, k) as usize;
        }
        Ok(())
    }

    /// One offset per diagonal number, from the parent slot level's numbering.
    fn range_offsets(&self, k: usize) -> Vec<i64> {
        let row = self.specs[k].coord.dim().unwrap_or(0);
        let col = self.specs[k + 1].coord.dim().unwrap_or(0);
        diagonal_offsets(self.specs, &self.sorted, row, col)
    }

    /// Makes the entries' parent positions nondecreasing (they are unless a hashed level is above),
    /// keeping the order of entries with the same parent.
    fn group_by_parent(&mut self) {
        if self.pos.windows(2).all(|w| w[0] <= w[1]) {
            return;
        }
        let mut perm: Vec<usize> = (0..self.pos.len()).collect();
        perm.sort_by_key(|&e| self.pos[e]);
        self.sorted.permute(&perm);
        self.pos = perm.iter().map(|&e| self.pos[e]).collect();
    }

    fn check_index_len(&self, what: &'static str, n: usize) -> Result<(), FormatError> {
        let limit = Idx::MAX as usize;
        if n > limit {
            return Err(FormatError::TooLarge {
                what,
                value: Some(n),
                limit,
            });
        }
        Ok(())
    }

    fn build_compressed(&mut self, k: usize, unique: bool) -> Result<Level, FormatError> {
        self.group_by_parent();
        self.check_index_len("the parent level's number of positions", self.len)?;
        let mut pos = vec![0 as Idx; self.len + 1];
        let mut crd: Vec<Idx> = Vec::new();
        let mut last: Option<(usize, Idx)> = None;
        for e in 0..self.pos.len() {
            let key = (self.pos[e], self.sorted.at(e, k));
            if !unique || last != Some(key) {
                self.check_index_len("the number of stored coordinates", crd.len() + 1)?;
                crd.push(key.1);
                pos[key.0 + 1] += 1;
                last = Some(key);
            }
            self.pos[e] = crd.len() - 1;
        }
        for p in 0..self.len {
            pos[p + 1] += pos[p];
        }
        self.len = crd.len();
        Ok(Level::Compressed { pos, crd })
    }

    fn build_singleton(&mut self, k: usize) -> Result<Level, FormatError> {
        self.group_by_parent();
        let mut crd = vec![0 as Idx; self.len];
        for e in 0..self.pos.len() {
            let p = self.pos[e];
            let c = self.sorted.at(e, k);
            if e > 0 && self.pos[e - 1] == p {
                if self.sorted.at(e - 1, k) == c {
                    continue;
                }
                return Err(FormatError::Unrepresentable {
                    format: self.format,
                    level: k,
                    reason: "two entries fall under one parent of a singleton level",
                });
            }
            crd[p] = c;
        }
        Ok(Level::Singleton { crd })
    }

    fn build_hashed(&mut self, k: usize) -> Result<Level, FormatError> {
        self.group_by_parent();
        let buckets = self.bucket_count(k);
        let slots = self
            .len
            .checked_mul(buckets)
            .filter(|&n| n < Idx::MAX as usize)
            .ok_or(FormatError::TooLarge {
                what: "the number of hash buckets",
                value: None,
                limit: Idx::MAX as usize,
            })?;
        let mut crd = vec![EMPTY; slots];
        for e in 0..self.pos.len() {
            let parent = self.pos[e];
            let c = self.sorted.at(e, k);
            let base = parent * buckets;
            let mut slot = c as usize % buckets;
            while crd[base + slot] != EMPTY && crd[base + slot] != c {
                slot = (slot + 1) % buckets;
            }
            crd[base + slot] = c;
            self.pos[e] = base + slot;
        }
        self.len = slots;
        Ok(Level::Hashed { buckets, crd })
    }

    /// Buckets per parent: a power of two at least 4/3 of the largest sibling group, so linear
    /// probing stays short and every group fits.
    fn bucket_count(&self, k: usize) -> usize {
        let (mut largest, mut run) = (0usize, 0usize);
        for e in 0..self.pos.len() {
            let new_parent = e == 0 || self.pos[e] != self.pos[e - 1];
            let new_coord = new_parent || self.sorted.at(e, k) != self.sorted.at(e - 1, k);
            run = if new_parent {
                1
            } else {
                run + usize::from(new_coord)
            };
            largest = largest.max(run);
        }
        (largest + largest.div_ceil(3)).max(1).next_power_of_two()
    }

    /// The values at their positions, and which positions got one (an empty bitmap when every
    /// position does: no padding to mark). The others hold `fill`.
    fn scatter_values(&self, nnz: usize, fill: T) -> Result<(Vec<T>, Filled), FormatError> {
        if self.len == nnz && self.pos.iter().enumerate().all(|(e, &p)| p == e) {
            return Ok((self.sorted.vals.clone(), Filled::new(0)));
        }
        let mut vals = Vec::new();
        vals.try_reserve_exact(self.len)
            .map_err(|_| FormatError::OutOfMemory { elements: self.len })?;
        vals.resize(self.len, fill);
        let mut filled = Filled::new(self.len);
        for e in 0..nnz {
            let p = self.pos[e];
            let v = self.sorted.vals[e];
            vals[p] = if filled.get(p) { vals[p] + v } else { v };
            filled.set(p);
        }
        Ok((vals, filled))
    }
}
