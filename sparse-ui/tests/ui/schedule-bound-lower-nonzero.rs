use sparse::prelude::*;

tensor_kernel! {
    pub fn spmspv;
    y(i) = A(i,j) * x(j);
    formats< A: csc, x: sparse >;
    schedule< reorder(j, i).pos(j, jpos, x(j)).bound(jpos, jb, 2, MinExact) >;
}

fn main() {}
