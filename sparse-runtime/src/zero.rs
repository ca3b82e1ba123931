//! Zeroing a kernel's dense output on rayon's threads.
//!
//! An `=` kernel whose output some iterations never write (an atomic position split, a scatter
//! from a sparse vector) zeroes the output first. That pass writes every byte of the output: on
//! one core it took 1.1–1.6 ms for a 4,096,000-row vector against 0.75 ms on two (the
//! benchmarks' stencil, whose position-split SpMV takes 16–18 ms). A parallel kernel therefore
//! zeroes in parallel; a serial one keeps to its one thread.

use rayon::prelude::*;

use crate::Scalar;

/// Elements each task zeroes: 256 KiB of `f64`, so a task is long enough to outweigh handing it
/// to a thread, and an output of one chunk or less is zeroed where the kernel runs.
const ZERO_CHUNK: usize = 1 << 15;

/// Sets every element of `vals` to zero, on rayon's threads when there is more than one chunk.
pub fn zero_in_parallel<T: Scalar>(vals: &mut [T]) {
    fill_in_parallel(vals, T::ZERO);
}

/// Sets every element of `vals` to `value` (the identity of a kernel's reduction, or its
/// output's fill), on rayon's threads when there is more than one chunk.
pub fn fill_in_parallel<T: Scalar>(vals: &mut [T], value: T) {
    if vals.len() <= ZERO_CHUNK {
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
    fn zeroes_every_element_around_the_chunk_size() {
        for len in [
            0,
            1,
            ZERO_CHUNK - 1,
            ZERO_CHUNK,
            ZERO_CHUNK + 1,
            3 * ZERO_CHUNK + 7,
        ] {
            let mut vals = vec![1.5f64; len];
            zero_in_parallel(&mut vals);
            assert!(vals.iter().all(|&v| v == 0.0), "length {len}");
        }
    }
}
