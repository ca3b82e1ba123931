use sparse::prelude::*;

// Rayon tasks inside rayon tasks, both writing the output: not expressible.
tensor_kernel! {
    pub fn kernel;
    C(i,k) = A(i,j) * B(j,k);
    formats< A: csr >;
    schedule< parallelize(j, CpuThread, Atomics).parallelize(i, CpuThread, NoRaces) >;
}

fn main() {}
