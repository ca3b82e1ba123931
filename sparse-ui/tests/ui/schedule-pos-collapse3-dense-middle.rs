use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    y(i) = B(i,j,k) * c(k);
    // The middle level is dense: no segments to walk for `j`'s coordinate.
    formats< B: (compressed, dense, compressed) >;
    schedule< fuse(j, k, jk).fuse(i, jk, f).pos(f, fpos, B(i,j,k)) >;
}

fn main() {}
