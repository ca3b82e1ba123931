//! Matrix Market and FROSTT `.tns` I/O: round trips, symmetric expansion, array files, and every
//! malformed input the readers refuse, each checked for its error kind and line.
//!
//! Expectations are written by hand or computed from the generated entries directly (a dense
//! array filled by coordinate), never from the readers' or writers' own output.

use std::collections::BTreeMap;
use std::io::{BufReader, Read};

use proptest::prelude::*;
use sparse_runtime::io::{
    IoError, IoErrorKind, MAX_LINE_BYTES, MmField, MmFormat, MmSymmetry, load_matrix_market,
    parse_matrix_market, parse_tns, read_matrix_market, read_tns, write_matrix_market, write_tns,
};
use sparse_runtime::{
    Coo, Csc, Csf, Csr, Dense, Entries, ExplicitZeros, Format, Scalar, SparseVec, Tensor,
};

// ---------------------------------------------------------------------------------------------
// Helpers

/// Asserts that an error, given as `(kind, line)`, is of the kind `pattern` and found on `line`.
macro_rules! assert_kind {
    ($err:expr, $pattern:pat $(if $guard:expr)?, $line:expr) => {{
        let (kind, line) = $err;
        assert!(matches!(kind, $pattern $(if $guard)?), "unexpected error kind {kind:?}");
        assert_eq!(line, $line, "the line of {kind:?}");
    }};
}

fn mtx<T: Scalar>(text: &str) -> Result<Entries<T>, IoError> {
    parse_matrix_market(text.as_bytes()).map(|(_, e)| e)
}

fn dense_mtx<T: Scalar>(text: &str) -> Vec<T> {
    read_matrix_market::<T, Csr>(text.as_bytes())
        .unwrap()
        .to_dense()
}

/// The error a Matrix Market text gives, as (kind, line).
fn mtx_err(text: &str) -> (IoErrorKind, Option<usize>) {
    split(mtx::<f64>(text).unwrap_err())
}

fn tns_err(text: &str, shape: Option<&[usize]>) -> (IoErrorKind, Option<usize>) {
    split(parse_tns::<f64>(text.as_bytes(), shape).unwrap_err())
}

fn split(e: IoError) -> (IoErrorKind, Option<usize>) {
    let line = e.line();
    (e.into_kind(), line)
}

/// A row-major dense array with `entries` added in, the reference every read is checked against.
fn dense_reference<T: Scalar>(shape: &[usize], entries: &BTreeMap<Vec<usize>, T>) -> Vec<T> {
    let mut dense = vec![T::ZERO; shape.iter().product()];
    for (coords, &v) in entries {
        let at = coords
            .iter()
            .zip(shape)
            .fold(0, |acc, (&c, &n)| acc * n + c);
        dense[at] += v;
    }
    dense
}

fn entry_list<T: Scalar>(shape: &[usize], entries: &BTreeMap<Vec<usize>, T>) -> Entries<T> {
    let mut list = Entries::new(shape);
    for (c, &v) in entries {
        list.push(c, v).unwrap();
    }
    list
}

// ---------------------------------------------------------------------------------------------
// Files shipped with the repository

#[test]
fn loads_the_shipped_matrices() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let a = load_matrix_market::<f64, Csr>(format!("{dir}/data/pores_1.mtx")).unwrap();
    assert_eq!(a.shape(), &[30, 30]);
    assert_eq!(a.nnz(), 180);
    // lund_a lists 147 diagonal and 1151 strictly lower entries; each of the latter is mirrored.
    let b = load_matrix_market::<f64, Coo<2>>(format!("{dir}/data/lund_a.mtx")).unwrap();
    assert_eq!(b.shape(), &[147, 147]);
    assert_eq!(b.nnz(), 147 + 2 * 1151);
    let d = b.to_dense();
    assert_eq!(d[0], 7.5e7);
    for i in 0..147 {
        for j in 0..147 {
            assert_eq!(d[i * 147 + j], d[j * 147 + i]);
        }
    }
    let missing = load_matrix_market::<f64, Csr>(format!("{dir}/data/no-such.mtx")).unwrap_err();
    assert!(matches!(missing.kind(), IoErrorKind::Open { .. }));
    assert_eq!(missing.line(), None);
    assert!(std::error::Error::source(&missing).is_some());
}

// ---------------------------------------------------------------------------------------------
// Matrix Market: what is read

#[test]
fn coordinate_general_with_comments_blank_lines_and_crlf() {
    let text = "%%matrixmarket MATRIX Coordinate REAL General\r\n\
                % a comment\r\n\
                \r\n\
                %\n\
                2 3 3\n\
                1 3 2.5\n\
                \n\
                % between entries\n\
                2 1 -1e-3\n\
                1 3 0.5\n";
    let (header, entries) = parse_matrix_market::<f64>(text.as_bytes()).unwrap();
    assert_eq!(header.format, MmFormat::Coordinate);
    assert_eq!(header.field, MmField::Real);
    assert_eq!(header.symmetry, MmSymmetry::General);
    assert_eq!((header.rows, header.cols, header.entries), (2, 3, 3));
    // Duplicates are kept by the parser and summed by the reader.
    assert_eq!(entries.len(), 3);
    assert_eq!(dense_mtx::<f64>(text), vec![0.0, 0.0, 3.0, -1e-3, 0.0, 0.0]);
}

#[test]
fn double_is_real_and_integers_read_into_floats() {
    let text = "%%MatrixMarket matrix coordinate double general\n1 1 1\n1 1 4\n";
    assert_eq!(dense_mtx::<f64>(text), vec![4.0]);
    let text = "%%MatrixMarket matrix coordinate integer general\n1 2 2\n1 1 -7\n1 2 +3\n";
    assert_eq!(dense_mtx::<f32>(text), vec![-7.0, 3.0]);
    assert_eq!(dense_mtx::<i32>(text), vec![-7, 3]);
}

#[test]
fn symmetric_coordinate_mirrors_off_diagonal_entries() {
    let text = "%%MatrixMarket matrix coordinate real symmetric\n\
                3 3 4\n\
                1 1 1\n\
                2 1 2\n\
                3 1 3\n\
                3 3 4\n";
    #[rustfmt::skip]
    let expected = vec![
        1.0, 2.0, 3.0,
        2.0, 0.0, 0.0,
        3.0, 0.0, 4.0,
    ];
    assert_eq!(dense_mtx::<f64>(text), expected);
    assert_eq!(mtx::<f64>(text).unwrap().len(), 6);
}

#[test]
fn skew_symmetric_coordinate_mirrors_with_negation() {
    let text = "%%MatrixMarket matrix coordinate integer skew-symmetric\n\
                3 3 2\n\
                2 1 5\n\
                3 2 -4\n";
    #[rustfmt::skip]
    let expected = vec![
        0, -5, 0,
        5,  0, 4,
        0, -4, 0,
    ];
    assert_eq!(dense_mtx::<i64>(text), expected);
}

#[test]
fn pattern_entries_are_one() {
    let text = "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n";
    assert_eq!(dense_mtx::<i64>(text), vec![1, 1, 1, 0]);
    let text = "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n";
    assert_eq!(dense_mtx::<f64>(text), vec![0.0, 1.0, 0.0, 0.0]);
}

#[test]
fn array_general_is_column_major() {
    let text = "%%MatrixMarket matrix array real general\n\
                % 2 x 3\n\
                2 3\n1\n2\n3\n0\n5\n6\n";
    let (header, entries) = parse_matrix_market::<f64>(text.as_bytes()).unwrap();
    assert_eq!(header.format, MmFormat::Array);
    assert_eq!(header.entries, 6);
    assert_eq!(entries.len(), 5, "the zero is not an entry");
    let a = read_matrix_market::<f64, Dense<2>>(text.as_bytes()).unwrap();
    assert_eq!(a.to_dense(), vec![1.0, 3.0, 5.0, 2.0, 0.0, 6.0]);
}

#[test]
fn array_symmetric_lists_the_lower_triangle() {
    // Columns of the lower triangle: (1,1) (2,1) (3,1), (2,2) (3,2), (3,3).
    let text = "%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n3\n4\n5\n6\n";
    #[rustfmt::skip]
    let expected = vec![
        1, 2, 3,
        2, 4, 5,
        3, 5, 6,
    ];
    assert_eq!(dense_mtx::<i32>(text), expected);
}

#[test]
fn array_skew_symmetric_lists_the_strict_lower_triangle() {
    let text = "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1.5\n2\n3\n";
    #[rustfmt::skip]
    let expected = vec![
        0.0, -1.5, -2.0,
        1.5,  0.0, -3.0,
        2.0,  3.0,  0.0,
    ];
    assert_eq!(dense_mtx::<f64>(text), expected);
}

#[test]
fn empty_matrices() {
    let text = "%%MatrixMarket matrix coordinate real general\n0 0 0\n";
    let a = read_matrix_market::<f64, Csr>(text.as_bytes()).unwrap();
    assert_eq!(a.shape(), &[0, 0]);
    let text = "%%MatrixMarket matrix coordinate real general\n4 5 0\n";
    assert_eq!(dense_mtx::<f64>(text), vec![0.0; 20]);
    let text = "%%MatrixMarket matrix array real skew-symmetric\n1 1\n";
    assert_eq!(dense_mtx::<f64>(text), vec![0.0]);
}

#[test]
fn explicit_zeros_of_coordinate_files_are_stored() {
    let text = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 0\n2 2 1\n";
    let a = read_matrix_market::<f64, Csr>(text.as_bytes()).unwrap();
    assert_eq!(a.nnz(), 2);
}

#[test]
fn long_comments_and_non_utf8_comments_are_skipped() {
    let mut text = b"%%MatrixMarket matrix coordinate real general\n%".to_vec();
    text.extend(std::iter::repeat_n(b'x', 3 * MAX_LINE_BYTES));
    text.extend(b"\n% caf\xe9 in Latin-1\n");
    text.extend(std::iter::repeat_n(b' ', 3 * MAX_LINE_BYTES));
    text.extend(b"\n1 1 1\n1 1 2\n");
    let (_, entries) = parse_matrix_market::<f64>(&text[..]).unwrap();
    assert_eq!(entries.values(), &[2.0]);
    // Lines are counted through the long ones: banner, two comments, a blank line, the size line
    // (5), the entry (6), and the extra entry on line 7.
    text.extend(b"1 1 3\n");
    assert_kind!(
        split(parse_matrix_market::<f64>(&text[..]).unwrap_err()),
        IoErrorKind::TooManyEntries { declared: 1 },
        Some(7)
    );
}

// ---------------------------------------------------------------------------------------------
// Matrix Market: what is refused, with the line

const GENERAL: &str = "%%MatrixMarket matrix coordinate real general\n";

#[test]
fn bad_banners() {
    for text in [
        "",
        "\n",
        "% just a comment\n",
        "%%MatrixMarket matrix coordinate real\n1 1 0\n",
        "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n",
        "%MatrixMarket matrix coordinate real general\n1 1 0\n",
        "1 1 0\n",
    ] {
        assert_kind!(mtx_err(text), IoErrorKind::BadBanner, Some(1));
    }
}

#[test]
fn unknown_and_unsupported_banner_words() {
    let banner = |words: &str| format!("%%MatrixMarket {words}\n1 1 0\n");
    assert_kind!(
        mtx_err(&banner("vector coordinate real general")),
        IoErrorKind::UnknownObject(ref s) if s == "vector",
        Some(1)
    );
    assert_kind!(
        mtx_err(&banner("matrix sparse real general")),
        IoErrorKind::UnknownFormat(ref s) if s == "sparse",
        Some(1)
    );
    assert_kind!(
        mtx_err(&banner("matrix coordinate quaternion general")),
        IoErrorKind::UnknownField(ref s) if s == "quaternion",
        Some(1)
    );
    assert_kind!(
        mtx_err(&banner("matrix coordinate complex general")),
        IoErrorKind::ComplexUnsupported,
        Some(1)
    );
    assert_kind!(
        mtx_err(&banner("matrix coordinate real diagonal")),
        IoErrorKind::UnknownSymmetry(ref s) if s == "diagonal",
        Some(1)
    );
    assert_kind!(
        mtx_err(&banner("matrix coordinate real Hermitian")),
        IoErrorKind::HermitianUnsupported,
        Some(1)
    );
    assert_kind!(
        mtx_err(&banner("matrix array pattern general")),
        IoErrorKind::InvalidCombination {
            field: "pattern",
            with: "array"
        },
        Some(1)
    );
    assert_kind!(
        mtx_err(&banner("matrix coordinate pattern skew-symmetric")),
        IoErrorKind::InvalidCombination {
            with: "skew-symmetric",
            ..
        },
        Some(1)
    );
}

#[test]
fn real_data_into_an_integer_tensor() {
    let text = format!("{GENERAL}1 1 1\n1 1 1\n");
    assert_kind!(
        split(mtx::<i64>(&text).unwrap_err()),
        IoErrorKind::RealIntoInteger { scalar: "i64" },
        Some(1)
    );
}

#[test]
fn bad_size_lines() {
    let cases: [(&str, usize); 3] = [("% c\n% c\n2 2\n", 2), ("2 2 1 1\n", 4), ("\n\n2\n", 1)];
    for (rest, found) in cases {
        let text = format!("{GENERAL}{rest}");
        assert_kind!(
            mtx_err(&text),
            IoErrorKind::BadSizeLine { expected: 3, found: f } if f == found,
            Some(rest.lines().count() + 1)
        );
    }
    assert_kind!(
        mtx_err("%%MatrixMarket matrix array real general\n2 2 4\n"),
        IoErrorKind::BadSizeLine {
            expected: 2,
            found: 3
        },
        Some(2)
    );
}

#[test]
fn size_line_numbers() {
    assert_kind!(
        mtx_err(&format!("{GENERAL}% c\n2 x 1\n")),
        IoErrorKind::NotANumber { field: 2, ref text, .. } if text == "x",
        Some(3)
    );
    assert_kind!(
        mtx_err(&format!("{GENERAL}-2 2 1\n")),
        IoErrorKind::NotANumber { field: 1, .. },
        Some(2)
    );
    assert_kind!(
        mtx_err(&format!("{GENERAL}2 2 -1\n")),
        IoErrorKind::NotANumber { field: 3, .. },
        Some(2)
    );
    assert_kind!(
        mtx_err(&format!("{GENERAL}2 2 1.0\n")),
        IoErrorKind::NotANumber { field: 3, .. },
        Some(2)
    );
}

#[test]
fn declared_sizes_too_large() {
    assert_kind!(
        mtx_err(&format!("{GENERAL}4294967296 2 0\n")),
        IoErrorKind::DimTooLarge { dim: 0, ref text } if text == "4294967296",
        Some(2)
    );
    assert_kind!(
        mtx_err(&format!("{GENERAL}2 99999999999999999999999999 0\n")),
        IoErrorKind::DimTooLarge { dim: 1, .. },
        Some(2)
    );
    assert_kind!(
        mtx_err(&format!("{GENERAL}2 2 99999999999999999999999999\n")),
        IoErrorKind::CountTooLarge { .. },
        Some(2)
    );
    // The largest sizes the index arrays allow are accepted, and a huge declared count reserves
    // nothing: the file simply ends early.
    let text = format!("{GENERAL}4294967295 4294967295 18446744073709551615\n1 1 1\n");
    assert_kind!(
        mtx_err(&text),
        IoErrorKind::Truncated {
            declared: usize::MAX,
            found: 1
        },
        Some(4)
    );
    // An array of that size is as cheap: its values are read as they come.
    let text = "%%MatrixMarket matrix array real general\n4294967295 4294967295\n1\n";
    assert_kind!(
        mtx_err(text),
        IoErrorKind::Truncated { found: 1, .. },
        Some(4)
    );
}

#[test]
fn symmetric_matrices_must_be_square() {
    let text = "%%MatrixMarket matrix coordinate real symmetric\n%\n2 3 0\n";
    assert_kind!(
        mtx_err(text),
        IoErrorKind::NotSquare { rows: 2, cols: 3 },
        Some(3)
    );
}

#[test]
fn entry_lines_with_wrong_field_counts() {
    assert_kind!(
        mtx_err(&format!("{GENERAL}2 2 2\n1 1 1\n1 2\n")),
        IoErrorKind::FieldCount {
            expected: 3,
            found: 2
        },
        Some(4)
    );
    let pattern = "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2 1\n";
    assert_kind!(
        mtx_err(pattern),
        IoErrorKind::FieldCount {
            expected: 2,
            found: 3
        },
        Some(3)
    );
    let array = "%%MatrixMarket matrix array real general\n1 2\n1 2\n";
    assert_kind!(
        mtx_err(array),
        IoErrorKind::FieldCount {
            expected: 1,
            found: 2
        },
        Some(3)
    );
}

#[test]
fn non_numeric_entry_fields() {
    assert_kind!(
        mtx_err(&format!("{GENERAL}2 2 2\n1 1 1\n1 one 2\n")),
        IoErrorKind::NotANumber { field: 2, ref text, .. } if text == "one",
        Some(4)
    );
    assert_kind!(
        mtx_err(&format!("{GENERAL}2 2 1\n1 1 1.5.5\n")),
        IoErrorKind::NotANumber { field: 3, .. },
        Some(3)
    );
    let integer = "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n";
    assert_kind!(
        mtx_err(integer),
        IoErrorKind::NotANumber { field: 3, ref expected, .. } if expected == "an integer",
        Some(3)
    );
    let array = "%%MatrixMarket matrix array real general\n1 1\nx\n";
    assert_kind!(
        mtx_err(array),
        IoErrorKind::NotANumber { field: 1, .. },
        Some(3)
    );
    // A value too large for the scalar type.
    let text = "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 3000000000\n";
    assert_kind!(
        split(mtx::<i32>(text).unwrap_err()),
        IoErrorKind::NotANumber { field: 3, .. },
        Some(3)
    );
    // The text kept in the error is cut short.
    let long = "9".repeat(1000);
    assert_kind!(
        mtx_err(&format!("{GENERAL}1 1 1\n1 x{long} 1\n")),
        IoErrorKind::NotANumber { ref text, .. } if text.len() < 50,
        Some(3)
    );
}

#[test]
fn coordinates_zero_or_out_of_range() {
    assert_kind!(
        mtx_err(&format!("{GENERAL}2 2 2\n1 1 1\n0 1 1\n")),
        IoErrorKind::CoordinateZero { dim: 0 },
        Some(4)
    );
    assert_kind!(
        mtx_err(&format!("{GENERAL}2 2 1\n1 0 1\n")),
        IoErrorKind::CoordinateZero { dim: 1 },
        Some(3)
    );
    assert_kind!(
        mtx_err(&format!("{GENERAL}2 3 1\n% c\n3 1 1\n")),
        IoErrorKind::CoordinateOutOfRange { dim: 0, ref text, size: 2 } if text == "3",
        Some(4)
    );
    assert_kind!(
        mtx_err(&format!("{GENERAL}2 3 1\n1 4 1\n")),
        IoErrorKind::CoordinateOutOfRange {
            dim: 1,
            size: 3,
            ..
        },
        Some(3)
    );
    assert_kind!(
        mtx_err(&format!("{GENERAL}2 3 1\n-1 1 1\n")),
        IoErrorKind::CoordinateOutOfRange { dim: 0, .. },
        Some(3)
    );
    let huge = format!("{GENERAL}2 3 1\n1 99999999999999999999999 1\n");
    assert_kind!(
        mtx_err(&huge),
        IoErrorKind::CoordinateOutOfRange { dim: 1, .. },
        Some(3)
    );
}

#[test]
fn skew_symmetric_diagonal_entries() {
    let text = "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 2\n2 1 1\n2 2 1\n";
    assert_kind!(mtx_err(text), IoErrorKind::SkewDiagonal, Some(4));
    // The most negative integer has no negation to mirror.
    let text = format!(
        "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 {}\n",
        i64::MIN
    );
    assert_kind!(
        split(mtx::<i64>(&text).unwrap_err()),
        IoErrorKind::NotANumber { field: 3, .. },
        Some(3)
    );
    // Its neighbour mirrors fine.
    let text = format!(
        "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 {}\n",
        i64::MIN + 1
    );
    assert_eq!(dense_mtx::<i64>(&text), vec![0, i64::MAX, i64::MIN + 1, 0]);
}

#[test]
fn too_many_and_too_few_entries() {
    assert_kind!(
        mtx_err(&format!("{GENERAL}2 2 1\n1 1 1\n\n% c\n2 2 2\n")),
        IoErrorKind::TooManyEntries { declared: 1 },
        Some(6)
    );
    assert_kind!(
        mtx_err(&format!("{GENERAL}2 2 3\n1 1 1\n2 2 1\n")),
        IoErrorKind::Truncated {
            declared: 3,
            found: 2
        },
        Some(5)
    );
    // No final newline: the missing entry would be on line 4.
    assert_kind!(
        mtx_err(&format!("{GENERAL}2 2 2\n1 1 1")),
        IoErrorKind::Truncated { found: 1, .. },
        Some(4)
    );
    assert_kind!(
        mtx_err(&format!("{GENERAL}% only comments\n")),
        IoErrorKind::Truncated {
            declared: 0,
            found: 0
        },
        Some(3)
    );
    let array = "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n";
    assert_kind!(
        mtx_err(array),
        IoErrorKind::TooManyEntries { declared: 3 },
        Some(6)
    );
    let array = "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n";
    assert_kind!(
        mtx_err(array),
        IoErrorKind::Truncated {
            declared: 4,
            found: 3
        },
        Some(6)
    );
}

#[test]
fn long_lines_and_garbage_bytes() {
    let mut text = format!("{GENERAL}1 1 1\n1 1 ").into_bytes();
    text.extend(std::iter::repeat_n(b'1', MAX_LINE_BYTES));
    text.push(b'\n');
    assert_kind!(
        split(parse_matrix_market::<f64>(&text[..]).unwrap_err()),
        IoErrorKind::LineTooLong,
        Some(3)
    );
    // A line of exactly the limit is read (and its value parsed).
    let integer = "%%MatrixMarket matrix coordinate integer general\n";
    let mut text = format!("{integer}1 1 1\n1 1 ").into_bytes();
    text.extend(std::iter::repeat_n(b'1', MAX_LINE_BYTES - 4));
    assert_kind!(
        split(parse_matrix_market::<i64>(&text[..]).unwrap_err()),
        IoErrorKind::NotANumber { field: 3, .. },
        Some(3)
    );
    let text = format!("{GENERAL}1 1 1\n1 1 \u{fffd}\n").replace('\u{fffd}', "\u{1}");
    assert_kind!(mtx_err(&text), IoErrorKind::NotANumber { .. }, Some(3));
    let mut text = format!("{GENERAL}1 1 1\n").into_bytes();
    text.extend(b"1 1 \xff\xfe\n");
    assert_kind!(
        split(parse_matrix_market::<f64>(&text[..]).unwrap_err()),
        IoErrorKind::NotUtf8,
        Some(3)
    );
    assert_kind!(
        split(parse_matrix_market::<f64>(&b"%%Matrix\xffMarket\n"[..]).unwrap_err()),
        IoErrorKind::NotUtf8,
        Some(1)
    );
}

/// A reader that fails after handing out `ok` bytes.
struct FailingReader {
    data: Vec<u8>,
    at: usize,
}

impl Read for FailingReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.data.len() {
            return Err(std::io::Error::other("disk on fire"));
        }
        let n = buf.len().min(self.data.len() - self.at).min(4);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[test]
fn read_errors_carry_the_line_being_read() {
    let data = format!("{GENERAL}2 2 2\n1 1 1\n").into_bytes();
    let reader = BufReader::new(FailingReader { data, at: 0 });
    let e = parse_matrix_market::<f64>(reader).unwrap_err();
    assert_eq!(e.line(), Some(4));
    assert!(matches!(e.kind(), IoErrorKind::Io(_)));
    assert!(std::error::Error::source(&e).is_some());
    assert_eq!(e.to_string(), "line 4: disk on fire");
}

#[test]
fn packing_errors_and_writing_errors() {
    let text = format!("{GENERAL}2 2 1\n1 1 1\n");
    let e = read_matrix_market::<f64, Csf<3>>(text.as_bytes()).unwrap_err();
    assert!(matches!(e.kind(), IoErrorKind::Format(_)));
    assert_eq!(e.line(), None);
    assert!(std::error::Error::source(&e).is_some());
    let t = Tensor::<f64, Coo<3>>::from_entries([1, 1, 1], [([0, 0, 0], 1.0)]).unwrap();
    let e = write_matrix_market(&t, Vec::new()).unwrap_err();
    assert!(matches!(e.kind(), IoErrorKind::WrongOrder { order: 3, .. }));
    let scalar = Tensor::<f64, Coo<0>>::zeros([]);
    let e = write_tns(&scalar, Vec::new()).unwrap_err();
    assert!(matches!(e.kind(), IoErrorKind::WrongOrder { order: 0, .. }));
}

#[test]
fn messages_name_the_line() {
    let e = mtx::<f64>(&format!("{GENERAL}2 2 1\n0 1 1\n")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "line 3: coordinate 0 in dimension 0: coordinates start at 1 (is the file 0-based?)"
    );
    let e = mtx::<f64>("%%MatrixMarket matrix coordinate complex general\n").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("line 1: complex matrices are not supported")
    );
}

// ---------------------------------------------------------------------------------------------
// FROSTT .tns

#[test]
fn tns_infers_the_shape_and_skips_comments() {
    let text = "# comment\n\n1 2 3 1.5\n  # indented comment\n2 1 1 -2\r\n2 1 1 1\n";
    let entries = parse_tns::<f64>(text.as_bytes(), None).unwrap();
    assert_eq!(entries.shape(), &[2, 2, 3]);
    assert_eq!(entries.len(), 3);
    let t = read_tns::<f64, Csf<3>>(text.as_bytes(), None).unwrap();
    let mut expected = vec![0.0; 12];
    expected[5] = 1.5; // (0, 1, 2)
    expected[6] = -1.0; // (1, 0, 0), two lines summed
    assert_eq!(t.to_dense(), expected);
}

#[test]
fn tns_with_a_given_shape() {
    let t = read_tns::<i64, SparseVec>("3 7\n".as_bytes(), Some(&[5])).unwrap();
    assert_eq!(t.to_dense(), vec![0, 0, 7, 0, 0]);
    let empty = parse_tns::<f64>("# nothing\n".as_bytes(), Some(&[2, 2])).unwrap();
    assert_eq!(empty.shape(), &[2, 2]);
    assert!(empty.is_empty());
}

#[test]
fn tns_refusals() {
    assert_kind!(tns_err("# c\n", None), IoErrorKind::NoShape, None);
    assert_kind!(tns_err("1 1 1\n", Some(&[])), IoErrorKind::NoShape, None);
    assert_kind!(
        tns_err("", Some(&[2, 5_000_000_000])),
        IoErrorKind::DimTooLarge { dim: 1, .. },
        None
    );
    assert_kind!(
        tns_err("# c\n7\n", None),
        IoErrorKind::FieldCount {
            expected: 2,
            found: 1
        },
        Some(2)
    );
    assert_kind!(
        tns_err("1 1 1 1\n2 2 2 2\n# c\n1 1 1\n", None),
        IoErrorKind::FieldCount {
            expected: 4,
            found: 3
        },
        Some(4)
    );
    assert_kind!(
        tns_err("1 1 1\n", Some(&[2, 2, 2])),
        IoErrorKind::FieldCount {
            expected: 4,
            found: 3
        },
        Some(1)
    );
    assert_kind!(
        tns_err("1 1 1\n1 0 1\n", None),
        IoErrorKind::CoordinateZero { dim: 1 },
        Some(2)
    );
    assert_kind!(
        tns_err("1 1 1\n1 3 1\n", Some(&[2, 2])),
        IoErrorKind::CoordinateOutOfRange {
            dim: 1,
            size: 2,
            ..
        },
        Some(2)
    );
    assert_kind!(
        tns_err("1 -1 1\n", None),
        IoErrorKind::CoordinateOutOfRange { dim: 1, .. },
        Some(1)
    );
    assert_kind!(
        tns_err("1 1\n4294967296 1\n", None),
        IoErrorKind::DimTooLarge { dim: 0, ref text } if text == "4294967296",
        Some(2)
    );
    assert_kind!(
        tns_err("1 x 1\n", None),
        IoErrorKind::NotANumber { field: 2, .. },
        Some(1)
    );
    assert_kind!(
        tns_err("1 1 1\n2 2 value\n", None),
        IoErrorKind::NotANumber { field: 3, .. },
        Some(2)
    );
    assert_kind!(
        split(parse_tns::<i32>("1 1 2\n1 2 2.5\n".as_bytes(), None).unwrap_err()),
        IoErrorKind::RealIntoInteger { scalar: "i32" },
        Some(2)
    );
    assert_kind!(
        split(parse_tns::<f64>(&b"1 1 2\n1 \xc3 1\n"[..], None).unwrap_err()),
        IoErrorKind::NotUtf8,
        Some(2)
    );
    let long = format!("1 1 {}\n", "0".repeat(MAX_LINE_BYTES));
    assert_kind!(tns_err(&long, None), IoErrorKind::LineTooLong, Some(1));
    let e = read_tns::<f64, Csr>("1 1 1 1\n".as_bytes(), None).unwrap_err();
    assert_kind!(split(e), IoErrorKind::Format(_), None);
}

// ---------------------------------------------------------------------------------------------
// Round trips: tensor -> write -> read -> the same dense array as the generated entries

/// Distinct coordinates below `shape`, with values from `value`.
fn entries_in<T: std::fmt::Debug>(
    shape: Vec<usize>,
    value: impl Strategy<Value = T>,
) -> impl Strategy<Value = (Vec<usize>, BTreeMap<Vec<usize>, T>)> {
    let coord = shape.iter().map(|&n| 0..n).collect::<Vec<_>>();
    let count = if shape.contains(&0) { 0..1 } else { 0..24 };
    proptest::collection::btree_map(coord, value, count).prop_map(move |m| (shape.clone(), m))
}

fn matrix<T: std::fmt::Debug>(
    value: impl Strategy<Value = T> + Clone,
) -> impl Strategy<Value = (Vec<usize>, BTreeMap<Vec<usize>, T>)> {
    (0usize..7, 0usize..7).prop_flat_map(move |(m, n)| entries_in(vec![m, n], value.clone()))
}

fn tensor(order: usize) -> impl Strategy<Value = (Vec<usize>, BTreeMap<Vec<usize>, f64>)> {
    proptest::collection::vec(1usize..5, order)
        .prop_flat_map(|shape| entries_in(shape, finite_f64()))
}

fn finite_f64() -> impl Strategy<Value = f64> + Clone {
    prop_oneof![
        any::<f64>().prop_filter("finite", |v| v.is_finite()),
        (-100i32..100).prop_map(f64::from),
    ]
}

/// Writes `entries` in format `F` as Matrix Market, reads it back in format `F` and in CSR.
fn mtx_round_trip<T: Scalar, F: Format>(shape: &[usize], entries: &BTreeMap<Vec<usize>, T>) {
    let expected = dense_reference(shape, entries);
    let t =
        Tensor::<T, F>::from_entry_list(&entry_list(shape, entries), ExplicitZeros::Keep).unwrap();
    let mut file = Vec::new();
    write_matrix_market(&t, &mut file).unwrap();
    let back = read_matrix_market::<T, F>(&file[..]).unwrap();
    assert_eq!(back.shape(), shape);
    assert_eq!(back.to_dense(), expected);
    let csr = read_matrix_market::<T, Csr>(&file[..]).unwrap();
    assert_eq!(csr.to_dense(), expected);
}

fn tns_round_trip<F: Format>(shape: &[usize], entries: &BTreeMap<Vec<usize>, f64>) {
    let expected = dense_reference(shape, entries);
    let t = Tensor::<f64, F>::from_entry_list(&entry_list(shape, entries), ExplicitZeros::Keep)
        .unwrap();
    let mut file = Vec::new();
    write_tns(&t, &mut file).unwrap();
    let back = read_tns::<f64, F>(&file[..], Some(shape)).unwrap();
    assert_eq!(back.to_dense(), expected);
}

/// The `.tns` round trips of one order: COO with and without the shape, and format `G`.
fn tns_round_trips_in<C: Format, G: Format>(shape: &[usize], entries: &BTreeMap<Vec<usize>, f64>) {
    tns_round_trip::<C>(shape, entries);
    tns_inferred_round_trip::<C>(shape, entries);
    tns_round_trip::<G>(shape, entries);
}

/// Writes `entries` from a COO tensor (which stores exactly the entries given) and reads them
/// back without the shape: each dimension is as large as its largest coordinate.
fn tns_inferred_round_trip<F: Format>(shape: &[usize], entries: &BTreeMap<Vec<usize>, f64>) {
    let t = Tensor::<f64, F>::from_entry_list(&entry_list(shape, entries), ExplicitZeros::Keep)
        .unwrap();
    let mut file = Vec::new();
    write_tns(&t, &mut file).unwrap();
    if entries.is_empty() {
        assert!(file.is_empty());
        return;
    }
    let inferred: Vec<usize> = (0..shape.len())
        .map(|d| entries.keys().map(|c| c[d] + 1).max().unwrap_or(0))
        .collect();
    let back = parse_tns::<f64>(&file[..], None).unwrap();
    assert_eq!(back.shape(), &inferred[..]);
    let mut listed = BTreeMap::new();
    for (c, v) in back.iter() {
        listed.insert(c.to_vec(), v);
    }
    assert_eq!(&listed, entries);
}

proptest! {
    #[test]
    fn mtx_round_trips_f64((shape, entries) in matrix(finite_f64())) {
        mtx_round_trip::<f64, Csr>(&shape, &entries);
        mtx_round_trip::<f64, Csc>(&shape, &entries);
        mtx_round_trip::<f64, Coo<2>>(&shape, &entries);
        mtx_round_trip::<f64, Dense<2>>(&shape, &entries);
    }

    #[test]
    fn mtx_round_trips_i64((shape, entries) in matrix(any::<i64>())) {
        mtx_round_trip::<i64, Csr>(&shape, &entries);
        mtx_round_trip::<i64, Csc>(&shape, &entries);
        mtx_round_trip::<i64, Coo<2>>(&shape, &entries);
        mtx_round_trip::<i64, Dense<2>>(&shape, &entries);
    }

    #[test]
    fn tns_round_trips((shape, entries) in (1usize..=5).prop_flat_map(tensor)) {
        match shape.len() {
            1 => tns_round_trips_in::<Coo<1>, SparseVec>(&shape, &entries),
            2 => tns_round_trips_in::<Coo<2>, Csf<2>>(&shape, &entries),
            3 => tns_round_trips_in::<Coo<3>, Csf<3>>(&shape, &entries),
            4 => tns_round_trips_in::<Coo<4>, Dense<4>>(&shape, &entries),
            _ => tns_round_trips_in::<Coo<5>, Csf<5>>(&shape, &entries),
        }
    }

    /// No input makes a reader panic: every byte string gives Ok or Err.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        read_any(&bytes);
    }

    /// Near-valid files reach deeper than random bytes: a valid banner, then lines of numbers,
    /// signs and words.
    #[test]
    fn near_valid_files_never_panic(
        banner in banner(),
        lines in proptest::collection::vec(proptest::collection::vec(token(), 0..5), 0..12),
    ) {
        let mut text = banner;
        for line in lines {
            text.push_str(&line.join(" "));
            text.push('\n');
        }
        read_any(text.as_bytes());
    }
}

fn read_any(bytes: &[u8]) {
    let _ = parse_matrix_market::<f64>(bytes);
    let _ = parse_matrix_market::<i32>(bytes);
    let _ = read_matrix_market::<f64, Csr>(bytes);
    let _ = read_matrix_market::<i64, Coo<2>>(bytes);
    let _ = parse_tns::<f64>(bytes, None);
    let _ = parse_tns::<i64>(bytes, Some(&[3, 4]));
    let _ = read_tns::<f64, Csf<3>>(bytes, None);
}

fn banner() -> impl Strategy<Value = String> {
    let pick = |words: &'static [&'static str]| proptest::sample::select(words);
    (
        pick(&["coordinate", "array", "Coordinate"]),
        pick(&["real", "integer", "pattern", "double", "complex"]),
        pick(&["general", "symmetric", "skew-symmetric", "hermitian"]),
    )
        .prop_map(|(f, v, s)| format!("%%MatrixMarket matrix {f} {v} {s}\n"))
}

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..6).prop_map(|v| v.to_string()),
        any::<i64>().prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| v.to_string()),
        proptest::sample::select(&["%", "#", "-", "nan", "inf", "4294967296", "1e400", ""][..])
            .prop_map(String::from),
    ]
}

#[test]
fn integer_duplicates_that_overflow_are_an_error() {
    let text = "%%MatrixMarket matrix coordinate integer general\n1 1 3\n1 1 2\n1 1 9223372036854775807\n1 1 1\n";
    let result = read_matrix_market::<i64, Csr>(text.as_bytes());
    let err = result.expect_err("the sum overflows i64");
    assert!(err.to_string().contains("sum past the range"), "{err}");
}
