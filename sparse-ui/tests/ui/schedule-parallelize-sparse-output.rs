// A DCSR output appends its rows lazily (only nonempty ones get a position), so its rows cannot be
// counted and filled in parallel; a CSR output can (see pass/schedule-parallelize-csr-rows.rs).
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    C(i,j) = A(i,j) + B(i,j);
    formats< A: csr, B: csr, C: dcsr >;
    schedule< parallelize(i, CpuThread, NoRaces) >;
}

fn main() {}
