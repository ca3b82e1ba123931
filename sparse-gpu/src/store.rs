//! Where a [`crate::Gpu`]'s memory and launches go: a real device (the `cuda` feature's driver
//! backend) or the host simulator ([`crate::sim`]). [`Handle`] and [`Buffer`] have the interface
//! of the backend's, and dispatch to one or the other.

use crate::GpuError;
use crate::backend;
use crate::launch::{KernelArg, LaunchShape};
use crate::sim::{HostBuffer, Simulator};

/// The value types buffers hold, on either side.
pub(crate) use crate::backend::DeviceValue;

/// A device's handle or the simulator's.
#[derive(Clone)]
pub(crate) enum Handle {
    Device(backend::Handle),
    Simulator(Simulator),
}

/// The error of an operation that mixes the simulator's memory with a device's.
fn mixed() -> GpuError {
    GpuError::Invalid("device memory and simulator memory were used together".into())
}

impl Handle {
    pub(crate) fn open(ordinal: u32) -> Result<Handle, GpuError> {
        backend::Handle::open(ordinal).map(Handle::Device)
    }

    pub(crate) fn is_simulator(&self) -> bool {
        matches!(self, Handle::Simulator(_))
    }

    pub(crate) fn ordinal(&self) -> u32 {
        match self {
            Handle::Device(h) => h.ordinal(),
            Handle::Simulator(_) => 0,
        }
    }

    pub(crate) fn name(&self) -> &str {
        match self {
            Handle::Device(h) => h.name(),
            Handle::Simulator(_) => "host simulator",
        }
    }

    pub(crate) fn capability(&self) -> (u32, u32) {
        match self {
            Handle::Device(h) => h.capability(),
            Handle::Simulator(_) => (0, 0),
        }
    }

    /// Two simulators are one device: all of them use host memory.
    pub(crate) fn same_device(&self, other: &Handle) -> bool {
        match (self, other) {
            (Handle::Device(a), Handle::Device(b)) => a.same_device(b),
            (Handle::Simulator(_), Handle::Simulator(_)) => true,
            _ => false,
        }
    }

    pub(crate) fn synchronize(&self) -> Result<(), GpuError> {
        match self {
            Handle::Device(h) => h.synchronize(),
            // Simulated launches run to completion before `launch` returns.
            Handle::Simulator(_) => Ok(()),
        }
    }

    pub(crate) fn time(
        &self,
        run: &mut dyn FnMut() -> Result<(), GpuError>,
    ) -> Result<f64, GpuError> {
        match self {
            Handle::Device(h) => h.time(run),
            // Simulated launches run to completion before `launch` returns.
            Handle::Simulator(_) => {
                let start = std::time::Instant::now();
                run()?;
                Ok(start.elapsed().as_secs_f64())
            }
        }
    }

    pub(crate) fn bind(&self) -> Result<(), GpuError> {
        match self {
            Handle::Device(h) => h.bind(),
            Handle::Simulator(_) => Ok(()),
        }
    }

    pub(crate) fn upload<V: DeviceValue>(&self, data: &[V]) -> Result<Buffer<V>, GpuError> {
        match self {
            Handle::Device(h) => h.upload(data).map(Buffer::Device),
            Handle::Simulator(_) => Ok(Buffer::Host(HostBuffer::from_slice(data))),
        }
    }

    pub(crate) fn zeroed<V: DeviceValue>(&self, len: usize) -> Result<Buffer<V>, GpuError> {
        match self {
            Handle::Device(h) => h.zeroed(len).map(Buffer::Device),
            Handle::Simulator(_) => Ok(Buffer::Host(HostBuffer::zeroed(len))),
        }
    }

    pub(crate) fn copy<V: DeviceValue>(&self, src: &Buffer<V>) -> Result<Buffer<V>, GpuError> {
        match (self, src) {
            (Handle::Device(h), Buffer::Device(b)) => h.copy(b).map(Buffer::Device),
            (Handle::Simulator(_), Buffer::Host(b)) => Ok(Buffer::Host(b.duplicate())),
            _ => Err(mixed()),
        }
    }

    pub(crate) fn fill_zero<V: DeviceValue>(&self, b: &mut Buffer<V>) -> Result<(), GpuError> {
        match (self, b) {
            (Handle::Device(h), Buffer::Device(b)) => h.fill_zero(b),
            (Handle::Simulator(_), Buffer::Host(b)) => {
                b.fill_zero();
                Ok(())
            }
            _ => Err(mixed()),
        }
    }

    pub(crate) fn fill<V: DeviceValue>(&self, b: &mut Buffer<V>, value: V) -> Result<(), GpuError> {
        match (self, b) {
            (Handle::Device(h), Buffer::Device(b)) => h.fill(b, value),
            (Handle::Simulator(_), Buffer::Host(b)) => {
                b.fill(value);
                Ok(())
            }
            _ => Err(mixed()),
        }
    }

    pub(crate) fn download<V: DeviceValue>(&self, b: &Buffer<V>) -> Result<Vec<V>, GpuError> {
        match (self, b) {
            (Handle::Device(h), Buffer::Device(b)) => h.download(b),
            (Handle::Simulator(_), Buffer::Host(b)) => Ok(b.to_vec()),
            _ => Err(mixed()),
        }
    }

    /// Element `index` of `b`, after the work queued so far.
    pub(crate) fn read<V: DeviceValue>(&self, b: &Buffer<V>, index: usize) -> Result<V, GpuError> {
        match (self, b) {
            (Handle::Device(h), Buffer::Device(b)) => h.read(b, index),
            (Handle::Simulator(_), Buffer::Host(b)) => b
                .get(index)
                .ok_or_else(|| GpuError::Invalid(format!("element {index} of {}", b.len()))),
            _ => Err(mixed()),
        }
    }

    pub(crate) fn launch(
        &self,
        source: &str,
        kernel: &str,
        shape: LaunchShape,
        args: &[KernelArg<'_>],
    ) -> Result<(), GpuError> {
        match self {
            Handle::Device(h) => h.launch(source, kernel, shape, args),
            Handle::Simulator(s) => s.launch(source, kernel, shape, args),
        }
    }
}

/// Device memory (the `cuda` feature) or the simulator's host memory.
pub(crate) enum Buffer<V: DeviceValue> {
    Device(backend::Buffer<V>),
    Host(HostBuffer<V>),
}

impl<V: DeviceValue> Buffer<V> {
    pub(crate) fn len(&self) -> usize {
        match self {
            Buffer::Device(b) => b.len(),
            Buffer::Host(b) => b.len(),
        }
    }

    /// The address a kernel reads: a device address, or a host pointer for the simulator (0 when
    /// empty, either way).
    pub(crate) fn addr(&self) -> u64 {
        match self {
            Buffer::Device(b) => b.addr(),
            Buffer::Host(b) => b.addr(),
        }
    }
}
