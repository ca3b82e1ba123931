//! The compile-fail tests of the whole `sparse` workspace, kept in one crate so that their
//! `.stderr` snapshots are compiled against one toolchain (pinned in `rust-toolchain.toml`) and one
//! set of dependencies.
//!
//! `tests/ui/*.rs` must fail to compile with exactly the diagnostics in the `.stderr` file beside
//! each; `tests/ui/pass/*.rs` are their twins that must compile, so every case can fail in both
//! directions. Files are named `<clause>-<mistake>.rs`, one mistake per file: the format and
//! schedule errors of `tensor_kernel!` belong here too. `TRYBUILD=overwrite cargo test -p sparse-ui`
//! rewrites the snapshots; read the diff before committing it.
//!
//! The library itself is empty.
