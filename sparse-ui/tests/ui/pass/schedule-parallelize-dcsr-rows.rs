// The twin of schedule-parallelize-sparse-output: a DCSR output appended by parallel rows, each
// piece of rows into its own part, the parts joined in order (empty rows stay unstored).
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    C(i,j) = A(i,j) + B(i,j);
    formats< A: csr, B: csr, C: dcsr >;
    schedule< parallelize(i, CpuThread, NoRaces) >;
}

fn main() {
    let a = Tensor::<f64, Csr>::from_entries([3, 3], [([0, 0], 1.0), ([2, 2], 2.0)]).unwrap();
    let b = Tensor::<f64, Csr>::from_entries([3, 3], [([0, 0], 3.0), ([0, 1], 4.0)]).unwrap();
    let mut c = Tensor::<f64, Dcsr>::zeros([3, 3]);
    kernel(&mut c, &a, &b).unwrap();
    assert_eq!(c.to_dense(), vec![4.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0]);
    assert_eq!(c.level(0).crd(), &[0, 2]);
}
