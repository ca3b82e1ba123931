//! GPU support for `sparse`: device tensors, CUDA C source compiled to PTX by NVRTC at run time, a
//! module cache, and kernel launches through `cust`, behind a cargo feature so that the workspace
//! builds and its CPU tests pass with no CUDA installed (DESIGN.md §3).
//!
//! What belongs here: everything that talks to a GPU driver. What does not: generating the CUDA
//! source (that is `sparse-compiler`'s `emit::cuda`). The crate is empty until the GPU issue; it
//! re-exports the runtime's tensor so that device tensors can be built from host ones.

pub use sparse_runtime::Tensor;
