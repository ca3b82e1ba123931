use sparse::prelude::*;

// Independent mistakes are all reported, each at its own tokens.
tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,j) * x(j) + B(i,j) * x(j);
    formats< A: (dense, compresed), z: csr, B: (dense, compressed) order(0, 0), x: bcsr(2), y: dia >;
}

fn main() {}
