//! Fill values: tensors whose unstored elements hold a value other than zero (`+inf` for the
//! distances of a min-plus product). Every format packs them, `to_dense` and `get` show the fill
//! where nothing is stored, conversions keep it, and the file writers record it for the readers.
//! Expected values are written out by hand or scattered from the entries a test starts from.

use sparse_runtime::io::{read_matrix_market, read_tns, write_matrix_market, write_tns};
use sparse_runtime::{
    Bcsr, Coo, Csc, Csf, Csr, Dcsc, Dcsr, DenseMat, DenseVec, Dia, Ell, ExplicitZeros, Format,
    HashMat, SparseVec, Tensor,
};

const INF: f64 = f64::INFINITY;
const SHAPE: [usize; 2] = [3, 4];
/// Row 0: (0,1) = 2, (0,3) = -1; row 1 empty; row 2: (2,0) = 4, (2,2) = 0.5.
const ENTRIES: [([usize; 2], f64); 4] =
    [([2, 2], 0.5), ([0, 3], -1.0), ([2, 0], 4.0), ([0, 1], 2.0)];

/// `ENTRIES` scattered over an array of `fill`.
fn expected(fill: f64) -> Vec<f64> {
    let mut dense = vec![fill; SHAPE[0] * SHAPE[1]];
    for ([i, j], v) in ENTRIES {
        dense[i * SHAPE[1] + j] = v;
    }
    dense
}

fn check_format<F: Format>(fill: f64) {
    let t = Tensor::<f64, F>::from_entries_with_fill(SHAPE, ENTRIES, fill).unwrap();
    assert_eq!(t.fill().to_bits(), fill.to_bits(), "{}", F::NAME);
    let dense = t.to_dense();
    let want = expected(fill);
    assert_eq!(dense.len(), want.len());
    for (k, (a, b)) in dense.iter().zip(&want).enumerate() {
        assert!(
            a == b || (a.is_nan() && b.is_nan()),
            "{} at {k}: {a} vs {b}",
            F::NAME
        );
    }
    for i in 0..SHAPE[0] {
        for j in 0..SHAPE[1] {
            let got = t.get(&[i, j]).unwrap();
            let want = want[i * SHAPE[1] + j];
            assert!(
                got == want || (got.is_nan() && want.is_nan()),
                "{} get ({i},{j})",
                F::NAME
            );
        }
    }
    // Conversion keeps the fill, and the values.
    let c: Tensor<f64, Coo<2>> = t.convert().unwrap();
    assert_eq!(c.fill().to_bits(), fill.to_bits());
    let back: Tensor<f64, F> = c.convert().unwrap();
    assert_eq!(back.to_dense().len(), want.len());
    for (a, b) in back.to_dense().iter().zip(&want) {
        assert!(a == b || (a.is_nan() && b.is_nan()));
    }
}

#[test]
fn every_format_shows_its_fill_where_nothing_is_stored() {
    for fill in [INF, -INF, 7.5, 0.0, -0.0] {
        check_format::<Csr>(fill);
        check_format::<Csc>(fill);
        check_format::<Coo<2>>(fill);
        check_format::<Dcsr>(fill);
        check_format::<Dcsc>(fill);
        check_format::<Csf<2>>(fill);
        check_format::<DenseMat>(fill);
        check_format::<Ell>(fill);
        check_format::<Dia>(fill);
        check_format::<Bcsr<2, 2>>(fill);
        check_format::<HashMat>(fill);
    }
}

#[test]
fn a_nan_fill_reads_back_as_nan() {
    let t = Tensor::<f64, Csr>::from_entries_with_fill(SHAPE, ENTRIES, f64::NAN).unwrap();
    assert!(t.fill().is_nan());
    assert!(t.get(&[1, 1]).unwrap().is_nan());
    assert_eq!(t.get(&[0, 1]), Some(2.0));
    assert_eq!(t.nnz(), 4);
}

#[test]
fn dense_levels_store_the_fill_and_padding_holds_it() {
    let x = Tensor::<f64, DenseVec>::from_entries_with_fill([4], [([2], 1.0)], INF).unwrap();
    assert_eq!(x.values(), &[INF, INF, 1.0, INF]);
    // ELL pads short rows; the padding holds the fill, so a kernel that reads it as a value
    // computes with the fill.
    let e = Tensor::<f64, Ell>::from_entries_with_fill(SHAPE, ENTRIES, INF).unwrap();
    assert_eq!(e.nnz(), 4);
    assert!(e.stored_len() > 4);
    let padding: Vec<f64> = (0..e.stored_len())
        .filter(|&p| !e.is_entry(p))
        .map(|p| e.values()[p])
        .collect();
    assert!(
        !padding.is_empty() && padding.iter().all(|&v| v == INF),
        "{padding:?}"
    );
}

#[test]
fn entries_equal_to_the_fill_are_not_stored_and_duplicates_sum() {
    let entries = [([0], 3.0), ([1], INF), ([0], 1.5), ([3], 2.0), ([3], -2.0)];
    let x = Tensor::<f64, SparseVec>::from_entries_with_fill([5], entries, INF).unwrap();
    // (1) is the fill: not stored. (3) sums to zero, which is not the fill: stored.
    assert_eq!(x.nnz(), 2);
    assert_eq!(x.to_dense(), vec![4.5, INF, INF, 0.0, INF]);
    let kept =
        Tensor::<f64, SparseVec>::from_entry_list_with_fill(&x.entries(), ExplicitZeros::Keep, INF)
            .unwrap();
    assert_eq!(kept, x);
}

#[test]
fn filled_tensors_store_nothing_but_read_the_fill() {
    let y = Tensor::<f64, DenseVec>::filled([3], INF);
    assert_eq!(y.to_dense(), vec![INF; 3]);
    assert_eq!(y.fill(), INF);
    let a = Tensor::<f64, Csr>::filled([2, 2], -1.0);
    assert_eq!(a.nnz(), 0);
    assert_eq!(a.to_dense(), vec![-1.0; 4]);
    assert_eq!(a.get(&[1, 1]), Some(-1.0));
    let empty = Tensor::<f64, Csr>::filled([0, 5], INF);
    assert!(empty.to_dense().is_empty());
    assert!(Tensor::<f64, Csr>::try_filled([usize::MAX, 2], INF).is_err());
    // The default fill is zero, and the old constructors keep it.
    assert_eq!(Tensor::<f64, Csr>::zeros([2, 2]).fill(), 0.0);
    assert_eq!(
        Tensor::<i64, Csr>::filled([1, 1], i64::MAX).to_dense(),
        vec![i64::MAX]
    );
}

#[test]
fn transposes_permutations_and_pruning_keep_the_fill() {
    let t = Tensor::<f64, Csr>::from_entries_with_fill(SHAPE, ENTRIES, INF).unwrap();
    let tt: Tensor<f64, Csr> = t.transpose().unwrap();
    assert_eq!(tt.fill(), INF);
    assert_eq!(tt.get(&[1, 0]), Some(2.0));
    assert_eq!(tt.get(&[0, 1]), Some(INF));
    let p: Tensor<f64, Csc> = t.permute(&[0, 1]).unwrap();
    assert_eq!(p.fill(), INF);
    assert_eq!(p.to_dense(), t.to_dense());
    // Stored entries equal to the fill go; a stored zero stays (it is not the fill).
    let stored = [([0, 0], INF), ([1, 1], 0.0), ([2, 3], 5.0)];
    let s = Tensor::<f64, Csr>::from_entries_with(SHAPE, stored, ExplicitZeros::Keep).unwrap();
    let s: Tensor<f64, Csr> =
        Tensor::from_entry_list_with_fill(&s.entries(), ExplicitZeros::Keep, INF).unwrap();
    assert_eq!(s.nnz(), 3);
    let pruned = s.prune().unwrap();
    assert_eq!(pruned.nnz(), 2);
    assert_eq!(pruned.fill(), INF);
    assert_eq!(pruned.to_dense(), s.to_dense());
}

#[test]
fn equality_compares_the_fill_and_treats_stored_fills_as_absent() {
    let a = Tensor::<f64, Csr>::from_entries_with_fill(SHAPE, ENTRIES, INF).unwrap();
    let zero_fill = Tensor::<f64, Csr>::from_entries(SHAPE, ENTRIES).unwrap();
    assert_ne!(a, zero_fill);
    let mut with_stored_fill = ENTRIES.to_vec();
    with_stored_fill.push(([1, 1], INF));
    let b = Tensor::<f64, Csr>::from_entry_list_with_fill(
        &Tensor::<f64, Coo<2>>::from_entries_with(SHAPE, with_stored_fill, ExplicitZeros::Keep)
            .unwrap()
            .entries(),
        ExplicitZeros::Keep,
        INF,
    )
    .unwrap();
    assert_eq!(b.nnz(), 5);
    assert_eq!(a, b);
    assert_eq!(
        a.to_string(),
        "csr 3x4, fill inf, 4 stored: (0, 1) 2, (0, 3) -1, (2, 0) 4, (2, 2) 0.5"
    );
    assert!(format!("{a:?}").contains("fill: inf"));
    assert!(!format!("{zero_fill:?}").contains("fill"));
}

#[test]
fn matrix_market_records_the_fill_and_reads_it_back() {
    let a = Tensor::<f64, Csr>::from_entries_with_fill(SHAPE, ENTRIES, INF).unwrap();
    let mut out = Vec::new();
    write_matrix_market(&a, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with(
            "%%MatrixMarket matrix coordinate real general\n% sparse-fill: inf\n3 4 4\n"
        ),
        "{text}"
    );
    let back: Tensor<f64, Csr> = read_matrix_market(text.as_bytes()).unwrap();
    assert_eq!(back.fill(), INF);
    assert_eq!(back, a);
    // Into another format, with a negative fill.
    let n = Tensor::<f64, Csr>::from_entries_with_fill(SHAPE, ENTRIES, -INF).unwrap();
    let mut out = Vec::new();
    write_matrix_market(&n, &mut out).unwrap();
    let coo: Tensor<f64, Coo<2>> = read_matrix_market(out.as_slice()).unwrap();
    assert_eq!(coo.fill(), -INF);
    assert_eq!(coo.to_dense(), n.to_dense());
    // A zero fill writes no comment, as before.
    let z = Tensor::<f64, Csr>::from_entries(SHAPE, ENTRIES).unwrap();
    let mut out = Vec::new();
    write_matrix_market(&z, &mut out).unwrap();
    assert!(!String::from_utf8(out).unwrap().contains("sparse-fill"));
    // Integers, and a fill comment that is not a number.
    let i = Tensor::<i64, Csr>::from_entries_with_fill([2, 2], [([0, 0], 3)], i64::MAX).unwrap();
    let mut out = Vec::new();
    write_matrix_market(&i, &mut out).unwrap();
    let back: Tensor<i64, Csr> = read_matrix_market(out.as_slice()).unwrap();
    assert_eq!(back.to_dense(), vec![3, i64::MAX, i64::MAX, i64::MAX]);
    let bad = "%%MatrixMarket matrix coordinate real general\n% sparse-fill: lots\n1 1 0\n";
    let err = read_matrix_market::<f64, Csr>(bad.as_bytes()).unwrap_err();
    assert!(err.to_string().contains("line 2"), "{err}");
}

#[test]
fn tns_records_the_fill_and_reads_it_back() {
    let t = Tensor::<f64, Csf<3>>::from_entries_with_fill(
        [2, 2, 3],
        [([1, 0, 2], 1.5), ([0, 1, 1], -2.0)],
        INF,
    )
    .unwrap();
    let mut out = Vec::new();
    write_tns(&t, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("# sparse-fill: inf\n"), "{text}");
    let back: Tensor<f64, Csf<3>> = read_tns(text.as_bytes(), Some(&[2, 2, 3])).unwrap();
    assert_eq!(back, t);
    let inferred: Tensor<f64, Coo<3>> = read_tns(text.as_bytes(), None).unwrap();
    assert_eq!(inferred.fill(), INF);
    assert_eq!(inferred.get(&[0, 0, 0]), Some(INF));
}

#[test]
fn an_empty_tensor_and_a_single_entry() {
    let e = Tensor::<f64, Csr>::from_entries_with_fill([0, 0], [], INF).unwrap();
    assert_eq!(e.nnz(), 0);
    assert!(e.to_dense().is_empty());
    let one = Tensor::<f64, Dcsr>::from_entries_with_fill([1, 1], [([0, 0], 2.0)], INF).unwrap();
    assert_eq!(one.to_dense(), vec![2.0]);
    let gone = Tensor::<f64, Dcsr>::from_entries_with_fill([1, 1], [([0, 0], INF)], INF).unwrap();
    assert_eq!(gone.nnz(), 0);
    assert_eq!(gone.to_dense(), vec![INF]);
}
