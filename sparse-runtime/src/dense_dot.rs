//! The dot product of two rows of dense operands (SDDMM's `Σ_k C(i,k) · D(j,k)`, one per stored
//! entry of the sampling matrix).
//!
//! Summed in order, the row is one chain of dependent additions, each waiting for the one before:
//! 32 of them per entry at the harness's `K = 32`, and neither LLVM nor a C compiler reorders a
//! float sum to break the chain. Eight partial sums, one per lane of two vectors, break it: on the
//! comparison harness's cache-resident matrices a hand-written SDDMM with them took 0.60-0.69 of
//! the time of the generated in-order loop (BENCHMARKS.md, "SDDMM's rows as dense dot products").
//! The order of the additions changes, so floats may round differently, as for the gathered dot
//! products of `dot.rs`.

use crate::Scalar;

/// How many partial sums [`dense_dot`] keeps: two vectors of four `f64`.
const LANES: usize = 8;

/// `Σ a[a_at + k] · b[b_at + k]` over `k` in `0..len`, stopping where either slice ends (an
/// offset past its end reads nothing), summed in eight partial sums.
#[inline]
pub fn dense_dot<T: Scalar>(a: &[T], a_at: usize, b: &[T], b_at: usize, len: usize) -> T {
    let (a, b) = (
        a.get(a_at..).unwrap_or_default(),
        b.get(b_at..).unwrap_or_default(),
    );
    let n = len.min(a.len()).min(b.len());
    let (a, b) = (a[..n].chunks_exact(LANES), b[..n].chunks_exact(LANES));
    let (a_tail, b_tail) = (a.remainder(), b.remainder());
    let mut sums = [T::ZERO; LANES];
    for (a, b) in a.zip(b) {
        for lane in 0..LANES {
            sums[lane] = a[lane].mul_add_contracted(b[lane], sums[lane]);
        }
    }
    let [s0, s1, s2, s3, s4, s5, s6, s7] = sums;
    let mut sum = ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7));
    for (a, b) in a_tail.iter().zip(b_tail) {
        sum = a.mul_add_contracted(*b, sum);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_order(a: &[i64], b: &[i64]) -> i64 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn every_length_and_offset_agrees_with_the_definition() {
        let a: Vec<i64> = (0..40).map(|v| (v * 7) % 11 - 5).collect();
        let b: Vec<i64> = (0..45).map(|v| (v * 5) % 13 - 6).collect();
        for len in 0..=40 {
            for (a_at, b_at) in [(0, 0), (3, 5), (0, 4)] {
                let n = len.min(a.len() - a_at).min(b.len() - b_at);
                let want = in_order(&a[a_at..a_at + n], &b[b_at..b_at + n]);
                assert_eq!(
                    dense_dot(&a, a_at, &b, b_at, len),
                    want,
                    "{len} {a_at} {b_at}"
                );
                let (af, bf): (Vec<f64>, Vec<f64>) = (
                    a.iter().map(|&v| v as f64).collect(),
                    b.iter().map(|&v| v as f64).collect(),
                );
                assert_eq!(dense_dot(&af, a_at, &bf, b_at, len), want as f64);
            }
        }
    }

    #[test]
    fn reads_stop_at_either_end() {
        let (a, b) = ([1.0, 2.0, 3.0], [10.0, 20.0]);
        assert_eq!(dense_dot(&a, 0, &b, 0, 100), 50.0);
        assert_eq!(dense_dot(&a, 2, &b, 0, 100), 30.0);
        assert_eq!(dense_dot(&a, 7, &b, 0, 100), 0.0, "an offset past the end");
        assert_eq!(dense_dot(&a, 0, &b, usize::MAX, 3), 0.0);
        assert_eq!(dense_dot::<f32>(&[], 0, &[], 0, 0), 0.0);
    }

    #[test]
    fn a_nan_or_an_infinity_in_the_row_is_the_sum_s() {
        let mut a = vec![1.0; 20];
        let b = vec![1.0; 20];
        a[13] = f64::NAN;
        assert!(dense_dot(&a, 0, &b, 0, 20).is_nan());
        a[13] = f64::INFINITY;
        assert_eq!(dense_dot(&a, 0, &b, 0, 20), f64::INFINITY);
        assert_eq!(dense_dot(&a, 0, &b, 0, 13), 13.0, "not read past len");
    }
}
