// Twin of `schedule-reorder-not-adjacent.rs`: the two sums are separate loops under `i`, so the
// schedule transforms the loop they share.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    r(i) = A(i,j) * x(j) + B(i,k) * z(k);
    formats< A: csr, B: csr >;
    schedule< parallelize(i, CpuThread, NoRaces) >;
}

fn main() {
    // A = [1 0; 0 2], x = [3 4]: [3, 8]. B = [0 1 0; 5 0 0], z = [1 2 3]: [2, 5].
    let a = Tensor::from_entries([2, 2], [([0, 0], 1.0), ([1, 1], 2.0)]).unwrap();
    let x = Tensor::from_dense([2], &[3.0, 4.0]).unwrap();
    let b = Tensor::from_entries([2, 3], [([0, 1], 1.0), ([1, 0], 5.0)]).unwrap();
    let z = Tensor::from_dense([3], &[1.0, 2.0, 3.0]).unwrap();
    let mut r = Tensor::from_dense([2], &[-1.0; 2]).unwrap();
    kernel(&mut r, &a, &x, &b, &z).unwrap();
    assert_eq!(r.to_dense(), vec![5.0, 13.0]);
}
