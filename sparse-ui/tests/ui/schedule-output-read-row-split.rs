// A row split across tasks where the output is read: the sum over `j` that covers the read of
// `y(i)` is computed before `y(i)` is written, so `j` is no longer directly inside `i`.
use sparse::prelude::*;

tensor_kernel! {
    pub fn scale;
    y(i) = A(i,j) * x(j) * y(i);
    formats< A: csr >;
    schedule< collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 16).parallelize(p0, CpuThread, Atomics) >;
}

fn main() {}
