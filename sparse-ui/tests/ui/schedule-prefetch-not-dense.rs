use sparse::prelude::*;

// `A` is read along its own positions (the level prefetch hints already cover), and `y` is the
// output: neither is a gather.
tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< prefetch(A, 64) >;
}

tensor_kernel! {
    pub fn spmv_output;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< prefetch(y, 64) >;
}

fn main() {}
