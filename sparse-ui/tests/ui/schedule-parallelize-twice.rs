use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< parallelize(i, CpuThread, NoRaces).parallelize(i, CpuThread, NoRaces) >;
}

fn main() {}
