#![doc = include_str!("../docs/tour.md")]

#[doc = include_str!("../docs/kernel-language.md")]
pub use sparse_macros::tensor_kernel;
pub use sparse_runtime::*;

/// GPU kernels' runtime: [`gpu::Gpu`], [`gpu::DeviceTensor`], [`gpu::GpuError`], NVRTC. Always
/// present; launches need the `cuda` feature, without which [`gpu::Gpu::new`] returns
/// [`gpu::GpuError::Unavailable`].
pub use sparse_gpu as gpu;

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
