use sparse::prelude::*;

// Positions of DCSR's rows visit each stored row once, in order: the result is appended directly.
tensor_kernel! {
    pub fn kernel;
    A(i,j) = B(i,j);
    formats< A: csr, B: dcsr >;
    schedule< pos(i, ip, B) >;
}

fn main() {
    let b = Tensor::<f64, Dcsr>::from_entries([3, 2], vec![([1, 0], 2.0), ([1, 1], 3.0)]).unwrap();
    let mut a = Tensor::<f64, Csr>::zeros([3, 2]);
    kernel(&mut a, &b).unwrap();
    assert_eq!(a.to_dense(), vec![0.0, 0.0, 2.0, 3.0, 0.0, 0.0]);
}
