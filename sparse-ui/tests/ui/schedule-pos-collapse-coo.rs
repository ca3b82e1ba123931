use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: coo >;
    schedule< collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 16)
        .parallelize(p0, CpuThread, Atomics) >;
}

fn main() {}
