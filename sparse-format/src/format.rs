//! Formats as types: a [`Format`] is a zero-sized marker whose associated constants list its levels.
//!
//! Because the level list is a constant of the type, `Tensor<T, Csr>` and `Tensor<T, Coo<2>>` are
//! different types: a kernel compiled for CSR cannot be handed a COO tensor (Chou et al. 2018 for
//! the compositions). A format that is not named here is written by implementing [`Format`] on a
//! marker type; its level list is checked when the compiler first uses it, and a list that cannot
//! describe a tensor is a compile error (see [`check_levels`]).

use crate::level::{Coord, LevelKind, LevelSpec};

/// A storage format: the levels of a coordinate hierarchy, top (root) to bottom.
///
/// ```
/// use sparse_format::{check_levels, Format, LevelSpec};
///
/// /// Rows dense, each row's columns in a hash table.
/// #[derive(Clone, Copy, Debug, Default)]
/// struct RowHash;
/// impl Format for RowHash {
///     const NAME: &'static str = "row-hash";
///     const ORDER: usize = 2;
///     const LEVELS: &'static [LevelSpec] = &[LevelSpec::dense(0), LevelSpec::hashed(1)];
/// }
/// check_levels(RowHash::ORDER, RowHash::LEVELS);
/// ```
pub trait Format: Copy + Default + std::fmt::Debug + Send + Sync + 'static {
    /// A short name for messages (`"csr"`, `"bcsr(2x2)"`).
    const NAME: &'static str;
    /// The number of logical dimensions.
    const ORDER: usize;
    /// The stored levels, root first.
    const LEVELS: &'static [LevelSpec];
}

/// Panics (at compile time, when used in a constant) unless `levels` describes a tensor of
/// `order` logical dimensions; the rules are those of [`level_list_problem`], whose message the
/// panic carries.
pub const fn check_levels(order: usize, levels: &[LevelSpec]) {
    if let Some(problem) = level_list_problem(order, levels) {
        panic!("{}", problem);
    }
}

/// Why `levels` cannot describe a tensor of `order` logical dimensions, or `None` when it can:
/// - every logical dimension is stored by exactly one `Dim` level, or by one `BlockOuter` level above
///   one dense `BlockInner` level with the same nonzero block size;
/// - slot levels are dense; a range level has a parent and is directly followed by an offset level,
///   and an offset level directly follows a range level;
/// - hashed levels are not declared ordered.
///
/// The compiler reports the message as a spanned error; [`check_levels`] panics with it.
pub const fn level_list_problem(order: usize, levels: &[LevelSpec]) -> Option<&'static str> {
    if order == 0 && !levels.is_empty() {
        return Some("a scalar (order-0) format has no levels");
    }
    let mut d = 0;
    while d < order {
        if !dim_covered(d, levels) {
            return Some(
                "every logical dimension must be stored by one level, or by one block-outer and \
                 one block-inner level with the same nonzero block size",
            );
        }
        d += 1;
    }
    let mut k = 0;
    while k < levels.len() {
        if let Some(problem) = level_problem(order, levels, k) {
            return Some(problem);
        }
        k += 1;
    }
    None
}

/// What is wrong with level `k` of `levels` on its own or next to its neighbours.
const fn level_problem(order: usize, levels: &[LevelSpec], k: usize) -> Option<&'static str> {
    let level = levels[k];
    match level.coord {
        Coord::Dim(dim) | Coord::BlockOuter { dim, .. } | Coord::BlockInner { dim, .. } => {
            if dim >= order {
                return Some("a level stores a dimension the format does not have");
            }
        }
        Coord::Slot => {
            if !matches!(level.kind, LevelKind::Dense) {
                return Some("a slot level must be dense");
            }
        }
    }
    if matches!(level.coord, Coord::BlockInner { .. }) && !matches!(level.kind, LevelKind::Dense) {
        return Some("a block-inner level must be dense");
    }
    match level.kind {
        LevelKind::Range if k == 0 => {
            Some("a range level needs a parent level (the diagonal number)")
        }
        LevelKind::Range
            if !(k + 1 < levels.len() && matches!(levels[k + 1].kind, LevelKind::Offset)) =>
        {
            Some("a range level must be directly followed by an offset level")
        }
        LevelKind::Offset if !(k > 0 && matches!(levels[k - 1].kind, LevelKind::Range)) => {
            Some("an offset level must directly follow a range level")
        }
        LevelKind::Hashed if level.ordered => Some("a hashed level cannot be ordered"),
        _ => None,
    }
}

/// Whether logical dimension `d` is stored by one whole level, or by one matching block pair.
const fn dim_covered(d: usize, levels: &[LevelSpec]) -> bool {
    let (mut whole, mut outer, mut inner) = (0, 0, 0);
    let (mut outer_block, mut inner_block) = (0, 0);
    let mut k = 0;
    while k < levels.len() {
        match levels[k].coord {
            Coord::Dim(x) if x == d => whole += 1,
            Coord::BlockOuter { dim, block } if dim == d => {
                outer += 1;
                outer_block = block;
            }
            Coord::BlockInner { dim, block } if dim == d => {
                inner += 1;
                inner_block = block;
            }
            _ => {}
        }
        k += 1;
    }
    let blocked = outer == 1 && inner == 1 && outer_block == inner_block && outer_block > 0;
    (whole == 1 && outer == 0 && inner == 0) || (whole == 0 && blocked)
}

const fn identity_levels<const N: usize>(kind: LevelKind) -> [LevelSpec; N] {
    let mut levels = [LevelSpec::new(kind, 0); N];
    let mut d = 0;
    while d < N {
        levels[d] = LevelSpec::new(kind, d);
        d += 1;
    }
    levels
}

const fn coo_levels<const N: usize>() -> [LevelSpec; N] {
    let mut levels = [LevelSpec::singleton(0); N];
    let mut d = 0;
    while d < N {
        levels[d] = if d == 0 {
            LevelSpec::compressed(0).non_unique()
        } else if d + 1 < N {
            LevelSpec::singleton(d).non_unique()
        } else {
            LevelSpec::singleton(d)
        };
        d += 1;
    }
    levels
}

/// Declares a marker type for a named format.
macro_rules! named_format {
    ($(#[$doc:meta])* $name:ident = $label:literal, order $order:literal, $levels:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;
        impl Format for $name {
            const NAME: &'static str = $label;
            const ORDER: usize = $order;
            const LEVELS: &'static [LevelSpec] = $levels;
        }
    };
}

/// Dense tensor of order `N`, row-major. `Dense<0>` is a scalar.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dense<const N: usize>;
impl<const N: usize> Format for Dense<N> {
    const NAME: &'static str = "dense";
    const ORDER: usize = N;
    const LEVELS: &'static [LevelSpec] = &identity_levels::<N>(LevelKind::Dense);
}

/// Compressed sparse fiber of order `N`: every level compressed. `Csf<2>` is DCSR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Csf<const N: usize>;
impl<const N: usize> Format for Csf<N> {
    const NAME: &'static str = "csf";
    const ORDER: usize = N;
    const LEVELS: &'static [LevelSpec] = &identity_levels::<N>(LevelKind::Compressed);
}

/// Coordinate list of order `N`: a non-unique compressed root and singleton levels below.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Coo<const N: usize>;
impl<const N: usize> Format for Coo<N> {
    const NAME: &'static str = "coo";
    const ORDER: usize = N;
    const LEVELS: &'static [LevelSpec] = &coo_levels::<N>();
}

/// Block compressed sparse row with `R`×`C` dense blocks: block rows dense, block columns
/// compressed, each block dense and row-major.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bcsr<const R: usize, const C: usize>;
impl<const R: usize, const C: usize> Format for Bcsr<R, C> {
    const NAME: &'static str = "bcsr";
    const ORDER: usize = 2;
    const LEVELS: &'static [LevelSpec] = &[
        LevelSpec::dense(0).with_coord(Coord::BlockOuter { dim: 0, block: R }),
        LevelSpec::compressed(1).with_coord(Coord::BlockOuter { dim: 1, block: C }),
        LevelSpec::dense(0).with_coord(Coord::BlockInner { dim: 0, block: R }),
        LevelSpec::dense(1).with_coord(Coord::BlockInner { dim: 1, block: C }),
    ];
}

/// A dense vector.
pub type DenseVec = Dense<1>;
/// A dense row-major matrix.
pub type DenseMat = Dense<2>;
/// Doubly compressed sparse row.
pub type Dcsr = Csf<2>;

named_format!(
    /// A sparse vector: one compressed level.
    SparseVec = "sparse", order 1, &[LevelSpec::compressed(0)]
);
named_format!(
    /// Compressed sparse row: rows dense, columns compressed.
    Csr = "csr", order 2, &[LevelSpec::dense(0), LevelSpec::compressed(1)]
);
named_format!(
    /// Compressed sparse column: columns dense, rows compressed (mode ordering `(1, 0)`).
    Csc = "csc", order 2, &[LevelSpec::dense(1), LevelSpec::compressed(0)]
);
named_format!(
    /// Doubly compressed sparse column (mode ordering `(1, 0)`).
    Dcsc = "dcsc", order 2, &[LevelSpec::compressed(1), LevelSpec::compressed(0)]
);
named_format!(
    /// ELLPACK: a dense slot level `k` over dense rows over singleton columns, so the k-th entry of
    /// every row is contiguous; rows shorter than the longest are padded with explicit zeros.
    Ell = "ell", order 2,
    &[LevelSpec::dense_slot(), LevelSpec::dense(0), LevelSpec::singleton(1)]
);
named_format!(
    /// Diagonal storage: a dense level over the stored diagonals, a range level over the rows each
    /// diagonal covers and an offset level giving the column `i + offset[d]`; positions of a
    /// diagonal with no entry are padded with zeros.
    Dia = "dia", order 2,
    &[LevelSpec::dense_slot(), LevelSpec::range(0), LevelSpec::offset(1)]
);
named_format!(
    /// A hash-map vector: one hashed level.
    HashVec = "hash", order 1, &[LevelSpec::hashed(0)]
);
named_format!(
    /// A hash-map matrix: dense rows, each row's columns in its own hash table.
    HashMat = "hash", order 2, &[LevelSpec::dense(0), LevelSpec::hashed(1)]
);
named_format!(
    /// A bitmap vector: one bitmap level, a presence byte and a value (zero when absent) per
    /// coordinate.
    BitVec = "bitvec", order 1, &[LevelSpec::bitmap(0)]
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_formats_pass_the_level_check() {
        fn check<F: Format>() {
            check_levels(F::ORDER, F::LEVELS);
        }
        check::<Dense<0>>();
        check::<Dense<3>>();
        check::<SparseVec>();
        check::<Csr>();
        check::<Csc>();
        check::<Coo<4>>();
        check::<Dcsr>();
        check::<Dcsc>();
        check::<Csf<5>>();
        check::<Ell>();
        check::<Dia>();
        check::<Bcsr<2, 3>>();
        check::<HashVec>();
        check::<HashMat>();
        check::<BitVec>();
    }

    #[test]
    #[should_panic(expected = "every logical dimension")]
    fn a_dimension_stored_twice_is_rejected() {
        check_levels(2, &[LevelSpec::dense(0), LevelSpec::compressed(0)]);
    }

    #[test]
    #[should_panic(expected = "offset level")]
    fn a_range_level_without_offset_is_rejected() {
        check_levels(2, &[LevelSpec::dense(0), LevelSpec::range(1)]);
    }

    #[test]
    fn level_list_problems_are_returned_without_panicking() {
        assert_eq!(level_list_problem(2, Csr::LEVELS), None);
        assert_eq!(
            level_list_problem(2, &[LevelSpec::dense(0), LevelSpec::offset(1)]),
            Some("an offset level must directly follow a range level")
        );
        assert_eq!(
            level_list_problem(1, &[LevelSpec::range(0), LevelSpec::offset(0)]),
            Some(
                "every logical dimension must be stored by one level, or by one block-outer and \
                 one block-inner level with the same nonzero block size"
            )
        );
        assert_eq!(
            level_list_problem(1, &[LevelSpec::compressed(1)]),
            Some(
                "every logical dimension must be stored by one level, or by one block-outer and \
                 one block-inner level with the same nonzero block size"
            )
        );
        assert_eq!(
            level_list_problem(2, &[LevelSpec::range(0), LevelSpec::offset(1)]),
            Some("a range level needs a parent level (the diagonal number)")
        );
        let mut ordered_hash = LevelSpec::hashed(0);
        ordered_hash.ordered = true;
        assert_eq!(
            level_list_problem(1, &[ordered_hash]),
            Some("a hashed level cannot be ordered")
        );
        assert_eq!(
            level_list_problem(0, &[LevelSpec::dense(0)]),
            Some("a scalar (order-0) format has no levels")
        );
    }

    #[test]
    fn coo_levels_follow_the_seed() {
        let levels = Coo::<3>::LEVELS;
        assert_eq!(levels[0].kind, LevelKind::Compressed);
        assert!(!levels[0].unique && !levels[1].unique && levels[2].unique);
        assert_eq!(levels[2].kind, LevelKind::Singleton);
    }
}
