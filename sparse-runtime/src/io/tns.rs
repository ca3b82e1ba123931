//! FROSTT `.tns`: one entry per line, `i1 i2 ... iN value` with 1-based coordinates, comments
//! starting with `#`. There is no header, so the shape is the largest coordinate of each
//! dimension unless the caller knows it. A file that starts with a Matrix Market banner
//! (`%%MatrixMarket tensor coordinate ...`, taco's tensor files) is read as one instead, its
//! shape taken from its size line.

use std::io::{BufRead, BufWriter, Write};

use super::error::{IoError, IoErrorKind};
use super::lines::{
    FILL_COMMENT, Index, Line, Lines, dim_too_large, out_of_range, parse_coord, parse_index,
    parse_value,
};
use crate::{Entries, ExplicitZeros, Format, Scalar, Tensor};

/// Reads a `.tns` file into its entries. With `shape`, coordinates are checked against it and
/// every line must have `shape.len() + 1` fields; without, every line must have as many fields as
/// the first, and the shape is the largest coordinate of each dimension. Duplicates are kept as
/// listed. A Matrix Market tensor file (banner `%%MatrixMarket tensor coordinate <field>
/// general`, `%` comments, a size line `d1 .. dN entries`) declares its shape; a `shape` given
/// with it must be the same ([`IoErrorKind::ShapeDiffers`]).
///
/// ```
/// use sparse_runtime::io::parse_tns;
///
/// let text = "# a 3-tensor\n1 2 3 1.5\n2 1 1 -2\n";
/// let entries = parse_tns::<f64>(text.as_bytes(), None)?;
/// assert_eq!(entries.shape(), &[2, 2, 3]);
/// assert_eq!(entries.coords(1), &[1, 0, 0]);
///
/// let padded = parse_tns::<f64>(text.as_bytes(), Some(&[4, 4, 4]))?;
/// assert_eq!(padded.shape(), &[4, 4, 4]);
/// # Ok::<(), sparse_runtime::io::IoError>(())
/// ```
pub fn parse_tns<T: Scalar>(
    reader: impl BufRead,
    shape: Option<&[usize]>,
) -> Result<Entries<T>, IoError> {
    parse_with_fill(reader, shape).map(|(entries, _)| entries)
}

/// [`parse_tns`], and the fill value a `# sparse-fill: v` comment gives (zero without one).
fn parse_with_fill<T: Scalar>(
    mut reader: impl BufRead,
    shape: Option<&[usize]>,
) -> Result<(Entries<T>, T), IoError> {
    if super::mm_tensor::has_banner(&mut reader)? {
        return super::mm_tensor::parse(reader, shape);
    }
    let mut lines = Lines::new(reader, b'#');
    let entries = match shape {
        Some(shape) => read_with_shape(&mut lines, shape)?,
        None => read_inferring_shape(&mut lines)?,
    };
    Ok((entries, lines.fill_value()?))
}

/// Reads a `.tns` file into a tensor of format `F`, as [`parse_tns`] reads it. Entries the file
/// lists are stored even when zero; duplicates are summed. A comment line `# sparse-fill: v`
/// (what [`write_tns`] writes for a tensor whose fill value is not zero) gives the tensor fill
/// value `v`.
///
/// ```
/// use sparse_runtime::io::read_tns;
/// use sparse_runtime::{Csf, Tensor};
///
/// let text = "1 1 2 4\n2 2 1 5\n";
/// let t: Tensor<i64, Csf<3>> = read_tns(text.as_bytes(), None)?;
/// assert_eq!(t.shape(), &[2, 2, 2]);
/// assert_eq!(t.to_dense(), vec![0, 4, 0, 0, 0, 0, 5, 0]);
/// # Ok::<(), sparse_runtime::io::IoError>(())
/// ```
pub fn read_tns<T: Scalar, F: Format>(
    reader: impl BufRead,
    shape: Option<&[usize]>,
) -> Result<Tensor<T, F>, IoError> {
    let (entries, fill) = parse_with_fill(reader, shape)?;
    Ok(Tensor::from_entry_list_with_fill(
        &entries,
        ExplicitZeros::Keep,
        fill,
    )?)
}

/// Writes a tensor of order 1 or more as a `.tns` file, one 1-based line per stored entry. The
/// shape is not recorded (the format has no header): pass it back to [`read_tns`] when trailing
/// rows may be empty. A tensor whose fill value is not zero gets a first line
/// `# sparse-fill: v`, which [`read_tns`] reads back.
///
/// ```
/// use sparse_runtime::io::write_tns;
/// use sparse_runtime::{Coo, Tensor};
///
/// let t = Tensor::<i32, Coo<3>>::from_entries([2, 2, 2], [([1, 0, 1], 7)])?;
/// let mut out = Vec::new();
/// write_tns(&t, &mut out)?;
/// assert_eq!(String::from_utf8(out).unwrap(), "2 1 2 7\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_tns<T: Scalar, F: Format>(
    tensor: &Tensor<T, F>,
    writer: impl Write,
) -> Result<(), IoError> {
    if F::ORDER == 0 {
        let kind = IoErrorKind::WrongOrder {
            order: 0,
            file: "a FROSTT .tns file",
        };
        return Err(IoError::new(None, kind));
    }
    let mut out = BufWriter::new(writer);
    if tensor.fill() != T::ZERO {
        writeln!(out, "# {FILL_COMMENT} {}", tensor.fill())?;
    }
    let mut result = Ok(());
    tensor.for_each_entry(|c, v| {
        if result.is_ok() {
            result = write_entry(&mut out, c, v);
        }
    });
    result?;
    out.flush()?;
    Ok(())
}

fn write_entry<T: Scalar>(out: &mut impl Write, coords: &[usize], value: T) -> std::io::Result<()> {
    for c in coords {
        write!(out, "{} ", c + 1)?;
    }
    writeln!(out, "{value}")
}

/// Checks a caller's shape like a declared one: nonempty, every dimension within u32 indices.
fn check_shape(shape: &[usize]) -> Result<(), IoError> {
    if shape.is_empty() {
        return Err(IoError::new(None, IoErrorKind::NoShape));
    }
    match shape.iter().position(|&n| n > u32::MAX as usize) {
        Some(dim) => {
            let kind = IoErrorKind::DimTooLarge {
                dim,
                text: shape[dim].to_string(),
            };
            Err(IoError::new(None, kind))
        }
        None => Ok(()),
    }
}

fn read_with_shape<T: Scalar>(
    lines: &mut Lines<impl BufRead>,
    shape: &[usize],
) -> Result<Entries<T>, IoError> {
    check_shape(shape)?;
    let order = shape.len();
    let mut entries = Entries::new(shape);
    let mut coords = vec![0usize; order];
    while let Some(line) = lines.next_data()? {
        let n = line.number;
        check_field_count(&line, order + 1)?;
        let mut words = line.text.split_ascii_whitespace();
        for (dim, (slot, word)) in coords.iter_mut().zip(&mut words).enumerate() {
            *slot = parse_coord(word, dim + 1, dim, shape[dim], n)?;
        }
        let value = parse_value(words.next().unwrap_or(""), order + 1, false, n)?;
        entries
            .push(&coords, value)
            .map_err(|e| IoError::at(n, IoErrorKind::Format(e)))?;
    }
    Ok(entries)
}

/// Reads entries before the shape is known: coordinates are kept 0-based as `u32` (they fit,
/// being checked against the index limit), then packed into [`Entries`] once the shape is.
fn read_inferring_shape<T: Scalar>(lines: &mut Lines<impl BufRead>) -> Result<Entries<T>, IoError> {
    let mut order = 0;
    let mut shape: Vec<usize> = Vec::new();
    let mut coords: Vec<u32> = Vec::new();
    let mut values: Vec<T> = Vec::new();
    while let Some(line) = lines.next_data()? {
        let n = line.number;
        if order == 0 {
            order = line.text.split_ascii_whitespace().count().max(2) - 1;
            shape = vec![0; order];
        }
        check_field_count(&line, order + 1)?;
        let mut words = line.text.split_ascii_whitespace();
        for (dim, (size, word)) in shape.iter_mut().zip(&mut words).enumerate() {
            let c = parse_unbounded_coord(word, dim, n)?;
            *size = (*size).max(c as usize + 1);
            coords.push(c);
        }
        values.push(parse_value(
            words.next().unwrap_or(""),
            order + 1,
            false,
            n,
        )?);
    }
    if order == 0 {
        return Err(IoError::new(None, IoErrorKind::NoShape));
    }
    let mut entries = Entries::with_capacity(shape, values.len());
    let mut logical = vec![0usize; order];
    for (chunk, value) in coords.chunks_exact(order).zip(values) {
        for (slot, &c) in logical.iter_mut().zip(chunk) {
            *slot = c as usize;
        }
        entries.push(&logical, value)?;
    }
    Ok(entries)
}

/// A 1-based coordinate of a dimension whose size is not known, returned 0-based; it implies a
/// size, which must fit u32 indices.
fn parse_unbounded_coord(word: &str, dim: usize, n: usize) -> Result<u32, IoError> {
    let limit = u32::MAX as usize;
    match parse_index(word, dim + 1, n)? {
        Index::Value(0) => Err(IoError::at(n, IoErrorKind::CoordinateZero { dim })),
        Index::Value(v) => u32::try_from(v - 1)
            .ok()
            .filter(|&c| c < u32::MAX)
            .ok_or_else(|| dim_too_large(dim, word, n)),
        Index::TooLarge => Err(dim_too_large(dim, word, n)),
        Index::Negative => Err(out_of_range(dim, word, limit, n)),
    }
}

fn check_field_count(line: &Line<'_>, expected: usize) -> Result<(), IoError> {
    let found = line.text.split_ascii_whitespace().count();
    if found != expected {
        let kind = IoErrorKind::FieldCount { expected, found };
        return Err(IoError::at(line.number, kind));
    }
    Ok(())
}
