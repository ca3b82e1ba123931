// A GPU kernel reads its inputs on the device as they are stored: `B` in CSC would need a copy in
// rows first, which a GPU launcher does not make.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    C(i,j) = A(i,j) * B(i,j);
    formats< A: csr, B: csc >;
    schedule< split(i, i0, i1, Down, 32).parallelize(i0, GpuBlock, NoRaces)
              .parallelize(i1, GpuThread, NoRaces) >;
}

fn main() {}
