// A dense output (the DCSR one of `schedule-parallelize-sparse-output.rs` is refused), whose
// rows are written independently.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    C(i,j) = A(i,j) + B(i,j);
    formats< A: csr, B: csr >;
    schedule< parallelize(i, CpuThread, NoRaces) >;
}

fn main() {
    // A = [1 0; 0 2], B = [0 3; 0 4].
    let a = Tensor::from_entries([2, 2], [([0, 0], 1.0), ([1, 1], 2.0)]).unwrap();
    let b = Tensor::from_entries([2, 2], [([0, 1], 3.0), ([1, 1], 4.0)]).unwrap();
    let mut c = Tensor::from_dense([2, 2], &[-1.0; 4]).unwrap();
    kernel(&mut c, &a, &b).unwrap();
    assert_eq!(c.to_dense(), vec![1.0, 3.0, 0.0, 6.0]);
}
