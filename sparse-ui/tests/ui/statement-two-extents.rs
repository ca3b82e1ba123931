// `j` ranges over 2-wide column blocks in `A` and 4-wide row blocks in `B`: one index, two extents.
use sparse::prelude::*;

tensor_kernel! {
    fn block_product;
    C(i,k) = A(i,j) * B(j,k);
    formats<A: bcsr(2, 2), B: bcsr(4, 2)>;
}

fn main() {}
