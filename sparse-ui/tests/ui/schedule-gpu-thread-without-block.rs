// GPU threads live in blocks: a `GpuThread` loop needs a `GpuBlock` loop around it.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, block, thread, Down, 256).parallelize(thread, GpuThread, NoRaces) >;
}

fn main() {}
