use sparse::prelude::*;

// Kernels do not write presence bytes: a bitmap level is an input format only.
tensor_kernel! {
    pub fn scale;
    y(i) = x(i) * x(i);
    formats< y: bitvec >;
}

fn main() {}
