//! The conveniences of `Tensor`: reading single values and fibers, iteration, equality,
//! formatting, permutation, identity and diagonal matrices, pruning, dense tensors over a `Vec`,
//! and raw parts. Expected values are literals or a dense array scattered by hand from the
//! entries a test starts from.

use sparse_runtime::{
    Bcsr, Coo, Csc, Csf, Csr, Dcsr, DenseMat, DenseVec, Dia, Ell, ExplicitZeros, Format,
    FormatError, HashMat, Level, LevelSpec, Problem, SparseVec, Tensor,
};

type Entry = ([usize; 2], f64);

/// Row 0: (0,1) = 2, (0,3) = -1; row 1 empty; row 2: (2,0) = 4, (2,2) = 0.5.
const SHAPE: [usize; 2] = [3, 4];
const ENTRIES: [Entry; 4] = [([2, 2], 0.5), ([0, 3], -1.0), ([2, 0], 4.0), ([0, 1], 2.0)];

/// `entries` scattered into a dense row-major array, duplicates summed.
fn scatter(shape: [usize; 2], entries: &[Entry]) -> Vec<f64> {
    let mut dense = vec![0.0; shape[0] * shape[1]];
    for &([i, j], v) in entries {
        dense[i * shape[1] + j] += v;
    }
    dense
}

/// `get` at every coordinate of the shape and just outside it, against the dense reference.
fn check_get<F: Format>(shape: [usize; 2], entries: &[Entry]) {
    let t = Tensor::<f64, F>::from_entries(shape, entries.iter().copied()).unwrap();
    let dense = scatter(shape, entries);
    for i in 0..shape[0] {
        for j in 0..shape[1] {
            let expected = dense[i * shape[1] + j];
            assert_eq!(t.get(&[i, j]), Some(expected), "{} at ({i}, {j})", F::NAME);
        }
    }
    assert_eq!(t.get(&[shape[0], 0]), None, "{}", F::NAME);
    assert_eq!(t.get(&[0, shape[1]]), None, "{}", F::NAME);
    assert_eq!(t.get(&[0]), None, "{}", F::NAME);
    assert_eq!(t.get(&[0, 0, 0]), None, "{}", F::NAME);
}

fn check_get_all(shape: [usize; 2], entries: &[Entry]) {
    check_get::<Csr>(shape, entries);
    check_get::<Csc>(shape, entries);
    check_get::<Coo<2>>(shape, entries);
    check_get::<Dcsr>(shape, entries);
    check_get::<Ell>(shape, entries);
    check_get::<Dia>(shape, entries);
    check_get::<Bcsr<2, 2>>(shape, entries);
    check_get::<HashMat>(shape, entries);
    check_get::<DenseMat>(shape, entries);
}

#[test]
fn get_reads_every_coordinate_in_every_format() {
    check_get_all(SHAPE, &ENTRIES);
}

#[test]
fn get_on_empty_single_and_duplicate_entries() {
    check_get_all(SHAPE, &[]);
    check_get_all([0, 0], &[]);
    check_get_all([1, 1], &[([0, 0], 7.0)]);
    check_get_all([4, 1], &[([3, 0], 7.0)]);
    // Duplicates are summed when packed.
    check_get_all(SHAPE, &[([1, 2], 1.0), ([1, 2], 2.5), ([0, 0], 1.0)]);
}

/// COO whose coordinates may repeat (the named `Coo` declares them unique).
#[derive(Clone, Copy, Debug, Default)]
struct CooDuplicates;
impl Format for CooDuplicates {
    const NAME: &'static str = "coo-duplicates";
    const ORDER: usize = 2;
    const LEVELS: &'static [LevelSpec] = &[
        LevelSpec::compressed(0).non_unique(),
        LevelSpec::singleton(1).non_unique(),
    ];
}

#[test]
fn get_sums_the_duplicates_of_raw_coo_arrays() {
    let levels = vec![
        Level::Compressed {
            pos: vec![0, 3],
            crd: vec![0, 0, 1],
        },
        Level::Singleton { crd: vec![1, 1, 0] },
    ];
    let t =
        Tensor::<f64, CooDuplicates>::from_parts(vec![2, 2], levels, vec![1.0, 2.0, 5.0]).unwrap();
    assert_eq!(t.get(&[0, 1]), Some(3.0));
    assert_eq!(t.get(&[1, 0]), Some(5.0));
    assert_eq!(t.get(&[0, 0]), Some(0.0));
}

#[test]
fn get_on_a_third_order_tensor() {
    let t =
        Tensor::<i64, Csf<3>>::from_entries([2, 3, 2], [([1, 2, 0], 9), ([0, 0, 1], 3)]).unwrap();
    assert_eq!(t.get(&[1, 2, 0]), Some(9));
    assert_eq!(t.get(&[0, 0, 1]), Some(3));
    assert_eq!(t.get(&[1, 1, 0]), Some(0));
    assert_eq!(t.get(&[2, 0, 0]), None);
}

#[test]
fn iter_yields_the_stored_entries_in_storage_order() {
    let csr = Tensor::<f64, Csr>::from_entries(SHAPE, ENTRIES).unwrap();
    let expected = vec![
        (vec![0, 1], 2.0),
        (vec![0, 3], -1.0),
        (vec![2, 0], 4.0),
        (vec![2, 2], 0.5),
    ];
    assert_eq!(csr.iter().collect::<Vec<_>>(), expected);
    assert_eq!(csr.iter().len(), 4);
    let csc = Tensor::<f64, Csc>::from_entries(SHAPE, ENTRIES).unwrap();
    let by_columns = vec![
        (vec![2, 0], 4.0),
        (vec![0, 1], 2.0),
        (vec![2, 2], 0.5),
        (vec![0, 3], -1.0),
    ];
    assert_eq!(csc.iter().collect::<Vec<_>>(), by_columns);
    // ELL's padding is not an entry.
    let ell = Tensor::<f64, Ell>::from_entries(SHAPE, ENTRIES).unwrap();
    assert!(ell.stored_len() > ell.nnz());
    assert_eq!(ell.iter().len(), 4);
    assert_eq!(Tensor::<f64, Csr>::zeros([2, 2]).iter().count(), 0);
}

#[test]
fn rows_of_csr_and_columns_of_csc() {
    let csr = Tensor::<f64, Csr>::from_entries(SHAPE, ENTRIES).unwrap();
    assert_eq!(csr.row(0), Some((&[1, 3][..], &[2.0, -1.0][..])));
    assert_eq!(csr.row(1), Some((&[][..], &[][..])));
    assert_eq!(csr.row(2), Some((&[0, 2][..], &[4.0, 0.5][..])));
    assert_eq!(csr.row(3), None);
    let csc = Tensor::<f64, Csc>::from_entries(SHAPE, ENTRIES).unwrap();
    assert_eq!(csc.row(0), Some((&[2][..], &[4.0][..])));
    assert_eq!(csc.row(3), Some((&[0][..], &[-1.0][..])));
    assert_eq!(Tensor::<f64, Coo<2>>::zeros(SHAPE).row(0), None);
    assert_eq!(Tensor::<f64, DenseMat>::zeros(SHAPE).row(0), None);
    assert_eq!(Tensor::<f64, Csr>::zeros([0, 3]).row(0), None);
}

#[test]
fn equality_compares_values_not_storage() {
    let a = Tensor::<f64, Csr>::from_entries(SHAPE, ENTRIES).unwrap();
    let mut with_zero = ENTRIES.to_vec();
    with_zero.push(([1, 1], 0.0));
    let b = Tensor::<f64, Csr>::from_entries_with(SHAPE, with_zero, ExplicitZeros::Keep).unwrap();
    assert_eq!(b.nnz(), 5);
    assert_eq!(a, b);
    let mut changed = ENTRIES.to_vec();
    changed[0].1 = 0.25;
    assert_ne!(a, Tensor::from_entries(SHAPE, changed).unwrap());
    assert_ne!(a, Tensor::from_entries([3, 5], ENTRIES).unwrap());
    let padded: Tensor<f64, Ell> = a.convert().unwrap();
    let unpadded = Tensor::<f64, Ell>::from_entries(SHAPE, ENTRIES).unwrap();
    assert_eq!(padded, unpadded);
    assert_eq!(Tensor::<f64, Csr>::zeros([0, 0]), Tensor::zeros([0, 0]));
    assert_ne!(Tensor::<f64, Csr>::zeros([1, 2]), Tensor::zeros([2, 1]));
    let nan = Tensor::<f64, Csr>::from_entries([1, 1], [([0, 0], f64::NAN)]).unwrap();
    assert_ne!(nan, nan.clone());
}

#[test]
fn display_summarizes_and_elides() {
    let a = Tensor::<f64, Csr>::from_entries(SHAPE, ENTRIES).unwrap();
    assert_eq!(
        a.to_string(),
        "csr 3x4, 4 stored: (0, 1) 2, (0, 3) -1, (2, 0) 4, (2, 2) 0.5"
    );
    let many = Tensor::<i32, SparseVec>::from_entries([10], (0..9).map(|k| ([k], 1))).unwrap();
    assert_eq!(
        many.to_string(),
        "sparse 10, 9 stored: (0) 1, (1) 1, (2) 1, (3) 1, (4) 1, (5) 1, ... (3 more)"
    );
    assert_eq!(
        Tensor::<f64, Csr>::zeros([2, 0]).to_string(),
        "csr 2x0, 0 stored"
    );
}

#[test]
fn debug_shows_sizes_not_arrays() {
    let v = Tensor::<f64, DenseVec>::from_dense([3], &[0.0, 1.0, 0.0]).unwrap();
    assert_eq!(
        format!("{v:?}"),
        "Tensor { format: \"dense\", shape: [3], nnz: 3, stored_len: 3, levels: [dense 3] }"
    );
    let big =
        Tensor::<f64, Csr>::from_entries([1000, 1000], (0..1000).map(|k| ([k, k], 1.0))).unwrap();
    let text = format!("{big:?}");
    assert!(text.contains("compressed (pos 1001, crd 1000)"), "{text}");
    assert!(text.len() < 200, "{text}");
}

#[test]
fn transpose_of_csr_into_csc_stores_the_same_arrays() {
    let a = Tensor::<f64, Csr>::from_entries(SHAPE, ENTRIES).unwrap();
    let t: Tensor<f64, Csc> = a.transpose().unwrap();
    assert_eq!(t.shape(), &[4, 3]);
    assert_eq!(t.level(1).pos(), a.level(1).pos());
    assert_eq!(t.level(1).crd(), a.level(1).crd());
    assert_eq!(t.values(), a.values());
    let dense = scatter(SHAPE, &ENTRIES);
    let t_dense = t.to_dense();
    for i in 0..3 {
        for j in 0..4 {
            assert_eq!(t_dense[j * 3 + i], dense[i * 4 + j]);
        }
    }
    let back: Tensor<f64, Csr> = t.transpose().unwrap();
    assert_eq!(back, a);
}

#[test]
fn permute_moves_coordinates_and_rejects_non_permutations() {
    let t = Tensor::<f64, Coo<3>>::from_entries([2, 3, 4], [([1, 2, 3], 5.0), ([0, 0, 1], 1.0)])
        .unwrap();
    let p: Tensor<f64, Csf<3>> = t.permute(&[2, 0, 1]).unwrap();
    assert_eq!(p.shape(), &[4, 2, 3]);
    assert_eq!(
        p.iter().collect::<Vec<_>>(),
        vec![(vec![1, 0, 0], 1.0), (vec![3, 1, 2], 5.0)]
    );
    for bad in [&[0, 1][..], &[0, 1, 1], &[0, 1, 3], &[0, 1, 2, 3]] {
        let err = t.permute::<Coo<3>>(bad).unwrap_err();
        assert_eq!(
            err,
            FormatError::InvalidPermutation {
                perm: bad.to_vec(),
                order: 3
            }
        );
    }
    let err = t.transpose::<Csr>().unwrap_err();
    assert!(matches!(
        err,
        FormatError::InvalidPermutation { order: 3, .. }
    ));
    let empty: Tensor<f64, Csc> = Tensor::<f64, Csr>::zeros([0, 5]).transpose().unwrap();
    assert_eq!((empty.shape(), empty.nnz()), (&[5, 0][..], 0));
}

#[test]
fn identity_and_diagonal_matrices() {
    let i = Tensor::<f64, Csr>::identity(3).unwrap();
    assert_eq!(
        i.to_dense(),
        vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(i.level(1).crd(), &[0, 1, 2]);
    let d = Tensor::<i32, Dia>::from_diagonal(&[4, 0, -2]).unwrap();
    assert_eq!(d.nnz(), 2);
    assert_eq!(d.to_dense(), vec![4, 0, 0, 0, 0, 0, 0, 0, -2]);
    let empty = Tensor::<f64, Coo<2>>::identity(0).unwrap();
    assert_eq!((empty.shape(), empty.nnz()), (&[0, 0][..], 0));
    let err = Tensor::<f64, Csf<3>>::identity(2).unwrap_err();
    assert_eq!(
        err,
        FormatError::OrderMismatch {
            expected: 3,
            found: 2
        }
    );
}

#[test]
fn prune_drops_stored_zeros_and_small_values() {
    let entries = [
        ([0, 0], 1e-12),
        ([0, 1], 0.0),
        ([1, 1], -2.0),
        ([1, 0], -1e-10),
    ];
    let a = Tensor::<f64, Csr>::from_entries_with([2, 2], entries, ExplicitZeros::Keep).unwrap();
    assert_eq!(a.nnz(), 4);
    let pruned = a.prune().unwrap();
    assert_eq!(
        pruned.iter().collect::<Vec<_>>(),
        vec![
            (vec![0, 0], 1e-12),
            (vec![1, 0], -1e-10),
            (vec![1, 1], -2.0)
        ]
    );
    let small = a.prune_below(1e-9).unwrap();
    assert_eq!(small.iter().collect::<Vec<_>>(), vec![(vec![1, 1], -2.0)]);
    assert_eq!(small.level(1).pos(), &[0, 0, 1]);
    // A threshold of zero or less keeps everything but changes nothing else.
    assert_eq!(a.prune_below(0.0).unwrap().nnz(), 4);
    let ints = Tensor::<i32, Coo<2>>::from_entries(
        [1, 3],
        [([0, 0], i32::MIN), ([0, 1], 2), ([0, 2], -3)],
    )
    .unwrap();
    let kept = ints.prune_below(3).unwrap();
    assert_eq!(
        kept.iter().collect::<Vec<_>>(),
        vec![(vec![0, 0], i32::MIN), (vec![0, 2], -3)]
    );
    assert_eq!(Tensor::<f64, Csr>::zeros([2, 2]).prune().unwrap().nnz(), 0);
}

#[test]
fn from_vec_keeps_the_allocation() {
    let values = vec![1.0, 0.0, 3.0, 4.0, 5.0, 0.0];
    let address = values.as_ptr();
    let a = Tensor::<f64, DenseMat>::from_vec([2, 3], values).unwrap();
    assert_eq!(a.get(&[1, 0]), Some(4.0));
    assert_eq!(a.nnz(), 6);
    assert_eq!(a.values().as_ptr(), address);
    let back = a.into_vec();
    assert_eq!(back.as_ptr(), address);
    assert_eq!(back, vec![1.0, 0.0, 3.0, 4.0, 5.0, 0.0]);
    let err = Tensor::<f64, DenseVec>::from_vec([3], vec![1.0]).unwrap_err();
    assert_eq!(
        err,
        FormatError::DenseLength {
            expected: 3,
            found: 1
        }
    );
    let wide = Tensor::<f64, DenseVec>::from_vec([u32::MAX as usize + 1], vec![]).unwrap_err();
    assert!(matches!(wide, FormatError::TooLarge { .. }));
    let empty = Tensor::<f64, DenseMat>::from_vec([0, 4], vec![]).unwrap();
    assert_eq!(empty.to_dense(), Vec::<f64>::new());
}

#[test]
fn parts_round_trip_and_corrupt_parts_are_errors() {
    let a = Tensor::<f64, Csr>::from_entries(SHAPE, ENTRIES).unwrap();
    let (shape, levels, vals) = a.clone().into_parts();
    assert_eq!(shape, vec![3, 4]);
    assert_eq!(levels[1].pos(), &[0, 2, 2, 4]);
    assert_eq!(vals, vec![2.0, -1.0, 4.0, 0.5]);
    let back = Tensor::<f64, Csr>::from_parts(shape.clone(), levels.clone(), vals.clone()).unwrap();
    assert_eq!(back, a);

    let mut past = levels.clone();
    past[1] = Level::Compressed {
        pos: vec![0, 2, 2, 9],
        crd: vec![1, 3, 0, 2],
    };
    let err = Tensor::<f64, Csr>::from_parts(shape.clone(), past, vals.clone()).unwrap_err();
    assert!(
        matches!(err, FormatError::Corrupt { level: 1, .. }),
        "{err}"
    );

    let mut outside = levels.clone();
    outside[1] = Level::Compressed {
        pos: vec![0, 2, 2, 4],
        crd: vec![1, 3, 0, 4],
    };
    let err = Tensor::<f64, Csr>::from_parts(shape.clone(), outside, vals.clone()).unwrap_err();
    assert!(matches!(
        err,
        FormatError::Corrupt {
            problem: Problem::CrdOutOfBounds { crd: 4, size: 4 },
            ..
        }
    ));
    let err = Tensor::<f64, Csr>::from_parts(shape, levels, vec![1.0]).unwrap_err();
    assert!(
        matches!(err, FormatError::Corrupt { level: 2, .. }),
        "{err}"
    );
}
