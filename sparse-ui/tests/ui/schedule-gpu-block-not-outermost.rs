// A GPU kernel is one launch: its `GpuBlock` loop is the outermost loop.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, i0, block, Down, 8).parallelize(block, GpuBlock, NoRaces) >;
}

fn main() {}
