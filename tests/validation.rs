//! Validation of raw level arrays: each corruption of a known-good tensor is rejected with exactly
//! the error derived by hand from what was corrupted, and random corruption never panics.
//!
//! Most cases start from one 3x4 matrix, written out by hand in each format:
//!
//! ```text
//! row 0: (0,1) = 1, (0,3) = 2
//! row 1: empty
//! row 2: (2,0) = 3, (2,2) = 4
//! ```

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;
use sparse::prelude::*;
use sparse::{EMPTY, Level, LevelSpec, Problem};

/// Rows dense, columns compressed but declared unordered (still unique).
#[derive(Clone, Copy, Debug, Default)]
struct UnorderedRows;
impl Format for UnorderedRows {
    const NAME: &'static str = "unordered-rows";
    const ORDER: usize = 2;
    const LEVELS: &'static [LevelSpec] =
        &[LevelSpec::dense(0), LevelSpec::compressed(1).unordered()];
}

/// Dense rows over bitmap columns.
#[derive(Clone, Copy, Debug, Default)]
struct BitmapRows;
impl Format for BitmapRows {
    const NAME: &'static str = "bitmap-rows";
    const ORDER: usize = 2;
    const LEVELS: &'static [LevelSpec] = &[LevelSpec::dense(0), LevelSpec::bitmap(1)];
}

const SHAPE: [usize; 2] = [3, 4];
const E: u32 = EMPTY;

fn dense(size: usize) -> Level {
    Level::Dense { size }
}

fn compressed(pos: &[u32], crd: &[u32]) -> Level {
    Level::Compressed {
        pos: pos.to_vec(),
        crd: crd.to_vec(),
    }
}

fn singleton(crd: &[u32]) -> Level {
    Level::Singleton { crd: crd.to_vec() }
}

fn hashed(buckets: usize, crd: &[u32]) -> Level {
    Level::Hashed {
        buckets,
        crd: crd.to_vec(),
    }
}

fn bitmap(size: usize, present: &[bool]) -> Level {
    Level::Bitmap {
        size,
        present: present.to_vec(),
    }
}

/// The matrix with dense rows over bitmap columns: every cell has a position, and the presence
/// bytes mark the four entries.
fn bitmap_rows() -> Vec<Level> {
    let present = MATRIX.map(|v| v != 0.);
    vec![dense(3), bitmap(4, &present)]
}

fn range(size: usize, bound: usize, offsets: &[i64]) -> Level {
    Level::Range {
        size,
        bound,
        offsets: offsets.to_vec(),
    }
}

fn csr() -> Vec<Level> {
    vec![dense(3), compressed(&[0, 2, 2, 4], &[1, 3, 0, 2])]
}

fn coo() -> Vec<Level> {
    vec![compressed(&[0, 4], &[0, 0, 2, 2]), singleton(&[1, 3, 0, 2])]
}

fn dcsr() -> Vec<Level> {
    vec![
        compressed(&[0, 2], &[0, 2]),
        compressed(&[0, 2, 4], &[1, 3, 0, 2]),
    ]
}

/// Four buckets per row (a power of two above 4/3 of the longest row); each coordinate at home.
fn hash_mat() -> Vec<Level> {
    vec![dense(3), hashed(4, &[E, 1, E, 3, E, E, E, E, 0, E, 2, E])]
}

const HASH_VALS: [f64; 12] = [0., 1., 0., 2., 0., 0., 0., 0., 3., 0., 4., 0.];

/// Two slots (the longest row), slot-major; padding has column 0.
fn ell() -> Vec<Level> {
    vec![dense(2), dense(3), singleton(&[1, 0, 0, 3, 0, 2])]
}

const ELL_VALS: [f64; 6] = [1., 0., 3., 2., 0., 4.];

/// Diagonals -2, 0, 1, 3; value position `d * 3 + i`.
fn dia() -> Vec<Level> {
    vec![dense(4), range(3, 4, &[-2, 0, 1, 3]), Level::Offset]
}

const DIA_VALS: [f64; 12] = [0., 0., 3., 0., 0., 4., 1., 0., 0., 2., 0., 0.];

/// 2x2 blocks: block rows 0 and 1, each with block columns 0 and 1.
fn bcsr() -> Vec<Level> {
    vec![
        dense(2),
        compressed(&[0, 2, 4], &[0, 1, 0, 1]),
        dense(2),
        dense(2),
    ]
}

const BCSR_VALS: [f64; 16] = [
    0., 1., 0., 0., 0., 2., 0., 0., 3., 0., 0., 0., 4., 0., 0., 0.,
];

const VALS: [f64; 4] = [1., 2., 3., 4.];

const MATRIX: [f64; 12] = [0., 1., 0., 2., 0., 0., 0., 0., 3., 0., 4., 0.];

fn corrupt(level: usize, position: usize, problem: Problem) -> FormatError {
    FormatError::Corrupt {
        level,
        position,
        problem,
    }
}

fn length(array: &'static str, expected: usize, found: usize) -> Problem {
    Problem::Length {
        array,
        expected,
        found,
    }
}

fn size_mismatch(expected: usize, found: usize) -> Problem {
    Problem::SizeMismatch { expected, found }
}

/// The error `from_parts` returns; fails the test if it accepts the arrays.
fn rejected<F: Format>(shape: &[usize], levels: Vec<Level>, vals: &[f64]) -> FormatError {
    match Tensor::<f64, F>::from_parts(shape.to_vec(), levels, vals.to_vec()) {
        Ok(t) => panic!("{} accepted corrupt arrays: {:?}", F::NAME, t.levels()),
        Err(e) => e,
    }
}

fn accepted<F: Format>(shape: &[usize], levels: Vec<Level>, vals: &[f64]) -> Tensor<f64, F> {
    match Tensor::<f64, F>::from_parts(shape.to_vec(), levels, vals.to_vec()) {
        Ok(t) => t,
        Err(e) => panic!("{} rejected valid arrays: {e}", F::NAME),
    }
}

#[test]
fn the_hand_written_bases_are_valid_and_hold_the_matrix() {
    assert_eq!(accepted::<Csr>(&SHAPE, csr(), &VALS).to_dense(), MATRIX);
    assert_eq!(
        accepted::<UnorderedRows>(&SHAPE, csr(), &VALS).to_dense(),
        MATRIX
    );
    assert_eq!(accepted::<Coo<2>>(&SHAPE, coo(), &VALS).to_dense(), MATRIX);
    assert_eq!(accepted::<Dcsr>(&SHAPE, dcsr(), &VALS).to_dense(), MATRIX);
    assert_eq!(
        accepted::<HashMat>(&SHAPE, hash_mat(), &HASH_VALS).to_dense(),
        MATRIX
    );
    assert_eq!(accepted::<Ell>(&SHAPE, ell(), &ELL_VALS).to_dense(), MATRIX);
    assert_eq!(accepted::<Dia>(&SHAPE, dia(), &DIA_VALS).to_dense(), MATRIX);
    assert_eq!(
        accepted::<Bcsr<2, 2>>(&SHAPE, bcsr(), &BCSR_VALS).to_dense(),
        MATRIX
    );
    assert_eq!(
        accepted::<BitmapRows>(&SHAPE, bitmap_rows(), &MATRIX).to_dense(),
        MATRIX
    );
    let packed = Tensor::<f64, Csr>::from_dense(SHAPE, &MATRIX).unwrap();
    assert_eq!(packed.levels(), &csr()[..]);
    let packed = Tensor::<f64, BitmapRows>::from_dense(SHAPE, &MATRIX).unwrap();
    assert_eq!(packed.levels(), &bitmap_rows()[..]);
}

// ---- compressed levels ----

#[test]
fn pos_decreasing() {
    let levels = vec![dense(3), compressed(&[0, 2, 1, 4], &[1, 3, 0, 2])];
    let problem = Problem::PosDecreasing {
        before: 2,
        after: 1,
    };
    assert_eq!(
        rejected::<Csr>(&SHAPE, levels, &VALS),
        corrupt(1, 1, problem)
    );
}

#[test]
fn pos_not_starting_at_zero() {
    let levels = vec![dense(3), compressed(&[1, 2, 2, 4], &[1, 3, 0, 2])];
    assert_eq!(
        rejected::<Csr>(&SHAPE, levels, &VALS),
        corrupt(1, 0, Problem::PosStart(1))
    );
}

#[test]
fn pos_last_is_not_the_crd_length() {
    let levels = vec![dense(3), compressed(&[0, 2, 2, 3], &[1, 3, 0, 2])];
    assert_eq!(
        rejected::<Csr>(&SHAPE, levels, &VALS),
        corrupt(1, 3, length("crd", 3, 4))
    );
}

#[test]
fn pos_too_short_and_too_long() {
    let short = vec![dense(3), compressed(&[0, 2, 4], &[1, 3, 0, 2])];
    assert_eq!(
        rejected::<Csr>(&SHAPE, short, &VALS),
        corrupt(1, 0, length("pos", 4, 3))
    );
    let long = vec![
        compressed(&[0, 2, 2], &[0, 2]),
        compressed(&[0, 2, 4], &[1, 3, 0, 2]),
    ];
    assert_eq!(
        rejected::<Dcsr>(&SHAPE, long, &VALS),
        corrupt(0, 0, length("pos", 2, 3))
    );
}

#[test]
fn crd_out_of_range() {
    let levels = vec![dense(3), compressed(&[0, 2, 2, 4], &[1, 4, 0, 2])];
    let problem = Problem::CrdOutOfBounds { crd: 4, size: 4 };
    assert_eq!(
        rejected::<Csr>(&SHAPE, levels, &VALS),
        corrupt(1, 1, problem)
    );
}

#[test]
fn unsorted_crd_on_an_ordered_level() {
    let levels = vec![dense(3), compressed(&[0, 2, 2, 4], &[3, 1, 0, 2])];
    let problem = Problem::Unsorted {
        before: 3,
        after: 1,
    };
    assert_eq!(
        rejected::<Csr>(&SHAPE, levels, &VALS),
        corrupt(1, 1, problem)
    );
    let root = vec![
        compressed(&[0, 2], &[2, 0]),
        compressed(&[0, 2, 4], &[1, 3, 0, 2]),
    ];
    let problem = Problem::Unsorted {
        before: 2,
        after: 0,
    };
    assert_eq!(
        rejected::<Dcsr>(&SHAPE, root, &VALS),
        corrupt(0, 1, problem)
    );
}

#[test]
fn unsorted_crd_is_fine_on_an_unordered_level() {
    let levels = vec![dense(3), compressed(&[0, 2, 2, 4], &[3, 1, 2, 0])];
    let t = accepted::<UnorderedRows>(&SHAPE, levels, &VALS);
    assert_eq!(
        t.to_dense(),
        [0., 2., 0., 1., 0., 0., 0., 0., 4., 0., 3., 0.]
    );
}

#[test]
fn duplicate_crd_on_a_unique_level() {
    let ordered = vec![dense(3), compressed(&[0, 2, 2, 4], &[1, 1, 0, 2])];
    assert_eq!(
        rejected::<Csr>(&SHAPE, ordered, &VALS),
        corrupt(1, 1, Problem::Duplicate(1))
    );
    let unordered = vec![dense(3), compressed(&[0, 2, 2, 4], &[3, 1, 2, 2])];
    assert_eq!(
        rejected::<UnorderedRows>(&SHAPE, unordered, &VALS),
        corrupt(1, 3, Problem::Duplicate(2))
    );
}

#[test]
fn duplicate_rows_are_fine_on_coo_non_unique_root() {
    // The base already repeats rows 0 and 2; a row may also repeat with nothing between.
    let levels = vec![compressed(&[0, 4], &[0, 0, 0, 2]), singleton(&[0, 1, 3, 2])];
    let t = accepted::<Coo<2>>(&SHAPE, levels, &VALS);
    assert_eq!(
        t.to_dense(),
        [1., 2., 0., 3., 0., 0., 0., 0., 0., 0., 4., 0.]
    );
}

// ---- singleton levels ----

#[test]
fn singleton_crd_length_wrong() {
    let levels = vec![compressed(&[0, 4], &[0, 0, 2, 2]), singleton(&[1, 3, 0])];
    assert_eq!(
        rejected::<Coo<2>>(&SHAPE, levels, &VALS),
        corrupt(1, 0, length("crd", 4, 3))
    );
    let mut ell = ell();
    ell[2] = singleton(&[1, 0, 0, 3, 0]);
    assert_eq!(
        rejected::<Ell>(&SHAPE, ell, &ELL_VALS),
        corrupt(2, 0, length("crd", 6, 5))
    );
}

#[test]
fn singleton_crd_out_of_range() {
    let levels = vec![compressed(&[0, 4], &[0, 0, 2, 2]), singleton(&[1, 3, 0, 7])];
    let problem = Problem::CrdOutOfBounds { crd: 7, size: 4 };
    assert_eq!(
        rejected::<Coo<2>>(&SHAPE, levels, &VALS),
        corrupt(1, 3, problem)
    );
}

/// Regression: COO's column level is a singleton declared ordered and unique, whose siblings are the
/// columns of every copy of a row. The validator checked neither, so it accepted a COO matrix with
/// one entry twice or a row's columns out of order, which co-iterating kernels would misread.
#[test]
fn coo_columns_are_ordered_and_unique_within_a_row() {
    let unsorted = vec![compressed(&[0, 4], &[0, 0, 2, 2]), singleton(&[3, 1, 0, 2])];
    let problem = Problem::Unsorted {
        before: 3,
        after: 1,
    };
    assert_eq!(
        rejected::<Coo<2>>(&SHAPE, unsorted, &VALS),
        corrupt(1, 1, problem)
    );
    let repeated = vec![compressed(&[0, 4], &[0, 0, 2, 2]), singleton(&[1, 3, 2, 2])];
    assert_eq!(
        rejected::<Coo<2>>(&SHAPE, repeated, &VALS),
        corrupt(1, 3, Problem::Duplicate(2))
    );
}

/// The same for order 3: the middle singleton is non-unique (its runs continue the chain), the last
/// is unique. Entries (0,0,1), (0,1,0), (1,1,1).
#[test]
fn coo3_chains_runs_through_the_non_unique_singleton() {
    let shape = [2, 2, 2];
    let base = |mid: &[u32], last: &[u32]| {
        vec![
            compressed(&[0, 3], &[0, 0, 1]),
            singleton(mid),
            singleton(last),
        ]
    };
    let vals = [1., 2., 3.];
    let t = accepted::<Coo<3>>(&shape, base(&[0, 1, 1], &[1, 0, 1]), &vals);
    assert_eq!(t.to_dense(), [0., 1., 2., 0., 0., 0., 0., 3.]);
    // (0,1,0) before (0,0,1): the middle level is out of order within row 0.
    let problem = Problem::Unsorted {
        before: 1,
        after: 0,
    };
    assert_eq!(
        rejected::<Coo<3>>(&shape, base(&[1, 0, 1], &[0, 1, 1]), &vals),
        corrupt(1, 1, problem)
    );
    // (0,0,1) twice: the middle level may repeat, the last may not.
    assert_eq!(
        rejected::<Coo<3>>(&shape, base(&[0, 0, 1], &[1, 1, 1]), &vals),
        corrupt(2, 1, Problem::Duplicate(1))
    );
    // (0,0,1), (0,0,0): the last level is out of order under the repeated (0,0).
    let problem = Problem::Unsorted {
        before: 1,
        after: 0,
    };
    assert_eq!(
        rejected::<Coo<3>>(&shape, base(&[0, 0, 1], &[1, 0, 1]), &vals),
        corrupt(2, 1, problem)
    );
}

// ---- hashed levels ----

#[test]
fn hashed_coordinate_off_its_probe_run() {
    // Coordinate 1 moved from its home bucket 1 to bucket 2, past the empty bucket 1.
    let levels = vec![dense(3), hashed(4, &[E, E, 1, 3, E, E, E, E, 0, E, 2, E])];
    assert_eq!(
        rejected::<HashMat>(&SHAPE, levels, &HASH_VALS),
        corrupt(1, 2, Problem::HashMisplaced(1))
    );
}

#[test]
fn hashed_coordinates_displaced_along_a_full_run_are_fine() {
    // Two buckets per row, so columns 1 and 3 share home bucket 1 and columns 0 and 2 home 0: in
    // row 0, 3 wraps from its taken home to bucket 0; in row 2, 2 moves on to bucket 1.
    let levels = vec![dense(3), hashed(2, &[3, 1, E, E, 0, 2])];
    let t = accepted::<HashMat>(&SHAPE, levels, &[2., 1., 0., 0., 3., 4.]);
    assert_eq!(t.to_dense(), MATRIX);
    // Without the occupant of bucket 1, column 3 in bucket 0 is off its probe run.
    let levels = vec![dense(3), hashed(2, &[3, E, E, E, 0, 2])];
    assert_eq!(
        rejected::<HashMat>(&SHAPE, levels, &[2., 0., 0., 0., 3., 4.]),
        corrupt(1, 0, Problem::HashMisplaced(3))
    );
}

#[test]
fn duplicate_hashed_coordinate() {
    let levels = vec![dense(3), hashed(4, &[E, 1, E, 3, E, E, E, E, 0, E, 2, 2])];
    assert_eq!(
        rejected::<HashMat>(&SHAPE, levels, &HASH_VALS),
        corrupt(1, 11, Problem::Duplicate(2))
    );
}

#[test]
fn hashed_crd_out_of_range_and_wrong_length() {
    let outside = vec![dense(3), hashed(4, &[E, 1, E, 5, E, E, E, E, 0, E, 2, E])];
    let problem = Problem::CrdOutOfBounds { crd: 5, size: 4 };
    assert_eq!(
        rejected::<HashMat>(&SHAPE, outside, &HASH_VALS),
        corrupt(1, 3, problem)
    );
    let short = vec![dense(3), hashed(4, &[E, 1, E, 3, E, E, E, E, 0, E, 2])];
    assert_eq!(
        rejected::<HashMat>(&SHAPE, short, &HASH_VALS),
        corrupt(1, 0, length("crd", 12, 11))
    );
    let no_buckets = vec![dense(3), hashed(0, &[])];
    assert_eq!(
        rejected::<HashMat>(&SHAPE, no_buckets, &[]),
        corrupt(1, 0, size_mismatch(1, 0))
    );
}

// ---- dense levels ----

#[test]
fn dense_size_wrong() {
    let levels = vec![dense(4), compressed(&[0, 2, 2, 4, 4], &[1, 3, 0, 2])];
    assert_eq!(
        rejected::<Csr>(&SHAPE, levels, &VALS),
        corrupt(0, 0, size_mismatch(3, 4))
    );
    let mut ell = ell();
    ell[1] = dense(2);
    assert_eq!(
        rejected::<Ell>(&SHAPE, ell, &ELL_VALS),
        corrupt(1, 0, size_mismatch(3, 2))
    );
    let mut block = bcsr();
    block[2] = dense(3);
    assert_eq!(
        rejected::<Bcsr<2, 2>>(&SHAPE, block, &BCSR_VALS),
        corrupt(2, 0, size_mismatch(2, 3))
    );
}

#[test]
fn ell_slot_count_must_match_the_singleton_below() {
    let mut levels = ell();
    levels[0] = dense(3);
    assert_eq!(
        rejected::<Ell>(&SHAPE, levels, &ELL_VALS),
        corrupt(2, 0, length("crd", 9, 6))
    );
}

#[test]
fn block_column_out_of_range() {
    let mut levels = bcsr();
    levels[1] = compressed(&[0, 2, 4], &[0, 2, 0, 1]);
    let problem = Problem::CrdOutOfBounds { crd: 2, size: 2 };
    assert_eq!(
        rejected::<Bcsr<2, 2>>(&SHAPE, levels, &BCSR_VALS),
        corrupt(1, 1, problem)
    );
}

// ---- bitmap levels ----

#[test]
fn bitmap_size_and_presence_length_wrong() {
    let mut size = bitmap_rows();
    size[1] = bitmap(3, &[true; 9]);
    assert_eq!(
        rejected::<BitmapRows>(&SHAPE, size, &MATRIX),
        corrupt(1, 0, size_mismatch(4, 3))
    );
    let mut short = bitmap_rows();
    short[1] = bitmap(4, &[true; 11]);
    assert_eq!(
        rejected::<BitmapRows>(&SHAPE, short, &MATRIX),
        corrupt(1, 0, length("present", 12, 11))
    );
}

#[test]
fn bitmap_absent_value_must_be_zero() {
    let mut vals = MATRIX;
    vals[4] = 5.;
    assert_eq!(
        rejected::<BitmapRows>(&SHAPE, bitmap_rows(), &vals),
        corrupt(2, 4, Problem::AbsentNotZero)
    );
    // Marking a zero present is an explicit zero, which is fine.
    let mut levels = bitmap_rows();
    if let Level::Bitmap { present, .. } = &mut levels[1] {
        present[4] = true;
    }
    let t = accepted::<BitmapRows>(&SHAPE, levels, &MATRIX);
    assert_eq!((t.to_dense(), t.nnz()), (MATRIX.to_vec(), 5));
}

// ---- range and offset levels ----

#[test]
fn range_size_and_bound_wrong() {
    let mut size = dia();
    size[1] = range(4, 4, &[-2, 0, 1, 3]);
    assert_eq!(
        rejected::<Dia>(&SHAPE, size, &DIA_VALS),
        corrupt(1, 0, size_mismatch(3, 4))
    );
    let mut bound = dia();
    bound[1] = range(3, 5, &[-2, 0, 1, 3]);
    assert_eq!(
        rejected::<Dia>(&SHAPE, bound, &DIA_VALS),
        corrupt(1, 0, size_mismatch(4, 5))
    );
}

#[test]
fn dia_offset_outside_the_matrix() {
    let mut below = dia();
    below[1] = range(3, 4, &[-3, 0, 1, 3]);
    assert_eq!(
        rejected::<Dia>(&SHAPE, below, &DIA_VALS),
        corrupt(1, 0, Problem::OffsetOutOfRange(-3))
    );
    let mut right = dia();
    right[1] = range(3, 4, &[-2, 0, 1, 4]);
    assert_eq!(
        rejected::<Dia>(&SHAPE, right, &DIA_VALS),
        corrupt(1, 3, Problem::OffsetOutOfRange(4))
    );
    let mut extreme = dia();
    extreme[1] = range(3, 4, &[i64::MIN, 0, 1, i64::MAX]);
    assert_eq!(
        rejected::<Dia>(&SHAPE, extreme, &DIA_VALS),
        corrupt(1, 0, Problem::OffsetOutOfRange(i64::MIN))
    );
}

#[test]
fn dia_offsets_length_wrong() {
    let mut levels = dia();
    levels[1] = range(3, 4, &[-2, 0, 1]);
    assert_eq!(
        rejected::<Dia>(&SHAPE, levels, &DIA_VALS),
        corrupt(1, 0, length("offsets", 4, 3))
    );
}

// ---- values, kinds, level count, shape ----

#[test]
fn values_length_wrong() {
    assert_eq!(
        rejected::<Csr>(&SHAPE, csr(), &VALS[..3]),
        corrupt(2, 0, length("vals", 4, 3))
    );
    assert_eq!(
        rejected::<Dia>(&SHAPE, dia(), &[0.; 13]),
        corrupt(3, 0, length("vals", 12, 13))
    );
    assert_eq!(
        rejected::<Dense<0>>(&[], Vec::new(), &[]),
        corrupt(0, 0, length("vals", 1, 0))
    );
}

#[test]
fn level_of_the_wrong_kind() {
    let levels = vec![dense(3), singleton(&[1, 3, 0, 2])];
    let problem = Problem::WrongKind {
        expected: "compressed",
        found: "singleton",
    };
    assert_eq!(
        rejected::<Csr>(&SHAPE, levels, &VALS),
        corrupt(1, 0, problem)
    );
    let mut levels = dia();
    levels[2] = singleton(&[0; 12]);
    let problem = Problem::WrongKind {
        expected: "offset",
        found: "singleton",
    };
    assert_eq!(
        rejected::<Dia>(&SHAPE, levels, &DIA_VALS),
        corrupt(2, 0, problem)
    );
}

#[test]
fn wrong_number_of_levels() {
    assert_eq!(
        rejected::<Csr>(&SHAPE, vec![dense(3)], &VALS),
        corrupt(0, 0, length("levels", 2, 1))
    );
    let mut three = csr();
    three.push(dense(1));
    assert_eq!(
        rejected::<Csr>(&SHAPE, three, &VALS),
        corrupt(0, 0, length("levels", 2, 3))
    );
}

#[test]
fn shape_of_the_wrong_order() {
    assert_eq!(
        rejected::<Csr>(&[3], csr(), &VALS),
        FormatError::OrderMismatch {
            expected: 2,
            found: 1
        }
    );
    assert_eq!(
        rejected::<Csr>(&[3, 4, 1], csr(), &VALS),
        FormatError::OrderMismatch {
            expected: 2,
            found: 3
        }
    );
}

/// Regression: the public `validate` indexed the shape by the levels' dimensions without checking
/// its length, so a short shape panicked.
#[test]
fn validate_checks_the_shape_length_itself() {
    let err = sparse::validate::validate(Csr::LEVELS, &[3], &csr(), 4).unwrap_err();
    assert_eq!(
        err,
        FormatError::OrderMismatch {
            expected: 2,
            found: 1
        }
    );
}

/// Regression: raw parts took dimensions above `u32::MAX`, which the index type cannot address;
/// a DIA row count of 2^63 overflowed the negation in the offset check and panicked.
#[test]
fn dimensions_above_the_index_type_are_rejected() {
    let huge = 1usize << 63;
    let levels = vec![dense(1), range(huge, 4, &[0]), Level::Offset];
    assert_eq!(
        rejected::<Dia>(&[huge, 4], levels, &[]),
        FormatError::TooLarge {
            what: "a dimension",
            value: Some(huge),
            limit: u32::MAX as usize,
        }
    );
}

/// Regression: an ELL with no rows may declare any slot count; walking it looped over every slot
/// (2^60 here) although no slot holds a position.
#[test]
fn a_huge_slot_count_over_no_rows_is_walked_at_once() {
    let levels = vec![dense(1 << 60), dense(0), singleton(&[])];
    let t = accepted::<Ell>(&[0, 4], levels, &[]);
    assert_eq!(t.to_dense(), Vec::<f64>::new());
    assert_eq!(t.entries().len(), 0);
    assert_eq!(t.nnz(), 0);
}

/// Regression: `nnz` of raw parts counted the positions of a BCSR block that lie past the edge of
/// the matrix, which are stored but are no entries (`entries()` leaves them out).
#[test]
fn raw_bcsr_nnz_leaves_out_the_padded_edge() {
    // 3x4 in 2x2 blocks: block row 1 covers rows 2 and 3, and row 3 is outside the matrix.
    let t = accepted::<Bcsr<2, 2>>(&SHAPE, bcsr(), &BCSR_VALS);
    assert_eq!(t.nnz(), 4 * 2 + 2 * 2);
    assert_eq!(t.entries().len(), t.nnz());
}

// ---- random corruption ----

/// One corruption of raw parts. Indices pick a level and a position modulo what exists.
#[derive(Clone, Debug)]
enum Mutation {
    Pos(Index, Index, u32),
    Crd(Index, Index, u32),
    Offset(Index, Index, i64),
    Size(Index, usize),
    Bound(Index, usize),
    Shorten(Index),
    Lengthen(Index, u32),
    Vals(bool),
    Kind(Index, Index),
    Present(Index, Index),
    DropLevel,
    Shape(Index, usize),
}

fn index_value() -> impl Strategy<Value = u32> {
    prop_oneof![4 => 0u32..8, 1 => Just(u32::MAX), 1 => Just(u32::MAX - 1), 1 => any::<u32>()]
}

fn size_value() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..8,
        1 => Just(u32::MAX as usize),
        1 => Just(1usize << 40),
        1 => Just(usize::MAX),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let i = any::<Index>;
    prop_oneof![
        3 => (i(), i(), index_value()).prop_map(|(l, p, v)| Mutation::Pos(l, p, v)),
        3 => (i(), i(), index_value()).prop_map(|(l, p, v)| Mutation::Crd(l, p, v)),
        2 => (i(), i(), prop_oneof![-8i64..8, Just(i64::MIN), Just(i64::MAX)])
            .prop_map(|(l, p, v)| Mutation::Offset(l, p, v)),
        2 => (i(), size_value()).prop_map(|(l, v)| Mutation::Size(l, v)),
        1 => (i(), size_value()).prop_map(|(l, v)| Mutation::Bound(l, v)),
        2 => i().prop_map(Mutation::Shorten),
        2 => (i(), index_value()).prop_map(|(l, v)| Mutation::Lengthen(l, v)),
        1 => any::<bool>().prop_map(Mutation::Vals),
        1 => (i(), i()).prop_map(|(l, k)| Mutation::Kind(l, k)),
        2 => (i(), i()).prop_map(|(l, p)| Mutation::Present(l, p)),
        1 => Just(Mutation::DropLevel),
        1 => (i(), prop_oneof![0usize..8, Just(u32::MAX as usize), Just(1usize << 40)])
            .prop_map(|(d, n)| Mutation::Shape(d, n)),
    ]
}

/// Overwrites one element of `array`, if it has any.
fn set_at<T: Copy>(array: &mut [T], at: Index, value: T) {
    if !array.is_empty() {
        array[at.index(array.len())] = value;
    }
}

/// The level `l` picks, if there is any level.
fn level_at<'a>(levels: &'a mut [Level], l: &Index) -> Option<&'a mut Level> {
    if levels.is_empty() {
        return None;
    }
    let k = l.index(levels.len());
    levels.get_mut(k)
}

fn apply(m: &Mutation, shape: &mut [usize], levels: &mut Vec<Level>, vals: &mut Vec<f64>) {
    match m {
        Mutation::Pos(l, p, v) => {
            if let Some(Level::Compressed { pos, .. }) = level_at(levels, l) {
                set_at(pos, *p, *v);
            }
        }
        Mutation::Crd(l, p, v) => {
            if let Some(
                Level::Compressed { crd, .. }
                | Level::Singleton { crd }
                | Level::Hashed { crd, .. },
            ) = level_at(levels, l)
            {
                set_at(crd, *p, *v);
            }
        }
        Mutation::Offset(l, p, v) => {
            if let Some(Level::Range { offsets, .. }) = level_at(levels, l) {
                set_at(offsets, *p, *v);
            }
        }
        Mutation::Size(l, v) => match level_at(levels, l) {
            Some(
                Level::Dense { size } | Level::Range { size, .. } | Level::Bitmap { size, .. },
            ) => *size = *v,
            Some(Level::Hashed { buckets, .. }) => *buckets = *v,
            _ => {}
        },
        Mutation::Bound(l, v) => {
            if let Some(Level::Range { bound, .. }) = level_at(levels, l) {
                *bound = *v;
            }
        }
        Mutation::Shorten(l) => match level_at(levels, l) {
            Some(Level::Compressed { pos, .. }) => {
                pos.pop();
            }
            Some(Level::Singleton { crd } | Level::Hashed { crd, .. }) => {
                crd.pop();
            }
            Some(Level::Range { offsets, .. }) => {
                offsets.pop();
            }
            Some(Level::Bitmap { present, .. }) => {
                present.pop();
            }
            _ => {}
        },
        Mutation::Lengthen(l, v) => match level_at(levels, l) {
            Some(
                Level::Compressed { crd, .. }
                | Level::Singleton { crd }
                | Level::Hashed { crd, .. },
            ) => {
                crd.push(*v);
            }
            Some(Level::Range { offsets, .. }) => offsets.push(i64::from(*v)),
            _ => {}
        },
        Mutation::Vals(longer) => {
            if *longer {
                vals.push(1.0);
            } else {
                vals.pop();
            }
        }
        Mutation::Kind(l, kind) => {
            if let Some(level) = level_at(levels, l) {
                let others = [
                    dense(2),
                    compressed(&[0, 1], &[0]),
                    singleton(&[0]),
                    range(2, 2, &[0]),
                    Level::Offset,
                    hashed(2, &[0, E]),
                    bitmap(2, &[true, false]),
                ];
                *level = others[kind.index(others.len())].clone();
            }
        }
        Mutation::Present(l, p) => {
            if let Some(Level::Bitmap { present, .. }) = level_at(levels, l)
                && !present.is_empty()
            {
                let at = p.index(present.len());
                present[at] = !present[at];
            }
        }
        Mutation::DropLevel => {
            levels.pop();
        }
        Mutation::Shape(d, n) => {
            if !shape.is_empty() {
                shape[d.index(shape.len())] = *n;
            }
        }
    }
}

/// Corrupts the raw parts of `t`; whatever `from_parts` then accepts must be walkable.
fn survives<F: Format>(t: &Tensor<f64, F>, mutations: &[Mutation]) -> Result<(), TestCaseError> {
    let (mut shape, mut levels, mut vals) = t.clone().into_parts();
    for m in mutations {
        apply(m, &mut shape, &mut levels, &mut vals);
    }
    let Ok(back) = Tensor::<f64, F>::from_parts(shape, levels, vals) else {
        return Ok(());
    };
    let cells = back
        .shape()
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d));
    // `to_dense` allocates the whole shape; a corrupt shape may ask for more memory than there is.
    if let Some(cells) = cells.filter(|&n| n <= 1 << 20) {
        prop_assert_eq!(back.to_dense().len(), cells);
    }
    prop_assert_eq!(back.entries().len(), back.nnz(), "{}", F::NAME);
    prop_assert!(back.stored_len() >= back.nnz());
    Ok(())
}

/// A small random matrix: shape up to 6x6, up to 12 entries.
fn matrix() -> impl Strategy<Value = ([usize; 2], Vec<([usize; 2], f64)>)> {
    ([0usize..=6, 0usize..=6]).prop_flat_map(|shape| {
        let entries = if shape[0] * shape[1] == 0 {
            Just(Vec::new()).boxed()
        } else {
            vec(([0..shape[0], 0..shape[1]], -3i8..=3), 0..=12)
                .prop_map(|list| list.into_iter().map(|(c, v)| (c, f64::from(v))).collect())
                .boxed()
        };
        (Just(shape), entries)
    })
}

/// Packs the matrix into `F` (as a vector of its first row, or an order-3 tensor with a unit last
/// dimension, for formats of those orders) and corrupts it.
fn corrupt_in<F: Format>(
    shape: [usize; 2],
    entries: &[([usize; 2], f64)],
    mutations: &[Mutation],
) -> Result<(), TestCaseError> {
    let mut list = match F::ORDER {
        1 => Entries::new([shape[1]]),
        3 => Entries::new([shape[0], shape[1], 2]),
        _ => Entries::new(shape),
    };
    for &(c, v) in entries {
        let pushed = match F::ORDER {
            1 if c[0] == 0 => list.push(&[c[1]], v),
            1 => Ok(()),
            3 => list.push(&[c[0], c[1], c[0] % 2], v),
            _ => list.push(&c, v),
        };
        pushed.map_err(|e| TestCaseError::fail(format!("{}: {e}", F::NAME)))?;
    }
    let t = Tensor::<f64, F>::from_entry_list(&list, ExplicitZeros::Drop)
        .map_err(|e| TestCaseError::fail(format!("{}: {e}", F::NAME)))?;
    survives(&t, mutations)
}

macro_rules! corrupt_all {
    ($shape:expr, $entries:expr, $mutations:expr; $($format:ty),+ $(,)?) => {
        $(corrupt_in::<$format>($shape, $entries, $mutations)?;)+
    };
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_corruption_never_panics(
        (shape, entries) in matrix(),
        mutations in vec(mutation(), 1..=3),
    ) {
        corrupt_all!(shape, &entries, &mutations;
            Csr, Csc, Coo<2>, Dcsr, Dcsc, Dense<2>, Ell, Dia, Bcsr<2, 2>, Bcsr<3, 1>, HashMat,
            UnorderedRows, BitmapRows, SparseVec, HashVec, BitVec, Dense<1>, Coo<3>, Csf<3>,
            Dense<3>);
    }
}
