//! What both readers share: a line reader with a bounded buffer, and the parsing of one field.
//!
//! Every number comes from an untrusted file, so nothing here trusts a count: lines are read at
//! most [`MAX_LINE_BYTES`] at a time, comment lines of any length are skipped without being
//! stored, and a parse failure is an error naming the line and field.

use std::io::{BufRead, ErrorKind, Read};
use std::num::IntErrorKind;

use super::MAX_LINE_BYTES;
use super::error::{IoError, IoErrorKind};
use crate::Scalar;

/// The most entries preallocated from a count the file declares; beyond it, storage grows as
/// entries arrive, so a lying header costs nothing.
pub(crate) const PREALLOCATE_LIMIT: usize = 1 << 20;

/// One data line: its 1-based number and its text (line terminator removed).
pub(crate) struct Line<'buf> {
    pub number: usize,
    pub text: &'buf str,
}

/// Reads lines, skipping comments (lines whose first non-blank byte is `comment`) and blank lines.
pub(crate) struct Lines<R> {
    reader: R,
    comment: u8,
    buf: Vec<u8>,
    /// Whether `buf` holds the whole of its line (false when the line was cut at the limit).
    complete: bool,
    number: usize,
    /// The last fill comment skipped (`% sparse-fill: inf`, `# sparse-fill: -1`): its line
    /// number and the value's text.
    pub fill: Option<(usize, String)>,
}

/// What follows the comment character on a line that records a tensor's fill value
/// (what the writers put before the entries of a tensor whose fill is not zero).
pub(crate) const FILL_COMMENT: &str = "sparse-fill:";

impl<R: BufRead> Lines<R> {
    pub fn new(reader: R, comment: u8) -> Self {
        Lines {
            reader,
            comment,
            buf: Vec::new(),
            complete: true,
            number: 0,
            fill: None,
        }
    }

    /// The number of the last line read (0 before the first).
    pub fn number(&self) -> usize {
        self.number
    }

    /// The next line, whatever it holds (the Matrix Market banner is a comment line to
    /// [`Lines::next_data`]).
    pub fn next_raw(&mut self) -> Result<Option<Line<'_>>, IoError> {
        if !self.fill_line()? {
            return Ok(None);
        }
        if self.buf.len() > MAX_LINE_BYTES {
            return Err(IoError::at(self.number, IoErrorKind::LineTooLong));
        }
        self.text().map(Some)
    }

    /// The next line that is neither a comment nor blank, or `None` at the end of the file.
    pub fn next_data(&mut self) -> Result<Option<Line<'_>>, IoError> {
        loop {
            if !self.fill_line()? {
                return Ok(None);
            }
            let first = self.buf.iter().find(|b| !b.is_ascii_whitespace());
            if first.is_none_or(|&b| b == self.comment) {
                if !self.complete {
                    self.skip_rest()?;
                } else {
                    self.note_fill();
                }
                continue;
            }
            if self.buf.len() > MAX_LINE_BYTES {
                return Err(IoError::at(self.number, IoErrorKind::LineTooLong));
            }
            return self.text().map(Some);
        }
    }

    /// Keeps the value of a fill comment (a complete comment line in `buf`).
    fn note_fill(&mut self) {
        let Ok(text) = std::str::from_utf8(&self.buf) else {
            return;
        };
        let comment = char::from(self.comment);
        let body = text.trim().trim_start_matches(comment).trim_start();
        if let Some(value) = body.strip_prefix(FILL_COMMENT) {
            self.fill = Some((self.number, value.trim().to_string()));
        }
    }

    /// The fill value a fill comment recorded, as `T` (zero without one).
    pub fn fill_value<T: Scalar>(&self) -> Result<T, IoError> {
        match &self.fill {
            None => Ok(T::ZERO),
            Some((line, text)) => parse_value(text, 2, false, *line),
        }
    }

    /// Reads the next line into `buf` without its terminator, reading at most
    /// `MAX_LINE_BYTES + 2` bytes (a longest line and `\r\n`) so that a line without end cannot
    /// grow the buffer. Returns false at the end of the file.
    fn fill_line(&mut self) -> Result<bool, IoError> {
        self.buf.clear();
        let limit = MAX_LINE_BYTES + 2;
        let read = (&mut self.reader)
            .take(limit as u64)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| IoError::at(self.number + 1, IoErrorKind::Io(e)))?;
        if read == 0 {
            return Ok(false);
        }
        self.number += 1;
        self.complete = read < limit;
        if self.buf.last() == Some(&b'\n') {
            self.complete = true;
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        }
        Ok(true)
    }

    /// Discards the rest of an over-long line, up to and including its newline.
    fn skip_rest(&mut self) -> Result<(), IoError> {
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(IoError::at(self.number, IoErrorKind::Io(e))),
            };
            if chunk.is_empty() {
                return Ok(());
            }
            match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    self.reader.consume(i + 1);
                    return Ok(());
                }
                None => {
                    let n = chunk.len();
                    self.reader.consume(n);
                }
            }
        }
    }

    fn text(&self) -> Result<Line<'_>, IoError> {
        let text = std::str::from_utf8(&self.buf)
            .map_err(|_| IoError::at(self.number, IoErrorKind::NotUtf8))?;
        Ok(Line {
            number: self.number,
            text,
        })
    }
}

/// A field read as a 1-based index or a size.
pub(crate) enum Index {
    /// A nonnegative number that fits a `u64`.
    Value(u64),
    /// A negative number.
    Negative,
    /// Digits too many for a `u64`.
    TooLarge,
}

/// Parses field `field` (1-based) of a line as an index or size.
pub(crate) fn parse_index(text: &str, field: usize, line: usize) -> Result<Index, IoError> {
    match text.parse::<u64>() {
        Ok(v) => Ok(Index::Value(v)),
        Err(e) if *e.kind() == IntErrorKind::PosOverflow => Ok(Index::TooLarge),
        Err(_) if is_integer_text(text) => Ok(Index::Negative),
        Err(_) => Err(not_a_number(text, field, line, "an index".into())),
    }
}

/// The error of a Matrix Market file that ends, after `read` lines, before its size line.
pub(crate) fn no_size_line(read: usize) -> IoError {
    let kind = IoErrorKind::Truncated {
        declared: 0,
        found: 0,
    };
    IoError::at(read + 1, kind)
}

/// Parses a dimension size (field `field`, dimension `dim`), which must fit the u32 index arrays.
pub(crate) fn parse_dim(
    text: &str,
    field: usize,
    dim: usize,
    line: usize,
) -> Result<usize, IoError> {
    match parse_index(text, field, line)? {
        Index::Value(v) if v <= u64::from(u32::MAX) => {
            usize::try_from(v).map_err(|_| dim_too_large(dim, text, line))
        }
        Index::Value(_) | Index::TooLarge => Err(dim_too_large(dim, text, line)),
        Index::Negative => Err(not_a_number(text, field, line, "a size".into())),
    }
}

/// Parses a count of entries (field `field`).
pub(crate) fn parse_count(text: &str, field: usize, line: usize) -> Result<usize, IoError> {
    let too_large = || {
        IoError::at(
            line,
            IoErrorKind::CountTooLarge {
                what: "the declared entry count",
            },
        )
    };
    match parse_index(text, field, line)? {
        Index::Value(v) => usize::try_from(v).map_err(|_| too_large()),
        Index::TooLarge => Err(too_large()),
        Index::Negative => Err(not_a_number(text, field, line, "a count".into())),
    }
}

/// Parses a 1-based coordinate against a dimension of `size`, returning it 0-based.
pub(crate) fn parse_coord(
    text: &str,
    field: usize,
    dim: usize,
    size: usize,
    line: usize,
) -> Result<usize, IoError> {
    match parse_index(text, field, line)? {
        Index::Value(0) => Err(IoError::at(line, IoErrorKind::CoordinateZero { dim })),
        Index::Value(v) => match usize::try_from(v) {
            Ok(c) if c <= size => Ok(c - 1),
            _ => Err(out_of_range(dim, text, size, line)),
        },
        Index::Negative | Index::TooLarge => Err(out_of_range(dim, text, size, line)),
    }
}

pub(crate) fn out_of_range(dim: usize, text: &str, size: usize, line: usize) -> IoError {
    IoError::at(
        line,
        IoErrorKind::CoordinateOutOfRange {
            dim,
            text: shorten(text),
            size,
        },
    )
}

/// Parses a value. `integer` says the file declares integer values, so a real number there is an
/// error even for a floating scalar type.
pub(crate) fn parse_value<T: Scalar>(
    text: &str,
    field: usize,
    integer: bool,
    line: usize,
) -> Result<T, IoError> {
    if integer && !is_integer_text(text) {
        return Err(not_a_number(text, field, line, "an integer".into()));
    }
    if let Some(v) = T::parse_text(text) {
        return Ok(v);
    }
    let scalar = std::any::type_name::<T>();
    if T::IS_INTEGER && !is_integer_text(text) && text.parse::<f64>().is_ok() {
        return Err(IoError::at(line, IoErrorKind::RealIntoInteger { scalar }));
    }
    Err(not_a_number(
        text,
        field,
        line,
        format!("a `{scalar}` value"),
    ))
}

/// Whether `text` is an optionally signed run of decimal digits.
fn is_integer_text(text: &str) -> bool {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

pub(crate) fn not_a_number(text: &str, field: usize, line: usize, expected: String) -> IoError {
    IoError::at(
        line,
        IoErrorKind::NotANumber {
            field,
            text: shorten(text),
            expected,
        },
    )
}

pub(crate) fn dim_too_large(dim: usize, text: &str, line: usize) -> IoError {
    IoError::at(
        line,
        IoErrorKind::DimTooLarge {
            dim,
            text: shorten(text),
        },
    )
}

/// At most 40 characters of `text`, so an error never holds a whole line of garbage.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

/// The first `expected` fields of a line that must have exactly `expected` (at most `N`).
pub(crate) fn split_fields<'t, const N: usize>(
    line: &Line<'t>,
    expected: usize,
) -> Result<[&'t str; N], IoError> {
    let mut out = [""; N];
    let mut found = 0;
    for (k, field) in line.text.split_ascii_whitespace().enumerate() {
        if let Some(slot) = out.get_mut(k) {
            *slot = field;
        }
        found = k + 1;
    }
    if found != expected {
        return Err(IoError::at(
            line.number,
            IoErrorKind::FieldCount { expected, found },
        ));
    }
    Ok(out)
}
