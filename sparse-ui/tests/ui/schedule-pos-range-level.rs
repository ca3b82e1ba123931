use sparse::prelude::*;

// DIA's rows within a diagonal are a range level, iterated by value: it has no positions to walk.
tensor_kernel! {
    pub fn kernel;
    a = B(i,j) * C(i,j);
    formats< B: csr, C: dia >;
    schedule< pos(i, ip, C) >;
}

fn main() {}
