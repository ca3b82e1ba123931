//! What a generated launcher hands to [`crate::Gpu::launch`]: the grid and block shape, and the
//! kernel's arguments (device arrays borrowed from device tensors, and scalars).

use std::ffi::c_void;
use std::marker::PhantomData;

use crate::signature::{Param, ParamClass};

/// The shape of one launch: blocks in the grid, threads in a block, dynamic shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    /// Blocks along x, y, z.
    pub grid: [u32; 3],
    /// Threads per block along x, y, z.
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory per block.
    pub shared_bytes: u32,
}

impl LaunchShape {
    /// A one-dimensional launch: `blocks` blocks of `threads` threads, no dynamic shared memory.
    pub fn linear(blocks: u32, threads: u32) -> LaunchShape {
        LaunchShape {
            grid: [blocks, 1, 1],
            block: [threads, 1, 1],
            shared_bytes: 0,
        }
    }

    /// The number of blocks to cover `n` items with `per_block` items per block (0 for `n == 0`,
    /// `u32::MAX` if it does not fit, which the driver then refuses); `per_block` 0 counts as 1.
    pub fn blocks_for(n: usize, per_block: u32) -> u32 {
        let per_block = usize::try_from(per_block.max(1)).unwrap_or(usize::MAX);
        u32::try_from(n.div_ceil(per_block)).unwrap_or(u32::MAX)
    }

    /// Whether the launch runs no thread at all (some dimension is 0): such a launch is skipped.
    pub fn is_empty(&self) -> bool {
        self.grid.contains(&0) || self.block.contains(&0)
    }
}

/// A device array borrowed from a [`crate::DeviceTensor`] for one launch: its device address and
/// length. Kernel plumbing for generated launchers.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct DeviceArray<'a> {
    addr: u64,
    len: usize,
    _borrow: PhantomData<&'a ()>,
}

impl DeviceArray<'_> {
    pub(crate) fn new(addr: u64, len: usize) -> Self {
        DeviceArray {
            addr,
            len,
            _borrow: PhantomData,
        }
    }

    /// An array of no elements (address 0): what a level without that array gives.
    pub(crate) fn empty() -> Self {
        DeviceArray::new(0, 0)
    }

    /// The device address of the first element (0 when empty).
    pub fn addr(&self) -> u64 {
        self.addr
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// One kernel argument, passed with exactly the size of the matching CUDA parameter type: a
/// device array as a pointer (`T *`), and the scalars `int`, `unsigned int`, `long long`,
/// `unsigned long long`, `float`, `double`. Kernel plumbing for generated launchers.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum KernelArg<'a> {
    /// A pointer to a device array.
    Array(DeviceArray<'a>),
    /// `int`.
    I32(i32),
    /// `unsigned int`.
    U32(u32),
    /// `long long`.
    I64(i64),
    /// `unsigned long long`.
    U64(u64),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
}

impl KernelArg<'_> {
    /// The size and class of the parameter this argument fills.
    pub(crate) fn param(&self) -> Param {
        let (bytes, class) = match self {
            KernelArg::Array(_) | KernelArg::I64(_) | KernelArg::U64(_) => (8, ParamClass::Int),
            KernelArg::I32(_) | KernelArg::U32(_) => (4, ParamClass::Int),
            KernelArg::F32(_) => (4, ParamClass::Float),
            KernelArg::F64(_) => (8, ParamClass::Float),
        };
        Param { bytes, class }
    }

    /// A pointer to the argument's value, as `cuLaunchKernel` reads it. Valid while `self` is.
    pub(crate) fn as_param(&self) -> *mut c_void {
        let p: *const c_void = match self {
            KernelArg::Array(a) => (&raw const a.addr).cast(),
            KernelArg::I32(v) => (v as *const i32).cast(),
            KernelArg::U32(v) => (v as *const u32).cast(),
            KernelArg::I64(v) => (v as *const i64).cast(),
            KernelArg::U64(v) => (v as *const u64).cast(),
            KernelArg::F32(v) => (v as *const f32).cast(),
            KernelArg::F64(v) => (v as *const f64).cast(),
        };
        p.cast_mut()
    }
}

impl<'a> From<DeviceArray<'a>> for KernelArg<'a> {
    fn from(a: DeviceArray<'a>) -> Self {
        KernelArg::Array(a)
    }
}

macro_rules! scalar_args {
    ($($t:ty => $variant:ident),*) => {$(
        impl From<$t> for KernelArg<'_> {
            fn from(v: $t) -> Self {
                KernelArg::$variant(v)
            }
        }
    )*};
}

scalar_args!(i32 => I32, u32 => U32, i64 => I64, u64 => U64, f32 => F32, f64 => F64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_counts_round_up_and_never_divide_by_zero() {
        assert_eq!(LaunchShape::blocks_for(0, 256), 0);
        assert_eq!(LaunchShape::blocks_for(1, 256), 1);
        assert_eq!(LaunchShape::blocks_for(257, 256), 2);
        assert_eq!(LaunchShape::blocks_for(5, 0), 5);
        assert_eq!(LaunchShape::blocks_for(usize::MAX, 1), u32::MAX);
        assert!(LaunchShape::linear(0, 32).is_empty());
        assert!(!LaunchShape::linear(1, 32).is_empty());
    }

    #[test]
    fn arguments_point_at_their_own_bytes() {
        let args = [
            KernelArg::from(7i32),
            KernelArg::from(2.5f64),
            KernelArg::from(DeviceArray::new(0x1000, 4)),
        ];
        // SAFETY (test): each pointer is read with the type it was made from.
        #[allow(unsafe_code)]
        unsafe {
            assert_eq!(*args[0].as_param().cast::<i32>(), 7);
            assert_eq!(*args[1].as_param().cast::<f64>(), 2.5);
            assert_eq!(*args[2].as_param().cast::<u64>(), 0x1000);
        }
    }
}
