// The clauses after the statement come in any order.
use sparse::prelude::*;

tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,j) * x(j);
    schedule< auto >;
    formats< A: csr >;
}

fn main() {
    let a = Tensor::from_entries([2, 2], [([0, 1], 2.0), ([1, 0], 3.0)]).unwrap();
    let x = Tensor::from_dense([2], &[1.0, 2.0]).unwrap();
    let mut y = Tensor::zeros([2]);
    spmv(&mut y, &a, &x).unwrap();
    assert_eq!(y.to_dense(), vec![4.0, 3.0]);
}
