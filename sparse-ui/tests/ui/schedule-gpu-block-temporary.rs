// A block has no private partial of its own: a sum over blocks takes `Atomics` (or a
// `Temporary` on the thread loop inside).
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    s = a(i) * b(i);
    schedule< split(i, block, lane, Down, 256).parallelize(block, GpuBlock, Temporary) >;
}

fn main() {}
