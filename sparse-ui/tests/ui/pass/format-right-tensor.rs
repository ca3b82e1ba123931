// Twin of `format-wrong-tensor.rs`: the same call with a CSR tensor, or with COO converted first.
use sparse::prelude::*;

fn row_count(a: &Tensor<f64, Csr>) -> usize {
    a.shape()[0]
}

fn main() {
    let csr = Tensor::<f64, Csr>::zeros([2, 3]);
    assert_eq!(row_count(&csr), 2);
    let coo = Tensor::<f64, Coo<2>>::zeros([2, 3]);
    assert_eq!(row_count(&coo.convert().unwrap()), 2);
}
