// A matrix read in both index orders: no loop order visits both reads in storage order, and no
// single copy of it serves both (a second tensor, stored the other way, does).
use sparse::prelude::*;

tensor_kernel! {
    fn product;
    A(i,j) = B(i,j) * B(j,i);
    formats<B: csr>;
}

fn main() {}
