// Twin of `schedule-vectorize-coiteration.rs`: with one sparse operand the loop over `i` is a
// plain `for` over its positions.
use sparse::prelude::*;

tensor_kernel! {
    pub fn kernel;
    a(i) = b(i) * c(i);
    formats< b: sparse >;
    schedule< parallelize(i, CpuVector, NoRaces) >;
}

fn main() {
    let b = Tensor::from_entries([4], [([1], 2.0), ([3], 5.0)]).unwrap();
    let c = Tensor::from_dense([4], &[1.0, 2.0, 3.0, 4.0]).unwrap();
    let mut a = Tensor::from_dense([4], &[-1.0; 4]).unwrap();
    kernel(&mut a, &b, &c).unwrap();
    assert_eq!(a.to_dense(), vec![0.0, 4.0, 0.0, 20.0]);
}
