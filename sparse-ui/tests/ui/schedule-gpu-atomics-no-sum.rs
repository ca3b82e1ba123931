// `Atomics` protects sums into the output; an element-wise product sums nothing.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    C(i,j) = A(i,j) * B(i,j);
    formats< A: csr >;
    schedule< parallelize(i, GpuBlock, Atomics) >;
}

fn main() {}
