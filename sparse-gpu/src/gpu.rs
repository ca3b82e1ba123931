//! [`Gpu`]: one device, its context and a stream, through which tensors are uploaded and kernels
//! launched.

use std::fmt;

use sparse_runtime::{Format, Tensor};

use crate::launch::{KernelArg, LaunchShape};
use crate::sim::Simulator;
use crate::store::Handle;
use crate::{DeviceTensor, GpuError, GpuScalar, gpu_required};

/// A CUDA device with its (primary) context and a stream of its own, or the host simulator of
/// one ([`Gpu::simulator`]).
///
/// Launches are asynchronous on the stream; [`Gpu::synchronize`] and [`DeviceTensor::download`]
/// wait for them and report their failures. Cloning is cheap and keeps the same stream. Every
/// `Gpu` of one device in a process shares one module cache, so a kernel is compiled once per
/// device.
///
/// ```
/// use sparse_gpu::{Gpu, GpuError};
///
/// match Gpu::new(0) {
///     Ok(gpu) => println!("{} (sm_{}{})", gpu.name(), gpu.compute_capability().0, gpu.compute_capability().1),
///     Err(GpuError::Unavailable(why)) => println!("no GPU: {why}"),
///     Err(e) => return Err(e),
/// }
/// # Ok::<(), GpuError>(())
/// ```
#[derive(Clone)]
pub struct Gpu {
    pub(crate) handle: Handle,
}

impl Gpu {
    /// Opens device `ordinal` (0 is the first). [`GpuError::Unavailable`] when the `cuda` feature
    /// is off, when there is no driver or no such device.
    pub fn new(ordinal: u32) -> Result<Gpu, GpuError> {
        Ok(Gpu {
            handle: Handle::open(ordinal)?,
        })
    }

    /// The host simulator of a GPU: "device" memory is host memory, and [`Gpu::launch`] compiles
    /// the CUDA C source as C++ with the system C++ compiler (`$CXX`, else `c++`, `g++` or
    /// `clang++`), with a shim header for the CUDA built-ins, and runs the grid on the calling
    /// thread: blocks in order, the threads of a block as fibers that meet at `__syncthreads()`,
    /// `__syncwarp()` and the warp shuffles. Launches are synchronous. Works with or without the
    /// `cuda` feature; [`GpuError::Unavailable`] when no C++ compiler is found (or off Unix).
    ///
    /// Every simulator is the same device (host memory): tensors move freely between them, never
    /// to or from a real device. Its ordinal is 0, its name `host simulator` and its compute
    /// capability `(0, 0)`. Compiled kernels are cached on disk (see the crate's `sim` module:
    /// `SPARSE_GPU_SIM_CACHE`, else a directory under the system's temporary directory).
    ///
    /// Where the CUDA subset it supports ends, and what a simulated launch cannot catch (an
    /// out-of-bounds access is a host memory error, not `CUDA_ERROR_ILLEGAL_ADDRESS`), is written
    /// in `src/sim/cuda_shim.h`.
    pub fn simulator() -> Result<Gpu, GpuError> {
        Ok(Gpu {
            handle: Handle::Simulator(Simulator::open()?),
        })
    }

    /// What tests and examples run GPU kernels on: device 0 when it can be used, else the host
    /// simulator ([`Gpu::simulator`]); but when `SPARSE_REQUIRE_GPU` is set (not empty, not `0`),
    /// no usable device is an error (the device's [`GpuError::Unavailable`]) rather than a
    /// simulator. Errors other than "unavailable" from the device are returned as they are.
    pub fn for_tests() -> Result<Gpu, GpuError> {
        match Gpu::new(0) {
            Ok(gpu) => Ok(gpu),
            Err(e) if e.is_unavailable() && !gpu_required() => Gpu::simulator(),
            Err(e) => Err(e),
        }
    }

    /// Whether this is the host simulator ([`Gpu::simulator`]) rather than a device.
    pub fn is_simulator(&self) -> bool {
        self.handle.is_simulator()
    }

    /// The device's ordinal.
    pub fn ordinal(&self) -> u32 {
        self.handle.ordinal()
    }

    /// The device's name, as the driver reports it.
    pub fn name(&self) -> &str {
        self.handle.name()
    }

    /// The device's compute capability, `(major, minor)`: `(9, 0)` for an H100.
    pub fn compute_capability(&self) -> (u32, u32) {
        self.handle.capability()
    }

    /// The device's time, in seconds, for the work `run` queues on this `Gpu`'s stream (CUDA
    /// events recorded before and after it; wall-clock time on the simulator). For benchmarks:
    /// it waits for that work to finish.
    pub fn time(&self, mut run: impl FnMut() -> Result<(), GpuError>) -> Result<f64, GpuError> {
        self.handle.time(&mut run)
    }

    /// Waits for everything queued on this `Gpu`'s stream; reports a launch that failed.
    pub fn synchronize(&self) -> Result<(), GpuError> {
        self.handle.synchronize()
    }

    /// Copies a host tensor (already validated by its constructor) to the device: every level
    /// array and the values.
    pub fn upload<T: GpuScalar, F: Format>(
        &self,
        tensor: &Tensor<T, F>,
    ) -> Result<DeviceTensor<T, F>, GpuError> {
        DeviceTensor::upload(self, tensor)
    }

    /// A device tensor of `shape` with no stored entries: for a dense format, all values zero (the
    /// output of a dense kernel); for a sparse one, the empty structure, which a kernel that takes
    /// its structure from an input replaces ([`DeviceTensor::copy_structure_from`]).
    pub fn zeros<T: GpuScalar, F: Format>(
        &self,
        shape: impl AsRef<[usize]>,
    ) -> Result<DeviceTensor<T, F>, GpuError> {
        DeviceTensor::zeros(self, shape.as_ref())
    }

    /// A device tensor with the structure (shape and every level array) of `other`, copied on the
    /// device, and all values zero: the output of a kernel that computes values on an input's
    /// pattern (SDDMM, TTV). `other` may hold another value type.
    pub fn zeros_like<T: GpuScalar, U: GpuScalar, F: Format>(
        &self,
        other: &DeviceTensor<U, F>,
    ) -> Result<DeviceTensor<T, F>, GpuError> {
        DeviceTensor::zeros_like(self, other)
    }

    /// Queues kernel `kernel` of the CUDA C `source` on this `Gpu`'s stream. The source is
    /// compiled by NVRTC for this device's architecture and loaded once per device and process
    /// (the cache is keyed by the source text); a launch of no threads (a 0 in the grid or block)
    /// is skipped. Failures of the kernel itself show at the next [`Gpu::synchronize`] or
    /// download.
    ///
    /// Kernel plumbing for the launchers that `tensor_kernel!` generates. The number of `args` and
    /// each one's size and class (integer or floating point) are checked against the kernel's
    /// parameter list (read from the PTX of the same compilation): a mismatch is
    /// [`GpuError::Invalid`]. What cannot be checked is the launcher's contract: a
    /// [`KernelArg::Array`] for each pointer parameter, of the element type the kernel reads,
    /// and arrays as long as the kernel's indexing assumes (the generated launcher checks the
    /// tensors' shapes before launching).
    ///
    /// On the simulator the launch runs to completion before this returns (a barrier that not
    /// every thread reaches is reported here); the parameter list is the one the C++ compiler
    /// gives the kernel, and a source the C++ compiler refuses is [`GpuError::Nvrtc`] with its log.
    #[doc(hidden)]
    pub fn launch(
        &self,
        source: &str,
        kernel: &str,
        shape: LaunchShape,
        args: &[KernelArg<'_>],
    ) -> Result<(), GpuError> {
        if shape.is_empty() {
            return Ok(());
        }
        self.handle.launch(source, kernel, shape, args)
    }

    /// Whether `self` and `other` are the same device (and so share memory and modules).
    pub fn same_device(&self, other: &Gpu) -> bool {
        self.handle.same_device(&other.handle)
    }
}

impl fmt::Debug for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (major, minor) = self.compute_capability();
        f.debug_struct("Gpu")
            .field("ordinal", &self.ordinal())
            .field("name", &self.name())
            .field("compute_capability", &format_args!("{major}.{minor}"))
            .field("simulator", &self.is_simulator())
            .finish()
    }
}
