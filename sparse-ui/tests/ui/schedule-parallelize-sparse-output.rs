use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    C(i,j) = A(i,j) + B(i,j);
    formats< A: csr, B: csr, C: csr >;
    schedule< parallelize(i, CpuThread, NoRaces) >;
}

fn main() {}
