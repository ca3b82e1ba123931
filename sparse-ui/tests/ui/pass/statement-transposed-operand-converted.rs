// The positive twin of statement-no-concordant-order: with CSR operands, the transposed one is
// converted into a concordant copy at run time, and the kernel compiles and runs.
use sparse::prelude::*;

tensor_kernel! {
    fn product;
    A(i,j) = B(i,j) * C(j,i);
    formats<B: csr, C: csr>;
}

fn main() {
    let b = Tensor::<f64, Csr>::from_entries([2, 2], [([0, 1], 2.0), ([1, 0], 3.0)]).unwrap();
    let c = Tensor::<f64, Csr>::from_entries([2, 2], [([1, 0], 5.0), ([1, 1], 7.0)]).unwrap();
    let mut a = Tensor::<f64, Dense<2>>::zeros([2, 2]);
    product(&mut a, &b, &c).unwrap();
    // A(0,1) = B(0,1) * C(1,0) = 10; A(1,0) = B(1,0) * C(0,1) = 0.
    assert_eq!(a.to_dense(), vec![0.0, 10.0, 0.0, 0.0]);
}
