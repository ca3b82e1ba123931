//! A fast path for the permutations and conversions of matrices stored as dense rows over one
//! compressed level (CSR, CSC and the kernels' run-time copies of them): the transposed arrays by
//! a counting sort of the compressed coordinates (one pass to count, a prefix sum, one pass to
//! place), or the same arrays when the levels keep their dimensions. The general path through
//! sorted entries (`pack`) gives the same tensor, several times slower: the row-wise products
//! of AᵀA and A Aᵀ copy an operand this way each time they run.

use std::marker::PhantomData;

use sparse_format::{Coord, Format, LevelKind, LevelSpec};

use super::Tensor;
use crate::Scalar;
use crate::storage::{Idx, Level};

impl<T: Scalar, F: Format> Tensor<T, F> {
    /// `self` with dimension `d` of the result taken from dimension `perm[d]` of `self`, in
    /// format `G`, when both formats are dense rows over one duplicate-free compressed level
    /// (the result's sorted); `None` for every other case, which the general path handles.
    pub(super) fn permuted_rows<G: Format>(&self, perm: &[usize]) -> Option<Tensor<T, G>> {
        let (from_rows, from_cols) = rows_over_compressed(F::LEVELS)?;
        let (to_rows, to_cols) = rows_over_compressed(G::LEVELS)?;
        let unique = F::LEVELS[1].unique && G::LEVELS[1].unique && G::LEVELS[1].ordered;
        let [Level::Dense { size }, Level::Compressed { pos, crd }] = self.levels.as_slice() else {
            return None;
        };
        if !unique || self.filled.is_some() || perm.len() != 2 {
            return None;
        }
        let shape: Vec<usize> = perm.iter().map(|&d| self.shape[d]).collect();
        let (rows, cols) = (perm[to_rows], perm[to_cols]);
        let (levels, vals) = if (rows, cols) == (from_rows, from_cols) && F::LEVELS[1].ordered {
            (self.levels.clone(), self.vals.clone())
        } else if (rows, cols) == (from_cols, from_rows) {
            let columns = self.shape[from_cols];
            let (t_pos, t_crd, t_vals) = transpose_arrays(*size, columns, pos, crd, &self.vals)?;
            let levels = vec![
                Level::Dense { size: columns },
                Level::Compressed {
                    pos: t_pos,
                    crd: t_crd,
                },
            ];
            (levels, t_vals)
        } else {
            return None;
        };
        Some(Tensor {
            shape,
            levels,
            crd_bounds: std::sync::OnceLock::new(),
            nnz: vals.len(),
            vals,
            filled: None,
            fill: self.fill,
            format: PhantomData,
        })
    }
}

/// The dimensions of a format's two levels when they are a dense level over a compressed one.
fn rows_over_compressed(levels: &[LevelSpec]) -> Option<(usize, usize)> {
    match levels {
        [
            LevelSpec {
                kind: LevelKind::Dense,
                coord: Coord::Dim(rows),
                ..
            },
            LevelSpec {
                kind: LevelKind::Compressed,
                coord: Coord::Dim(cols),
                ..
            },
        ] => Some((*rows, *cols)),
        _ => None,
    }
}

type Arrays<T> = (Vec<Idx>, Vec<Idx>, Vec<T>);

/// The transpose of `rows` rows over `columns` columns: each column's entries in row order.
/// `None` when the arrays are not those of a valid tensor.
fn transpose_arrays<T: Scalar>(
    rows: usize,
    columns: usize,
    pos: &[Idx],
    crd: &[Idx],
    vals: &[T],
) -> Option<Arrays<T>> {
    let nnz = crd.len();
    if pos.len() != rows + 1 || vals.len() != nnz {
        return None;
    }
    let mut t_pos = vec![0 as Idx; columns + 1];
    for &c in crd {
        *t_pos.get_mut(c as usize + 1)? += 1;
    }
    for k in 0..columns {
        t_pos[k + 1] += t_pos[k];
    }
    let mut next: Vec<Idx> = t_pos[..columns].to_vec();
    let (mut t_crd, mut t_vals) = (vec![0 as Idx; nnz], vec![T::ZERO; nnz]);
    for row in 0..rows {
        let (start, end) = (pos[row] as usize, pos[row + 1] as usize);
        let row_idx = Idx::try_from(row).ok()?;
        for (&c, &v) in crd.get(start..end)?.iter().zip(vals.get(start..end)?) {
            let slot = &mut next[c as usize];
            t_crd[*slot as usize] = row_idx;
            t_vals[*slot as usize] = v;
            *slot += 1;
        }
    }
    Some((t_pos, t_crd, t_vals))
}

#[cfg(test)]
mod tests {
    use crate::{Csc, Csr, ExplicitZeros, Tensor};

    /// Every path agrees with the general one: transposes into CSR and CSC, a conversion that
    /// keeps or swaps the arrays, on matrices with empty rows and columns, explicit zeros, an
    /// empty matrix and a full row.
    #[test]
    fn the_fast_path_matches_the_general_one() {
        type Case = (usize, usize, Vec<([usize; 2], f64)>);
        let cases: Vec<Case> = vec![
            (0, 0, vec![]),
            (3, 4, vec![]),
            (1, 1, vec![([0, 0], 2.0)]),
            (
                4,
                5,
                vec![([0, 4], 1.0), ([2, 0], 0.0), ([2, 3], 3.0), ([3, 4], -1.0)],
            ),
            (3, 6, (0..6).map(|j| ([1, j], j as f64 + 1.0)).collect()),
        ];
        for (m, n, entries) in cases {
            let a = Tensor::<f64, Csr>::from_entries_with([m, n], entries, ExplicitZeros::Keep)
                .unwrap();
            let general: Tensor<f64, Csr> = Tensor::from_entry_list(
                &{
                    let mut list = crate::Entries::new(vec![n, m]);
                    a.for_each_entry(|c, v| list.push(&[c[1], c[0]], v).unwrap());
                    list
                },
                ExplicitZeros::Keep,
            )
            .unwrap();
            let fast: Tensor<f64, Csr> = a.permuted_rows(&[1, 0]).expect("fast path");
            assert_eq!(fast.levels, general.levels);
            assert_eq!(fast.vals, general.vals);
            assert_eq!(fast.nnz(), a.nnz());
            let csc: Tensor<f64, Csc> = a.permuted_rows(&[0, 1]).expect("fast path");
            assert_eq!(csc.to_dense(), a.to_dense());
            assert_eq!(csc.nnz(), a.nnz());
            let same: Tensor<f64, Csr> = a.permuted_rows(&[0, 1]).expect("fast path");
            assert_eq!((same.levels, same.vals), (a.levels.clone(), a.vals.clone()));
            let back: Tensor<f64, Csr> = csc.permuted_rows(&[0, 1]).expect("fast path");
            assert_eq!((back.levels, back.vals), (a.levels.clone(), a.vals.clone()));
        }
    }
}
