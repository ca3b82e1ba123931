use sparse::prelude::*;

// `coord` walks a position tile's coordinates as they are: nothing derives a variable from them.
tensor_kernel! {
    pub fn kernel;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< pos(j, jp, A).split(jp, j0, j1, Down, 8).coord(j1, jc).bound(jc, jb, 0, MinExact) >;
}

fn main() {}
