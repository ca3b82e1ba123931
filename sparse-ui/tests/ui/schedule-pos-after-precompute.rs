use sparse::prelude::*;

// `pos` of a collapsed variable goes before `precompute`: the workspace loop is fixed once the
// expression is precomputed over it.
tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< collapse(i, j, f).precompute(A(i,j) * x(j), f, fw, W).pos(f, p, A) >;
}

fn main() {}
