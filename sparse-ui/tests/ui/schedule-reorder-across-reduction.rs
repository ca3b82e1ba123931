use sparse::prelude::*;

tensor_kernel! {
    pub fn residual;
    r(i) = b(i) - A(i,j,k) * X(j,k);
    schedule< reorder(j, i) >;
}

fn main() {}
