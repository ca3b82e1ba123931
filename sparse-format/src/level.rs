//! Level formats as compile-time descriptions: what a format *declares* about each of its levels.
//!
//! A format is a list of [`LevelSpec`]s, one per stored level of the coordinate hierarchy
//! (Chou et al. 2018). Each spec names the level format ([`LevelKind`], §1.2), which logical
//! coordinate the level stores ([`Coord`]: this is how a mode ordering, a blocked dimension or an
//! unlabeled slot dimension is written), and the configurable properties of §1.4. Everything here is
//! `const`, so formats are types whose level lists the compiler and the type checker can see.
//!
//! The data a level holds at run time lives in the runtime crate's `storage` module; this module
//! only describes.

/// The level formats: the six of Chou et al. 2018, and a bitmap level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LevelKind {
    /// Every coordinate in `[0, N)`: position `p = p_parent * N + i`.
    Dense,
    /// A segment `crd[pos[p_parent] .. pos[p_parent + 1]]` per parent.
    Compressed,
    /// Exactly one coordinate `crd[p_parent]` per parent; position = parent position.
    Singleton,
    /// The rows `[max(0, -off[d]), min(N, M - off[d]))` of diagonal `d` (DIA's row level).
    Range,
    /// The one coordinate `i + off[d]` below a range level (DIA's column level).
    Offset,
    /// `W` buckets per parent, placed by `i % W` with linear probing; empty buckets hold
    /// the runtime's `storage::EMPTY`.
    Hashed,
    /// Every coordinate in `[0, N)` has position `p_parent * N + i`, as in a dense level, and a
    /// presence byte per position says which hold an entry (Finch's sparse bytemap). Positions
    /// without an entry hold zero values, so locating one reads a zero.
    Bitmap,
}

impl LevelKind {
    /// Every level format, in the order messages list them (and custom formats number them).
    pub const ALL: [LevelKind; 7] = [
        LevelKind::Dense,
        LevelKind::Compressed,
        LevelKind::Singleton,
        LevelKind::Range,
        LevelKind::Offset,
        LevelKind::Hashed,
        LevelKind::Bitmap,
    ];

    /// The name used in `formats<...>` clauses and error messages, and of its `LevelSpec`
    /// constructor.
    pub const fn name(self) -> &'static str {
        match self {
            LevelKind::Dense => "dense",
            LevelKind::Compressed => "compressed",
            LevelKind::Singleton => "singleton",
            LevelKind::Range => "range",
            LevelKind::Offset => "offset",
            LevelKind::Hashed => "hashed",
            LevelKind::Bitmap => "bitmap",
        }
    }

    /// The name of the variant, as generated code spells it (`LevelKind::Dense`).
    pub const fn variant_name(self) -> &'static str {
        match self {
            LevelKind::Dense => "Dense",
            LevelKind::Compressed => "Compressed",
            LevelKind::Singleton => "Singleton",
            LevelKind::Range => "Range",
            LevelKind::Offset => "Offset",
            LevelKind::Hashed => "Hashed",
            LevelKind::Bitmap => "Bitmap",
        }
    }

    /// Whether the level supports `locate` (random access, Chou et al. 2018).
    pub const fn has_locate(self) -> bool {
        matches!(
            self,
            LevelKind::Dense | LevelKind::Hashed | LevelKind::Bitmap
        )
    }

    /// Whether an output can be assembled into this level (insert or append, §1.5). Kernels do
    /// not write presence bytes, so a bitmap level is an input format only.
    pub const fn is_assemblable(self) -> bool {
        !matches!(
            self,
            LevelKind::Range | LevelKind::Offset | LevelKind::Bitmap
        )
    }
}

/// Which logical coordinate a level stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Coord {
    /// The whole coordinate of logical dimension `d`. The order of the `Dim` levels is the mode
    /// ordering: CSC stores `Dim(1)` above `Dim(0)`.
    Dim(usize),
    /// `i / block` of logical dimension `dim` (BCSR's block-row and block-column levels).
    BlockOuter {
        /// The logical dimension.
        dim: usize,
        /// The block size along it.
        block: usize,
    },
    /// `i % block` of logical dimension `dim`; the level is dense with size `block`.
    BlockInner {
        /// The logical dimension.
        dim: usize,
        /// The block size along it.
        block: usize,
    },
    /// An unlabeled dimension that no logical coordinate names: ELL's slot `k` (the k-th entry of
    /// a row) and DIA's diagonal number. Its size is chosen when the tensor is packed.
    Slot,
}

impl Coord {
    /// The logical dimension this level contributes to, if any.
    pub const fn dim(self) -> Option<usize> {
        match self {
            Coord::Dim(d) | Coord::BlockOuter { dim: d, .. } | Coord::BlockInner { dim: d, .. } => {
                Some(d)
            }
            Coord::Slot => None,
        }
    }
}

/// The five level properties of Chou et al. 2018.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Properties {
    /// Every sibling group holds every coordinate of the dimension.
    pub full: bool,
    /// Siblings are in increasing order, and groups follow their parents' order.
    pub ordered: bool,
    /// No sibling group holds a coordinate twice.
    pub unique: bool,
    /// No coordinate has a sibling and every parent has a child.
    pub branchless: bool,
    /// No unlabeled position separates two coordinates.
    pub compact: bool,
}

/// One level of a format: its kind, the coordinate it stores and its declared properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LevelSpec {
    /// The level format.
    pub kind: LevelKind,
    /// The logical coordinate the level stores.
    pub coord: Coord,
    /// Whether siblings are declared sorted (configurable; hashed levels never are).
    pub ordered: bool,
    /// Whether siblings are declared duplicate-free (configurable).
    pub unique: bool,
}

impl LevelSpec {
    /// A level of `kind` storing logical dimension `dim`, ordered and unique (hashed: unordered).
    pub const fn new(kind: LevelKind, dim: usize) -> Self {
        LevelSpec {
            kind,
            coord: Coord::Dim(dim),
            ordered: !matches!(kind, LevelKind::Hashed),
            unique: true,
        }
    }

    /// A dense level over logical dimension `dim`.
    pub const fn dense(dim: usize) -> Self {
        Self::new(LevelKind::Dense, dim)
    }

    /// A compressed level over logical dimension `dim`.
    pub const fn compressed(dim: usize) -> Self {
        Self::new(LevelKind::Compressed, dim)
    }

    /// A singleton level over logical dimension `dim`.
    pub const fn singleton(dim: usize) -> Self {
        Self::new(LevelKind::Singleton, dim)
    }

    /// A range level over logical dimension `dim` (must be followed by an offset level).
    pub const fn range(dim: usize) -> Self {
        Self::new(LevelKind::Range, dim)
    }

    /// An offset level over logical dimension `dim` (must follow a range level).
    pub const fn offset(dim: usize) -> Self {
        Self::new(LevelKind::Offset, dim)
    }

    /// A hashed level over logical dimension `dim`.
    pub const fn hashed(dim: usize) -> Self {
        Self::new(LevelKind::Hashed, dim)
    }

    /// A bitmap level over logical dimension `dim`.
    pub const fn bitmap(dim: usize) -> Self {
        Self::new(LevelKind::Bitmap, dim)
    }

    /// A dense level over an unlabeled slot dimension (ELL's `k`, DIA's diagonal number).
    pub const fn dense_slot() -> Self {
        Self::dense(0).with_coord(Coord::Slot)
    }

    /// The same level storing another coordinate.
    pub const fn with_coord(mut self, coord: Coord) -> Self {
        self.coord = coord;
        self
    }

    /// The same level with siblings declared unsorted.
    pub const fn unordered(mut self) -> Self {
        self.ordered = false;
        self
    }

    /// The same level with duplicate siblings allowed.
    pub const fn non_unique(mut self) -> Self {
        self.unique = false;
        self
    }

    /// All five properties, the fixed ones from the level kind (Chou et al. 2018) and the
    /// configurable ones as declared.
    pub const fn properties(&self) -> Properties {
        let (full, branchless, compact) = match self.kind {
            LevelKind::Dense => (true, false, true),
            LevelKind::Compressed => (false, false, true),
            LevelKind::Singleton => (false, true, true),
            LevelKind::Range => (false, false, false),
            LevelKind::Offset => (false, true, false),
            LevelKind::Hashed => (false, false, false),
            LevelKind::Bitmap => (false, false, false),
        };
        Properties {
            full,
            ordered: self.ordered,
            unique: self.unique,
            branchless,
            compact,
        }
    }
}
