//! Concrete index notation written directly (`forall`, `where`, `sequence`, `temporaries<...>`):
//! each kernel against the same computation written in index notation and against a dense
//! reference written out here, on the edge-case inputs of `common::cases` (the empty tensor,
//! single entries, empty first/middle/last rows, duplicates) and shapes no loop divides.
mod common;

use common::*;
use sparse::prelude::*;

/// `y += A x`: in concrete index notation `+=` adds into what the output holds.
mod accumulate {
    use super::*;
    tensor_kernel! { pub fn cin; forall(i, forall(j, y(i) += A(i,j) * x(j))); formats< A: csr >; }
    tensor_kernel! { pub fn index; y(i) += A(i,j) * x(j); formats< A: csr >; }
}

/// `y = A x` with the row's sum in a scalar temporary.
mod scalar_temp {
    use super::*;
    tensor_kernel! {
        pub fn cin;
        forall(i, where(y(i) = t, forall(j, t += A(i,j) * x(j))));
        formats< A: csr >;
        temporaries< t >;
    }
    tensor_kernel! { pub fn index; y(i) = A(i,j) * x(j); formats< A: csr >; }
}

/// Two scalar temporaries, one `where` inside the consumer of the other: `y = A x + B x`.
mod nested_temps {
    use super::*;
    tensor_kernel! {
        pub fn cin;
        forall(i, where(
            where(y(i) = t * 2 + u, forall(j, u += B(i,j) * x(j))),
            forall(j, t += A(i,j) * x(j))
        ));
        formats< A: csr, B: csr >;
        temporaries< t, u >;
    }
    tensor_kernel! { pub fn index; y(i) = A(i,j) * x(j) * 2 + B(i,j) * x(j); formats< A: csr, B: csr >; }
}

/// Gustavson's SpGEMM with a dense workspace, into a CSR output and into a dense one.
mod workspace {
    use super::*;
    tensor_kernel! {
        pub fn cin;
        forall(i, where(forall(j, A(i,j) = w(j)), forall(k, forall(j, w(j) += B(i,k) * C(k,j)))));
        formats< A: csr, B: csr, C: csr >;
        temporaries< w: dense >;
    }
    tensor_kernel! { pub fn index; A(i,j) = B(i,k) * C(k,j); formats< A: csr, B: csr, C: csr >; }
    tensor_kernel! {
        pub fn cin_dense;
        forall(i, where(forall(j, Z(i,j) = w(j)), forall(k, forall(j, w(j) += B(i,k) * C(k,j)))));
        formats< B: csr, C: csr >;
        temporaries< w: dense >;
    }
    tensor_kernel! { pub fn index_dense; Z(i,j) = B(i,k) * C(k,j); formats< B: csr, C: csr >; }
}

/// `sequence`: initialize, then accumulate, inside the row loop and as two loop nests.
mod sequence {
    use super::*;
    tensor_kernel! {
        pub fn inner;
        forall(i, sequence(y(i) = b(i), forall(j, y(i) += A(i,j) * x(j))));
        formats< A: csr, b: sparse >;
    }
    tensor_kernel! {
        pub fn outer;
        sequence(forall(i, y(i) = b(i)), forall(i, forall(j, y(i) += A(i,j) * x(j))));
        formats< A: csr, b: sparse >;
    }
    tensor_kernel! { pub fn index; y(i) = b(i) + A(i,j) * x(j); formats< A: csr, b: sparse >; }
    tensor_kernel! {
        pub fn two_writes;
        sequence(forall(i, forall(j, Y(i,j) = B(i,j))), forall(j, forall(i, Y(i,j) += C(i,j) * 3)));
        formats< B: csr, C: csc >;
    }
    tensor_kernel! { pub fn two_writes_index; Y(i,j) = B(i,j) + C(i,j) * 3; formats< B: csr, C: csc >; }
}

/// The loop order is the one written: columns outside rows, for a CSC matrix and a dense one.
mod order {
    use super::*;
    tensor_kernel! { pub fn csc; forall(j, forall(i, y(i) += A(i,j) * x(j))); formats< A: csc >; }
    tensor_kernel! { pub fn dense; forall(j, forall(i, y(i) += A(i,j) * x(j))); }
    tensor_kernel! { pub fn index; y(i) += A(i,j) * x(j); formats< A: csc >; }
}

/// Schedules still apply to a written statement.
mod scheduled {
    use super::*;
    tensor_kernel! {
        pub fn cin;
        forall(i, where(y(i) = t, forall(j, t += A(i,j) * x(j))));
        formats< A: csr >;
        temporaries< t >;
        schedule< split(i, i0, i1, Down, 4).parallelize(i0, CpuThread, NoRaces) >;
    }
}

/// A sparse output that takes its structure from an input (SDDMM's pattern).
mod sparse_output {
    use super::*;
    tensor_kernel! {
        pub fn cin;
        forall(i, forall(j, Z(i,j) = B(i,j) * C(i,j)));
        formats< Z: csr, B: csr, C: csr >;
    }
    tensor_kernel! { pub fn index; Z(i,j) = B(i,j) * C(i,j); formats< Z: csr, B: csr, C: csr >; }
}

/// `reduce<>` applies to the written assignments' implicit reductions: min-plus SpMV.
mod min_plus {
    use super::*;
    tensor_kernel! {
        pub fn cin;
        forall(i, where(y(i) = t, forall(j, t += A(i,j) + x(j))));
        formats< A: csr >;
        fills< A: inf, x: inf, y: inf >;
        reduce< j: min >;
        temporaries< t >;
    }
    tensor_kernel! {
        pub fn index;
        y(i) = A(i,j) + x(j);
        formats< A: csr >;
        fills< A: inf, x: inf, y: inf >;
        reduce< j: min >;
    }
}

/// A constant start, then a sum: `y = 1 + A x`; and min-plus with `+=`, which keeps the
/// output's content (`y = min(y, min_j A(i,j) + x(j))`).
mod more {
    use super::*;
    tensor_kernel! {
        pub fn constant_start;
        sequence(forall(i, y(i) = 1), forall(i, forall(j, y(i) += A(i,j) * x(j))));
        formats< A: csr >;
    }
    tensor_kernel! {
        pub fn min_plus_into;
        forall(i, forall(j, y(i) += A(i,j) + x(j)));
        formats< A: csr >;
        fills< A: inf, x: inf, y: inf >;
        reduce< j: min >;
    }
}

/// A CSR output written column by column (its entries scattered, then packed in order).
mod columns_into_rows {
    use super::*;
    tensor_kernel! {
        pub fn cin;
        forall(j, forall(i, Z(i,j) = B(i,j) * 2));
        formats< Z: csr, B: csc >;
    }
    tensor_kernel! { pub fn index; Z(i,j) = B(i,j) * 2; formats< Z: csr, B: csc >; }
}

/// A user operator called in a written statement: each row's sum of `|A(i,j) - x(j)|` over the
/// entries of `A` (the operator is `0` where `A` is absent).
mod user_operator {
    use super::*;
    tensor_kernel! {
        pub fn cin;
        forall(i, where(y(i) = t, forall(j, t += gap(A(i,j), x(j)))));
        formats< A: csr >;
        temporaries< t >;
        ops< gap(a, b) = abs(a - b) over a; >;
    }
    tensor_kernel! {
        pub fn index;
        y(i) = gap(A(i,j), x(j));
        formats< A: csr >;
        ops< gap(a, b) = abs(a - b) over a; >;
    }
}

const SHAPES: [(usize, usize); 6] = [(0, 0), (1, 1), (3, 0), (7, 5), (5, 9), (13, 13)];

fn matvec(m: usize, n: usize, a: &[f64], x: &[f64]) -> Vec<f64> {
    (0..m)
        .map(|i| (0..n).map(|j| a[i * n + j] * x[j]).sum())
        .collect()
}

fn vector(n: usize) -> (Vec<f64>, Tensor<f64, Dense<1>>) {
    let xs: Vec<f64> = (0..n).map(|j| 0.5 + j as f64).collect();
    let x = Tensor::from_dense([n], &xs).unwrap();
    (xs, x)
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

#[test]
fn accumulate_keeps_the_outputs_content() {
    for (m, n) in SHAPES {
        for (entries, a_dense) in matrices(m, n, (m * 31 + n) as u64) {
            let a = tensor::<Csr, 2>([m, n], &entries);
            let (xs, x) = vector(n);
            let start: Vec<f64> = (0..m).map(|i| 9.0 - i as f64).collect();
            let want: Vec<f64> = (matvec(m, n, &a_dense, &xs).iter().zip(&start))
                .map(|(p, s)| p + s)
                .collect();
            let mut y = Tensor::from_dense([m], &start).unwrap();
            accumulate::cin(&mut y, &a, &x).unwrap();
            assert_close(y.values(), &want);
            let mut y_index = Tensor::from_dense([m], &start).unwrap();
            accumulate::index(&mut y_index, &a, &x).unwrap();
            assert_close(y.values(), y_index.values());
        }
    }
}

#[test]
fn scalar_temporaries() {
    for (m, n) in SHAPES {
        let cases_a = matrices(m, n, (m * 7 + n) as u64);
        let cases_b = matrices(m, n, (m * 5 + n + 1) as u64);
        for ((ea, da), (eb, db)) in cases_a.iter().zip(cases_b.iter().rev()) {
            let a = tensor::<Csr, 2>([m, n], ea);
            let b = tensor::<Csr, 2>([m, n], eb);
            let (xs, x) = vector(n);
            let ax = matvec(m, n, da, &xs);
            let bx = matvec(m, n, db, &xs);
            let mut y = garbage([m]);
            scalar_temp::cin(&mut y, &a, &x).unwrap();
            assert_close(y.values(), &ax);
            let mut y_index = garbage([m]);
            scalar_temp::index(&mut y_index, &a, &x).unwrap();
            assert_close(y.values(), y_index.values());
            let want: Vec<f64> = ax.iter().zip(&bx).map(|(p, q)| 2.0 * p + q).collect();
            let mut y = garbage([m]);
            nested_temps::cin(&mut y, &b, &x, &a).unwrap();
            assert_close(y.values(), &want);
            let mut y_index = garbage([m]);
            nested_temps::index(&mut y_index, &a, &x, &b).unwrap();
            assert_close(y.values(), y_index.values());
        }
    }
}

#[test]
fn dense_workspace_spgemm() {
    for (m, k, n) in [
        (0, 0, 0),
        (1, 1, 1),
        (4, 0, 3),
        (7, 5, 6),
        (9, 9, 4),
        (13, 11, 12),
    ] {
        let bs = cases([m, k], (m * 3 + k) as u64);
        let cs = cases([k, n], (k * 11 + n) as u64);
        for (eb, ec) in bs.iter().zip(cs.iter().rev()) {
            let (db, dc) = (dense([m, k], eb), dense([k, n], ec));
            let want: Vec<f64> = (0..m * n)
                .map(|at| {
                    (0..k)
                        .map(|l| db[at / n * k + l] * dc[l * n + at % n])
                        .sum()
                })
                .collect();
            let b = tensor::<Csr, 2>([m, k], eb);
            let c = tensor::<Csr, 2>([k, n], ec);
            let mut a = Tensor::<f64, Csr>::zeros([m, n]);
            workspace::cin(&mut a, &b, &c).unwrap();
            assert_close(&a.to_dense(), &want);
            let mut a_index = Tensor::<f64, Csr>::zeros([m, n]);
            workspace::index(&mut a_index, &b, &c).unwrap();
            assert_eq!(a.to_dense(), a_index.to_dense());
            let mut z = garbage([m, n]);
            workspace::cin_dense(&mut z, &b, &c).unwrap();
            assert_close(z.values(), &want);
            let mut z_index = garbage([m, n]);
            workspace::index_dense(&mut z_index, &b, &c).unwrap();
            assert_close(z.values(), z_index.values());
        }
    }
}

#[test]
fn sequences() {
    for (m, n) in SHAPES {
        let vectors = cases([m], (m + 3) as u64);
        for (k, (entries, a_dense)) in matrices(m, n, (m * 13 + n) as u64).into_iter().enumerate() {
            let eb = &vectors[k % vectors.len()];
            let b = tensor::<SparseVec, 1>([m], eb);
            let a = tensor::<Csr, 2>([m, n], &entries);
            let (xs, x) = vector(n);
            let want: Vec<f64> = (matvec(m, n, &a_dense, &xs).iter().zip(dense([m], eb)))
                .map(|(p, q)| p + q)
                .collect();
            let mut y_index = garbage([m]);
            sequence::index(&mut y_index, &b, &a, &x).unwrap();
            assert_close(y_index.values(), &want);
            for kernel in [sequence::inner, sequence::outer] {
                let mut y = garbage([m]);
                kernel(&mut y, &b, &a, &x).unwrap();
                assert_close(y.values(), &want);
            }
        }
    }
}

#[test]
fn a_second_assignment_adds() {
    for (m, n) in SHAPES {
        let bs = matrices(m, n, (m * 17 + n) as u64);
        let cs = matrices(m, n, (m * 19 + n) as u64);
        for ((eb, db), (ec, dc)) in bs.iter().zip(cs.iter().rev()) {
            let b = tensor::<Csr, 2>([m, n], eb);
            let c = tensor::<Csc, 2>([m, n], ec);
            let want: Vec<f64> = db.iter().zip(dc).map(|(p, q)| p + 3.0 * q).collect();
            let mut y = garbage([m, n]);
            sequence::two_writes(&mut y, &b, &c).unwrap();
            assert_close(y.values(), &want);
            let mut y_index = garbage([m, n]);
            sequence::two_writes_index(&mut y_index, &b, &c).unwrap();
            assert_close(y.values(), y_index.values());
        }
    }
}

#[test]
fn the_written_loop_order() {
    for (m, n) in SHAPES {
        for (entries, a_dense) in matrices(m, n, (m * 23 + n) as u64) {
            let (xs, x) = vector(n);
            let want = matvec(m, n, &a_dense, &xs);
            let a = tensor::<Csc, 2>([m, n], &entries);
            let mut y = Tensor::zeros([m]);
            order::csc(&mut y, &a, &x).unwrap();
            assert_close(y.values(), &want);
            let mut y_index = Tensor::zeros([m]);
            order::index(&mut y_index, &a, &x).unwrap();
            assert_close(y.values(), y_index.values());
            let a = Tensor::<f64, Dense<2>>::from_dense([m, n], &a_dense).unwrap();
            let mut y = Tensor::zeros([m]);
            order::dense(&mut y, &a, &x).unwrap();
            assert_close(y.values(), &want);
        }
    }
}

#[test]
fn a_scheduled_statement() {
    for (m, n) in SHAPES {
        for (entries, a_dense) in matrices(m, n, (m * 29 + n) as u64) {
            let a = tensor::<Csr, 2>([m, n], &entries);
            let (xs, x) = vector(n);
            let mut y = garbage([m]);
            scheduled::cin(&mut y, &a, &x).unwrap();
            assert_close(y.values(), &matvec(m, n, &a_dense, &xs));
        }
    }
}

#[test]
fn a_sparse_output_with_an_inputs_pattern() {
    for (m, n) in SHAPES {
        let bs = matrices(m, n, (m * 37 + n) as u64);
        let cs = matrices(m, n, (m * 41 + n) as u64);
        for ((eb, db), (ec, dc)) in bs.iter().zip(cs.iter().rev()) {
            let b = tensor::<Csr, 2>([m, n], eb);
            let c = tensor::<Csr, 2>([m, n], ec);
            let want: Vec<f64> = db.iter().zip(dc).map(|(p, q)| p * q).collect();
            let mut z = Tensor::<f64, Csr>::zeros([m, n]);
            sparse_output::cin(&mut z, &b, &c).unwrap();
            assert_close(&z.to_dense(), &want);
            let mut z_index = Tensor::<f64, Csr>::zeros([m, n]);
            sparse_output::index(&mut z_index, &b, &c).unwrap();
            assert_eq!(z.to_dense(), z_index.to_dense());
        }
    }
}

#[test]
fn min_plus_with_a_written_temporary() {
    const INF: f64 = f64::INFINITY;
    for (m, n) in SHAPES {
        for (entries, _) in matrices(m, n, (m * 43 + n) as u64) {
            let a = Tensor::from_entries_with_fill([m, n], entries.iter().copied(), INF).unwrap();
            let xv: Vec<f64> = (0..n)
                .map(|j| if j % 3 == 2 { INF } else { j as f64 })
                .collect();
            let xe = (xv.iter().enumerate()).filter(|(_, v)| v.is_finite());
            let x = Tensor::from_entries_with_fill([n], xe.map(|(j, &v)| ([j], v)), INF).unwrap();
            let mut want = vec![INF; m];
            let a_dense = a.to_dense();
            for i in 0..m {
                for j in 0..n {
                    want[i] = want[i].min(a_dense[i * n + j] + xv[j]);
                }
            }
            let mut y = Tensor::filled([m], INF);
            min_plus::cin(&mut y, &a, &x).unwrap();
            assert_eq!(y.to_dense(), want);
            let mut y_index = Tensor::filled([m], INF);
            min_plus::index(&mut y_index, &a, &x).unwrap();
            assert_eq!(y.to_dense(), y_index.to_dense());
        }
    }
}

#[test]
fn a_constant_start_and_min_plus_into_the_output() {
    const INF: f64 = f64::INFINITY;
    for (m, n) in SHAPES {
        for (entries, a_dense) in matrices(m, n, (m * 47 + n) as u64) {
            let a = tensor::<Csr, 2>([m, n], &entries);
            let (xs, x) = vector(n);
            let want: Vec<f64> = matvec(m, n, &a_dense, &xs)
                .iter()
                .map(|v| v + 1.0)
                .collect();
            let mut y = garbage([m]);
            more::constant_start(&mut y, &a, &x).unwrap();
            assert_close(y.values(), &want);

            let a = Tensor::from_entries_with_fill([m, n], entries.iter().copied(), INF).unwrap();
            let x = Tensor::from_dense([n], &xs).unwrap().with_fill(INF);
            let start: Vec<f64> = (0..m).map(|i| if i % 2 == 0 { INF } else { 1.0 }).collect();
            let a_dense = a.to_dense();
            let want: Vec<f64> = (0..m)
                .map(|i| (0..n).fold(start[i], |acc, j| acc.min(a_dense[i * n + j] + xs[j])))
                .collect();
            let mut y = Tensor::from_dense([m], &start).unwrap().with_fill(INF);
            more::min_plus_into(&mut y, &a, &x).unwrap();
            assert_eq!(y.to_dense(), want);
        }
    }
}

#[test]
fn a_csr_output_written_column_by_column() {
    for (m, n) in SHAPES {
        for (entries, b_dense) in matrices(m, n, (m * 53 + n) as u64) {
            let b = tensor::<Csc, 2>([m, n], &entries);
            let want: Vec<f64> = b_dense.iter().map(|v| v * 2.0).collect();
            let mut z = Tensor::<f64, Csr>::zeros([m, n]);
            columns_into_rows::cin(&mut z, &b).unwrap();
            assert_close(&z.to_dense(), &want);
            let mut z_index = Tensor::<f64, Csr>::zeros([m, n]);
            columns_into_rows::index(&mut z_index, &b).unwrap();
            assert_eq!(z.to_dense(), z_index.to_dense());
        }
    }
}

#[test]
fn a_user_operator_in_a_written_statement() {
    for (m, n) in SHAPES {
        for (entries, a_dense) in matrices(m, n, (m * 13 + n) as u64) {
            let a = tensor::<Csr, 2>([m, n], &entries);
            let (xs, x) = vector(n);
            let want: Vec<f64> = (0..m)
                .map(|i| {
                    (0..n)
                        .filter(|&j| a_dense[i * n + j] != 0.0)
                        .map(|j| (a_dense[i * n + j] - xs[j]).abs())
                        .sum()
                })
                .collect();
            let mut y = garbage([m]);
            user_operator::cin(&mut y, &a, &x).unwrap();
            assert_close(y.values(), &want);
            let mut y_index = garbage([m]);
            user_operator::index(&mut y_index, &a, &x).unwrap();
            assert_close(y.values(), y_index.values());
        }
    }
}
