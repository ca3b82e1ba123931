// Twin of `statement-output-read-other-indices.rs`: the output read at its own indices, each
// element read before it is written.
use sparse::prelude::*;

tensor_kernel! {
    fn scale;
    y(i) = y(i) * x(i);
}

fn main() {
    let mut y = Tensor::from_dense([3], &[1.0, 2.0, 3.0]).unwrap();
    let x = Tensor::from_dense([3], &[2.0, 0.0, -1.0]).unwrap();
    scale(&mut y, &x).unwrap();
    assert_eq!(y.to_dense(), vec![2.0, 0.0, -3.0]);
}
