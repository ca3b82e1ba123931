//! GPU support for `sparse`: device tensors, CUDA C source compiled by NVRTC at run time, a module
//! cache, and kernel launches through `cust`, behind a cargo feature so that the workspace builds
//! and its CPU tests pass with no CUDA installed (the README).
//!
//! - [`Gpu`]: a device, its context and a stream. [`Gpu::new`] returns
//!   [`GpuError::Unavailable`] without the `cuda` feature, a driver or a device.
//!   [`Gpu::simulator`] is a host simulator of the GPU, with or without the feature: device
//!   memory is host memory, and kernels (the same CUDA C source) are compiled as C++ by the system
//!   C++ compiler and run on the CPU, each thread of a block a fiber, so that barriers and warp
//!   shuffles behave as on a device. [`Gpu::for_tests`] picks the device, else the simulator.
//! - [`DeviceTensor<T, F>`]: a tensor in device memory, in any format of the host [`Tensor`];
//!   [`Gpu::upload`], [`Gpu::zeros`], [`Gpu::zeros_like`], [`DeviceTensor::download`].
//! - [`compile_ptx`] and [`compile_cubin`]: NVRTC, opened with `dlopen` when first needed (see the
//!   `nvrtc` module's documentation for where it is looked for). They need no GPU.
//! - Kernel plumbing for generated launchers (hidden from the docs): [`Gpu::launch`] with
//!   [`LaunchShape`] and [`KernelArg`]s, and the device arrays of a [`DeviceTensor`].
//!
//! With the `cuda` feature a binary links `libcuda.so.1` (the driver); NVRTC is never linked.
//!
//! What belongs here: everything that talks to a GPU driver or to NVRTC. What does not: generating
//! the CUDA source (that is the compiler's CUDA emitter).

#![deny(missing_docs)]

mod error;
mod gpu;
mod launch;
mod nvrtc;
mod signature;
mod sim;
mod store;
mod tensor;

#[cfg(feature = "cuda")]
#[path = "driver.rs"]
mod backend;
#[cfg(not(feature = "cuda"))]
#[path = "no_driver.rs"]
mod backend;

pub use error::GpuError;
pub use gpu::Gpu;
pub use launch::LaunchShape;
#[doc(hidden)]
pub use launch::{DeviceArray, KernelArg};
pub use nvrtc::{LIBRARY_NAMES as NVRTC_LIBRARY_NAMES, compile_cubin, compile_ptx, nvrtc_version};
pub use sparse_runtime::{KernelError, Tensor};
pub use tensor::DeviceTensor;

/// Whether this build has the launch path (the `cuda` feature).
pub const CUDA_ENABLED: bool = cfg!(feature = "cuda");

mod sealed {
    /// Seals [`crate::GpuScalar`]: only the four value types of kernels implement it.
    pub trait Sealed: crate::backend::DeviceValue {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
}

/// The value types of device tensors and GPU kernels: f32, f64, i32, i64 (the host
/// [`sparse_runtime::Scalar`]s), with the name of their CUDA C type.
pub trait GpuScalar: sparse_runtime::Scalar + sealed::Sealed {
    /// The CUDA C type: `float`, `double`, `int` or `long long`.
    const CUDA_TYPE: &'static str;

    /// The value as a kernel argument of type `T`, passed by value (a kernel's scalar input):
    /// for the launchers `tensor_kernel!` generates.
    #[doc(hidden)]
    fn kernel_arg(self) -> KernelArg<'static>;
}

macro_rules! gpu_scalars {
    ($($t:ty => $cuda:literal),*) => {$(
        impl GpuScalar for $t {
            const CUDA_TYPE: &'static str = $cuda;

            fn kernel_arg(self) -> KernelArg<'static> {
                KernelArg::from(self)
            }
        }
    )*};
}

gpu_scalars!(f32 => "float", f64 => "double", i32 => "int", i64 => "long long");

/// Whether `SPARSE_REQUIRE_GPU` asks for the GPU (set, not empty and not `0`): the project's GPU
/// tests and examples then fail where they would otherwise skip for want of a device or NVRTC.
pub fn gpu_required() -> bool {
    std::env::var_os("SPARSE_REQUIRE_GPU").is_some_and(|v| !v.is_empty() && v != "0")
}
