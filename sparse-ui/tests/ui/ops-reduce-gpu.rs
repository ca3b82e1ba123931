// Reducing with a user operator runs on the CPU only: a GPU kernel that does is refused.
use sparse::prelude::*;

tensor_kernel! {
    pub fn largest;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    reduce< j: big >;
    ops< big(p, q) = max(abs(p), abs(q)) identity 0; >;
    schedule< split(i, block, thread, Down, 256)
        .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces) >;
}

fn main() {}
