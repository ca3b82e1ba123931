use sparse::prelude::*;

tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,j) * x(j);
    formats< A: dcsr >;
    schedule< pos(i, ip, A).collapse(ip, j, f) >;
}

fn main() {}
