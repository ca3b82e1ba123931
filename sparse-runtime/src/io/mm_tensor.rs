//! Matrix Market coordinate files of any order, the extension taco reads and writes: a banner
//! `%%MatrixMarket tensor coordinate <field> general`, `%` comments, a size line with every
//! dimension and then the number of entries, and one `i1 .. iN value` line per entry (1-based;
//! no value for `pattern`). [`super::read_tns`] reads such a file when it starts with the banner,
//! so both kinds of tensor file go through one call.

use std::io::BufRead;

use super::error::{IoError, IoErrorKind};
use super::lines::{
    Lines, PREALLOCATE_LIMIT, no_size_line, parse_coord, parse_count, parse_dim, parse_value,
};
use super::mtx::{MmField, parse_field};
use crate::{Entries, Scalar};

const BANNER: &[u8] = b"%%MatrixMarket";

/// Whether the stream starts with a Matrix Market banner (looked at without consuming it).
pub(super) fn has_banner(reader: &mut impl BufRead) -> Result<bool, IoError> {
    let start = reader.fill_buf()?;
    Ok(start.len() >= BANNER.len() && start[..BANNER.len()].eq_ignore_ascii_case(BANNER))
}

/// Reads a Matrix Market tensor file into its entries and the fill value a `% sparse-fill: v`
/// comment gives. The file declares its shape: a `shape` the caller passes must equal it.
pub(super) fn parse<T: Scalar>(
    reader: impl BufRead,
    shape: Option<&[usize]>,
) -> Result<(Entries<T>, T), IoError> {
    let mut lines = Lines::new(reader, b'%');
    let field = parse_banner(&mut lines)?;
    if T::IS_INTEGER && field == MmField::Real {
        let scalar = std::any::type_name::<T>();
        return Err(IoError::at(1, IoErrorKind::RealIntoInteger { scalar }));
    }
    let (declared, count) = parse_size_line(&mut lines)?;
    if let Some(given) = shape.filter(|&given| given != declared.as_slice()) {
        let kind = IoErrorKind::ShapeDiffers {
            declared,
            given: given.to_vec(),
        };
        return Err(IoError::new(None, kind));
    }
    let entries = read_entries(&mut lines, field, declared, count)?;
    Ok((entries, lines.fill_value()?))
}

/// Line 1: `%%MatrixMarket tensor coordinate <field> general`, and the field it names.
fn parse_banner<R: BufRead>(lines: &mut Lines<R>) -> Result<MmField, IoError> {
    let bad = || IoError::at(1, IoErrorKind::BadBanner);
    let line = lines.next_raw()?.ok_or_else(bad)?;
    let words: Vec<&str> = line.text.split_ascii_whitespace().collect();
    let [_, object, format, field, symmetry] = words[..] else {
        return Err(bad());
    };
    let at = |kind| Err(IoError::at(1, kind));
    if !object.eq_ignore_ascii_case("tensor") {
        return at(IoErrorKind::UnknownObject(object.into()));
    }
    if !format.eq_ignore_ascii_case("coordinate") {
        return at(IoErrorKind::UnknownFormat(format.into()));
    }
    if !symmetry.eq_ignore_ascii_case("general") {
        return at(IoErrorKind::UnknownSymmetry(symmetry.into()));
    }
    parse_field(field).map_err(|kind| IoError::at(1, kind))
}

/// The size line: the dimensions, then the number of entries.
fn parse_size_line<R: BufRead>(lines: &mut Lines<R>) -> Result<(Vec<usize>, usize), IoError> {
    let Some(line) = lines.next_data()? else {
        return Err(no_size_line(lines.number()));
    };
    let n = line.number;
    let words: Vec<&str> = line.text.split_ascii_whitespace().collect();
    let Some((count, dims)) = words.split_last().filter(|(_, dims)| !dims.is_empty()) else {
        let kind = IoErrorKind::TensorSizeLine { found: words.len() };
        return Err(IoError::at(n, kind));
    };
    let shape = (dims.iter().enumerate())
        .map(|(dim, text)| parse_dim(text, dim + 1, dim, n))
        .collect::<Result<Vec<usize>, IoError>>()?;
    Ok((shape, parse_count(count, dims.len() + 1, n)?))
}

/// The `count` entry lines of a file of shape `shape`; nothing may follow them.
fn read_entries<T: Scalar>(
    lines: &mut Lines<impl BufRead>,
    field: MmField,
    shape: Vec<usize>,
    count: usize,
) -> Result<Entries<T>, IoError> {
    let order = shape.len();
    let fields = if field == MmField::Pattern {
        order
    } else {
        order + 1
    };
    let mut entries = Entries::with_capacity(shape.clone(), count.min(PREALLOCATE_LIMIT));
    let mut coords = vec![0usize; order];
    for k in 0..count {
        let Some(line) = lines.next_data()? else {
            let kind = IoErrorKind::Truncated {
                declared: count,
                found: k,
            };
            return Err(IoError::at(lines.number() + 1, kind));
        };
        let n = line.number;
        let found = line.text.split_ascii_whitespace().count();
        if found != fields {
            let kind = IoErrorKind::FieldCount {
                expected: fields,
                found,
            };
            return Err(IoError::at(n, kind));
        }
        let mut words = line.text.split_ascii_whitespace();
        for (dim, (slot, word)) in coords.iter_mut().zip(&mut words).enumerate() {
            *slot = parse_coord(word, dim + 1, dim, shape[dim], n)?;
        }
        let value = match (field, words.next()) {
            (MmField::Pattern, _) | (_, None) => T::ONE,
            (_, Some(word)) => parse_value(word, order + 1, field == MmField::Integer, n)?,
        };
        entries
            .push(&coords, value)
            .map_err(|e| IoError::at(n, IoErrorKind::Format(e)))?;
    }
    if let Some(line) = lines.next_data()? {
        let kind = IoErrorKind::TooManyEntries { declared: count };
        return Err(IoError::at(line.number, kind));
    }
    Ok(entries)
}
