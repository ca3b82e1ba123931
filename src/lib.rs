#![doc = include_str!("../docs/tour.md")]
#![deny(missing_docs)]

// Generated code names the facade `::sparse`; this lets kernels inside this crate do so too.
extern crate self as sparse;

#[doc = include_str!("../docs/kernel-language.md")]
pub use sparse_macros::tensor_kernel;
pub use sparse_runtime::*;

/// GPU kernels' runtime: [`gpu::Gpu`], [`gpu::DeviceTensor`], [`gpu::GpuError`], NVRTC. Always
/// present; launches need the `cuda` feature, without which [`gpu::Gpu::new`] returns
/// [`gpu::GpuError::Unavailable`].
pub use sparse_gpu as gpu;

/// The `sprs` crate (feature `sprs`), whose `CsMatI` converts to and from CSR and CSC tensors
/// with `TryFrom`: the index and value `Vec`s move for `CsMatI<T, u32>`, the tensors' index type.
#[cfg(feature = "sprs")]
pub use sprs;

/// The `nalgebra-sparse` crate (feature `nalgebra-sparse`), whose `CsrMatrix`, `CscMatrix` and
/// `CooMatrix` convert to and from tensors with `TryFrom`: values move, `usize` indices are
/// converted to and from the tensors' `u32`.
#[cfg(feature = "nalgebra-sparse")]
pub use nalgebra_sparse;

/// The `ndarray` crate (feature `ndarray`), whose `ArrayD` converts to and from dense tensors
/// with `TryFrom`, moving the values.
#[cfg(feature = "ndarray")]
pub use ndarray;

/// Everything a kernel's caller usually needs.
pub mod prelude {
    pub use sparse_macros::tensor_kernel;
    pub use sparse_runtime::{
        Bcsr, BitVec, Coo, Csc, Csf, Csr, Dcsc, Dcsr, Dense, DenseMat, DenseVec, Dia, Ell, Entries,
        ExplicitZeros, Format, FormatError, HashMat, HashVec, KernelError, Scalar, SparseVec,
        Tensor,
    };
}

/// The README's examples, compiled and run as doctests so the README stays true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

#[cfg(test)]
mod tests {
    /// Without the `cuda` feature there is no device, only an error that says so.
    #[test]
    fn the_gpu_module_is_always_there() {
        let cuda = cfg!(feature = "cuda");
        match crate::gpu::Gpu::new(0) {
            Ok(gpu) => assert!(cuda, "a device without the cuda feature: {gpu:?}"),
            Err(e) => assert!(e.is_unavailable() || cuda, "{e}"),
        }
    }
}
