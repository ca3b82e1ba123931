// A tensor read in three index orders: the reads of one order get a copy of their own, but the
// two orders left still conflict, and no loop order visits every read in storage order (one copy
// per order, passed as tensors of their own, does).
use sparse::prelude::*;

tensor_kernel! {
    fn rotations;
    B(i,j,k) = A(i,j,k) + A(j,k,i) + A(k,i,j);
    formats<A: csf, B: csf>;
}

fn main() {}
