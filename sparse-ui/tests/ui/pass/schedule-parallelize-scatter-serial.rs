// A contraction over the outermost index compiles, its output scattered as triples and packed
// after the loops (on threads, `schedule-parallelize-scatter-output.rs`).
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    Z(j,k,l,m) = X(i,j,k) * Y(i,l,m);
    formats< X: csf, Y: csf, Z: csf >;
}

fn main() {
    let x = Tensor::<f64, Csf<3>>::from_entries([2, 2, 2], [([0, 1, 1], 2.0), ([1, 0, 1], 3.0)])
        .unwrap();
    let mut z = Tensor::<f64, Csf<4>>::zeros([2, 2, 2, 2]);
    kernel(&mut z, &x, &x).unwrap();
    assert_eq!(z.nnz(), 2);
    assert_eq!(z.get(&[1, 1, 1, 1]), Some(4.0));
    assert_eq!(z.get(&[0, 1, 0, 1]), Some(9.0));
}
