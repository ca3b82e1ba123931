use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< precompute(A(i,j) * x(j), i, iw, W).parallelize(iw, CpuThread, NoRaces) >;
}

fn main() {}
