//! Property tests of packing and conversion: random entry lists, packed into every named format (and
//! two custom ones), must unpack to what a dense reference built straight from the entries says, and
//! the raw arrays must have the structure the level functions rely on.
//!
//! The generated lists include empty tensors (no entries, and shapes with a zero dimension), single
//! entries, empty first, last and middle rows, duplicate coordinates (summed), unsorted input and
//! explicit zeros (dropped by default, kept with `ExplicitZeros::Keep`). Values are halves of small
//! integers, so sums are exact in `f64` whatever order they are added in.

use std::collections::{BTreeMap, BTreeSet};

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;
use sparse::prelude::*;
use sparse::{EMPTY, Level, LevelSpec};

/// Rows dense, columns compressed but declared unordered.
#[derive(Clone, Copy, Debug, Default)]
struct UnorderedRows;
impl Format for UnorderedRows {
    const NAME: &'static str = "unordered-rows";
    const ORDER: usize = 2;
    const LEVELS: &'static [LevelSpec] =
        &[LevelSpec::dense(0), LevelSpec::compressed(1).unordered()];
}

/// Dense rows over bitmap columns: a presence byte per cell.
#[derive(Clone, Copy, Debug, Default)]
struct BitmapRows;
impl Format for BitmapRows {
    const NAME: &'static str = "bitmap-rows";
    const ORDER: usize = 2;
    const LEVELS: &'static [LevelSpec] = &[LevelSpec::dense(0), LevelSpec::bitmap(1)];
}

/// Bitmap rows over compressed columns: absent rows have empty segments below them.
#[derive(Clone, Copy, Debug, Default)]
struct BitmapOverCompressed;
impl Format for BitmapOverCompressed {
    const NAME: &'static str = "bitmap-over-compressed";
    const ORDER: usize = 2;
    const LEVELS: &'static [LevelSpec] = &[LevelSpec::bitmap(0), LevelSpec::compressed(1)];
}

/// An order-3 format with mode ordering (1, 0, 2): dimension 1 dense on top, then 0 and 2
/// compressed.
#[derive(Clone, Copy, Debug, Default)]
struct Modes102;
impl Format for Modes102 {
    const NAME: &'static str = "modes-102";
    const ORDER: usize = 3;
    const LEVELS: &'static [LevelSpec] = &[
        LevelSpec::dense(1),
        LevelSpec::compressed(0),
        LevelSpec::compressed(2),
    ];
}

/// A value type under test, made from a small integer.
trait Val: Scalar {
    fn small(v: i8) -> Self;
}

impl Val for f64 {
    fn small(v: i8) -> Self {
        f64::from(v) / 2.0
    }
}

impl Val for i64 {
    fn small(v: i8) -> Self {
        i64::from(v)
    }
}

/// A generated tensor: a shape and entries in input order, duplicates and zeros included.
#[derive(Clone, Debug)]
struct Case<const N: usize> {
    shape: [usize; N],
    entries: Vec<([usize; N], i8)>,
}

impl<const N: usize> Case<N> {
    fn values<T: Val>(&self) -> Vec<([usize; N], T)> {
        self.entries
            .iter()
            .map(|&(c, v)| (c, T::small(v)))
            .collect()
    }

    fn cells(&self) -> usize {
        self.shape.iter().product()
    }
}

/// What a tensor packed from a [`Case`] must hold, computed without the runtime.
struct Reference<T> {
    /// Row-major dense array, duplicates summed.
    dense: Vec<T>,
    /// The distinct coordinates that are stored (nonzero sums, or all of them under `Keep`), sorted.
    stored: Vec<(Vec<usize>, T)>,
}

fn row_major<const N: usize>(shape: &[usize; N], c: &[usize; N]) -> usize {
    shape.iter().zip(c).fold(0, |at, (n, i)| at * n + i)
}

fn reference<T: Val, const N: usize>(case: &Case<N>, zeros: ExplicitZeros) -> Reference<T> {
    let mut dense = vec![T::ZERO; case.cells()];
    let mut sums: BTreeMap<[usize; N], T> = BTreeMap::new();
    for &(c, v) in &case.entries {
        dense[row_major(&case.shape, &c)] += T::small(v);
        *sums.entry(c).or_insert(T::ZERO) += T::small(v);
    }
    let stored = sums
        .into_iter()
        .filter(|&(_, v)| zeros == ExplicitZeros::Keep || v != T::ZERO)
        .map(|(c, v)| (c.to_vec(), v))
        .collect();
    Reference { dense, stored }
}

/// Every position of the shape with its dense value, row-major (what an all-dense format lists).
fn every_position<T: Scalar, const N: usize>(
    shape: &[usize; N],
    dense: &[T],
) -> Vec<(Vec<usize>, T)> {
    let mut out = Vec::with_capacity(dense.len());
    for (at, &v) in dense.iter().enumerate() {
        let mut c = vec![0; N];
        let mut rest = at;
        for d in (0..N).rev() {
            c[d] = rest % shape[d];
            rest /= shape[d];
        }
        out.push((c, v));
    }
    out
}

/// The tensor's entries sorted by coordinates, duplicates left in (so a repeated entry shows).
fn sorted_entries<T: Scalar, F: Format>(t: &Tensor<T, F>) -> Vec<(Vec<usize>, T)> {
    let mut list: Vec<(Vec<usize>, T)> = t.entries().iter().map(|(c, v)| (c.to_vec(), v)).collect();
    list.sort_by(|a, b| a.0.cmp(&b.0));
    list
}

fn failed(format: &str, e: FormatError) -> TestCaseError {
    TestCaseError::fail(format!("{format}: {e}"))
}

/// Packs `case` into `F` and checks it against the reference; `all_dense` says whether `F` stores
/// every position.
fn packed<T: Val, F: Format, const N: usize>(
    case: &Case<N>,
    zeros: ExplicitZeros,
    all_dense: bool,
) -> Result<Tensor<T, F>, TestCaseError> {
    let r = reference::<T, N>(case, zeros);
    let t = Tensor::<T, F>::from_entries_with(case.shape, case.values::<T>(), zeros)
        .map_err(|e| failed(F::NAME, e))?;
    prop_assert_eq!(&t.to_dense(), &r.dense, "to_dense of {}", F::NAME);
    let expected = if all_dense {
        every_position(&case.shape, &r.dense)
    } else {
        r.stored
    };
    prop_assert_eq!(&sorted_entries(&t), &expected, "entries of {}", F::NAME);
    prop_assert_eq!(t.nnz(), expected.len(), "nnz of {}", F::NAME);
    prop_assert!(t.stored_len() >= t.nnz(), "stored_len of {}", F::NAME);
    Ok(t)
}

/// `from_parts` accepts what packing produced and reads back the same tensor.
fn raw_round_trip<T: Scalar, F: Format>(t: &Tensor<T, F>) -> Result<(), TestCaseError> {
    let (shape, levels, vals) = t.clone().into_parts();
    let back = Tensor::<T, F>::from_parts(shape, levels, vals).map_err(|e| failed(F::NAME, e))?;
    prop_assert_eq!(back.to_dense(), t.to_dense(), "raw parts of {}", F::NAME);
    prop_assert_eq!(back.nnz(), back.entries().len(), "raw nnz of {}", F::NAME);
    prop_assert_eq!(
        back.stored_len(),
        t.stored_len(),
        "raw stored_len of {}",
        F::NAME
    );
    Ok(())
}

/// Packs into `F`, checks the result, and round-trips its raw parts.
fn pack_and_reread<T: Val, F: Format, const N: usize>(
    case: &Case<N>,
    zeros: ExplicitZeros,
    all_dense: bool,
) -> Result<Tensor<T, F>, TestCaseError> {
    let t = packed::<T, F, N>(case, zeros, all_dense)?;
    raw_round_trip(&t)?;
    Ok(t)
}

// ---- strategies ----

/// Shapes: mostly small dimensions (so duplicates are common), some with zero dimensions, and some
/// with one dimension long enough that packing sorts by comparison rather than by counting.
fn shape<const N: usize>() -> BoxedStrategy<[usize; N]> {
    let wide = (
        0..N.max(1),
        1100usize..=1600,
        proptest::array::uniform::<_, N>(1usize..=2),
    )
        .prop_map(|(k, n, mut s)| {
            if let Some(d) = s.get_mut(k) {
                *d = n;
            }
            s
        });
    prop_oneof![
        6 => proptest::array::uniform::<_, N>(1usize..=7),
        2 => proptest::array::uniform::<_, N>(0usize..=3),
        1 => wide,
    ]
    .boxed()
}

/// Which rows (coordinates of dimension 0) are forced empty.
#[derive(Clone, Copy, Debug)]
enum EmptyRows {
    None,
    First(Index),
    Last(Index),
    Middle(Index, Index),
    Alternate,
}

impl EmptyRows {
    fn is_empty(self, row: usize, rows: usize) -> bool {
        match self {
            EmptyRows::None => false,
            EmptyRows::First(k) => row <= k.index(rows),
            EmptyRows::Last(k) => row >= k.index(rows),
            EmptyRows::Middle(a, b) => {
                let (a, b) = (a.index(rows), b.index(rows));
                (a.min(b)..=a.max(b)).contains(&row) && row != 0 && row + 1 != rows
            }
            EmptyRows::Alternate => row % 2 == 1,
        }
    }
}

fn empty_rows() -> impl Strategy<Value = EmptyRows> {
    prop_oneof![
        3 => Just(EmptyRows::None),
        1 => any::<Index>().prop_map(EmptyRows::First),
        1 => any::<Index>().prop_map(EmptyRows::Last),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| EmptyRows::Middle(a, b)),
        1 => Just(EmptyRows::Alternate),
    ]
}

/// Entries in bounds of `shape`: none, one, or many in random order, plus repeats of some of them
/// (often with the opposite value, so they cancel to an explicit zero).
fn entries_in<const N: usize>(shape: [usize; N]) -> BoxedStrategy<Vec<([usize; N], i8)>> {
    let cells: usize = shape.iter().product();
    if cells == 0 {
        return Just(Vec::new()).boxed();
    }
    let entry = (shape.map(|n| 0..n), -4i8..=4);
    let max = (2 * cells).clamp(2, 40);
    let list = prop_oneof![
        1 => vec(entry.clone(), 0..=0),
        2 => vec(entry.clone(), 1..=1),
        6 => vec(entry, 2..=max),
    ];
    let repeats = vec((any::<Index>(), any::<bool>(), -4i8..=4), 0..=4);
    (list, repeats)
        .prop_map(|(mut list, repeats)| {
            if !list.is_empty() {
                for (k, cancel, v) in repeats {
                    let (c, old) = list[k.index(list.len())];
                    list.push((c, if cancel { -old } else { v }));
                }
            }
            list
        })
        .boxed()
}

fn case<const N: usize>() -> impl Strategy<Value = Case<N>> {
    (shape::<N>(), empty_rows())
        .prop_flat_map(|(shape, empty)| (Just(shape), Just(empty), entries_in(shape)))
        .prop_map(|(shape, empty, mut entries)| {
            if N > 0 {
                entries.retain(|(c, _)| !empty.is_empty(c[0], shape[0]));
            }
            Case { shape, entries }
        })
}

fn zeros_mode() -> impl Strategy<Value = ExplicitZeros> {
    prop_oneof![Just(ExplicitZeros::Drop), Just(ExplicitZeros::Keep)]
}

// ---- structural invariants, read from the raw arrays ----

/// The distinct stored coordinates of each row.
fn row_sets<T>(r: &Reference<T>, rows: usize) -> Vec<BTreeSet<usize>> {
    let mut sets = vec![BTreeSet::new(); rows];
    for (c, _) in &r.stored {
        sets[c[0]].insert(c[1]);
    }
    sets
}

/// The distinct stored coordinates of each column.
fn column_sets<T>(r: &Reference<T>, cols: usize) -> Vec<BTreeSet<usize>> {
    let mut sets = vec![BTreeSet::new(); cols];
    for (c, _) in &r.stored {
        sets[c[1]].insert(c[0]);
    }
    sets
}

/// A compressed level under a dense one (CSR's columns, CSC's rows): `pos` is the running count of
/// each group's coordinates and each group's `crd` increases.
fn check_compressed(level: &Level, groups: &[BTreeSet<usize>]) -> Result<(), TestCaseError> {
    let mut pos = vec![0u32];
    let mut crd = Vec::new();
    for set in groups {
        crd.extend(set.iter().map(|&j| j as u32));
        pos.push(crd.len() as u32);
    }
    prop_assert_eq!(level.pos(), &pos[..]);
    prop_assert_eq!(level.crd(), &crd[..]);
    Ok(())
}

/// COO's root segment covers every entry and the (row, column) pairs strictly increase.
fn check_coo<T: Val>(t: &Tensor<T, Coo<2>>, r: &Reference<T>) -> Result<(), TestCaseError> {
    let n = r.stored.len() as u32;
    prop_assert_eq!(t.level(0).pos(), &[0, n][..]);
    let pairs: Vec<(u32, u32)> = t
        .level(0)
        .crd()
        .iter()
        .copied()
        .zip(t.level(1).crd().iter().copied())
        .collect();
    let expected: Vec<(u32, u32)> = r
        .stored
        .iter()
        .map(|(c, _)| (c[0] as u32, c[1] as u32))
        .collect();
    prop_assert_eq!(pairs, expected);
    Ok(())
}

/// ELL stores as many slots as the longest row has entries.
fn check_ell<T: Val>(
    t: &Tensor<T, Ell>,
    r: &Reference<T>,
    rows: usize,
) -> Result<(), TestCaseError> {
    let longest = row_sets(r, rows)
        .iter()
        .map(BTreeSet::len)
        .max()
        .unwrap_or(0);
    prop_assert_eq!(t.level(0), &Level::Dense { size: longest });
    prop_assert_eq!(t.stored_len(), longest * rows);
    Ok(())
}

/// DIA stores exactly the diagonals `j - i` that hold an entry.
fn check_dia<T: Val>(t: &Tensor<T, Dia>, r: &Reference<T>) -> Result<(), TestCaseError> {
    let diagonals: BTreeSet<i64> = r
        .stored
        .iter()
        .map(|(c, _)| c[1] as i64 - c[0] as i64)
        .collect();
    let Level::Range { offsets, .. } = t.level(1) else {
        return Err(TestCaseError::fail(format!(
            "dia level 1 is {:?}",
            t.level(1)
        )));
    };
    let mut sorted = offsets.clone();
    sorted.sort_unstable();
    prop_assert_eq!(sorted, diagonals.into_iter().collect::<Vec<_>>());
    prop_assert_eq!(
        t.level(0),
        &Level::Dense {
            size: offsets.len()
        }
    );
    Ok(())
}

/// BCSR stores one block per distinct (i / R, j / C).
fn check_bcsr<T: Val, const R: usize, const C: usize>(
    t: &Tensor<T, Bcsr<R, C>>,
    r: &Reference<T>,
) -> Result<(), TestCaseError> {
    let blocks: BTreeSet<(usize, usize)> =
        r.stored.iter().map(|(c, _)| (c[0] / R, c[1] / C)).collect();
    prop_assert_eq!(t.level(1).crd().len(), blocks.len());
    prop_assert_eq!(t.stored_len(), blocks.len() * R * C);
    Ok(())
}

/// Every hash segment holds the right coordinates, each reachable by linear probing from its home
/// bucket `c % W` without crossing an empty bucket.
/// A bitmap level marks exactly each parent's stored coordinates present, over `size` slots per
/// parent.
fn check_bitmap(
    level: &Level,
    groups: &[BTreeSet<usize>],
    size: usize,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(level.size(), size);
    prop_assert_eq!(level.present().len(), groups.len() * size);
    for (parent, group) in groups.iter().enumerate() {
        let slots = &level.present()[parent * size..(parent + 1) * size];
        let marked: BTreeSet<usize> = (0..size).filter(|&c| slots[c]).collect();
        prop_assert_eq!(&marked, group, "presence under parent {}", parent);
    }
    Ok(())
}

fn check_hashed(level: &Level, groups: &[BTreeSet<usize>]) -> Result<(), TestCaseError> {
    let Level::Hashed { buckets, crd } = level else {
        return Err(TestCaseError::fail(format!(
            "not a hashed level: {level:?}"
        )));
    };
    let w = *buckets;
    prop_assert_eq!(crd.len(), w * groups.len());
    for (g, expected) in groups.iter().enumerate() {
        let slots = &crd[g * w..(g + 1) * w];
        let found: Vec<usize> = slots
            .iter()
            .filter(|&&c| c != EMPTY)
            .map(|&c| c as usize)
            .collect();
        let set: BTreeSet<usize> = found.iter().copied().collect();
        prop_assert_eq!(found.len(), set.len(), "duplicate in hash segment {}", g);
        prop_assert_eq!(&set, expected);
        for (slot, &c) in slots.iter().enumerate() {
            if c == EMPTY {
                continue;
            }
            let mut probe = c as usize % w;
            while probe != slot {
                prop_assert_ne!(slots[probe], EMPTY, "coordinate {} off its probe run", c);
                probe = (probe + 1) % w;
            }
        }
    }
    Ok(())
}

// ---- the properties ----

/// Packs a matrix into every named matrix format and the custom ones, checking each.
fn check_matrix<T: Val>(case: &Case<2>, zeros: ExplicitZeros) -> Result<(), TestCaseError> {
    let r = reference::<T, 2>(case, zeros);
    let rows = case.shape[0];
    let csr = pack_and_reread::<T, Csr, 2>(case, zeros, false)?;
    check_compressed(csr.level(1), &row_sets(&r, rows))?;
    let csc = pack_and_reread::<T, Csc, 2>(case, zeros, false)?;
    check_compressed(csc.level(1), &column_sets(&r, case.shape[1]))?;
    let coo = pack_and_reread::<T, Coo<2>, 2>(case, zeros, false)?;
    check_coo(&coo, &r)?;
    pack_and_reread::<T, Dcsr, 2>(case, zeros, false)?;
    pack_and_reread::<T, Dcsc, 2>(case, zeros, false)?;
    pack_and_reread::<T, Dense<2>, 2>(case, zeros, true)?;
    let ell = pack_and_reread::<T, Ell, 2>(case, zeros, false)?;
    check_ell(&ell, &r, rows)?;
    let dia = pack_and_reread::<T, Dia, 2>(case, zeros, false)?;
    check_dia(&dia, &r)?;
    let b22 = pack_and_reread::<T, Bcsr<2, 2>, 2>(case, zeros, false)?;
    check_bcsr(&b22, &r)?;
    let b31 = pack_and_reread::<T, Bcsr<3, 1>, 2>(case, zeros, false)?;
    check_bcsr(&b31, &r)?;
    let hash = pack_and_reread::<T, HashMat, 2>(case, zeros, false)?;
    check_hashed(hash.level(1), &row_sets(&r, rows))?;
    pack_and_reread::<T, UnorderedRows, 2>(case, zeros, false)?;
    let bitmap = pack_and_reread::<T, BitmapRows, 2>(case, zeros, false)?;
    check_bitmap(bitmap.level(1), &row_sets(&r, rows), case.shape[1])?;
    let above = pack_and_reread::<T, BitmapOverCompressed, 2>(case, zeros, false)?;
    let stored_rows: BTreeSet<usize> = r.stored.iter().map(|(c, _)| c[0]).collect();
    check_bitmap(above.level(0), &[stored_rows], rows)?;
    Ok(())
}

fn check_vector<T: Val>(case: &Case<1>, zeros: ExplicitZeros) -> Result<(), TestCaseError> {
    let r = reference::<T, 1>(case, zeros);
    pack_and_reread::<T, Dense<1>, 1>(case, zeros, true)?;
    let sparse = pack_and_reread::<T, SparseVec, 1>(case, zeros, false)?;
    let crd: Vec<u32> = r.stored.iter().map(|(c, _)| c[0] as u32).collect();
    prop_assert_eq!(sparse.level(0).pos(), &[0, crd.len() as u32][..]);
    prop_assert_eq!(sparse.level(0).crd(), &crd[..]);
    let hash = pack_and_reread::<T, HashVec, 1>(case, zeros, false)?;
    let set: BTreeSet<usize> = r.stored.iter().map(|(c, _)| c[0]).collect();
    check_hashed(hash.level(0), &[set])?;
    pack_and_reread::<T, Coo<1>, 1>(case, zeros, false)?;
    pack_and_reread::<T, Csf<1>, 1>(case, zeros, false)?;
    let bitmap = pack_and_reread::<T, BitVec, 1>(case, zeros, false)?;
    let set: BTreeSet<usize> = r.stored.iter().map(|(c, _)| c[0]).collect();
    check_bitmap(bitmap.level(0), &[set], case.shape[0])?;
    Ok(())
}

fn check_order3<T: Val>(case: &Case<3>, zeros: ExplicitZeros) -> Result<(), TestCaseError> {
    pack_and_reread::<T, Coo<3>, 3>(case, zeros, false)?;
    pack_and_reread::<T, Csf<3>, 3>(case, zeros, false)?;
    pack_and_reread::<T, Dense<3>, 3>(case, zeros, true)?;
    pack_and_reread::<T, Modes102, 3>(case, zeros, false)?;
    Ok(())
}

fn check_order4<T: Val>(case: &Case<4>, zeros: ExplicitZeros) -> Result<(), TestCaseError> {
    pack_and_reread::<T, Coo<4>, 4>(case, zeros, false)?;
    pack_and_reread::<T, Csf<4>, 4>(case, zeros, false)?;
    pack_and_reread::<T, Dense<4>, 4>(case, zeros, true)?;
    Ok(())
}

/// `source.convert::<G>()` keeps the dense contents; it keeps explicit zeros, so the stored entry
/// count is the source's (every position when either side is all-dense).
fn check_convert<F: Format, G: Format, const N: usize>(
    source: &Tensor<f64, F>,
    case: &Case<N>,
    dense_source: bool,
    dense_target: bool,
) -> Result<(), TestCaseError> {
    let r = reference::<f64, N>(case, ExplicitZeros::Drop);
    let converted = source.convert::<G>().map_err(|e| failed(G::NAME, e))?;
    prop_assert_eq!(
        &converted.to_dense(),
        &r.dense,
        "{} -> {}",
        F::NAME,
        G::NAME
    );
    let nnz = if dense_source || dense_target {
        case.cells()
    } else {
        r.stored.len()
    };
    prop_assert_eq!(converted.nnz(), nnz, "nnz of {} -> {}", F::NAME, G::NAME);
    Ok(())
}

/// Defines `$name(case)`, which packs `case` into every listed format and converts each into every
/// listed format. `dense` marks the all-dense formats.
macro_rules! pairwise {
    ($name:ident, $order:literal: $($format:ty => $dense:literal),+ $(,)?) => {
        fn $name(case: &Case<$order>) -> Result<(), TestCaseError> {
            fn from<F: Format>(case: &Case<$order>, dense: bool) -> Result<(), TestCaseError> {
                let source = packed::<f64, F, $order>(case, ExplicitZeros::Drop, dense)?;
                $(check_convert::<F, $format, $order>(&source, case, dense, $dense)?;)+
                Ok(())
            }
            $(from::<$format>(case, $dense)?;)+
            Ok(())
        }
    };
}

pairwise!(convert_matrices, 2:
    Csr => false, Csc => false, Coo<2> => false, Dcsr => false, Dcsc => false, Dense<2> => true,
    Ell => false, Dia => false, Bcsr<2, 2> => false, Bcsr<3, 1> => false, HashMat => false,
    UnorderedRows => false, BitmapRows => false, BitmapOverCompressed => false,
);
pairwise!(convert_vectors, 1:
    Dense<1> => true, SparseVec => false, HashVec => false, Coo<1> => false, Csf<1> => false,
    BitVec => false,
);
pairwise!(convert_order3, 3:
    Coo<3> => false, Csf<3> => false, Dense<3> => true, Modes102 => false,
);
pairwise!(convert_order4, 4: Coo<4> => false, Csf<4> => false, Dense<4> => true);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn matrices_pack_in_every_format_f64(case in case::<2>(), zeros in zeros_mode()) {
        check_matrix::<f64>(&case, zeros)?;
    }

    #[test]
    fn matrices_pack_in_every_format_i64(case in case::<2>(), zeros in zeros_mode()) {
        check_matrix::<i64>(&case, zeros)?;
    }

    #[test]
    fn vectors_pack_in_every_format(case in case::<1>(), zeros in zeros_mode()) {
        check_vector::<f64>(&case, zeros)?;
        check_vector::<i64>(&case, zeros)?;
    }

    #[test]
    fn order3_and_order4_pack(c3 in case::<3>(), c4 in case::<4>(), zeros in zeros_mode()) {
        check_order3::<f64>(&c3, zeros)?;
        check_order3::<i64>(&c3, zeros)?;
        check_order4::<f64>(&c4, zeros)?;
        check_order4::<i64>(&c4, zeros)?;
    }

    #[test]
    fn matrices_convert_between_every_pair(case in case::<2>()) {
        convert_matrices(&case)?;
    }

    #[test]
    fn vectors_and_higher_orders_convert_between_every_pair(
        c1 in case::<1>(),
        c3 in case::<3>(),
        c4 in case::<4>(),
    ) {
        convert_vectors(&c1)?;
        convert_order3(&c3)?;
        convert_order4(&c4)?;
    }
}

#[test]
fn scalar_entries_are_summed_into_one_value() {
    let t = Tensor::<f64, Dense<0>>::from_entries([], [([], 2.0), ([], 3.0)]).unwrap();
    assert_eq!(t.values(), &[5.0]);
    assert_eq!(t.to_dense(), vec![5.0]);
    assert_eq!(t.nnz(), 1);
    let empty = Tensor::<i64, Dense<0>>::from_entries([], []).unwrap();
    assert_eq!(empty.to_dense(), vec![0]);
}
