use sparse::prelude::*;

// Row-major loops (CSR input) into a CSC result: its entries are collected as triples and packed
// at the end; on threads, each task collects into its own list and the lists are joined.
tensor_kernel! {
    pub fn kernel;
    A(i,j) = B(i,j);
    formats< A: csc, B: csr >;
    schedule< parallelize(j, CpuThread, NoRaces) >;
}

fn main() {
    let b = Tensor::<f64, Csr>::from_entries([2, 3], [([0, 2], 1.0), ([1, 0], 2.0), ([1, 2], 3.0)])
        .unwrap();
    let mut a = Tensor::<f64, Csc>::zeros([2, 3]);
    kernel(&mut a, &b).unwrap();
    assert_eq!(a.to_dense(), b.to_dense());
    assert_eq!(a.nnz(), 3);
}
