// A sum outside the output's loops (AᵀA with the rows of A outermost) scatters the output's
// entries as triples; on threads each task pushes into its own list, and the lists are joined
// and packed after the loops. The serial contraction is `schedule-parallelize-scatter-serial.rs`.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    G(i,j) = A(k,i) * A(k,j);
    formats< A: csr, G: dcsr >;
    schedule< parallelize(k, CpuThread, Atomics) >;
}

fn main() {
    let a = Tensor::<f64, Csr>::from_entries([3, 2], [([0, 1], 2.0), ([2, 0], 3.0), ([2, 1], 1.0)])
        .unwrap();
    let mut g = Tensor::<f64, Dcsr>::zeros([2, 2]);
    kernel(&mut g, &a).unwrap();
    assert_eq!(g.to_dense(), vec![9.0, 3.0, 3.0, 5.0]);
    assert_eq!(g.nnz(), 4);
}
