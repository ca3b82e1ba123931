// The positive twin of statement-no-concordant-order: a tensor read in two index orders gets a
// copy for the reads in one of them, made when the kernel runs, and the kernel compiles and runs.
use sparse::prelude::*;

tensor_kernel! {
    fn rotations;
    B(i,j,k) = A(i,j,k) + A(j,k,i);
    formats<A: csf, B: csf>;
}

fn main() {
    let a = Tensor::<f64, Csf<3>>::from_entries([2, 2, 2], [([0, 1, 1], 2.0), ([1, 0, 0], 3.0)])
        .unwrap();
    let mut b = Tensor::<f64, Csf<3>>::zeros([2, 2, 2]);
    rotations(&mut b, &a).unwrap();
    // A(i,j,k) stores (0,1,1) and (1,0,0); A(j,k,i) stores them at (1,0,1) and (0,1,0).
    assert_eq!(b.get(&[0, 1, 1]), Some(2.0));
    assert_eq!(b.get(&[1, 0, 0]), Some(3.0));
    assert_eq!(b.get(&[1, 0, 1]), Some(2.0));
    assert_eq!(b.get(&[0, 1, 0]), Some(3.0));
    assert_eq!(b.nnz(), 4);
}
