//! The main job: load a real matrix (by default the one shipped in `data/`), pack it in every named
//! matrix format, check each against a dense reference, and print what each format stores.
//!
//! ```text
//! cargo run --release                       # data/lund_a.mtx
//! cargo run --release -- path/to/file.mtx   # any Matrix Market file
//! ```
//!
//! The table shows what a format pays for its layout: `stored` is the length of the values array,
//! so `stored - nnz` is the padding of ELL, DIA and BCSR (and the empty buckets of a hash map).

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use sparse::io::load_matrix_market;
use sparse::{
    Bcsr, Coo, Coord, Csc, Csr, Dcsr, Dense, Dia, Ell, Entries, ExplicitZeros, Format, FormatError,
    HashMat, Level, LevelKind, Tensor,
};

/// The matrix packed when no path is given: HB/lund_a, a 147x147 symmetric structural matrix (see
/// `data/README.md`). Relative to the manifest, so the job runs from any directory.
const DEFAULT_MATRIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/lund_a.mtx");

/// Formats whose values array would exceed this many elements are skipped rather than packed: a
/// user's matrix with a million rows has no dense form, and one long row makes ELL as large.
const MAX_STORED: usize = 1 << 25;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Why the job failed.
#[derive(Debug)]
enum JobError {
    Usage,
    Load(PathBuf, sparse::io::IoError),
    Pack(&'static str, FormatError),
    Mismatch(Vec<&'static str>),
}

impl fmt::Display for JobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobError::Usage => write!(f, "usage: sparse [MATRIX.mtx]"),
            JobError::Load(path, e) => write!(f, "cannot load `{}`: {e}", path.display()),
            JobError::Pack(format, e) => write!(f, "packing as {format} failed: {e}"),
            JobError::Mismatch(formats) => write!(
                f,
                "these formats do not hold the matrix that was read: {}",
                formats.join(", ")
            ),
        }
    }
}

fn run() -> Result<(), JobError> {
    let path = matrix_path(std::env::args_os().skip(1))?;
    let start = Instant::now();
    let coo =
        load_matrix_market::<f64, Coo<2>>(&path).map_err(|e| JobError::Load(path.clone(), e))?;
    let loaded = start.elapsed();
    let entries = coo.entries();
    let shape = entries.shape();
    println!(
        "{}: {} x {}, {} entries, read in {}",
        display_name(&path),
        shape[0],
        shape[1],
        entries.len(),
        Millis(loaded)
    );
    let reference = Reference::new(&entries);
    println!("check: {}\n", reference.describe());
    print_header();
    let rows = [
        report::<Csr>("CSR", &entries, &reference)?,
        report::<Csc>("CSC", &entries, &reference)?,
        report::<Coo<2>>("COO", &entries, &reference)?,
        report::<Dcsr>("DCSR", &entries, &reference)?,
        report::<Ell>("ELL", &entries, &reference)?,
        report::<Dia>("DIA", &entries, &reference)?,
        report::<Bcsr<4, 4>>("BCSR 4x4", &entries, &reference)?,
        report::<HashMat>("HashMat", &entries, &reference)?,
        report::<Dense<2>>("Dense", &entries, &reference)?,
    ];
    let failed: Vec<&'static str> = rows
        .iter()
        .filter(|r| r.ok == Some(false))
        .map(|r| r.label)
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(JobError::Mismatch(failed))
    }
}

/// The single optional argument, or the shipped matrix.
fn matrix_path(mut args: impl Iterator<Item = std::ffi::OsString>) -> Result<PathBuf, JobError> {
    match (args.next(), args.next()) {
        (None, _) => Ok(PathBuf::from(DEFAULT_MATRIX)),
        (Some(a), None) if a != "-h" && a != "--help" => Ok(PathBuf::from(a)),
        _ => Err(JobError::Usage),
    }
}

/// The file name alone for the shipped matrix (its absolute path depends on the checkout).
fn display_name(path: &Path) -> String {
    if path == Path::new(DEFAULT_MATRIX) {
        "data/lund_a.mtx".to_string()
    } else {
        path.display().to_string()
    }
}

/// What every packed format is compared with, built from the entries that were read without going
/// through the packer: a dense array when the matrix is small enough, else the sorted entries.
enum Reference {
    Dense {
        rows: usize,
        cols: usize,
        values: Vec<f64>,
    },
    Sorted(Entries<f64>),
}

impl Reference {
    fn new(entries: &Entries<f64>) -> Self {
        let (rows, cols) = (entries.shape()[0], entries.shape()[1]);
        match rows.checked_mul(cols).filter(|&n| n <= MAX_STORED) {
            Some(n) => {
                let mut values = vec![0.0; n];
                for (c, v) in entries.iter() {
                    values[c[0] * cols + c[1]] += v;
                }
                Reference::Dense { rows, cols, values }
            }
            None => {
                let mut sorted = entries.clone();
                sorted.canonicalize();
                Reference::Sorted(sorted)
            }
        }
    }

    fn describe(&self) -> String {
        match self {
            Reference::Dense { rows, cols, .. } => format!(
                "each format's to_dense() against a {rows} x {cols} dense array scattered from the file"
            ),
            Reference::Sorted(_) => {
                "each format's sorted entries against the file's (too large for a dense check)"
                    .to_string()
            }
        }
    }

    fn matches<F: Format>(&self, t: &Tensor<f64, F>) -> bool {
        match self {
            Reference::Dense { values, .. } => t.to_dense() == *values,
            Reference::Sorted(sorted) => {
                let mut mine = t.entries();
                mine.canonicalize();
                mine == *sorted
            }
        }
    }
}

/// One line of the table.
struct Row {
    label: &'static str,
    /// Whether the packed tensor matched the reference; `None` when the format was skipped.
    ok: Option<bool>,
}

fn print_header() {
    println!(
        "{:<9} {:>9} {:>10} {:>8} {:>11} {:>11} {:>10}  check",
        "format", "nnz", "stored", "padding", "index B", "value B", "pack"
    );
}

/// Packs the entries as `F`, checks the result and prints its line.
fn report<F: Format>(
    label: &'static str,
    entries: &Entries<f64>,
    reference: &Reference,
) -> Result<Row, JobError> {
    if let Some(size) = padded_size::<F>(entries).filter(|&n| n > MAX_STORED) {
        println!("{label:<9} skipped: it would store {size} values");
        return Ok(Row { label, ok: None });
    }
    let start = Instant::now();
    let t = Tensor::<f64, F>::from_entry_list(entries, ExplicitZeros::Keep)
        .map_err(|e| JobError::Pack(label, e))?;
    let packed = start.elapsed();
    let ok = reference.matches(&t);
    let stored = t.stored_len();
    let padding = 100.0 * stored.saturating_sub(t.nnz()) as f64 / stored.max(1) as f64;
    println!(
        "{label:<9} {:>9} {stored:>10} {padding:>7.1}% {:>11} {:>11} {:>10}  {}",
        t.nnz(),
        index_bytes(t.levels()),
        stored * size_of::<f64>(),
        Millis(packed),
        if ok { "ok" } else { "MISMATCH" }
    );
    Ok(Row {
        label,
        ok: Some(ok),
    })
}

/// Bytes of the index arrays: `pos` and `crd` of every level, and DIA's offsets.
fn index_bytes(levels: &[Level]) -> usize {
    levels
        .iter()
        .map(|level| match level {
            Level::Range { offsets, .. } => offsets.len() * size_of::<i64>(),
            other => (other.pos().len() + other.crd().len()) * size_of::<sparse::Idx>(),
        })
        .sum()
}

/// The values-array length of a format that pads (an upper bound for hash maps), read from its
/// level list and computed from the entries, so that an oversized format is never built. `None`
/// for formats that store only their entries.
fn padded_size<F: Format>(entries: &Entries<f64>) -> Option<usize> {
    let (rows, cols) = (entries.shape()[0], entries.shape()[1]);
    let levels = F::LEVELS;
    let has = |kind: LevelKind| levels.iter().any(|l| l.kind == kind);
    let slot = levels.iter().any(|l| l.coord == Coord::Slot);
    let block = |dim: usize| {
        levels.iter().find_map(|l| match l.coord {
            Coord::BlockOuter { dim: d, block } if d == dim => Some(block),
            _ => None,
        })
    };
    if let (Some(r), Some(c)) = (block(0), block(1)) {
        Some(r * c * distinct(entries, |x| (x[0] / r, x[1] / c)))
    } else if has(LevelKind::Range) {
        Some(rows.saturating_mul(distinct(entries, |x| (x[1].wrapping_sub(x[0]), 0))))
    } else if slot {
        Some(rows.saturating_mul(longest_row(entries)))
    } else if has(LevelKind::Hashed) {
        Some(rows.saturating_mul(2 * longest_row(entries).max(1).next_power_of_two()))
    } else if levels.iter().all(|l| l.kind == LevelKind::Dense) {
        Some(rows.saturating_mul(cols))
    } else {
        None
    }
}

/// The number of entries in the fullest row.
fn longest_row(entries: &Entries<f64>) -> usize {
    let mut count = vec![0usize; entries.shape()[0]];
    for (c, _) in entries.iter() {
        count[c[0]] += 1;
    }
    count.into_iter().max().unwrap_or(0)
}

/// The number of distinct keys among the entries' coordinates.
fn distinct(entries: &Entries<f64>, key: impl Fn(&[usize]) -> (usize, usize)) -> usize {
    let mut keys: Vec<(usize, usize)> = entries.iter().map(|(c, _)| key(c)).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.len()
}

/// A duration printed in milliseconds with three decimals.
struct Millis(Duration);

impl fmt::Display for Millis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = format!("{:.3} ms", self.0.as_secs_f64() * 1e3);
        f.pad(&text)
    }
}
