// Twin of `schedule-gpu-mixed-units.rs`: GPU units only.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, block, thread, Down, 256)
              .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces) >;
}

fn main() {}
