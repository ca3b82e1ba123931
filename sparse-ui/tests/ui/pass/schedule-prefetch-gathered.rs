// Twin of `schedule-prefetch-not-gathered.rs` and `schedule-prefetch-not-dense.rs`: with `A` in
// CSR, `x(j)` is gathered at `A`'s column indices, so the hint applies, after `parallelize` too.
use sparse::prelude::*;

tensor_kernel! {
    pub fn spmv;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, i0, i1, Down, 2).parallelize(i0, CpuThread, NoRaces).prefetch(x, 1) >;
}

fn main() {
    // Rows: [1 0 2], [0 0 0], [0 3 0].
    let a = Tensor::from_entries([3, 3], [([0, 0], 1.0), ([0, 2], 2.0), ([2, 1], 3.0)]).unwrap();
    let x = Tensor::from_dense([3], &[1.0, 2.0, 3.0]).unwrap();
    let mut y = Tensor::from_dense([3], &[-1.0, -1.0, -1.0]).unwrap();
    spmv(&mut y, &a, &x).unwrap();
    assert_eq!(y.to_dense(), vec![7.0, 0.0, 6.0]);
}
