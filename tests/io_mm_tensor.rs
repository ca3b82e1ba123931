//! Matrix Market tensor files (`%%MatrixMarket tensor coordinate ...`, the order-N extension of
//! the coordinate format) through the `.tns` reader: the shape comes from the size line, fields
//! and comments as in Matrix Market, and every malformed header or entry is refused with its
//! error kind and line. Expectations are written by hand.

use sparse_runtime::io::{IoError, IoErrorKind, parse_tns, read_tns};
use sparse_runtime::{Coo, Csf, Tensor};

fn err(text: &str, shape: Option<&[usize]>) -> (IoErrorKind, Option<usize>) {
    let e: IoError = parse_tns::<f64>(text.as_bytes(), shape).unwrap_err();
    let line = e.line();
    (e.into_kind(), line)
}

const CUBE: &str = "%%MatrixMarket tensor coordinate real general\n\
                    % a comment\n\
                    %\n\
                    2 3 4 3\n\
                    1 1 1 1.5\n\
                    2 3 4 -2\n\
                    1 2 3 0.25\n";

#[test]
fn reads_the_declared_shape_and_every_entry() {
    let t: Tensor<f64, Csf<3>> = read_tns(CUBE.as_bytes(), None).unwrap();
    assert_eq!(t.shape(), &[2, 3, 4]);
    let mut want = vec![0.0; 24];
    want[0] = 1.5;
    want[23] = -2.0;
    want[4 + 2] = 0.25;
    assert_eq!(t.to_dense(), want);
    // The same file with the same shape given, and the FROSTT lines alone, read the same.
    let given: Tensor<f64, Csf<3>> = read_tns(CUBE.as_bytes(), Some(&[2, 3, 4])).unwrap();
    assert_eq!(given.to_dense(), want);
    let frostt = "1 1 1 1.5\n2 3 4 -2\n1 2 3 0.25\n";
    let plain: Tensor<f64, Coo<3>> = read_tns(frostt.as_bytes(), None).unwrap();
    assert_eq!(plain.to_dense(), want);
}

#[test]
fn the_size_line_gives_trailing_empty_dimensions_and_the_empty_tensor() {
    let text = "%%MatrixMarket tensor coordinate real general\n5 6 7 1\n1 1 1 2\n";
    let t: Tensor<f64, Csf<3>> = read_tns(text.as_bytes(), None).unwrap();
    assert_eq!(t.shape(), &[5, 6, 7]);
    assert_eq!(t.nnz(), 1);
    let empty = "%%matrixmarket TENSOR Coordinate REAL General\n3 4 0\n";
    let e: Tensor<f64, Csf<2>> = read_tns(empty.as_bytes(), None).unwrap();
    assert_eq!(e.shape(), &[3, 4]);
    assert_eq!(e.nnz(), 0);
}

#[test]
fn pattern_integer_duplicates_and_fill() {
    let pattern = "%%MatrixMarket tensor coordinate pattern general\n2 2 2 2\n1 2 1\n2 2 2\n";
    let p: Tensor<f64, Csf<3>> = read_tns(pattern.as_bytes(), None).unwrap();
    assert_eq!(p.to_dense(), vec![0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
    let ints = "%%MatrixMarket tensor coordinate integer general\n2 2 3\n1 1 4\n1 1 -1\n2 1 7\n";
    let i: Tensor<i64, Csf<2>> = read_tns(ints.as_bytes(), None).unwrap();
    assert_eq!(i.to_dense(), vec![3, 0, 7, 0]);
    let filled = "%%MatrixMarket tensor coordinate real general\n% sparse-fill: inf\n3 1\n2 5\n";
    let f: Tensor<f64, Coo<1>> = read_tns(filled.as_bytes(), None).unwrap();
    assert_eq!(f.to_dense(), vec![f64::INFINITY, 5.0, f64::INFINITY]);
}

#[test]
fn header_refusals() {
    use IoErrorKind as K;
    let banner = |rest: &str| format!("%%MatrixMarket {rest}\n2 2 1\n1 1 1\n");
    let cases = [
        (banner("tensor coordinate real"), "a short banner"),
        (
            banner("tensor coordinate real general extra"),
            "a long banner",
        ),
    ];
    for (text, what) in &cases {
        assert!(matches!(err(text, None), (K::BadBanner, Some(1))), "{what}");
    }
    assert!(
        matches!(err(&banner("vector coordinate real general"), None), (K::UnknownObject(s), Some(1)) if s == "vector")
    );
    assert!(
        matches!(err(&banner("tensor array real general"), None), (K::UnknownFormat(s), Some(1)) if s == "array")
    );
    assert!(
        matches!(err(&banner("tensor coordinate real symmetric"), None), (K::UnknownSymmetry(s), Some(1)) if s == "symmetric")
    );
    assert!(matches!(
        err(&banner("tensor coordinate complex general"), None),
        (K::ComplexUnsupported, Some(1))
    ));
    assert!(
        matches!(err(&banner("tensor coordinate bits general"), None), (K::UnknownField(s), Some(1)) if s == "bits")
    );
    let reals = banner("tensor coordinate real general");
    let e = parse_tns::<i32>(reals.as_bytes(), None).unwrap_err();
    assert!(matches!(e.kind(), K::RealIntoInteger { .. }), "{e}");
}

#[test]
fn size_line_and_shape_refusals() {
    use IoErrorKind as K;
    let head = "%%MatrixMarket tensor coordinate real general\n% c\n";
    assert!(matches!(
        err(head, None),
        (K::Truncated { declared: 0, .. }, Some(3))
    ));
    assert!(matches!(
        err(&format!("{head}4\n"), None),
        (K::TensorSizeLine { found: 1 }, Some(3))
    ));
    assert!(matches!(
        err(&format!("{head}2 x 1\n1 1 1\n"), None),
        (K::NotANumber { field: 2, .. }, Some(3))
    ));
    assert!(matches!(
        err(&format!("{head}2 -1\n"), None),
        (K::NotANumber { field: 2, .. }, Some(3))
    ));
    assert!(matches!(
        err(&format!("{head}2 5000000000 0\n"), None),
        (K::DimTooLarge { dim: 1, .. }, Some(3))
    ));
    let ok = format!("{head}2 3 1\n1 1 1\n");
    match err(&ok, Some(&[3, 2])) {
        (K::ShapeDiffers { declared, given }, None) => {
            assert_eq!((declared, given), (vec![2, 3], vec![3, 2]));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(matches!(
        err(&ok, Some(&[2, 3, 1])),
        (K::ShapeDiffers { .. }, None)
    ));
}

#[test]
fn entry_refusals() {
    use IoErrorKind as K;
    let head = "%%MatrixMarket tensor coordinate real general\n2 3 2\n";
    type Case = (&'static str, fn(&K) -> bool, usize);
    let cases: [Case; 6] = [
        (
            "1 1 1 1\n2 2 1\n",
            |k| {
                matches!(
                    k,
                    K::FieldCount {
                        expected: 3,
                        found: 4
                    }
                )
            },
            3,
        ),
        (
            "1 1\n2 2 1\n",
            |k| {
                matches!(
                    k,
                    K::FieldCount {
                        expected: 3,
                        found: 2
                    }
                )
            },
            3,
        ),
        (
            "0 1 1\n2 2 1\n",
            |k| matches!(k, K::CoordinateZero { dim: 0 }),
            3,
        ),
        (
            "1 4 1\n2 2 1\n",
            |k| {
                matches!(
                    k,
                    K::CoordinateOutOfRange {
                        dim: 1,
                        size: 3,
                        ..
                    }
                )
            },
            3,
        ),
        (
            "1 1 1\n",
            |k| {
                matches!(
                    k,
                    K::Truncated {
                        declared: 2,
                        found: 1
                    }
                )
            },
            4,
        ),
        (
            "1 1 1\n2 2 1\n% c\n1 1 5\n",
            |k| matches!(k, K::TooManyEntries { declared: 2 }),
            6,
        ),
    ];
    for (body, want, line) in cases {
        let (kind, at) = err(&format!("{head}{body}"), None);
        assert!(want(&kind), "{body:?}: {kind:?}");
        assert_eq!(at, Some(line), "{body:?}: {kind:?}");
    }
}
