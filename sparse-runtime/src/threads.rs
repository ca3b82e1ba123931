//! Whether a kernel's thread region is worth its threads (OpenMP's `if` clause).
//!
//! rayon hands a parallel loop to its pool and waits for it: a fork and a join on every call. On
//! the 2-core VM of BENCHMARKS.md ("Small inputs") that cost 4.5-5 µs, where the serial SpMV of a
//! 48-row matrix takes 0.1 µs and that of a 1,024-row matrix of 4,092 nonzeros 2 µs. Below
//! [`PARALLEL_MIN_WORK`] stored values, a region's iterations therefore run on the calling
//! thread, in order, through the same rayon iterator cut into one piece: rayon then splits
//! nothing and calls the loop body where it stands, without entering its pool.

/// The fewest stored values (summed over the inputs a region reads) for which a thread region
/// uses rayon's pool.
///
/// Two threads at best halve a loop, so threads pay only once the serial loop takes more than
/// twice the fork and join, about 10 µs. The serial SpMV, the kernel with the least work per
/// stored value, took 10 µs at about 25,000 values (5,000 rows of 4 nonzeros, with `x`; 0.4 ns
/// per value), so its threads cannot pay below 2^15 values. Kernels with more work per value
/// reach 10 µs sooner (SpMM with 32 dense columns at about 7,000 values) and run serially where
/// two idle cores could have taken up to 1.7 times less time, just below the threshold. On the
/// shared VM where this was measured, the second core was never idle enough for the row-split
/// SpMV to beat the serial one, up to 262,000 nonzeros.
pub const PARALLEL_MIN_WORK: usize = 1 << 15;

/// rayon's `with_min_len` for a region that stands for `work` stored values: the whole range as
/// one piece (run on the calling thread) below [`PARALLEL_MIN_WORK`] or when the pool has one
/// thread, pieces of any length otherwise.
#[inline]
pub fn min_len(work: usize) -> usize {
    match pieces(work) {
        1 => usize::MAX,
        _ => 1,
    }
}

/// How many pieces a region that reduces over tasks cuts its range into, each with its own copy
/// of the output: one below [`PARALLEL_MIN_WORK`], else one per thread of rayon's pool.
#[inline]
pub fn pieces(work: usize) -> usize {
    match work < PARALLEL_MIN_WORK {
        true => 1,
        false => rayon::current_num_threads().max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn small_work_is_one_piece_and_large_work_uses_the_pool() {
        assert_eq!(pieces(0), 1);
        assert_eq!(pieces(PARALLEL_MIN_WORK - 1), 1);
        assert_eq!(min_len(PARALLEL_MIN_WORK - 1), usize::MAX);
        let threads = rayon::current_num_threads().max(1);
        assert_eq!(pieces(PARALLEL_MIN_WORK), threads);
        let whole = if threads == 1 { usize::MAX } else { 1 };
        assert_eq!(min_len(PARALLEL_MIN_WORK), whole);
    }

    #[test]
    fn one_piece_runs_every_iteration_on_the_calling_thread_in_order() {
        let caller = std::thread::current().id();
        let mut seen = vec![None; 1000];
        seen.par_iter_mut()
            .enumerate()
            .with_min_len(min_len(0))
            .for_each(|(k, slot)| *slot = Some((k, std::thread::current().id())));
        for (k, slot) in seen.iter().enumerate() {
            assert_eq!(*slot, Some((k, caller)));
        }
    }
}
