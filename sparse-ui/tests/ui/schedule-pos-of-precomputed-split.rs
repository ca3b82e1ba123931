use sparse::prelude::*;

// A precompute's workspace variable iterates what its variable does: `pos` of the copy of a split
// part is `pos` of the split part (this compiled, and summed COO's rows under the wrong tiles).
tensor_kernel! {
    pub fn kernel;
    a = B(j,k);
    formats< B: coo >;
    schedule< split(j, j0, j1, Up, 7).precompute(B(j,k), j0, jw, W).pos(jw, p, B) >;
}

fn main() {}
