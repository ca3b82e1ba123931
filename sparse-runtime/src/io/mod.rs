//! Reading and writing tensors: Matrix Market (`.mtx`) and FROSTT (`.tns`); the `.tns` reader
//! also reads Matrix Market's coordinate files of any order (`%%MatrixMarket tensor ...`).
//!
//! Each format has a lower-level parser to [`Entries`](crate::Entries) ([`parse_matrix_market`],
//! [`parse_tns`]), a reader that packs those entries into a [`Tensor`] of any format
//! ([`read_matrix_market`], [`read_tns`]), a writer, and a loader that opens a path
//! ([`load_matrix_market`], [`load_tns`]).
//!
//! Files are untrusted input. No file makes a reader panic or overflow, and no declared count
//! makes one allocate: storage is reserved for at most about a million entries up front and grows
//! only as entries arrive, data lines are at most [`MAX_LINE_BYTES`] long, and comment lines of
//! any length are skipped without being stored (so they may hold any bytes; data lines must be
//! UTF-8). Every problem is an [`IoError`] naming the line where it was found.

mod error;
mod lines;
mod mm_tensor;
mod mtx;
mod tns;

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

pub use error::{IoError, IoErrorKind};
pub use mtx::{
    MatrixMarketHeader, MmField, MmFormat, MmSymmetry, parse_matrix_market, read_matrix_market,
    write_matrix_market,
};
pub use tns::{parse_tns, read_tns, write_tns};

use crate::{Format, Scalar, Tensor};

/// The longest data line the readers accept, in bytes (without the line terminator). Real files
/// have lines of a few dozen bytes; the limit bounds the memory a line without newlines can take.
pub const MAX_LINE_BYTES: usize = 1 << 16;

/// Opens a Matrix Market file and reads it into a tensor of format `F`, as
/// [`read_matrix_market`] does.
///
/// ```
/// use sparse_runtime::Csr;
/// use sparse_runtime::io::load_matrix_market;
///
/// let path = std::env::temp_dir().join(format!("sparse-doc-{}.mtx", std::process::id()));
/// std::fs::write(&path, "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 1\n")?;
/// let a = load_matrix_market::<f64, Csr>(&path)?;
/// assert_eq!(a.to_dense(), vec![0.0, 0.0, 1.0, 0.0]);
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_matrix_market<T: Scalar, F: Format>(
    path: impl AsRef<Path>,
) -> Result<Tensor<T, F>, IoError> {
    read_matrix_market(open(path.as_ref())?)
}

/// Opens a FROSTT `.tns` file and reads it into a tensor of format `F`, as [`read_tns`] does.
///
/// ```
/// use sparse_runtime::Csf;
/// use sparse_runtime::io::load_tns;
///
/// let path = std::env::temp_dir().join(format!("sparse-doc-{}.tns", std::process::id()));
/// std::fs::write(&path, "1 2 1 0.5\n")?;
/// let t = load_tns::<f64, Csf<3>>(&path, Some(&[2, 2, 2]))?;
/// assert_eq!(t.nnz(), 1);
/// assert!(load_tns::<f64, Csf<3>>("no/such/file.tns", None).is_err());
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_tns<T: Scalar, F: Format>(
    path: impl AsRef<Path>,
    shape: Option<&[usize]>,
) -> Result<Tensor<T, F>, IoError> {
    read_tns(open(path.as_ref())?, shape)
}

fn open(path: &Path) -> Result<BufReader<File>, IoError> {
    let file = File::open(path).map_err(|source| {
        let kind = IoErrorKind::Open {
            path: path.to_path_buf(),
            source,
        };
        IoError::new(None, kind)
    })?;
    Ok(BufReader::new(file))
}
