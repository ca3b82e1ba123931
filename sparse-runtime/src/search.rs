//! The binary search that starts a coordinate tile (Senanayake et al. 2020, taco's
//! `binarySearchAfter`): a loop over the coordinates `[lo, hi)` of a split index variable that
//! iterates a compressed level starts at the first position of the level's segment whose
//! coordinate is at least `lo`. Generated code calls [`binary_search_after`] for each tile.

use crate::Idx;

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
}
