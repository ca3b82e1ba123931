// Twin of `schedule-pos-output.rs`: positions of the sparse input, not of the output.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = b(i) * c(i);
    formats< b: sparse >;
    schedule< pos(i, ip, b) >;
}

fn main() {
    let b = Tensor::from_entries([4], [([1], 2.0), ([3], 5.0)]).unwrap();
    let c = Tensor::from_dense([4], &[1.0, 2.0, 3.0, 4.0]).unwrap();
    let mut y = Tensor::from_dense([4], &[-1.0; 4]).unwrap();
    kernel(&mut y, &b, &c).unwrap();
    assert_eq!(y.to_dense(), vec![0.0, 4.0, 0.0, 20.0]);
}
