//! Level formats and tensor formats as `const` data, shared by the runtime (whose `Tensor<T, F>` is
//! typed by a [`Format`]) and the compiler (which reads the same level lists when it generates a
//! kernel), so that the two can never disagree on what `csr` means.
//!
//! What belongs here: the declarations of Chou et al. 2018 (level kinds, the
//! coordinate each level stores, properties, the named compositions) and nothing that needs data.
//! It has no dependencies, so the proc-macro side builds it in a moment.

#![deny(missing_docs)]

pub mod format;
pub mod level;
pub mod named;

pub use format::*;
pub use level::{Coord, LevelKind, LevelSpec, Properties};
pub use named::{Custom, NamedFormat, NamedFormatError, encode_levels, named_format};
