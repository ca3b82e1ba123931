use sparse::prelude::*;

// `pos` over `c` would visit only `c`'s entries, but `b(i)` is nonzero where `c` is not.
tensor_kernel! {
    pub fn kernel;
    y(i) = b(i) + c(i);
    formats< c: sparse >;
    schedule< pos(i, p, c) >;
}

fn main() {}
