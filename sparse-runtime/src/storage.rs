//! The data of one level at run time (Chou et al. 2018): what each level format stores.
//!
//! Index arrays are `u32` ([`Idx`]): SpMV moves one index per value, so halving index bytes is a
//! sixth of its memory traffic. A tensor whose dimensions or level sizes do not fit is rejected
//! when it is built ([`crate::FormatError::TooLarge`]). Positions computed from the arrays are
//! `usize`.

use sparse_format::LevelKind;

/// The integer type of `pos` and `crd` arrays.
pub type Idx = u32;

/// The coordinate stored in an empty hash bucket. Coordinates are below their dimension, which is
/// at most `u32::MAX`, so no real coordinate can equal it.
pub const EMPTY: Idx = Idx::MAX;

/// One level's data. The variant always matches the format's [`crate::LevelSpec::kind`] at the same
/// depth: every constructor of [`crate::Tensor`] guarantees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Level {
    /// `size` coordinates under every parent.
    Dense {
        /// The dimension size `N`.
        size: usize,
    },
    /// The children of parent `p` are `crd[pos[p] .. pos[p + 1]]`.
    Compressed {
        /// Segment bounds, one more than the parent level has positions.
        pos: Vec<Idx>,
        /// Coordinates, one per position.
        crd: Vec<Idx>,
    },
    /// The one child of parent `p` is `crd[p]`.
    Singleton {
        /// Coordinates, one per parent position.
        crd: Vec<Idx>,
    },
    /// Under parent coordinate `d` (a diagonal number), the coordinates
    /// `[max(0, -offsets[d]), min(size, bound - offsets[d]))`, at positions `p_parent * size + i`.
    Range {
        /// The size `N` of this level's dimension (the rows).
        size: usize,
        /// The size `M` of the offset level's dimension (the columns).
        bound: usize,
        /// One offset per value of the parent coordinate, shared with the offset level below.
        offsets: Vec<i64>,
    },
    /// The one child of a range level's position: coordinate `i + offsets[d]`, where `i` is the
    /// parent coordinate and `d` the grandparent coordinate. It reads the range level's `offsets`.
    Offset,
    /// `buckets` slots per parent; slot `p` holds coordinate `crd[p]`, or [`EMPTY`].
    Hashed {
        /// Buckets per parent, `W`.
        buckets: usize,
        /// One coordinate or [`EMPTY`] per slot.
        crd: Vec<Idx>,
    },
    /// `size` positions under every parent, as a dense level, of which `present[p]` says which
    /// hold an entry. The values of absent positions (and of everything below them) are zero, so
    /// a kernel that locates one (a loop the level does not drive) reads a zero.
    Bitmap {
        /// The dimension size `N`.
        size: usize,
        /// A presence byte per position.
        present: Vec<bool>,
    },
}

impl Level {
    /// The level format of this data.
    pub fn kind(&self) -> LevelKind {
        match self {
            Level::Dense { .. } => LevelKind::Dense,
            Level::Compressed { .. } => LevelKind::Compressed,
            Level::Singleton { .. } => LevelKind::Singleton,
            Level::Range { .. } => LevelKind::Range,
            Level::Offset => LevelKind::Offset,
            Level::Hashed { .. } => LevelKind::Hashed,
            Level::Bitmap { .. } => LevelKind::Bitmap,
        }
    }

    /// The `pos` array of a compressed level; empty for other levels.
    pub fn pos(&self) -> &[Idx] {
        match self {
            Level::Compressed { pos, .. } => pos,
            _ => &[],
        }
    }

    /// The `crd` array of a compressed, singleton or hashed level; empty for other levels.
    pub fn crd(&self) -> &[Idx] {
        match self {
            Level::Compressed { crd, .. }
            | Level::Singleton { crd }
            | Level::Hashed { crd, .. } => crd,
            _ => &[],
        }
    }

    /// The DIA offsets of a range level, one per diagonal; empty for other levels. Kernels bind it
    /// once, as they bind `pos` and `crd`.
    pub fn offsets(&self) -> &[i64] {
        match self {
            Level::Range { offsets, .. } => offsets,
            _ => &[],
        }
    }

    /// The presence bytes of a bitmap level, one per position; empty for other levels. Kernels
    /// bind it once, as they bind `pos` and `crd`.
    pub fn present(&self) -> &[bool] {
        match self {
            Level::Bitmap { present, .. } => present,
            _ => &[],
        }
    }

    /// The dimension size of a dense, range or bitmap level, the bucket count of a hashed level; 0
    /// otherwise.
    pub fn size(&self) -> usize {
        match self {
            Level::Dense { size } | Level::Range { size, .. } | Level::Bitmap { size, .. } => *size,
            Level::Hashed { buckets, .. } => *buckets,
            _ => 0,
        }
    }

    /// The number of positions this level has when its parent level has `parent_len` positions.
    /// `None` on overflow, which only corrupt raw arrays can cause.
    pub fn positions(&self, parent_len: usize) -> Option<usize> {
        match self {
            Level::Dense { size } | Level::Range { size, .. } | Level::Bitmap { size, .. } => {
                parent_len.checked_mul(*size)
            }
            Level::Hashed { buckets, .. } => parent_len.checked_mul(*buckets),
            Level::Compressed { crd, .. } | Level::Singleton { crd } => Some(crd.len()),
            Level::Offset => Some(parent_len),
        }
    }
}
