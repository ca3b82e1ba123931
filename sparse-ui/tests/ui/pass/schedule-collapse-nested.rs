// Twin of `schedule-collapse-not-nested.rs`: `j` is directly nested inside `i`.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    C(i,k) = A(i,j) * B(j,k);
    formats< A: csr, B: csr >;
    schedule< collapse(i, j, f).pos(f, p, A) >;
}

fn main() {
    // A = [1 2; 0 3], B = [4 0; 5 6].
    let a = Tensor::from_entries([2, 2], [([0, 0], 1.0), ([0, 1], 2.0), ([1, 1], 3.0)]).unwrap();
    let b = Tensor::from_entries([2, 2], [([0, 0], 4.0), ([1, 0], 5.0), ([1, 1], 6.0)]).unwrap();
    let mut c = Tensor::from_dense([2, 2], &[-1.0; 4]).unwrap();
    kernel(&mut c, &a, &b).unwrap();
    assert_eq!(c.to_dense(), vec![14.0, 12.0, 15.0, 18.0]);
}
