use sparse::prelude::*;

tensor_kernel! {
    pub fn vadd;
    c(i) = a(i) + b(i);
    formats< a: sparse >;
    schedule< pos(i, ip, a(i)).split(ip, tile, inner, Down, 64).coord(inner, ic)
        .parallelize(tile, CpuThread, NoRaces) >;
}

fn main() {}
