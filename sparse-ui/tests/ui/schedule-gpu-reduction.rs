// GPU kernels reduce with `+` only.
use sparse::prelude::*;

tensor_kernel! {
    pub fn minplus_gpu;
    y(i) = A(i,j) + x(j);
    formats< A: csr >;
    fills< A: inf, x: inf, y: inf >;
    reduce< j: min >;
    schedule< split(i, i0, i1, Down, 32).parallelize(i0, GpuBlock, NoRaces)
              .parallelize(i1, GpuThread, NoRaces) >;
}

fn main() {}
