//! The launch path without the `cuda` feature: the same interface as `driver.rs`, whose handle and
//! buffers cannot exist (they hold an uninhabited value), so that everything type-checks and
//! [`crate::Gpu::new`] answers [`GpuError::Unavailable`].

use std::convert::Infallible;
use std::marker::PhantomData;

use crate::GpuError;
use crate::launch::{KernelArg, LaunchShape};

/// The value types device buffers hold.
pub trait DeviceValue: Copy + Default + Send + Sync + 'static {}
impl<T: Copy + Default + Send + Sync + 'static> DeviceValue for T {}

/// Never constructed: there is no device without the `cuda` feature.
#[derive(Clone)]
pub(crate) struct Handle {
    never: Infallible,
}

impl Handle {
    pub(crate) fn open(_ordinal: u32) -> Result<Handle, GpuError> {
        Err(GpuError::Unavailable(
            "sparse was built without its `cuda` feature".into(),
        ))
    }

    pub(crate) fn ordinal(&self) -> u32 {
        match self.never {}
    }

    pub(crate) fn name(&self) -> &str {
        match self.never {}
    }

    pub(crate) fn capability(&self) -> (u32, u32) {
        match self.never {}
    }

    pub(crate) fn same_device(&self, _other: &Handle) -> bool {
        match self.never {}
    }

    pub(crate) fn synchronize(&self) -> Result<(), GpuError> {
        match self.never {}
    }

    pub(crate) fn time(
        &self,
        _run: &mut dyn FnMut() -> Result<(), GpuError>,
    ) -> Result<f64, GpuError> {
        match self.never {}
    }

    pub(crate) fn bind(&self) -> Result<(), GpuError> {
        match self.never {}
    }

    pub(crate) fn upload<V: DeviceValue>(&self, _data: &[V]) -> Result<Buffer<V>, GpuError> {
        match self.never {}
    }

    pub(crate) fn zeroed<V: DeviceValue>(&self, _len: usize) -> Result<Buffer<V>, GpuError> {
        match self.never {}
    }

    pub(crate) fn copy<V: DeviceValue>(&self, _src: &Buffer<V>) -> Result<Buffer<V>, GpuError> {
        match self.never {}
    }

    pub(crate) fn fill_zero<V: DeviceValue>(&self, _b: &mut Buffer<V>) -> Result<(), GpuError> {
        match self.never {}
    }

    pub(crate) fn fill<V: DeviceValue>(&self, _b: &mut Buffer<V>, _v: V) -> Result<(), GpuError> {
        match self.never {}
    }

    pub(crate) fn read<V: DeviceValue>(&self, _b: &Buffer<V>, _i: usize) -> Result<V, GpuError> {
        match self.never {}
    }

    pub(crate) fn download<V: DeviceValue>(&self, _b: &Buffer<V>) -> Result<Vec<V>, GpuError> {
        match self.never {}
    }

    pub(crate) fn launch(
        &self,
        _source: &str,
        _kernel: &str,
        _shape: LaunchShape,
        _args: &[KernelArg<'_>],
    ) -> Result<(), GpuError> {
        match self.never {}
    }
}

/// Never constructed, like [`Handle`].
pub(crate) struct Buffer<V: DeviceValue> {
    never: Infallible,
    _values: PhantomData<V>,
}

impl<V: DeviceValue> Buffer<V> {
    pub(crate) fn len(&self) -> usize {
        match self.never {}
    }

    pub(crate) fn addr(&self) -> u64 {
        match self.never {}
    }
}
