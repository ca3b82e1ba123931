// The threads of a block are fixed at launch: a `GpuThread` loop over a row's nonzeros (an extent
// the input decides) cannot be one.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, block, rows, Down, 8).pos(j, jpos, A(i,j))
              .parallelize(block, GpuBlock, NoRaces).parallelize(jpos, GpuThread, Atomics) >;
}

fn main() {}
