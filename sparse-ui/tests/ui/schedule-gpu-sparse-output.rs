// A GPU kernel cannot assemble a sparse output: the sum of two CSR matrices has a structure of
// its own (see SDDMM and TTV for sparse outputs that take an input's structure).
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    C(i,j) = A(i,j) + B(i,j);
    formats< A: csr, B: csr, C: csr >;
    schedule< parallelize(i, GpuBlock, IgnoreRaces) >;
}

fn main() {}
