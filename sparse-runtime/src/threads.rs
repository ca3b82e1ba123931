//! Whether a kernel's thread region is worth its threads (OpenMP's `if` clause).
//!
//! rayon hands a parallel loop to its pool and waits for it: a fork and a join, a few
//! microseconds, on every call. On a small input that is more than the loop itself: a row-split
//! SpMV over a 1,138-row matrix of about 4,000 nonzeros runs in 2-5 µs on one thread. Below
//! [`PARALLEL_MIN_WORK`] stored values, a region's iterations therefore run on the calling thread,
//! in order, through the same rayon iterator cut into one piece: rayon then splits nothing and
//! calls the loop body where it stands, without entering its pool.

/// The fewest stored values (summed over the inputs a region reads) for which a thread region
/// uses rayon's pool. Measured on the 2-core VM of BENCHMARKS.md ("Small inputs"): a row-split
/// SpMV on random matrices of 4 nonzeros per row broke even with the serial kernel between
/// 8,192 and 16,384 rows (40,000-80,000 stored values: the matrix's and `x`'s), and an SpMM with
/// 32 dense columns (whose dense operand holds most of the values) at fewer rows but a similar
/// count; the threshold sits at the low end so that a large input never loses its threads.
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
