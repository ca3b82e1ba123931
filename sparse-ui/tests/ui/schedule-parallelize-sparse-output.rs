// A DCSR output is appended in order: parallel iterations over its columns cannot each append
// whole rows. Over its rows (or tiles of them) it compiles (see
// pass/schedule-parallelize-dcsr-rows.rs).
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    C(i,j) = A(i,j) * d(j);
    formats< A: csr, C: dcsr >;
    schedule< parallelize(j, CpuThread, NoRaces) >;
}

fn main() {}
