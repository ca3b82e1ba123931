// The contraction's index `i` is outermost, so the CSF output's entries are scattered as triples
// and packed after the loops; those loops cannot run on threads yet. The same kernel compiles
// serially (see pass/schedule-parallelize-scatter-serial.rs).
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    Z(j,k,l,m) = X(i,j,k) * Y(i,l,m);
    formats< X: csf, Y: csf, Z: csf >;
    schedule< parallelize(i, CpuThread, Atomics) >;
}

fn main() {}
