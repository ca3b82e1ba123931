// Twin of `schedule-pos-collapse-not-contiguous.rs`: positions of `A`, whose levels are (i, j) in
// that order; `D` is stored by columns, so only its locate is used.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * D(i,j);
    formats< A: csr, D: (dense, dense) order(1, 0) >;
    schedule< collapse(i, j, f).pos(f, p, A) >;
}

fn main() {
    // A rows: [1 0 2], [0 0 0], [0 3 0]; D(i, j) = 3i + j + 1.
    let a = Tensor::from_entries([3, 3], [([0, 0], 1.0), ([0, 2], 2.0), ([2, 1], 3.0)]).unwrap();
    let d_values: Vec<f64> = (1..=9).map(f64::from).collect();
    let d = Tensor::from_dense([3, 3], &d_values).unwrap();
    let mut y = Tensor::from_dense([3], &[-1.0; 3]).unwrap();
    kernel(&mut y, &a, &d).unwrap();
    assert_eq!(y.to_dense(), vec![7.0, 0.0, 24.0]);
}
