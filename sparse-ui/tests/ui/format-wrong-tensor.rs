// The format is part of a tensor's type: a function that takes CSR does not take COO.
use sparse::prelude::*;

fn row_count(a: &Tensor<f64, Csr>) -> usize {
    a.shape()[0]
}

fn main() {
    let coo = Tensor::<f64, Coo<2>>::zeros([2, 3]);
    row_count(&coo);
}
