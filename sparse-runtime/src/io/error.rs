//! [`IoError`]: why a file could not be read or written, with the line where it was found. All
//! wording for the readers and writers lives in the `Display` impl here.

use std::fmt;
use std::path::PathBuf;

use crate::FormatError;

/// Why a tensor file could not be read or written.
///
/// `line` is the 1-based line of the file where the problem was found (comment and blank lines
/// count); it is `None` for problems that belong to no line (opening the file, packing the
/// entries into a format, writing).
#[derive(Debug)]
pub struct IoError {
    line: Option<usize>,
    kind: IoErrorKind,
}

/// What is wrong, in detail. Dimensions are numbered from 0 (rows are dimension 0), fields of a
/// line from 1, as a reader counts them.
#[derive(Debug)]
#[non_exhaustive]
pub enum IoErrorKind {
    /// The first line is not a Matrix Market banner `%%MatrixMarket object format field symmetry`.
    BadBanner,
    /// The banner names an object other than `matrix` (or, for [`read_tns`](super::read_tns),
    /// `tensor`).
    UnknownObject(String),
    /// The banner names a format other than `coordinate` or `array`.
    UnknownFormat(String),
    /// The banner names a field other than `real`, `double`, `integer` or `pattern`.
    UnknownField(String),
    /// The banner names a symmetry other than `general`, `symmetric` or `skew-symmetric`.
    UnknownSymmetry(String),
    /// The banner asks for complex values, which no [`crate::Scalar`] holds.
    ComplexUnsupported,
    /// The banner declares a hermitian matrix, which only makes sense for complex values.
    HermitianUnsupported,
    /// The banner combines a field and a format or symmetry that the Matrix Market rules forbid
    /// (`pattern` with `array`, or `pattern` with `skew-symmetric`).
    InvalidCombination {
        /// The field.
        field: &'static str,
        /// The format or symmetry it cannot go with.
        with: &'static str,
    },
    /// A symmetric or skew-symmetric matrix is declared with a different number of rows and
    /// columns.
    NotSquare {
        /// Declared rows.
        rows: usize,
        /// Declared columns.
        cols: usize,
    },
    /// The size line does not have the fields its format needs.
    BadSizeLine {
        /// The number of fields needed: 3 (`rows cols entries`) for coordinate files, 2 for arrays.
        expected: usize,
        /// The number present.
        found: usize,
    },
    /// The size line of a Matrix Market tensor file does not list at least one dimension and
    /// the entry count.
    TensorSizeLine {
        /// The number of fields present.
        found: usize,
    },
    /// A file that declares its shape (a Matrix Market tensor file) was read with another one.
    ShapeDiffers {
        /// The shape the file declares.
        declared: Vec<usize>,
        /// The shape the caller gave.
        given: Vec<usize>,
    },
    /// An entry line has the wrong number of fields.
    FieldCount {
        /// The number needed (for a `.tns` file: the first entry's count, or the given shape's
        /// order plus one).
        expected: usize,
        /// The number present.
        found: usize,
    },
    /// A field that must be a number is not one (or does not fit the scalar type).
    NotANumber {
        /// The 1-based field of the line.
        field: usize,
        /// The field's text (cut to 40 characters).
        text: String,
        /// What was expected there, e.g. "an index" or "an i32 value".
        expected: String,
    },
    /// A coordinate is 0: these formats number from 1, so the file is probably 0-based.
    CoordinateZero {
        /// The dimension.
        dim: usize,
    },
    /// A coordinate is above its dimension's size (or negative).
    CoordinateOutOfRange {
        /// The dimension.
        dim: usize,
        /// The coordinate as written.
        text: String,
        /// The dimension's size.
        size: usize,
    },
    /// A diagonal entry in a skew-symmetric file, whose diagonal is zero by definition.
    SkewDiagonal,
    /// An entry line follows the declared number of entries.
    TooManyEntries {
        /// The declared number.
        declared: usize,
    },
    /// The file ended before the declared number of entries (or before the size line).
    Truncated {
        /// The declared number (0 when the size line itself is missing).
        declared: usize,
        /// The number read.
        found: usize,
    },
    /// The file holds real values, but the tensor's scalar type is an integer type.
    RealIntoInteger {
        /// The scalar type.
        scalar: &'static str,
    },
    /// A dimension is above `u32::MAX`, the limit of the index arrays.
    DimTooLarge {
        /// The dimension.
        dim: usize,
        /// Its size as written (for `.tns` files, the coordinate that implies it).
        text: String,
    },
    /// A count does not fit in memory's address space: the declared entries, or an array's rows
    /// times columns.
    CountTooLarge {
        /// What is counted.
        what: &'static str,
    },
    /// A `.tns` file has no entries and no shape was given, so its order is unknown; or the given
    /// shape is empty.
    NoShape,
    /// The tensor's order does not suit the file format (Matrix Market holds order 2, `.tns`
    /// order 1 and above).
    WrongOrder {
        /// The tensor's order.
        order: usize,
        /// The file format.
        file: &'static str,
    },
    /// A data line is longer than [`MAX_LINE_BYTES`](super::MAX_LINE_BYTES).
    LineTooLong,
    /// A data line is not valid UTF-8.
    NotUtf8,
    /// The entries could not be packed into the requested format.
    Format(FormatError),
    /// The file could not be opened.
    Open {
        /// The path given.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Reading or writing failed.
    Io(std::io::Error),
}

impl IoError {
    pub(crate) fn new(line: Option<usize>, kind: IoErrorKind) -> Self {
        IoError { line, kind }
    }

    pub(crate) fn at(line: usize, kind: IoErrorKind) -> Self {
        IoError {
            line: Some(line),
            kind,
        }
    }

    /// The 1-based line where the problem was found, if it belongs to a line.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// What is wrong.
    pub fn kind(&self) -> &IoErrorKind {
        &self.kind
    }

    /// What is wrong, by value (to take the wrapped [`FormatError`] or `std::io::Error`).
    pub fn into_kind(self) -> IoErrorKind {
        self.kind
    }
}

impl fmt::Display for IoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        fmt::Display::fmt(&self.kind, f)
    }
}

impl fmt::Display for IoErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use IoErrorKind as K;
        match self {
            K::BadBanner => write!(
                f,
                "expected the banner `%%MatrixMarket matrix <format> <field> <symmetry>`"
            ),
            K::UnknownObject(s) => write!(
                f,
                "unknown object `{s}`; expected `matrix` (`read_matrix_market`) or `tensor` \
                 (`read_tns`)"
            ),
            K::UnknownFormat(s) => {
                write!(f, "unknown format `{s}`; expected `coordinate` or `array`")
            }
            K::UnknownField(s) => write!(
                f,
                "unknown field `{s}`; expected `real`, `double`, `integer` or `pattern`"
            ),
            K::UnknownSymmetry(s) => write!(
                f,
                "unknown symmetry `{s}`; expected `general`, `symmetric` or `skew-symmetric`"
            ),
            K::ComplexUnsupported => write!(
                f,
                "complex matrices are not supported: no scalar type holds complex values"
            ),
            K::HermitianUnsupported => write!(
                f,
                "hermitian matrices are not supported: they need complex values"
            ),
            K::InvalidCombination { field, with } => {
                write!(f, "a `{field}` matrix cannot be `{with}`")
            }
            K::NotSquare { rows, cols } => write!(
                f,
                "a symmetric or skew-symmetric matrix must be square, but it is {rows} x {cols}"
            ),
            K::BadSizeLine { expected, found } => {
                let wanted = if *expected == 3 {
                    "`rows cols entries`"
                } else {
                    "`rows cols`"
                };
                write!(
                    f,
                    "the size line has {found} fields; expected {expected}: {wanted}"
                )
            }
            K::FieldCount { expected, found } => {
                write!(f, "the line has {found} fields; expected {expected}")
            }
            K::NotANumber {
                field,
                text,
                expected,
            } => write!(f, "field {field} `{text}` is not {expected}"),
            K::CoordinateZero { dim } => write!(
                f,
                "coordinate 0 in dimension {dim}: coordinates start at 1 (is the file 0-based?)"
            ),
            K::CoordinateOutOfRange { dim, text, size } => write!(
                f,
                "coordinate {text} in dimension {dim} is outside 1..={size}"
            ),
            K::SkewDiagonal => write!(
                f,
                "a skew-symmetric matrix has no diagonal entries, but one is listed"
            ),
            K::TensorSizeLine { found } => write!(
                f,
                "the size line must list every dimension and then the entry count (at least 2 \
                 fields), but it has {found}"
            ),
            K::ShapeDiffers { declared, given } => write!(
                f,
                "the file declares the shape {declared:?}, but the shape {given:?} was given"
            ),
            K::TooManyEntries { declared } => write!(
                f,
                "an entry follows the {declared} entries the size line declares"
            ),
            K::Truncated { declared: 0, .. } => {
                write!(f, "the file ends before the size line")
            }
            K::Truncated { declared, found } => write!(
                f,
                "the file ends after {found} of the {declared} entries it declares"
            ),
            K::RealIntoInteger { scalar } => write!(
                f,
                "the file holds real values, which a tensor of `{scalar}` cannot store"
            ),
            K::DimTooLarge { dim, text } => write!(
                f,
                "dimension {dim} has size {text}, more than the limit {} of u32 indices",
                u32::MAX
            ),
            K::CountTooLarge { what } => write!(f, "{what} overflows the address space"),
            K::NoShape => write!(
                f,
                "the tensor's order and shape are unknown: the file has no entries and no \
                 (nonempty) shape was given"
            ),
            K::WrongOrder { order, file } => {
                write!(f, "a tensor of order {order} cannot be written as {file}")
            }
            K::LineTooLong => write!(f, "the line is longer than {} bytes", super::MAX_LINE_BYTES),
            K::NotUtf8 => write!(f, "the line is not valid UTF-8 text"),
            K::Format(e) => write!(f, "packing the entries: {e}"),
            K::Open { path, source } => {
                write!(f, "could not open `{}`: {source}", path.display())
            }
            K::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for IoError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            IoErrorKind::Format(e) => Some(e),
            IoErrorKind::Open { source, .. } => Some(source),
            IoErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<FormatError> for IoError {
    fn from(e: FormatError) -> Self {
        IoError::new(None, IoErrorKind::Format(e))
    }
}

impl From<std::io::Error> for IoError {
    fn from(e: std::io::Error) -> Self {
        IoError::new(None, IoErrorKind::Io(e))
    }
}
