// Twin of the `params-*.rs` and `scalars-*.rs` cases: every tensor listed once, the output first,
// the order-0 input passed as a plain value.
use sparse::prelude::*;

tensor_kernel! {
    pub fn axpy(y, x, alpha);
    y(i) = alpha * x(i) + y(i);
    scalars< alpha >;
}

fn main() {
    let x = Tensor::from_dense([2], &[1.0, 2.0]).unwrap();
    let mut y = Tensor::from_dense([2], &[10.0, 20.0]).unwrap();
    axpy(&mut y, &x, 3.0).unwrap();
    assert_eq!(y.to_dense(), vec![13.0, 26.0]);
}
