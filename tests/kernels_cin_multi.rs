//! `multi(S1, S2, ..)` written directly: one kernel computing several outputs, the function
//! taking every output first (in the order the statements assign them), then the inputs. Each
//! output against a dense reference written out here, on the edge-case inputs of `common::cases`
//! (the empty tensor, single entries, empty first/middle/last rows, duplicates), each kernel
//! called twice into the same outputs.
mod common;

use common::*;
use sparse::prelude::*;

/// Inside the row loop: `y = A x` and `z = B w`, each with its own scalar temporary.
mod inner {
    use super::*;
    tensor_kernel! {
        pub fn two_sums;
        forall(i, multi(
            where(y(i) = t, forall(j, t += A(i,j) * x(j))),
            where(z(i) = u, forall(j, u += B(i,j) * w(j)))
        ));
        formats< A: csr, B: csr >;
        temporaries< t, u >;
    }
    // One temporary both outputs read: `y = A x`, `z = 2 A x + c`.
    tensor_kernel! {
        pub fn shared_temp;
        forall(i, where(multi(y(i) = t, z(i) = t * 2 + c(i)), forall(j, t += A(i,j) * x(j))));
        formats< A: csr, c: sparse >;
        temporaries< t >;
    }
    // A `sequence` for one output beside a plain assignment to the other, three outputs.
    tensor_kernel! {
        pub fn three;
        forall(i, multi(
            sequence(y(i) = c(i), forall(j, y(i) += A(i,j) * x(j))),
            z(i) = c(i) * 3,
            v(i) = alpha * c(i)
        ));
        formats< A: csr, c: sparse >;
        scalars< alpha >;
    }
}

/// A `multi` inside a `sequence`: `y` and `z` start from `c`, then `y` accumulates `A x`.
mod in_sequence {
    use super::*;
    tensor_kernel! {
        pub fn start_then_sum;
        sequence(
            forall(i, multi(y(i) = c(i), z(i) = c(i) * 3)),
            forall(i, forall(j, y(i) += A(i,j) * x(j)))
        );
        formats< A: csr, c: sparse >;
    }
}

/// At the top level: a dense output and a CSR output, and two CSR outputs.
mod top {
    use super::*;
    tensor_kernel! {
        pub fn dense_and_csr;
        multi(forall(i, y(i) = c(i) * 2), forall(i, forall(j, Z(i,j) = A(i,j) * 3)));
        formats< Z: csr, A: csr, c: sparse >;
    }
    tensor_kernel! {
        pub fn two_csr;
        multi(
            forall(i, forall(j, Z(i,j) = A(i,j) * B(i,j))),
            forall(i, forall(j, W(i,j) = A(i,j) + B(i,j)))
        );
        formats< Z: csr, W: csr, A: csr, B: csr >;
    }
}

/// The explicit parameter list: the outputs first in order, the inputs in any order.
mod explicit {
    use super::*;
    tensor_kernel! {
        pub fn spmv_pair(y, z, w, x, A);
        multi(forall(i, forall(j, y(i) += A(i,j) * x(j))), forall(i, forall(j, z(i) += A(i,j) * w(j))));
        formats< A: csr >;
    }
}

/// `reduce<>` and a user operator in one kernel: min-plus into `y`, a sum of gaps into `z`.
mod operators {
    use super::*;
    tensor_kernel! {
        pub fn min_plus_and_gaps;
        forall(i, multi(
            where(y(i) = t, forall(j, t += C(i,j) + v(j))),
            where(z(i) = u, forall(k, u += gap(A(i,k), x(k))))
        ));
        formats< A: csr, C: csr >;
        fills< C: inf, v: inf, y: inf >;
        reduce< j: min >;
        temporaries< t, u >;
        ops< gap(a, b) = abs(a - b) over a; >;
    }
}

/// A schedule applies to every output's loops.
mod scheduled {
    use super::*;
    tensor_kernel! {
        pub fn parallel;
        forall(i, multi(
            where(y(i) = t, forall(j, t += A(i,j) * x(j))),
            where(z(i) = u, forall(j, u += B(i,j) * w(j)))
        ));
        formats< A: csr, B: csr >;
        temporaries< t, u >;
        schedule< split(i, i0, i1, Down, 4).parallelize(i0, CpuThread, NoRaces) >;
    }
}

const SHAPES: [(usize, usize); 6] = [(0, 0), (1, 1), (3, 0), (7, 5), (5, 9), (13, 13)];

fn matvec(m: usize, n: usize, a: &[f64], x: &[f64]) -> Vec<f64> {
    (0..m)
        .map(|i| (0..n).map(|j| a[i * n + j] * x[j]).sum())
        .collect()
}

fn vector(n: usize, start: f64) -> (Vec<f64>, Tensor<f64, Dense<1>>) {
    let xs: Vec<f64> = (0..n).map(|j| start + j as f64).collect();
    let x = Tensor::from_dense([n], &xs).unwrap();
    (xs, x)
}

/// A sparse vector with entries at every third coordinate, and its dense form.
fn sparse_vector(n: usize) -> (Vec<f64>, Tensor<f64, SparseVec>) {
    let entries: Vec<([usize; 1], f64)> =
        (0..n).step_by(3).map(|j| ([j], 1.5 - j as f64)).collect();
    (dense([n], &entries), tensor([n], &entries))
}

/// A matrix's entries and its dense row-major form.
type Matrix = (Vec<([usize; 2], f64)>, Vec<f64>);

/// Every matrix of the edge cases, with its dense form.
fn matrices(m: usize, n: usize, seed: u64) -> Vec<Matrix> {
    (cases([m, n], seed).into_iter())
        .map(|e| {
            let d = dense([m, n], &e);
            (e, d)
        })
        .collect()
}

/// Pairs of edge-case matrices, the second list reversed so each case meets another.
fn pairs(m: usize, n: usize) -> Vec<(Matrix, Matrix)> {
    let a = matrices(m, n, (m * 13 + n) as u64);
    let b = matrices(m, n, (m * 17 + n + 3) as u64);
    a.into_iter().zip(b.into_iter().rev()).collect()
}

#[test]
fn two_sums_inside_the_row_loop() {
    for (m, n) in SHAPES {
        for ((ea, da), (eb, db)) in pairs(m, n) {
            let (a, b) = (tensor::<Csr, 2>([m, n], &ea), tensor::<Csr, 2>([m, n], &eb));
            let ((xs, x), (ws, w)) = (vector(n, 0.5), vector(n, -2.0));
            let (mut y, mut z) = (garbage([m]), garbage([m]));
            for _ in 0..2 {
                inner::two_sums(&mut y, &mut z, &a, &x, &b, &w).unwrap();
                assert_close(y.values(), &matvec(m, n, &da, &xs));
                assert_close(z.values(), &matvec(m, n, &db, &ws));
            }
        }
    }
}

#[test]
fn one_temporary_read_by_both_outputs() {
    for (m, n) in SHAPES {
        for (ea, da) in matrices(m, n, (m * 19 + n) as u64) {
            let a = tensor::<Csr, 2>([m, n], &ea);
            let (xs, x) = vector(n, 0.25);
            let (cs, c) = sparse_vector(m);
            let ax = matvec(m, n, &da, &xs);
            let (mut y, mut z) = (garbage([m]), garbage([m]));
            for _ in 0..2 {
                inner::shared_temp(&mut y, &mut z, &c, &a, &x).unwrap();
                assert_close(y.values(), &ax);
                let want: Vec<f64> = ax.iter().zip(&cs).map(|(p, q)| 2.0 * p + q).collect();
                assert_close(z.values(), &want);
            }
        }
    }
}

#[test]
fn three_outputs_one_of_them_a_sequence() {
    for (m, n) in SHAPES {
        for (ea, da) in matrices(m, n, (m * 23 + n) as u64) {
            let a = tensor::<Csr, 2>([m, n], &ea);
            let (cs, c) = sparse_vector(m);
            let (xs, x) = vector(n, 1.0);
            let (mut y, mut z, mut v) = (garbage([m]), garbage([m]), garbage([m]));
            for _ in 0..2 {
                inner::three(&mut y, &mut z, &mut v, &c, &a, &x, -0.5).unwrap();
                let ax = matvec(m, n, &da, &xs);
                let want: Vec<f64> = cs.iter().zip(&ax).map(|(p, q)| p + q).collect();
                assert_close(y.values(), &want);
                assert_close(z.values(), &cs.iter().map(|p| 3.0 * p).collect::<Vec<_>>());
                assert_close(v.values(), &cs.iter().map(|p| -0.5 * p).collect::<Vec<_>>());
            }
        }
    }
}

#[test]
fn a_multi_inside_a_sequence() {
    for (m, n) in SHAPES {
        for (ea, da) in matrices(m, n, (m * 47 + n) as u64) {
            let a = tensor::<Csr, 2>([m, n], &ea);
            let (cs, c) = sparse_vector(m);
            let (xs, x) = vector(n, 2.0);
            let (mut y, mut z) = (garbage([m]), garbage([m]));
            for _ in 0..2 {
                in_sequence::start_then_sum(&mut y, &mut z, &c, &a, &x).unwrap();
                let ax = matvec(m, n, &da, &xs);
                let want: Vec<f64> = cs.iter().zip(&ax).map(|(p, q)| p + q).collect();
                assert_close(y.values(), &want);
                assert_close(z.values(), &cs.iter().map(|p| 3.0 * p).collect::<Vec<_>>());
            }
        }
    }
}

#[test]
fn a_dense_and_a_csr_output_at_the_top_level() {
    for (m, n) in SHAPES {
        for (ea, da) in matrices(m, n, (m * 29 + n) as u64) {
            let a = tensor::<Csr, 2>([m, n], &ea);
            let (cs, c) = sparse_vector(m);
            let mut y = garbage([m]);
            let mut big = Tensor::<f64, Csr>::zeros([m, n]);
            for _ in 0..2 {
                top::dense_and_csr(&mut y, &mut big, &c, &a).unwrap();
                assert_close(y.values(), &cs.iter().map(|p| 2.0 * p).collect::<Vec<_>>());
                assert_close(
                    &big.to_dense(),
                    &da.iter().map(|p| 3.0 * p).collect::<Vec<_>>(),
                );
            }
        }
    }
}

#[test]
fn two_csr_outputs_and_their_compute_only_twin() {
    for (m, n) in SHAPES {
        for ((ea, da), (eb, db)) in pairs(m, n) {
            let (a, b) = (tensor::<Csr, 2>([m, n], &ea), tensor::<Csr, 2>([m, n], &eb));
            let product: Vec<f64> = da.iter().zip(&db).map(|(p, q)| p * q).collect();
            let sum: Vec<f64> = da.iter().zip(&db).map(|(p, q)| p + q).collect();
            let mut z = Tensor::<f64, Csr>::zeros([m, n]);
            let mut w = Tensor::<f64, Csr>::zeros([m, n]);
            for _ in 0..2 {
                top::two_csr(&mut z, &mut w, &a, &b).unwrap();
                assert_close(&z.to_dense(), &product);
                assert_close(&w.to_dense(), &sum);
            }
            let scaled: Vec<([usize; 2], f64)> = ea.iter().map(|&(c, v)| (c, v * 2.0)).collect();
            let a2 = tensor::<Csr, 2>([m, n], &scaled);
            top::two_csr_compute(&mut z, &mut w, &a2, &b).unwrap();
            let product: Vec<f64> = da.iter().zip(&db).map(|(p, q)| 2.0 * p * q).collect();
            let sum: Vec<f64> = da.iter().zip(&db).map(|(p, q)| 2.0 * p + q).collect();
            assert_close(&z.to_dense(), &product);
            assert_close(&w.to_dense(), &sum);
        }
    }
}

#[test]
fn the_explicit_parameter_list_orders_the_inputs() {
    for (m, n) in SHAPES {
        for (ea, da) in matrices(m, n, (m * 31 + n) as u64) {
            let a = tensor::<Csr, 2>([m, n], &ea);
            let ((xs, x), (ws, w)) = (vector(n, 0.5), vector(n, 3.0));
            let start: Vec<f64> = (0..m).map(|i| 9.0 - i as f64).collect();
            let mut y = Tensor::from_dense([m], &start).unwrap();
            let mut z = Tensor::from_dense([m], &start).unwrap();
            explicit::spmv_pair(&mut y, &mut z, &w, &x, &a).unwrap();
            let plus =
                |v: Vec<f64>| -> Vec<f64> { v.iter().zip(&start).map(|(p, s)| p + s).collect() };
            assert_close(y.values(), &plus(matvec(m, n, &da, &xs)));
            assert_close(z.values(), &plus(matvec(m, n, &da, &ws)));
        }
    }
}

#[test]
fn a_shape_mismatch_leaves_every_output_as_it_was() {
    let a = tensor::<Csr, 2>([3, 4], &[([0, 1], 2.0), ([2, 3], -1.0)]);
    let (x, w) = (vector(4, 1.0).1, vector(5, 1.0).1);
    let mut y = Tensor::from_dense([3], &[1.0, 2.0, 3.0]).unwrap();
    let mut z = Tensor::from_dense([3], &[4.0, 5.0, 6.0]).unwrap();
    let result = explicit::spmv_pair(&mut y, &mut z, &w, &x, &a);
    assert!(
        matches!(result, Err(KernelError::ShapeMismatch { .. })),
        "{result:?}"
    );
    assert_eq!(y.values(), [1.0, 2.0, 3.0]);
    assert_eq!(z.values(), [4.0, 5.0, 6.0]);
}

#[test]
fn a_reduction_with_min_and_a_user_operator_in_one_kernel() {
    const INF: f64 = f64::INFINITY;
    for (m, n) in SHAPES {
        for ((ea, da), (ec, _)) in pairs(m, n) {
            let a = tensor::<Csr, 2>([m, n], &ea);
            let c = Tensor::from_entries_with_fill([m, n], ec.iter().copied(), INF).unwrap();
            let c_dense = c.to_dense();
            let vs: Vec<f64> = (0..n)
                .map(|j| if j % 3 == 2 { INF } else { j as f64 })
                .collect();
            let ve = (vs.iter().enumerate()).filter(|(_, v)| v.is_finite());
            let v = Tensor::from_entries_with_fill([n], ve.map(|(j, &x)| ([j], x)), INF).unwrap();
            let (xs, x) = vector(n, -1.5);
            let mut y_want = vec![INF; m];
            let mut z_want = vec![0.0; m];
            for i in 0..m {
                for j in 0..n {
                    y_want[i] = y_want[i].min(c_dense[i * n + j] + vs[j]);
                    if da[i * n + j] != 0.0 {
                        z_want[i] += (da[i * n + j] - xs[j]).abs();
                    }
                }
            }
            let mut y = Tensor::filled([m], INF);
            let mut z = garbage([m]);
            for _ in 0..2 {
                operators::min_plus_and_gaps(&mut y, &mut z, &c, &v, &a, &x).unwrap();
                assert_same(&y.to_dense(), &y_want, "min-plus");
                assert_close(z.values(), &z_want);
            }
        }
    }
}

#[test]
fn a_schedule_applies_to_every_output() {
    for (m, n) in SHAPES {
        for ((ea, da), (eb, db)) in pairs(m, n) {
            let (a, b) = (tensor::<Csr, 2>([m, n], &ea), tensor::<Csr, 2>([m, n], &eb));
            let ((xs, x), (ws, w)) = (vector(n, 0.5), vector(n, -2.0));
            let (mut y, mut z) = (garbage([m]), garbage([m]));
            for _ in 0..2 {
                scheduled::parallel(&mut y, &mut z, &a, &x, &b, &w).unwrap();
                assert_close(y.values(), &matvec(m, n, &da, &xs));
                assert_close(z.values(), &matvec(m, n, &db, &ws));
            }
        }
    }
}
