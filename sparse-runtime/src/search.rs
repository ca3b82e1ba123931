//! The binary searches of generated code. [`binary_search_after`] starts a coordinate tile
//! (Senanayake et al. 2020, taco's `binarySearchAfter`): a loop over the coordinates `[lo, hi)`
//! of a split index variable that iterates a compressed level starts at the first position of
//! the level's segment whose coordinate is at least `lo`. [`count_up_to`] finds the row a
//! nonzero split's task starts in.

use crate::Idx;
use crate::prefetch::prefetch;

/// How many entries of `pos` are at most `target`: where `pos` ascends (a compressed level's
/// positions), one past the last row that starts at or before position `target`, as
/// `pos.partition_point(|&p| p as usize <= target)`. Any other `pos` gives some count in
/// `0..=pos.len()`.
///
/// A nonzero split finds a row for each of its tasks' bounds, hundreds of searches a call in a
/// `pos` the call's own streams have pushed out of the caches (a million rows: 200-230 µs of
/// the calling thread's time before the tasks start, on a Zen 5 EPYC). Each step here hints
/// both entries the next step may read, so that its miss overlaps this step's
/// (Khuong and Morin, "Array layouts for comparison-based searching"), and chooses between
/// them without a branch.
#[inline]
pub fn count_up_to(pos: &[Idx], target: usize) -> usize {
    let Some(&first) = pos.first() else {
        return 0;
    };
    if first as usize > target {
        return 0;
    }
    // `pos[base] <= target`; every entry from `base + size` on is above it (or past the end).
    let (mut base, mut size) = (0, pos.len());
    while size > 1 {
        let half = size / 2;
        let next = (size - half) / 2;
        prefetch(pos.as_ptr().wrapping_add(base + next));
        prefetch(pos.as_ptr().wrapping_add(base + half + next));
        if pos[base + half] as usize <= target {
            base += half;
        }
        size -= half;
    }
    base + 1
}

/// The first position `p` in `[lo, hi)` with `crd[p] >= target`, or `hi` when there is none.
/// `crd[lo..hi]` must be sorted (non-decreasing), as the coordinates of one segment of an ordered
/// level are; `lo <= hi <= crd.len()` holds for every segment of a validated tensor.
#[inline]
pub fn binary_search_after(crd: &[Idx], lo: usize, hi: usize, target: usize) -> usize {
    lo + crd[lo..hi].partition_point(|&c| (c as usize) < target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_coordinate_at_or_after_the_target_within_the_segment() {
        let crd = [9, 1, 3, 3, 7, 2];
        // The segment [1, 5) holds 1, 3, 3, 7.
        assert_eq!(binary_search_after(&crd, 1, 5, 0), 1);
        assert_eq!(binary_search_after(&crd, 1, 5, 1), 1);
        assert_eq!(binary_search_after(&crd, 1, 5, 2), 2);
        assert_eq!(binary_search_after(&crd, 1, 5, 3), 2);
        assert_eq!(binary_search_after(&crd, 1, 5, 4), 4);
        assert_eq!(binary_search_after(&crd, 1, 5, 7), 4);
        assert_eq!(binary_search_after(&crd, 1, 5, 8), 5);
        assert_eq!(binary_search_after(&crd, 3, 3, 0), 3);
        assert_eq!(binary_search_after(&[], 0, 0, 5), 0);
    }

    /// Ascending arrays with repeats (empty rows), of every length up to 40, against every
    /// target from below the first entry to past the last.
    #[test]
    fn counts_up_to_agree_with_the_partition_point() {
        for n in 0..40u32 {
            let pos: Vec<Idx> = (0..n).map(|k| k / 3 * 2 + k % 2).collect();
            for target in 0..(2 * n as usize + 3) {
                let want = pos.partition_point(|&p| p as usize <= target);
                assert_eq!(count_up_to(&pos, target), want, "{pos:?}, {target}");
            }
        }
    }

    /// A `pos` that does not ascend (a corrupted tensor) gives some count, never a panic.
    #[test]
    fn counts_up_to_of_any_order_stay_in_range() {
        let pos: Vec<Idx> = vec![5, 1, 9, 0, 0, 7, 3, 12, 2];
        for target in 0..15 {
            assert!(count_up_to(&pos, target) <= pos.len());
        }
    }
}
