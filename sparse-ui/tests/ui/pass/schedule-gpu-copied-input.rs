// Twin of `schedule-gpu-copied-input.rs`: both operands stored by rows, so nothing is copied.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    C(i,j) = A(i,j) * B(i,j);
    formats< A: csr, B: csr >;
    schedule< split(i, i0, i1, Down, 32).parallelize(i0, GpuBlock, NoRaces)
              .parallelize(i1, GpuThread, NoRaces) >;
}

fn main() {}
