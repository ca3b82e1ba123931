//! The launch path through cust (the `cuda` feature): one shared state per device and process (the
//! primary context and the module cache), a stream per [`crate::Gpu`], device buffers, launches.
//!
//! Ordering: the stream is created without `NON_BLOCKING`, so it is ordered with the legacy default
//! stream that cust's synchronous copies, fills and allocations use. An upload is therefore
//! complete before a later launch reads it, and a copy or fill waits for earlier launches.

// Device memory and launches are raw driver calls: each `unsafe` block below states the invariant
// that makes it sound.
#![allow(unsafe_code)]

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use cust::CudaFlags;
use cust::context::{Context, CurrentContext};
use cust::device::{Device, DeviceAttribute};
use cust::error::CudaError;
use cust::event::{Event, EventFlags};
use cust::memory::bytemuck::Zeroable;
use cust::memory::{CopyDestination, DeviceBuffer, DeviceCopy};
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};

use crate::GpuError;
use crate::launch::{KernelArg, LaunchShape};
use crate::signature::{Param, check_args, entry_params};

/// The value types device buffers hold: what cust can copy and zero.
pub trait DeviceValue: DeviceCopy + Zeroable + Default + Send + Sync + 'static {}
impl<T: DeviceCopy + Zeroable + Default + Send + Sync + 'static> DeviceValue for T {}

/// Turns a driver error into a [`GpuError`], saying what was being done.
fn driver(during: impl Into<String>) -> impl FnOnce(CudaError) -> GpuError {
    move |e| GpuError::Driver {
        during: during.into(),
        name: cuda_error_name(e),
        code: e as u32,
    }
}

/// The `CUresult` name of a cust error (`NoDevice` is `CUDA_ERROR_NO_DEVICE`), from its Debug
/// name: cust's Display asks the driver for a string, which fails (and so panics in `to_string`)
/// when the driver itself is what is missing.
fn cuda_error_name(e: CudaError) -> String {
    let debug = format!("{e:?}");
    if e == CudaError::UnknownError {
        return "CUDA_ERROR_UNKNOWN".into();
    }
    let mut name = String::from("CUDA_ERROR");
    for c in debug.chars() {
        if c.is_ascii_uppercase() {
            name.push('_');
        }
        name.push(c.to_ascii_uppercase());
    }
    name
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A module loaded in a device's context, with the parameter lists of its kernels.
#[derive(Clone)]
struct Loaded {
    module: Arc<Module>,
    compiled: Arc<Compiled>,
}

/// What one device has once per process: its primary context and the modules loaded in it.
struct DeviceState {
    // Dropped first: modules belong to the context below.
    modules: Mutex<HashMap<String, Loaded>>,
    ordinal: u32,
    name: String,
    capability: (u32, u32),
    context: Context,
}

/// The live device states, so that every `Gpu` of one device shares one module cache.
static DEVICES: Mutex<Vec<(u32, Weak<DeviceState>)>> = Mutex::new(Vec::new());

impl DeviceState {
    fn get(ordinal: u32) -> Result<Arc<DeviceState>, GpuError> {
        let mut devices = lock(&DEVICES);
        devices.retain(|(_, weak)| weak.strong_count() > 0);
        if let Some(state) = devices
            .iter()
            .filter(|(o, _)| *o == ordinal)
            .find_map(|(_, weak)| weak.upgrade())
        {
            return Ok(state);
        }
        let state = Arc::new(DeviceState::open(ordinal)?);
        devices.push((ordinal, Arc::downgrade(&state)));
        Ok(state)
    }

    fn open(ordinal: u32) -> Result<DeviceState, GpuError> {
        match cust::init(CudaFlags::empty()) {
            Ok(()) => {}
            Err(
                e @ (CudaError::NoDevice | CudaError::NotInitialized | CudaError::UnknownError),
            ) => {
                return Err(GpuError::Unavailable(format!(
                    "the CUDA driver found no usable device (cuInit: {})",
                    cuda_error_name(e)
                )));
            }
            Err(e) => return Err(driver("initializing the CUDA driver")(e)),
        }
        let count = Device::num_devices().map_err(driver("counting devices"))?;
        if ordinal >= count {
            return Err(GpuError::Unavailable(format!(
                "there is no device {ordinal}: the driver sees {count}"
            )));
        }
        let device = Device::get_device(ordinal).map_err(driver("opening the device"))?;
        let attribute = |a| {
            device
                .get_attribute(a)
                .map(|v| u32::try_from(v).unwrap_or(0))
                .map_err(driver("reading the compute capability"))
        };
        let capability = (
            attribute(DeviceAttribute::ComputeCapabilityMajor)?,
            attribute(DeviceAttribute::ComputeCapabilityMinor)?,
        );
        let name = device.name().map_err(driver("reading the device name"))?;
        let context = Context::new(device).map_err(driver("retaining the primary context"))?;
        Ok(DeviceState {
            modules: Mutex::new(HashMap::new()),
            ordinal,
            name,
            capability,
            context,
        })
    }

    /// Makes this device's context current on the calling thread (every call below needs it).
    fn bind(&self) -> Result<(), GpuError> {
        CurrentContext::set_current(&self.context).map_err(driver("making the context current"))
    }

    /// The module of `source`, compiled by NVRTC and loaded the first time it is asked for.
    fn module(&self, source: &str) -> Result<Loaded, GpuError> {
        let mut modules = lock(&self.modules);
        if let Some(m) = modules.get(source) {
            return Ok(m.clone());
        }
        let (major, minor) = self.capability;
        let compiled = compiled(source, &format!("sm_{major}{minor}"))?;
        let module = Module::from_cubin(&compiled.cubin, &[])
            .map_err(driver("loading a compiled module"))?;
        let loaded = Loaded {
            module: Arc::new(module),
            compiled,
        };
        modules.insert(source.to_string(), loaded.clone());
        Ok(loaded)
    }
}

/// A kernel source compiled for one architecture: the cubin that is loaded, and the parameter
/// list of each kernel in it (read from the PTX of the same compilation).
struct Compiled {
    cubin: Vec<u8>,
    params: HashMap<String, Vec<Param>>,
}

/// Compilations by architecture and source, kept for the whole process: a device state is dropped
/// with its last `Gpu`, and a later one reloads its modules without compiling them again.
type CompiledCache = HashMap<(String, String), Arc<Compiled>>;
static COMPILED: Mutex<Option<CompiledCache>> = Mutex::new(None);

/// `source` compiled for `arch` by NVRTC, the first time it is asked for.
fn compiled(source: &str, arch: &str) -> Result<Arc<Compiled>, GpuError> {
    let key = (arch.to_string(), source.to_string());
    if let Some(c) = lock(&COMPILED).as_ref().and_then(|m| m.get(&key)) {
        return Ok(Arc::clone(c));
    }
    // Compiled without the lock held, so that other kernels compile meanwhile; two threads that
    // race on one source both compile it, and the second result replaces the first.
    let (cubin, ptx) = crate::nvrtc::compile_for_launch(source, arch)?;
    let c = Arc::new(Compiled {
        cubin,
        params: entry_params(&ptx),
    });
    lock(&COMPILED)
        .get_or_insert_with(HashMap::new)
        .insert(key, Arc::clone(&c));
    Ok(c)
}

/// One [`crate::Gpu`]'s handle: its stream on a shared device state.
#[derive(Clone)]
pub(crate) struct Handle {
    queue: Arc<Queue>,
}

struct Queue {
    // Dropped before the state, whose context owns it.
    stream: Stream,
    state: Arc<DeviceState>,
}

impl Drop for Queue {
    fn drop(&mut self) {
        // The stream is destroyed in its context, whichever thread drops the last handle.
        let _ = self.state.bind();
    }
}

impl Drop for DeviceState {
    fn drop(&mut self) {
        // Modules are unloaded in their context, before the context is released.
        let _ = self.bind();
    }
}

impl Handle {
    pub(crate) fn open(ordinal: u32) -> Result<Handle, GpuError> {
        let state = DeviceState::get(ordinal)?;
        state.bind()?;
        let stream =
            Stream::new(StreamFlags::DEFAULT, None).map_err(driver("creating a stream"))?;
        Ok(Handle {
            queue: Arc::new(Queue { stream, state }),
        })
    }

    fn state(&self) -> &DeviceState {
        &self.queue.state
    }

    pub(crate) fn ordinal(&self) -> u32 {
        self.state().ordinal
    }

    pub(crate) fn name(&self) -> &str {
        &self.state().name
    }

    pub(crate) fn capability(&self) -> (u32, u32) {
        self.state().capability
    }

    pub(crate) fn same_device(&self, other: &Handle) -> bool {
        Arc::ptr_eq(&self.queue.state, &other.queue.state)
    }

    pub(crate) fn synchronize(&self) -> Result<(), GpuError> {
        self.state().bind()?;
        self.queue
            .stream
            .synchronize()
            .map_err(driver("waiting for the stream (a launch may have failed)"))
    }

    /// Seconds between an event recorded on the stream before `run` queues its work and one
    /// recorded after, once the second has passed: the device's time for that work alone.
    pub(crate) fn time(
        &self,
        run: &mut dyn FnMut() -> Result<(), GpuError>,
    ) -> Result<f64, GpuError> {
        self.state().bind()?;
        let event = || Event::new(EventFlags::DEFAULT).map_err(driver("creating an event"));
        let (start, end) = (event()?, event()?);
        let stream = &self.queue.stream;
        start.record(stream).map_err(driver("recording an event"))?;
        run()?;
        end.record(stream).map_err(driver("recording an event"))?;
        end.synchronize()
            .map_err(driver("waiting for an event (a launch may have failed)"))?;
        let ms = end
            .elapsed_time_f32(&start)
            .map_err(driver("reading an event"))?;
        Ok(f64::from(ms) / 1e3)
    }

    pub(crate) fn upload<V: DeviceValue>(&self, data: &[V]) -> Result<Buffer<V>, GpuError> {
        self.state().bind()?;
        let bytes = size_of_val(data);
        let inner =
            DeviceBuffer::from_slice(data).map_err(driver(format!("uploading {bytes} bytes")))?;
        Ok(Buffer { inner })
    }

    pub(crate) fn zeroed<V: DeviceValue>(&self, len: usize) -> Result<Buffer<V>, GpuError> {
        if len == 0 {
            // No allocation and no memset (which a null address would fail).
            return self.upload(&[]);
        }
        self.state().bind()?;
        let during = || format!("allocating {len} zeroed values");
        let inner = DeviceBuffer::zeroed(len).map_err(driver(during()))?;
        Ok(Buffer { inner })
    }

    /// Makes the device's context current on this thread: done before anything that frees device
    /// resources, which the driver does only in the current context.
    pub(crate) fn bind(&self) -> Result<(), GpuError> {
        self.state().bind()
    }

    pub(crate) fn copy<V: DeviceValue>(&self, src: &Buffer<V>) -> Result<Buffer<V>, GpuError> {
        let mut out = self.zeroed::<V>(src.len())?;
        // Equal lengths, as cust's copy requires (it asserts them).
        out.inner
            .copy_from(&src.inner)
            .map_err(driver("copying on the device"))?;
        Ok(out)
    }

    pub(crate) fn fill_zero<V: DeviceValue>(&self, buffer: &mut Buffer<V>) -> Result<(), GpuError> {
        self.state().bind()?;
        buffer
            .inner
            .set_zero()
            .map_err(driver("zeroing device memory"))
    }

    pub(crate) fn fill<V: DeviceValue>(
        &self,
        buffer: &mut Buffer<V>,
        value: V,
    ) -> Result<(), GpuError> {
        self.state().bind()?;
        let values = vec![value; buffer.inner.len()];
        buffer
            .inner
            .copy_from(&values[..])
            .map_err(driver("filling device memory"))
    }

    pub(crate) fn download<V: DeviceValue>(&self, buffer: &Buffer<V>) -> Result<Vec<V>, GpuError> {
        self.synchronize()?;
        buffer
            .inner
            .as_host_vec()
            .map_err(driver("downloading device memory"))
    }

    /// Element `index` of `buffer`, after the work queued so far (one small copy).
    pub(crate) fn read<V: DeviceValue>(
        &self,
        buffer: &Buffer<V>,
        index: usize,
    ) -> Result<V, GpuError> {
        self.synchronize()?;
        let mut value = [V::zeroed()];
        let slice = (buffer.inner.len() > index).then(|| buffer.inner.index(index..index + 1));
        let Some(slice) = slice else {
            return Err(GpuError::Invalid(format!(
                "element {index} of {}",
                buffer.inner.len()
            )));
        };
        slice
            .copy_to(&mut value[..])
            .map_err(driver("reading device memory"))?;
        Ok(value[0])
    }

    pub(crate) fn launch(
        &self,
        source: &str,
        kernel: &str,
        shape: LaunchShape,
        args: &[KernelArg<'_>],
    ) -> Result<(), GpuError> {
        self.state().bind()?;
        let loaded = self.state().module(source)?;
        if let Some(params) = loaded.compiled.params.get(kernel) {
            check_args(kernel, params, args)?;
        }
        let function = loaded
            .module
            .get_function(kernel)
            .map_err(driver(format!("finding kernel `{kernel}` in its module")))?;
        let pointers: Vec<*mut c_void> = args.iter().map(KernelArg::as_param).collect();
        // SAFETY: `pointers` holds one pointer per kernel parameter (the count and each size and
        // class were checked against the kernel's PTX above), each to a live value inside `args`
        // (borrowed for the whole call); cuLaunchKernel copies the values before it returns. Device addresses in `args` come from buffers that the
        // borrows in `KernelArg` keep alive; that they match the kernel's parameter list, in order
        // and type, is the contract of the generated launcher (see `Gpu::launch`).
        unsafe {
            self.queue.stream.launch(
                &function,
                (shape.grid[0], shape.grid[1], shape.grid[2]),
                (shape.block[0], shape.block[1], shape.block[2]),
                shape.shared_bytes,
                &pointers,
            )
        }
        .map_err(driver(format!("launching `{kernel}`")))
    }
}

/// Device memory for `len` values of `V`, freed on drop.
pub(crate) struct Buffer<V: DeviceValue> {
    inner: DeviceBuffer<V>,
}

impl<V: DeviceValue> Buffer<V> {
    pub(crate) fn len(&self) -> usize {
        self.inner.len()
    }

    /// The device address of the first value (0 for an empty buffer).
    pub(crate) fn addr(&self) -> u64 {
        self.inner.as_device_ptr().as_raw()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_carry_the_cuda_names() {
        assert_eq!(cuda_error_name(CudaError::NoDevice), "CUDA_ERROR_NO_DEVICE");
        assert_eq!(
            cuda_error_name(CudaError::InvalidPtx),
            "CUDA_ERROR_INVALID_PTX"
        );
        assert_eq!(
            cuda_error_name(CudaError::UnknownError),
            "CUDA_ERROR_UNKNOWN"
        );
        let e = driver("launching `k`")(CudaError::IllegalAddress);
        assert_eq!(
            e.to_string(),
            "CUDA driver error CUDA_ERROR_ILLEGAL_ADDRESS (700) while launching `k`"
        );
    }

    #[test]
    fn the_stub_driver_is_unavailable_not_an_error() {
        // Here (CI) libcuda is the stub, whose cuInit answers CUDA_ERROR_NO_DEVICE; with a real
        // device the handle opens.
        match Handle::open(0) {
            Ok(h) => assert!(!h.name().is_empty()),
            Err(e) => assert!(e.is_unavailable(), "{e}"),
        }
    }
}
