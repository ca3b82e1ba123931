//! Statements whose implicit sums cover only part of the right-hand side, against dense
//! references. An implicit sum covers the smallest term that uses its variable (docs/architecture.md), so
//! these kernels compute partial sums in `where` producers, some nested in others. Each kernel
//! here was wrong or an internal error once: random statements over three indices with
//! transposed and broadcast accesses found them.
mod common;

use common::*;
use sparse::prelude::*;

// A sum over `k` inside the sum over `i` and `j`, which an added constant keeps from covering
// the whole statement (every `B(i,j)` was subtracted once per `k`).
tensor_kernel! {
    fn nested_in_an_added_term;
    a += (B(i,j) - C(j) * D(k,j,i)) + 2;
    formats<B: csc, D: csf>;
}

// A partial sum scaled after it is subtracted (the sum over `j` lost its loop over `i`).
tensor_kernel! { fn scaled_difference; a = (B(i) - C(j,i)) * 2; formats<C: csc>; }

// ELL's slots make `B(k,j)` a producer inside the sum over `j`, which reaches it through the
// product by 2.
tensor_kernel! { fn ell_term_scaled; y(i) = (B(k,j) - C(j,i)) * 2; formats<B: ell>; }

// Moving the sum over `i` into ELL's producer would count `C(k,j)` once instead of once per `i`.
tensor_kernel! {
    fn term_counted_per_i;
    A(j) = (B(i,k) + C(k,j)) - D(k) * E(i,k) + 2;
    formats<A: sparse, B: dcsr, C: csr, D: hash, E: ell>;
}

// Lowering the case where `C`'s row is absent recorded the sum over `k` without `C`, and the
// case where it is present iterated that stale sum.
tensor_kernel! { fn row_absent_dcsr; A(i,j) = C(i,j) * B(j,k) + D(i,j,k); formats<C: dcsr>; }
tensor_kernel! { fn row_absent_coo; A(i,j) = C(i,j) * B(j,k) + D(i,j,k); formats<C: coo>; }

// The loops around the output must suit `B`, which only the producer reads.
tensor_kernel! { fn producer_sets_the_order; A(j,i) = B(i,j,k) - 2; formats<B: coo>; }

// `reorder` of one producer's loops gave the other producer a loop over ELL's slots, so `C` was
// summed once per slot.
tensor_kernel! {
    fn reorder_of_one_producer;
    a = B(j,i) - C(j,i);
    formats<B: ell, C: csr>;
    schedule<reorder(j, i)>;
}

// Where `D(k,j)` is absent only `- 2` is left, and the producer of the sum over `i` ran anyway,
// reading `B` in a loop that no longer iterated it.
tensor_kernel! {
    fn unread_producer_dropped;
    A(k,j) = (B(k,i) + C(k,j)) * D(k,j) - 2;
    formats<B: dcsr, C: csc, D: dcsr>;
}

// Converting `C` so that the producer over `i` and `k` runs inside the loop over `j` made its `i`
// level sparse where DIA's rows meet it, after DIA's copies were planned.
tensor_kernel! { fn dia_meets_a_converted_level; A(j) = B(i,k) * C(i,j) + 2; formats<B: dia, C: hash>; }

// `D(k,i)` is read in a producer nested in the producer over `i`, inside the loop over `k`: the
// two enclosing loops, not one of them and the producer's own, are against `D`'s order.
tensor_kernel! {
    fn nested_producer_against_storage;
    A(k) = ((B(k,j) - C(j,i,k)) - D(k,i) * E(i,j)) - 2;
    formats<B: dcsr, C: (compressed, dense, compressed), D: csc, E: ell>;
}

// The sums over `i` and `j` cannot move into ELL's producer exactly (`D(j)` lies between), so
// the producer runs inside both loops, against ELL's slot order: `E` is copied into rows over
// compressed columns. This was a storage-order error; so was ELL read transposed next to ELL.
tensor_kernel! {
    fn ell_copied_for_a_nested_producer;
    a = (B(j,i) * C(j,i) - (D(j) - E(i,j))) * 2;
    formats<B: csr, C: dcsc, E: ell>;
}
tensor_kernel! { fn ell_times_ell_transposed; A(i,j) = B(i,j) * C(j,i); formats<B: ell, C: ell>; }

/// Extents of `i`, `j` and `k`: empty, single, and sizes where every index differs.
const EXTENTS: [[usize; 3]; 5] = [[0, 0, 0], [1, 1, 1], [4, 3, 2], [5, 4, 3], [7, 2, 5]];

/// Row-major offset of `coords` in a tensor of `shape`.
fn at(shape: &[usize], coords: &[usize]) -> usize {
    shape.iter().zip(coords).fold(0, |o, (n, c)| o * n + c)
}

fn sum(n: usize, f: impl Fn(usize) -> f64) -> f64 {
    (0..n).map(f).sum()
}

/// An input's entries, and its dense array.
type Input<const N: usize> = (Vec<([usize; N], f64)>, Vec<f64>);

/// Every case of `cases(shape, seed)` with its dense array.
fn inputs<const N: usize>(shape: [usize; N], seed: u64) -> Vec<Input<N>> {
    cases(shape, seed)
        .into_iter()
        .map(|e| {
            let d = dense(shape, &e);
            (e, d)
        })
        .collect()
}

#[test]
fn sums_nested_in_added_or_scaled_terms() {
    for [ni, nj, nk] in EXTENTS {
        let cv: Vec<f64> = (0..nj).map(|j| 0.5 - j as f64).collect();
        let bv: Vec<f64> = (0..ni).map(|i| i as f64 - 1.5).collect();
        let (c, b) = (
            Tensor::from_dense([nj], &cv).unwrap(),
            Tensor::from_dense([ni], &bv).unwrap(),
        );
        for (s, (me, m)) in inputs([ni, nj], 11).into_iter().enumerate() {
            for (de, d) in inputs([nk, nj, ni], 12 + s as u64) {
                let mut a = Tensor::from_dense([], &[1.25]).unwrap();
                let (mt, dt) = (
                    tensor::<Csc, 2>([ni, nj], &me),
                    tensor::<Csf<3>, 3>([nk, nj, ni], &de),
                );
                nested_in_an_added_term(&mut a, &mt, &c, &dt).unwrap();
                let terms = sum(ni, |i| {
                    sum(nj, |j| {
                        let dk = sum(nk, |k| d[at(&[nk, nj, ni], &[k, j, i])]);
                        m[at(&[ni, nj], &[i, j])] - cv[j] * dk
                    })
                });
                assert_close(a.values(), &[1.25 + terms + 2.0]);
            }
            // `C(j,i)` of shape (nj, ni): the matrix transposed.
            let mut a = garbage([]);
            let ct = tensor::<Csc, 2>([nj, ni], &transpose(&me));
            scaled_difference(&mut a, &b, &ct).unwrap();
            let want = sum(ni, |i| {
                (bv[i] - sum(nj, |j| m[at(&[ni, nj], &[i, j])])) * 2.0
            });
            assert_close(a.values(), &[want]);
        }
    }
}

#[test]
fn ell_producers_keep_every_count() {
    for [ni, nj, nk] in EXTENTS {
        for (s, (be, b)) in inputs([nk, nj], 21).into_iter().enumerate() {
            for (ce, c) in inputs([nj, ni], 22 + s as u64) {
                let mut y = garbage([ni]);
                ell_term_scaled(
                    &mut y,
                    &tensor::<Ell, 2>([nk, nj], &be),
                    &tensor::<Dense<2>, 2>([nj, ni], &ce),
                )
                .unwrap();
                let want: Vec<f64> = (0..ni)
                    .map(|i| {
                        let column = |j| sum(nk, |k| b[at(&[nk, nj], &[k, j])]);
                        sum(nj, |j| (column(j) - c[at(&[nj, ni], &[j, i])]) * 2.0)
                    })
                    .collect();
                assert_close(y.values(), &want);
            }
        }
        let dv: Vec<f64> = (0..nk).map(|k| 1.0 + k as f64).collect();
        let d = tensor::<HashVec, 1>(
            [nk],
            &dv.iter()
                .enumerate()
                .map(|(k, &v)| ([k], v))
                .collect::<Vec<_>>(),
        );
        for (s, (be, b)) in inputs([ni, nk], 31).into_iter().enumerate() {
            let (ce, c) = inputs([nk, nj], 32 + s as u64).swap_remove(s.min(1));
            let (ee, e) = inputs([ni, nk], 33 + s as u64).swap_remove(s % 2);
            let mut a = tensor::<SparseVec, 1>([nj], &[]);
            term_counted_per_i(
                &mut a,
                &tensor::<Dcsr, 2>([ni, nk], &be),
                &tensor::<Csr, 2>([nk, nj], &ce),
                &d,
                &tensor::<Ell, 2>([ni, nk], &ee),
            )
            .unwrap();
            let want: Vec<f64> = (0..nj)
                .map(|j| {
                    let terms = sum(ni, |i| {
                        sum(nk, |k| {
                            let ik = at(&[ni, nk], &[i, k]);
                            b[ik] + c[at(&[nk, nj], &[k, j])] - dv[k] * e[ik]
                        })
                    });
                    terms + 2.0
                })
                .collect();
            assert_close(&a.to_dense(), &want);
        }
    }
}

#[test]
fn sums_read_after_an_absent_row() {
    for [ni, nj, nk] in EXTENTS {
        let bv: Vec<f64> = (0..nj * nk).map(|p| 0.25 * p as f64 - 1.0).collect();
        let b = Tensor::from_dense([nj, nk], &bv).unwrap();
        for (s, (ce, c)) in inputs([ni, nj], 41).into_iter().enumerate() {
            let (de, d) = inputs([ni, nj, nk], 42 + s as u64).swap_remove(s.min(2));
            let dt = tensor::<Dense<3>, 3>([ni, nj, nk], &de);
            let want: Vec<f64> = (0..ni * nj)
                .map(|ij| {
                    let (i, j) = (ij / nj, ij % nj);
                    sum(nk, |k| {
                        c[ij] * bv[at(&[nj, nk], &[j, k])] + d[at(&[ni, nj, nk], &[i, j, k])]
                    })
                })
                .collect();
            let mut a = garbage([ni, nj]);
            row_absent_dcsr(&mut a, &tensor::<Dcsr, 2>([ni, nj], &ce), &b, &dt).unwrap();
            assert_close(a.values(), &want);
            let mut a = garbage([ni, nj]);
            row_absent_coo(&mut a, &tensor::<Coo<2>, 2>([ni, nj], &ce), &b, &dt).unwrap();
            assert_close(a.values(), &want);
        }
    }
}

#[test]
fn producers_run_only_where_read() {
    for [ni, nj, nk] in EXTENTS {
        for (s, (be, b)) in inputs([nk, ni], 61).into_iter().enumerate() {
            let (ce, c) = inputs([nk, nj], 62 + s as u64).swap_remove(s.min(2));
            let (de, d) = inputs([nk, nj], 63 + s as u64).swap_remove(s % 3);
            let mut a = garbage([nk, nj]);
            unread_producer_dropped(
                &mut a,
                &tensor::<Dcsr, 2>([nk, ni], &be),
                &tensor::<Csc, 2>([nk, nj], &ce),
                &tensor::<Dcsr, 2>([nk, nj], &de),
            )
            .unwrap();
            let want: Vec<f64> = (0..nk * nj)
                .map(|kj| {
                    let row = sum(ni, |i| b[at(&[nk, ni], &[kj / nj, i])]);
                    (row + c[kj]) * d[kj] - 2.0
                })
                .collect();
            assert_close(a.values(), &want);
        }
    }
}

#[test]
fn operands_converted_for_nested_producers() {
    for [ni, nj, nk] in EXTENTS {
        for (s, (be, b)) in inputs([ni, nk], 71).into_iter().enumerate() {
            let (ce, c) = inputs([ni, nj], 72 + s as u64).swap_remove(s.min(2));
            let mut a = garbage([nj]);
            dia_meets_a_converted_level(
                &mut a,
                &tensor::<Dia, 2>([ni, nk], &be),
                &tensor::<HashMat, 2>([ni, nj], &ce),
            )
            .unwrap();
            let want: Vec<f64> = (0..nj)
                .map(|j| {
                    let products = sum(ni, |i| {
                        sum(nk, |k| {
                            b[at(&[ni, nk], &[i, k])] * c[at(&[ni, nj], &[i, j])]
                        })
                    });
                    products + 2.0
                })
                .collect();
            assert_close(a.values(), &want);
        }
        for (s, (be, b)) in inputs([nk, nj], 81).into_iter().enumerate() {
            let (ce, c) = inputs([nj, ni, nk], 82 + s as u64).swap_remove(s.min(1));
            let (de, d) = inputs([nk, ni], 83 + s as u64).swap_remove(s.min(2));
            let (ee, e) = inputs([ni, nj], 84 + s as u64).swap_remove(s % 3);
            let mut a = garbage([nk]);
            nested_producer_against_storage(
                &mut a,
                &tensor::<Dcsr, 2>([nk, nj], &be),
                // A format written as a level list: the kernel's signature names its type.
                &Tensor::from_entries([nj, ni, nk], ce.iter().copied()).unwrap(),
                &tensor::<Csc, 2>([nk, ni], &de),
                &tensor::<Ell, 2>([ni, nj], &ee),
            )
            .unwrap();
            let want: Vec<f64> = (0..nk)
                .map(|k| {
                    let terms = sum(ni, |i| {
                        sum(nj, |j| {
                            let (kj, jik) = (at(&[nk, nj], &[k, j]), at(&[nj, ni, nk], &[j, i, k]));
                            b[kj] - c[jik] - d[at(&[nk, ni], &[k, i])] * e[at(&[ni, nj], &[i, j])]
                        })
                    });
                    terms - 2.0
                })
                .collect();
            assert_close(a.values(), &want);
        }
    }
}

#[test]
fn slot_formats_copied_where_their_order_does_not_fit() {
    for [ni, nj, _] in EXTENTS {
        let dv: Vec<f64> = (0..nj).map(|j| 1.5 - j as f64).collect();
        let d = Tensor::<f64, Dense<1>>::from_dense([nj], &dv).unwrap();
        for (s, (be, b)) in inputs([nj, ni], 91).into_iter().enumerate() {
            let (ce, c) = inputs([nj, ni], 92 + s as u64).swap_remove(s.min(2));
            let (ee, e) = inputs([ni, nj], 93 + s as u64).swap_remove(s % 3);
            let mut a = garbage([]);
            ell_copied_for_a_nested_producer(
                &mut a,
                &tensor::<Csr, 2>([nj, ni], &be),
                &tensor::<Dcsc, 2>([nj, ni], &ce),
                &d,
                &tensor::<Ell, 2>([ni, nj], &ee),
            )
            .unwrap();
            let want = sum(nj, |j| {
                let ji = |i| at(&[nj, ni], &[j, i]);
                let products = sum(ni, |i| b[ji(i)] * c[ji(i)]);
                let column = sum(ni, |i| e[at(&[ni, nj], &[i, j])]);
                (products - (dv[j] * ni as f64 - column)) * 2.0
            });
            assert_close(a.values(), &[want]);
            let mut a = garbage([ni, nj]);
            let transposed = tensor::<Ell, 2>([nj, ni], &be);
            ell_times_ell_transposed(&mut a, &tensor::<Ell, 2>([ni, nj], &ee), &transposed)
                .unwrap();
            let want: Vec<f64> = (0..ni * nj)
                .map(|ij| e[ij] * b[at(&[nj, ni], &[ij % nj, ij / nj])])
                .collect();
            assert_close(a.values(), &want);
        }
    }
}

#[test]
fn loops_suit_every_producer() {
    for [ni, nj, nk] in EXTENTS {
        for (s, (be, b)) in inputs([ni, nj, nk], 51).into_iter().enumerate() {
            let mut a = garbage([nj, ni]);
            producer_sets_the_order(&mut a, &tensor::<Coo<3>, 3>([ni, nj, nk], &be)).unwrap();
            let want: Vec<f64> = (0..nj * ni)
                .map(|ji| {
                    let (j, i) = (ji / ni, ji % ni);
                    sum(nk, |k| b[at(&[ni, nj, nk], &[i, j, k])]) - 2.0
                })
                .collect();
            assert_close(a.values(), &want);
            let (ce, c) = inputs([nj, ni], 52 + s as u64).swap_remove(s.min(3));
            let (me, m) = inputs([nj, ni], 53 + s as u64).swap_remove(s % 3);
            let mut a = garbage([]);
            reorder_of_one_producer(
                &mut a,
                &tensor::<Ell, 2>([nj, ni], &me),
                &tensor::<Csr, 2>([nj, ni], &ce),
            )
            .unwrap();
            let want: f64 = m.iter().sum::<f64>() - c.iter().sum::<f64>();
            assert_close(a.values(), &[want]);
        }
    }
}

/// The entries of a matrix, transposed.
fn transpose(e: &[([usize; 2], f64)]) -> Vec<([usize; 2], f64)> {
    e.iter().map(|&([r, c], v)| ([c, r], v)).collect()
}
