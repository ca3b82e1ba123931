use sparse::prelude::*;

// The sum over `j` is kept in a scalar because `z(i)` is added after it.
tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j) + z(i);
    formats< A: dcsr >;
    schedule< parallelize(j, CpuThread, Atomics) >;
}

fn main() {}
