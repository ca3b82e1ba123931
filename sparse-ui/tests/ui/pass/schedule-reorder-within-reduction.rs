// Twin of `schedule-reorder-across-reduction.rs`: the two loops of the sum swap, both inside it.
use sparse::prelude::*;

tensor_kernel! {
    pub fn residual;
    r(i) = b(i) - A(i,j,k) * X(j,k);
    schedule< reorder(k, j) >;
}

fn main() {
    // A(i, j, k) = 4i + 2j + k + 1 and X is the identity, so the sum is A(i,0,0) + A(i,1,1) = 8i + 5.
    let a_values: Vec<f64> = (1..=8).map(f64::from).collect();
    let a = Tensor::from_dense([2, 2, 2], &a_values).unwrap();
    let x = Tensor::from_dense([2, 2], &[1.0, 0.0, 0.0, 1.0]).unwrap();
    let b = Tensor::from_dense([2], &[10.0, 20.0]).unwrap();
    let mut r = Tensor::from_dense([2], &[-1.0; 2]).unwrap();
    residual(&mut r, &b, &a, &x).unwrap();
    assert_eq!(r.to_dense(), vec![5.0, 7.0]);
}
