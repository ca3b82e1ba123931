use sparse::prelude::*;

tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, i0, i1, Down, 32).parallelize(i0, CpuThread, NoRaces).split(i1, i10, i11, Down, 4) >;
}

fn main() {}
