//! Matrix Market (`.mtx`): the banner, the size line, coordinate and array data, symmetric and
//! skew-symmetric expansion, and the coordinate writer.
//!
//! The file is a banner `%%MatrixMarket matrix <format> <field> <symmetry>`, comment lines
//! starting with `%`, a size line, then one entry per line: `i j value` (1-based) for the
//! coordinate format, or one value per line in column-major order for the array format (only the
//! lower triangle for symmetric arrays, only the strict lower triangle for skew-symmetric ones).

use std::io::{BufRead, BufWriter, Write};

use super::error::{IoError, IoErrorKind};
use super::lines::{
    FILL_COMMENT, Line, Lines, PREALLOCATE_LIMIT, no_size_line, not_a_number, parse_coord,
    parse_count, parse_dim, parse_value, split_fields,
};
use crate::{Entries, ExplicitZeros, Format, Scalar, Tensor};

/// How the entries are laid out after the size line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmFormat {
    /// One `row column [value]` line per entry.
    Coordinate,
    /// Every value of the (lower triangle of the) matrix, one per line, column-major.
    Array,
}

/// What the values are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmField {
    /// Floating-point values (`real`, or its synonym `double`).
    Real,
    /// Integer values.
    Integer,
    /// No values: every listed entry is one.
    Pattern,
}

/// Which entries the file lists, and how the others follow from them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmSymmetry {
    /// Every entry is listed.
    General,
    /// `A(j, i) = A(i, j)`: one entry of each mirrored pair is listed.
    Symmetric,
    /// `A(j, i) = -A(i, j)` and the diagonal is zero: one entry of each pair is listed.
    SkewSymmetric,
}

/// The banner and size line of a Matrix Market file (the object is always `matrix`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixMarketHeader {
    /// Coordinate or array.
    pub format: MmFormat,
    /// The kind of values.
    pub field: MmField,
    /// The symmetry.
    pub symmetry: MmSymmetry,
    /// The number of rows.
    pub rows: usize,
    /// The number of columns.
    pub cols: usize,
    /// The number of entry lines after the size line: the declared count for coordinate files,
    /// the size of the listed (triangle of the) matrix for array files.
    pub entries: usize,
}

/// Reads a Matrix Market file into the banner and size line, and the entries it implies:
/// symmetric files are expanded (each off-diagonal entry mirrored, negated for skew-symmetric
/// ones), pattern entries get the value [`Scalar::ONE`], and zeros of array files are left out.
/// Duplicate coordinates are kept as listed.
///
/// Real values are refused for an integer `T` ([`IoErrorKind::RealIntoInteger`]).
///
/// ```
/// use sparse_runtime::io::{MmSymmetry, parse_matrix_market};
///
/// let text = "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 5\n2 1 -3\n";
/// let (header, entries) = parse_matrix_market::<i64>(text.as_bytes())?;
/// assert_eq!(header.symmetry, MmSymmetry::Symmetric);
/// assert_eq!(entries.len(), 3); // (0, 0), (1, 0) and its mirror (0, 1)
/// assert_eq!(entries.values(), &[5, -3, -3]);
/// # Ok::<(), sparse_runtime::io::IoError>(())
/// ```
pub fn parse_matrix_market<T: Scalar>(
    reader: impl BufRead,
) -> Result<(MatrixMarketHeader, Entries<T>), IoError> {
    parse_with_fill(reader).map(|(header, entries, _)| (header, entries))
}

/// [`parse_matrix_market`], and the fill value a `% sparse-fill: v` comment gives (zero without
/// one).
fn parse_with_fill<T: Scalar>(
    reader: impl BufRead,
) -> Result<(MatrixMarketHeader, Entries<T>, T), IoError> {
    let mut lines = Lines::new(reader, b'%');
    let (format, field, symmetry) = parse_banner(&mut lines)?;
    if T::IS_INTEGER && field == MmField::Real {
        let scalar = std::any::type_name::<T>();
        return Err(IoError::at(1, IoErrorKind::RealIntoInteger { scalar }));
    }
    let header = parse_size_line(&mut lines, format, field, symmetry)?;
    let mut reader = EntryReader::new(&header);
    for k in 0..header.entries {
        let Some(line) = lines.next_data()? else {
            let kind = IoErrorKind::Truncated {
                declared: header.entries,
                found: k,
            };
            return Err(IoError::at(lines.number() + 1, kind));
        };
        reader.read_line(&line)?;
    }
    if let Some(line) = lines.next_data()? {
        let kind = IoErrorKind::TooManyEntries {
            declared: header.entries,
        };
        return Err(IoError::at(line.number, kind));
    }
    let fill = lines.fill_value()?;
    Ok((header, reader.entries, fill))
}

/// Reads a Matrix Market file into a tensor of format `F` (which must have order 2), as
/// [`parse_matrix_market`] reads it. Entries a coordinate file lists are stored even when zero
/// (the file's structure is part of its data); duplicates are summed. A comment line
/// `% sparse-fill: v` (what [`write_matrix_market`] writes for a tensor whose fill value is not
/// zero) gives the tensor fill value `v`; other readers skip it as a comment.
///
/// ```
/// use sparse_runtime::io::read_matrix_market;
/// use sparse_runtime::{Csr, Tensor};
///
/// let text = "%%MatrixMarket matrix coordinate real general\n% a comment\n2 3 2\n1 3 2.5\n2 1 -1";
/// let a: Tensor<f64, Csr> = read_matrix_market(text.as_bytes())?;
/// assert_eq!(a.to_dense(), vec![0.0, 0.0, 2.5, -1.0, 0.0, 0.0]);
/// # Ok::<(), sparse_runtime::io::IoError>(())
/// ```
pub fn read_matrix_market<T: Scalar, F: Format>(
    reader: impl BufRead,
) -> Result<Tensor<T, F>, IoError> {
    let (_, entries, fill) = parse_with_fill(reader)?;
    Ok(Tensor::from_entry_list_with_fill(
        &entries,
        ExplicitZeros::Keep,
        fill,
    )?)
}

/// Writes an order-2 tensor as a coordinate Matrix Market file: `general`, `integer` for integer
/// scalar types and `real` otherwise, one 1-based line per stored entry. Values are written in
/// their shortest form that reads back to the same value. A tensor whose fill value is not zero
/// gets a comment line `% sparse-fill: v` after the banner, which [`read_matrix_market`] reads
/// back (other readers skip it, reading the unstored elements as zero).
///
/// ```
/// use sparse_runtime::io::write_matrix_market;
/// use sparse_runtime::{Csr, Tensor};
///
/// let a = Tensor::<f64, Csr>::from_entries([2, 2], [([1, 0], 0.1)])?;
/// let mut out = Vec::new();
/// write_matrix_market(&a, &mut out)?;
/// let text = String::from_utf8(out).unwrap();
/// assert!(text.starts_with("%%MatrixMarket matrix coordinate real general\n"));
/// assert!(text.ends_with("2 2 1\n2 1 0.1\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_matrix_market<T: Scalar, F: Format>(
    tensor: &Tensor<T, F>,
    writer: impl Write,
) -> Result<(), IoError> {
    if F::ORDER != 2 {
        let kind = IoErrorKind::WrongOrder {
            order: F::ORDER,
            file: "a Matrix Market matrix",
        };
        return Err(IoError::new(None, kind));
    }
    let field = if T::IS_INTEGER { "integer" } else { "real" };
    let mut count = 0usize;
    tensor.for_each_entry(|_, _| count += 1);
    let shape = tensor.shape();
    let mut out = BufWriter::new(writer);
    writeln!(out, "%%MatrixMarket matrix coordinate {field} general")?;
    if tensor.fill() != T::ZERO {
        writeln!(out, "% {FILL_COMMENT} {}", tensor.fill())?;
    }
    writeln!(out, "{} {} {count}", shape[0], shape[1])?;
    let mut result = Ok(());
    tensor.for_each_entry(|c, v| {
        if result.is_ok() {
            result = writeln!(out, "{} {} {v}", c[0] + 1, c[1] + 1);
        }
    });
    result?;
    out.flush()?;
    Ok(())
}

/// Reads line 1, the banner.
fn parse_banner<R: BufRead>(
    lines: &mut Lines<R>,
) -> Result<(MmFormat, MmField, MmSymmetry), IoError> {
    let bad = || IoError::at(1, IoErrorKind::BadBanner);
    let line = lines.next_raw()?.ok_or_else(bad)?;
    let words: [&str; 5] = split_fields(&line, 5).map_err(|_| bad())?;
    if !words[0].eq_ignore_ascii_case("%%MatrixMarket") {
        return Err(bad());
    }
    let at = |kind| Err(IoError::at(1, kind));
    let word = |k: usize| words[k].to_ascii_lowercase();
    if word(1) != "matrix" {
        return at(IoErrorKind::UnknownObject(words[1].into()));
    }
    let format = match word(2).as_str() {
        "coordinate" => MmFormat::Coordinate,
        "array" => MmFormat::Array,
        _ => return at(IoErrorKind::UnknownFormat(words[2].into())),
    };
    let field = parse_field(words[3]).map_err(|kind| IoError::at(1, kind))?;
    let symmetry = match word(4).as_str() {
        "general" => MmSymmetry::General,
        "symmetric" => MmSymmetry::Symmetric,
        "skew-symmetric" => MmSymmetry::SkewSymmetric,
        "hermitian" => return at(IoErrorKind::HermitianUnsupported),
        _ => return at(IoErrorKind::UnknownSymmetry(words[4].into())),
    };
    check_combination(format, field, symmetry)?;
    Ok((format, field, symmetry))
}

/// The field word of a banner (any case).
pub(super) fn parse_field(word: &str) -> Result<MmField, IoErrorKind> {
    match word.to_ascii_lowercase().as_str() {
        "real" | "double" => Ok(MmField::Real),
        "integer" => Ok(MmField::Integer),
        "pattern" => Ok(MmField::Pattern),
        "complex" => Err(IoErrorKind::ComplexUnsupported),
        _ => Err(IoErrorKind::UnknownField(word.into())),
    }
}

/// Refuses what the Matrix Market rules forbid: a pattern array (it would list nothing), and a
/// pattern skew-symmetric matrix (its mirrored entries would not be one).
fn check_combination(
    format: MmFormat,
    field: MmField,
    symmetry: MmSymmetry,
) -> Result<(), IoError> {
    let with = match (field, format, symmetry) {
        (MmField::Pattern, MmFormat::Array, _) => "array",
        (MmField::Pattern, _, MmSymmetry::SkewSymmetric) => "skew-symmetric",
        _ => return Ok(()),
    };
    let kind = IoErrorKind::InvalidCombination {
        field: "pattern",
        with,
    };
    Err(IoError::at(1, kind))
}

/// Reads the size line: `rows cols entries` for coordinate files, `rows cols` for arrays.
fn parse_size_line<R: BufRead>(
    lines: &mut Lines<R>,
    format: MmFormat,
    field: MmField,
    symmetry: MmSymmetry,
) -> Result<MatrixMarketHeader, IoError> {
    let Some(line) = lines.next_data()? else {
        return Err(no_size_line(lines.number()));
    };
    let n = line.number;
    let expected = match format {
        MmFormat::Coordinate => 3,
        MmFormat::Array => 2,
    };
    let words: [&str; 3] = split_fields(&line, expected).map_err(|e| match e.into_kind() {
        IoErrorKind::FieldCount { found, .. } => {
            IoError::at(n, IoErrorKind::BadSizeLine { expected, found })
        }
        kind => IoError::at(n, kind),
    })?;
    let rows = parse_dim(words[0], 1, 0, n)?;
    let cols = parse_dim(words[1], 2, 1, n)?;
    if symmetry != MmSymmetry::General && rows != cols {
        return Err(IoError::at(n, IoErrorKind::NotSquare { rows, cols }));
    }
    let entries = match format {
        MmFormat::Coordinate => parse_count(words[2], 3, n)?,
        MmFormat::Array => array_len(rows, cols, symmetry).ok_or_else(|| {
            IoError::at(
                n,
                IoErrorKind::CountTooLarge {
                    what: "rows × columns",
                },
            )
        })?,
    };
    Ok(MatrixMarketHeader {
        format,
        field,
        symmetry,
        rows,
        cols,
        entries,
    })
}

/// The number of values an array file lists, or `None` if it overflows.
fn array_len(rows: usize, cols: usize, symmetry: MmSymmetry) -> Option<usize> {
    match symmetry {
        MmSymmetry::General => rows.checked_mul(cols),
        MmSymmetry::Symmetric => rows.checked_mul(rows.checked_add(1)?).map(|n| n / 2),
        MmSymmetry::SkewSymmetric => rows.checked_mul(rows.saturating_sub(1)).map(|n| n / 2),
    }
}

/// Turns entry lines into entries, and tracks where the next array value goes.
struct EntryReader<T> {
    header: MatrixMarketHeader,
    entries: Entries<T>,
    /// The (row, column) of the next array value.
    next: (usize, usize),
}

impl<T: Scalar> EntryReader<T> {
    fn new(header: &MatrixMarketHeader) -> Self {
        let mirrored = usize::from(header.symmetry != MmSymmetry::General) + 1;
        let capacity = header.entries.min(PREALLOCATE_LIMIT) * mirrored;
        EntryReader {
            header: *header,
            entries: Entries::with_capacity([header.rows, header.cols], capacity),
            next: (array_start(header.symmetry, 0), 0),
        }
    }

    fn read_line(&mut self, line: &Line<'_>) -> Result<(), IoError> {
        match self.header.format {
            MmFormat::Coordinate => self.read_coordinate(line),
            MmFormat::Array => self.read_array_value(line),
        }
    }

    fn read_coordinate(&mut self, line: &Line<'_>) -> Result<(), IoError> {
        let h = self.header;
        let n = line.number;
        let pattern = h.field == MmField::Pattern;
        let words: [&str; 3] = split_fields(line, if pattern { 2 } else { 3 })?;
        let i = parse_coord(words[0], 1, 0, h.rows, n)?;
        let j = parse_coord(words[1], 2, 1, h.cols, n)?;
        if pattern {
            return self.push(i, j, T::ONE, T::ONE, n);
        }
        let value = parse_value(words[2], 3, h.field == MmField::Integer, n)?;
        self.push_listed(i, j, value, words[2], n)
    }

    fn read_array_value(&mut self, line: &Line<'_>) -> Result<(), IoError> {
        let n = line.number;
        let [word]: [&str; 1] = split_fields(line, 1)?;
        let value = parse_value(word, 1, self.header.field == MmField::Integer, n)?;
        let (i, j) = self.next;
        self.next = if i + 1 < self.header.rows {
            (i + 1, j)
        } else {
            (array_start(self.header.symmetry, j + 1), j + 1)
        };
        if value == T::ZERO {
            return Ok(());
        }
        self.push_listed(i, j, value, word, n)
    }

    /// Adds a listed entry and, for a symmetric file, its mirror image.
    fn push_listed(
        &mut self,
        i: usize,
        j: usize,
        value: T,
        text: &str,
        n: usize,
    ) -> Result<(), IoError> {
        match self.header.symmetry {
            MmSymmetry::General | MmSymmetry::Symmetric => self.push(i, j, value, value, n),
            MmSymmetry::SkewSymmetric if i == j => Err(IoError::at(n, IoErrorKind::SkewDiagonal)),
            MmSymmetry::SkewSymmetric => {
                let field = if self.header.format == MmFormat::Array {
                    1
                } else {
                    3
                };
                let mirror = negate(value, text).ok_or_else(|| {
                    let scalar = std::any::type_name::<T>();
                    not_a_number(text, field, n, format!("a `{scalar}` whose negation fits"))
                })?;
                self.push(i, j, value, mirror, n)
            }
        }
    }

    /// Adds entry (i, j) and, unless the file is general or the entry is on the diagonal, the
    /// mirrored entry (j, i) with value `mirror`.
    fn push(&mut self, i: usize, j: usize, value: T, mirror: T, n: usize) -> Result<(), IoError> {
        let at_line = |e| IoError::at(n, IoErrorKind::Format(e));
        self.entries.push(&[i, j], value).map_err(at_line)?;
        if self.header.symmetry != MmSymmetry::General && i != j {
            self.entries.push(&[j, i], mirror).map_err(at_line)?;
        }
        Ok(())
    }
}

/// The first row an array file lists in column `j`: the diagonal for symmetric matrices, below
/// it for skew-symmetric ones.
fn array_start(symmetry: MmSymmetry, j: usize) -> usize {
    match symmetry {
        MmSymmetry::General => 0,
        MmSymmetry::Symmetric => j,
        MmSymmetry::SkewSymmetric => j + 1,
    }
}

/// `-value`, or `None` when it does not fit (the most negative integer). Integers are negated
/// through their text, so no arithmetic can overflow.
fn negate<T: Scalar>(value: T, text: &str) -> Option<T> {
    if !T::IS_INTEGER {
        return Some(-value);
    }
    match text.strip_prefix('-') {
        Some(rest) => T::parse_text(rest),
        None => T::parse_text(&format!("-{}", text.strip_prefix('+').unwrap_or(text))),
    }
}
