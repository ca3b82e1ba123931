// The twin of schedule-parallelize-sparse-output: a CSR output is assembled by rows in parallel
// (a count pass, prefix sums, a fill pass).
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    C(i,j) = A(i,j) + B(i,j);
    formats< A: csr, B: csr, C: csr >;
    schedule< parallelize(i, CpuThread, NoRaces) >;
}

fn main() {
    let a = Tensor::<f64, Csr>::from_entries([2, 3], [([0, 0], 1.0), ([1, 2], 2.0)]).unwrap();
    let b = Tensor::<f64, Csr>::from_entries([2, 3], [([0, 0], 3.0), ([0, 1], 4.0)]).unwrap();
    let mut c = Tensor::<f64, Csr>::zeros([2, 3]);
    kernel(&mut c, &a, &b).unwrap();
    assert_eq!(c.to_dense(), vec![4.0, 4.0, 0.0, 0.0, 0.0, 2.0]);
    assert_eq!(c.level(1).pos(), &[0, 2, 3]);
}
