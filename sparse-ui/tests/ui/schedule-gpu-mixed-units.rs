// A kernel runs on the CPU or on the GPU, not both.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, block, rows, Down, 256)
              .parallelize(block, GpuBlock, NoRaces).parallelize(rows, CpuThread, NoRaces) >;
}

fn main() {}
