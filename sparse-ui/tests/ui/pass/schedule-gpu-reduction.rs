use sparse::prelude::*;

tensor_kernel! {
    pub fn minplus;
    y(i) = A(i,j) + x(j);
    formats< A: csr >;
    fills< A: inf, x: inf, y: inf >;
    reduce< j: min >;
    schedule< split(i, i0, i1, Down, 32).parallelize(i0, CpuThread, NoRaces) >;
}

fn main() {}
