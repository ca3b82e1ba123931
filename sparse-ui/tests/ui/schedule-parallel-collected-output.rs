use sparse::prelude::*;

// Row-major loops (CSR input) into a CSC result: its entries are collected and packed at the end,
// which no thread-parallel loop does yet.
tensor_kernel! {
    pub fn kernel;
    A(i,j) = B(i,j);
    formats< A: csc, B: csr >;
    schedule< parallelize(j, CpuThread, NoRaces) >;
}

fn main() {}
