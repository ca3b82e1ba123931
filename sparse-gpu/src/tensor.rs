//! [`DeviceTensor<T, F>`]: a tensor's level arrays and values in device memory, in the same format
//! `F` as the host [`Tensor<T, F>`] it came from.

use std::fmt;
use std::marker::PhantomData;

use sparse_runtime::{Format, Idx, Level, LevelSpec, Tensor};

use crate::launch::DeviceArray;
use crate::store::Buffer;
use crate::{Gpu, GpuError, GpuScalar};

/// One level on the device: the sizes stay on the host, the arrays are device buffers.
enum DeviceLevel {
    Dense {
        size: usize,
    },
    Compressed {
        pos: Buffer<Idx>,
        crd: Buffer<Idx>,
    },
    Singleton {
        crd: Buffer<Idx>,
    },
    Range {
        size: usize,
        bound: usize,
        offsets: Buffer<i64>,
    },
    Offset,
    Hashed {
        buckets: usize,
        crd: Buffer<Idx>,
    },
}

impl DeviceLevel {
    /// The number of positions of this level under `parent` positions of the level above, as
    /// the host's `Level::positions` counts them.
    fn positions(&self, parent: usize) -> Option<usize> {
        match self {
            DeviceLevel::Dense { size } | DeviceLevel::Range { size, .. } => {
                parent.checked_mul(*size)
            }
            DeviceLevel::Hashed { buckets, .. } => parent.checked_mul(*buckets),
            DeviceLevel::Compressed { crd, .. } | DeviceLevel::Singleton { crd } => Some(crd.len()),
            DeviceLevel::Offset => Some(parent),
        }
    }
}

/// A tensor in device memory, of value type `T` and format `F`.
///
/// Made by [`Gpu::upload`] from a host tensor, by [`Gpu::zeros`] or [`Gpu::zeros_like`]; read
/// back with [`DeviceTensor::download`]. Its level arrays are those of the host tensor, index
/// arrays as the runtime's compact [`Idx`], so a kernel indexes them as the CPU kernels do.
pub struct DeviceTensor<T: GpuScalar, F: Format> {
    // The buffers are dropped before the `Gpu`, whose context they belong to.
    levels: Vec<DeviceLevel>,
    vals: Buffer<T>,
    shape: Vec<usize>,
    gpu: Gpu,
    format: PhantomData<F>,
}

impl<T: GpuScalar, F: Format> DeviceTensor<T, F> {
    pub(crate) fn upload(gpu: &Gpu, tensor: &Tensor<T, F>) -> Result<Self, GpuError> {
        Ok(DeviceTensor {
            levels: upload_levels(gpu, tensor.levels())?,
            vals: gpu.handle.upload(tensor.values())?,
            shape: tensor.shape().to_vec(),
            gpu: gpu.clone(),
            format: PhantomData,
        })
    }

    pub(crate) fn zeros(gpu: &Gpu, shape: &[usize]) -> Result<Self, GpuError> {
        // The empty structure of any format is what the host runtime builds (checking the shape);
        // its values are allocated zeroed on the device rather than copied.
        let host = Tensor::<T, F>::try_zeros(shape)?;
        Ok(DeviceTensor {
            levels: upload_levels(gpu, host.levels())?,
            vals: gpu.handle.zeroed(host.stored_len())?,
            shape: host.shape().to_vec(),
            gpu: gpu.clone(),
            format: PhantomData,
        })
    }

    pub(crate) fn zeros_like<U: GpuScalar>(
        gpu: &Gpu,
        other: &DeviceTensor<U, F>,
    ) -> Result<Self, GpuError> {
        other.check_device(gpu)?;
        Ok(DeviceTensor {
            levels: copy_levels(gpu, &other.levels)?,
            vals: gpu.handle.zeroed(other.vals.len())?,
            shape: other.shape.clone(),
            gpu: gpu.clone(),
            format: PhantomData,
        })
    }

    /// Copies the tensor back to the host, after waiting for every launch queued on its `Gpu`
    /// (a launch that failed is reported here). The structure is validated as any raw arrays
    /// are ([`Tensor::from_parts`]): a kernel that wrote a broken structure gives
    /// [`GpuError::Kernel`]. Padding is not told apart from stored zeros, so the `nnz` of a
    /// padded format (ELL, DIA, BCSR) counts every stored position.
    pub fn download(&self) -> Result<Tensor<T, F>, GpuError> {
        let h = &self.gpu.handle;
        h.synchronize()?;
        let levels = self
            .levels
            .iter()
            .map(|level| {
                Ok(match level {
                    DeviceLevel::Dense { size } => Level::Dense { size: *size },
                    DeviceLevel::Compressed { pos, crd } => Level::Compressed {
                        pos: h.download(pos)?,
                        crd: h.download(crd)?,
                    },
                    DeviceLevel::Singleton { crd } => Level::Singleton {
                        crd: h.download(crd)?,
                    },
                    DeviceLevel::Range {
                        size,
                        bound,
                        offsets,
                    } => Level::Range {
                        size: *size,
                        bound: *bound,
                        offsets: h.download(offsets)?,
                    },
                    DeviceLevel::Offset => Level::Offset,
                    DeviceLevel::Hashed { buckets, crd } => Level::Hashed {
                        buckets: *buckets,
                        crd: h.download(crd)?,
                    },
                })
            })
            .collect::<Result<Vec<_>, GpuError>>()?;
        let vals = h.download(&self.vals)?;
        Ok(Tensor::from_parts(self.shape.clone(), levels, vals)?)
    }

    /// Gives this tensor the structure of `other`'s first levels (any value type), copied on the
    /// device, with every value zero: what a kernel whose output takes an input's pattern does
    /// before computing the values (SDDMM's output has all of B's levels, TTV's the first two of
    /// B's three). `other`'s first levels must be this format's levels, over the same extents.
    pub fn copy_structure_from<U: GpuScalar, G: Format>(
        &mut self,
        other: &DeviceTensor<U, G>,
    ) -> Result<(), GpuError> {
        other.check_device(&self.gpu)?;
        let n = F::LEVELS.len();
        let same_levels = G::LEVELS.get(..n) == Some(F::LEVELS);
        // Equal level lists store the same logical dimensions, the output's among its own.
        let same_extents = other.shape.get(..self.shape.len()) == Some(&self.shape[..]);
        if !same_levels || !same_extents {
            return Err(GpuError::Invalid(format!(
                "the structure of a {} tensor of shape {:?} cannot be copied into a {} tensor of \
                 shape {:?}",
                G::NAME,
                other.shape,
                F::NAME,
                self.shape
            )));
        }
        let levels = copy_levels(&self.gpu, &other.levels[..n])?;
        let positions = levels
            .iter()
            .try_fold(1usize, |parent, level| level.positions(parent))
            .ok_or_else(|| GpuError::Invalid("the copied structure is too large".into()))?;
        let vals = self.gpu.handle.zeroed(positions)?;
        self.levels = levels;
        self.vals = vals;
        Ok(())
    }

    /// Sets every stored value to zero, keeping the structure.
    pub fn zero_values(&mut self) -> Result<(), GpuError> {
        self.gpu.handle.fill_zero(&mut self.vals)
    }

    /// Sets every stored value to `value`, keeping the structure (a kernel whose reduction
    /// starts from another identity than zero, `+inf` for `min`, sets its output so).
    pub fn fill_values(&mut self, value: T) -> Result<(), GpuError> {
        self.gpu.handle.fill(&mut self.vals, value)
    }

    /// The logical shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of logical dimensions.
    pub fn order(&self) -> usize {
        F::ORDER
    }

    /// The format's level list.
    pub fn format_levels(&self) -> &'static [LevelSpec] {
        F::LEVELS
    }

    /// The length of the values array, padding and empty hash buckets included.
    pub fn stored_len(&self) -> usize {
        self.vals.len()
    }

    /// The device the tensor lives on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// An error unless the tensor lives on `gpu`'s device: a launcher calls it for each of its
    /// tensors before launching on the output's `Gpu`.
    pub fn check_device(&self, gpu: &Gpu) -> Result<(), GpuError> {
        if self.gpu.same_device(gpu) {
            return Ok(());
        }
        Err(GpuError::Invalid(format!(
            "a tensor on device {} ({}) was used with device {} ({})",
            self.gpu.ordinal(),
            self.gpu.name(),
            gpu.ordinal(),
            gpu.name()
        )))
    }

    /// The `pos` array of level `k` (empty unless it is compressed). Kernel plumbing.
    #[doc(hidden)]
    pub fn pos_array(&self, k: usize) -> DeviceArray<'_> {
        match self.levels.get(k) {
            Some(DeviceLevel::Compressed { pos, .. }) => array(pos),
            _ => DeviceArray::empty(),
        }
    }

    /// `pos[index]` of level `k`, read back from the device after the work queued so far: what a
    /// launcher needs when a kernel's grid depends on a segment's length (a position loop over a
    /// sparse vector). Kernel plumbing.
    #[doc(hidden)]
    pub fn pos_value(&self, k: usize, index: usize) -> Result<usize, GpuError> {
        match self.levels.get(k) {
            Some(DeviceLevel::Compressed { pos, .. }) => {
                Ok(self.gpu.handle.read(pos, index)? as usize)
            }
            _ => Err(GpuError::Invalid(format!("level {k} has no `pos` array"))),
        }
    }

    /// The `crd` array of level `k` (empty unless it is compressed, singleton or hashed). Kernel
    /// plumbing.
    #[doc(hidden)]
    pub fn crd_array(&self, k: usize) -> DeviceArray<'_> {
        match self.levels.get(k) {
            Some(
                DeviceLevel::Compressed { crd, .. }
                | DeviceLevel::Singleton { crd }
                | DeviceLevel::Hashed { crd, .. },
            ) => array(crd),
            _ => DeviceArray::empty(),
        }
    }

    /// The DIA offsets (`long long`) of level `k` (empty unless it is a range level). Kernel
    /// plumbing.
    #[doc(hidden)]
    pub fn offsets_array(&self, k: usize) -> DeviceArray<'_> {
        match self.levels.get(k) {
            Some(DeviceLevel::Range { offsets, .. }) => array(offsets),
            _ => DeviceArray::empty(),
        }
    }

    /// The size of level `k`: the dimension of a dense or range level, the buckets of a hashed
    /// one, 0 otherwise (as [`Level::size`]). Kernel plumbing.
    #[doc(hidden)]
    pub fn level_size(&self, k: usize) -> usize {
        match self.levels.get(k) {
            Some(DeviceLevel::Dense { size } | DeviceLevel::Range { size, .. }) => *size,
            Some(DeviceLevel::Hashed { buckets, .. }) => *buckets,
            _ => 0,
        }
    }

    /// The values array, for a kernel that reads it. Kernel plumbing.
    #[doc(hidden)]
    pub fn values_array(&self) -> DeviceArray<'_> {
        array(&self.vals)
    }

    /// The values array, for a kernel that writes it. Kernel plumbing.
    #[doc(hidden)]
    pub fn values_array_mut(&mut self) -> DeviceArray<'_> {
        array(&self.vals)
    }
}

impl<T: GpuScalar, F: Format> Drop for DeviceTensor<T, F> {
    fn drop(&mut self) {
        // The buffers (dropped right after this) are freed in the device's context, which need
        // not be current on the thread that drops the tensor. A failure here only leaks.
        let _ = self.gpu.handle.bind();
    }
}

fn array<V: crate::store::DeviceValue>(b: &Buffer<V>) -> DeviceArray<'_> {
    DeviceArray::new(b.addr(), b.len())
}

fn upload_levels(gpu: &Gpu, levels: &[Level]) -> Result<Vec<DeviceLevel>, GpuError> {
    let h = &gpu.handle;
    levels
        .iter()
        .map(|level| {
            Ok(match level {
                Level::Dense { size } => DeviceLevel::Dense { size: *size },
                Level::Compressed { pos, crd } => DeviceLevel::Compressed {
                    pos: h.upload(pos)?,
                    crd: h.upload(crd)?,
                },
                Level::Singleton { crd } => DeviceLevel::Singleton {
                    crd: h.upload(crd)?,
                },
                Level::Range {
                    size,
                    bound,
                    offsets,
                } => DeviceLevel::Range {
                    size: *size,
                    bound: *bound,
                    offsets: h.upload(offsets)?,
                },
                Level::Offset => DeviceLevel::Offset,
                Level::Hashed { buckets, crd } => DeviceLevel::Hashed {
                    buckets: *buckets,
                    crd: h.upload(crd)?,
                },
                Level::Bitmap { .. } => {
                    let what = "a tensor with a bitmap level: GPU kernels do not read those yet";
                    return Err(GpuError::Invalid(what.into()));
                }
            })
        })
        .collect()
}

fn copy_levels(gpu: &Gpu, levels: &[DeviceLevel]) -> Result<Vec<DeviceLevel>, GpuError> {
    let h = &gpu.handle;
    levels
        .iter()
        .map(|level| {
            Ok(match level {
                DeviceLevel::Dense { size } => DeviceLevel::Dense { size: *size },
                DeviceLevel::Compressed { pos, crd } => DeviceLevel::Compressed {
                    pos: h.copy(pos)?,
                    crd: h.copy(crd)?,
                },
                DeviceLevel::Singleton { crd } => DeviceLevel::Singleton { crd: h.copy(crd)? },
                DeviceLevel::Range {
                    size,
                    bound,
                    offsets,
                } => DeviceLevel::Range {
                    size: *size,
                    bound: *bound,
                    offsets: h.copy(offsets)?,
                },
                DeviceLevel::Offset => DeviceLevel::Offset,
                DeviceLevel::Hashed { buckets, crd } => DeviceLevel::Hashed {
                    buckets: *buckets,
                    crd: h.copy(crd)?,
                },
            })
        })
        .collect()
}

impl<T: GpuScalar, F: Format> fmt::Debug for DeviceTensor<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceTensor")
            .field("format", &F::NAME)
            .field("shape", &self.shape)
            .field("stored_len", &self.vals.len())
            .field("gpu", &self.gpu.ordinal())
            .finish()
    }
}
