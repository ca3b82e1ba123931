use sparse::prelude::*;

tensor_kernel! {
    pub fn largest;
    y(i) = abs(A(i,j) * x(j));
    formats< A: csr >;
    reduce< j: max >;
    schedule< split(i, block, thread, Down, 256)
        .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces) >;
}

fn main() {}
