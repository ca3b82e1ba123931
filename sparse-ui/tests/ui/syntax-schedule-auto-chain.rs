use sparse::prelude::*;

tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< auto.parallelize(i, CpuThread, NoRaces) >;
}

fn main() {}
