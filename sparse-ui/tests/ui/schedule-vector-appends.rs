use sparse::prelude::*;

// Lanes would append the rows of `A` out of order.
tensor_kernel! {
    pub fn kernel;
    A(i,j) = B(i,j) + C(i,j);
    formats< A: csr, B: csr, C: csr >;
    schedule< parallelize(i, CpuVector, NoRaces) >;
}

fn main() {}
