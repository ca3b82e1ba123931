// Two ELL matrices read in transposed orders: no loop order visits both in storage order, and
// ELL (with its slot level) cannot be converted into a concordant copy.
use sparse::prelude::*;

tensor_kernel! {
    fn product;
    A(i,j) = B(i,j) * C(j,i);
    formats<B: ell, C: ell>;
}

fn main() {}
