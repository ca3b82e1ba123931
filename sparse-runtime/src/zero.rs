//! Zeroing a kernel's dense output on rayon's threads.
//!
//! An `=` kernel whose output some iterations never write (an atomic position split, a scatter
//! from a sparse vector) zeroes the output first. That pass writes every byte of the output: on
//! one core it took 1.1–1.6 ms for a 4,096,000-row vector against 0.75 ms on two (the
//! benchmarks' stencil, whose position-split SpMV takes 16–18 ms). A parallel kernel therefore
//! zeroes a large output in parallel; a serial one keeps to its one thread.

use rayon::prelude::*;

use crate::Scalar;

/// Elements each task zeroes: 256 KiB of `f64`, so a task is long enough to outweigh handing it
/// to a thread.
const ZERO_CHUNK: usize = 1 << 15;

/// The fewest elements zeroed on rayon's threads: 2 MiB of `f64`, about 100 µs on one core. A
/// trip through the pool costs at least 5 µs (`threads.rs`), so a smaller output (an SpMM's
/// 1,138 x 32 product, 36,416 elements) is zeroed where the kernel runs.
const PARALLEL_ZERO_MIN: usize = 8 * ZERO_CHUNK;

/// Sets every element of `vals` to zero, on rayon's threads from 2 MiB of `f64`.
pub fn zero_in_parallel<T: Scalar>(vals: &mut [T]) {
    fill_in_parallel(vals, T::ZERO);
}

/// Sets every element of `vals` to `value` (the identity of a kernel's reduction, or its
/// output's fill), on rayon's threads from 2 MiB of `f64`.
pub fn fill_in_parallel<T: Scalar>(vals: &mut [T], value: T) {
    if vals.len() < PARALLEL_ZERO_MIN {
        vals.fill(value);
        return;
    }
    vals.par_chunks_mut(ZERO_CHUNK)
        .for_each(|chunk| chunk.fill(value));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroes_every_element_around_the_chunk_size_and_the_threshold() {
        for len in [
            0,
            1,
            ZERO_CHUNK - 1,
            ZERO_CHUNK,
            ZERO_CHUNK + 1,
            3 * ZERO_CHUNK + 7,
            PARALLEL_ZERO_MIN - 1,
            PARALLEL_ZERO_MIN,
            PARALLEL_ZERO_MIN + ZERO_CHUNK / 2,
        ] {
            let mut vals = vec![1.5f64; len];
            zero_in_parallel(&mut vals);
            assert!(vals.iter().all(|&v| v == 0.0), "length {len}");
        }
    }
}
