//! Least squares through the normal equations: the Gram matrix `G = AᵀA` of a sparse tall matrix
//! written as one statement, `Aᵀb` by a generated transposed product, then conjugate gradients on
//! `G x = Aᵀb`.
//!
//! ```sh
//! cargo run --release --example least_squares               # 40000 x 4000, 12 nonzeros a row
//! cargo run --release --example least_squares -- 4000 400   # rows, columns
//! ```
//!
//! `b = A x*` for a known `x*`, so the solution is `x*`. The Gram matrix is checked entry by entry
//! against pairs of each row's entries summed by hand; the solve against `x*`.
//!
//! `G(i,j) = A(k,i) * A(k,j)` with A in CSR: the loops that follow A would visit G's rows out of
//! order, so the kernel copies A transposed when it runs and computes G row by row (Gustavson's
//! algorithm), as fast as `Tensor::transpose` followed by a CSR SpGEMM (BENCHMARKS.md).

mod common;

use std::collections::BTreeMap;
use std::error::Error;
use std::time::Instant;

use common::{Rng, arg, ms};
use sparse::prelude::*;

tensor_kernel! {
    /// G = AᵀA, A and G in CSR (a transposed copy of A, then each row of G from rows of A).
    pub fn gram;
    G(i,j) = A(k,i) * A(k,j);
    formats< G: csr, A: csr >;
}

tensor_kernel! {
    /// c = Aᵀ b, reading A's rows and scattering into c.
    pub fn transposed_product;
    c(j) = A(i,j) * b(i);
    formats< A: csr >;
}

tensor_kernel! {
    /// q = G p.
    pub fn spmv;
    q(i) = G(i,j) * p(j);
    formats< G: csr >;
}

tensor_kernel! {
    /// s = a · b.
    pub fn dot;
    s = a(i) * b(i);
}

tensor_kernel! {
    /// y += alpha x.
    pub fn axpy(y, alpha, x);
    y(i) += alpha * x(i);
    scalars< alpha >;
}

tensor_kernel! {
    /// p = r + beta p.
    pub fn xpby(p, r, beta);
    p(i) = r(i) + beta * p(i);
    scalars< beta >;
}

type Vector = Tensor<f64, DenseVec>;

fn main() -> Result<(), Box<dyn Error>> {
    let m = arg(1, 40_000)?;
    let n = arg(2, 4_000)?;
    if n == 0 || m < n {
        return Err(
            "a tall matrix is needed: at least as many rows as columns, and one column".into(),
        );
    }
    let rows = random_rows(m, n, 12);
    let entries = rows
        .iter()
        .enumerate()
        .flat_map(|(i, row)| row.iter().map(move |&(j, v)| ([i, j], v)));
    let a = Tensor::<f64, Csr>::from_entries([m, n], entries)?;
    let x_true: Vec<f64> = (0..n).map(|j| 1.0 + (j % 7) as f64 / 7.0).collect();
    let b: Vec<f64> = rows
        .iter()
        .map(|row| row.iter().map(|&(j, v)| v * x_true[j]).sum())
        .collect();
    println!("A: {m} x {n}, {} nonzeros; b = A x*", a.nnz());

    let mut g = Tensor::<f64, Csr>::zeros([n, n]);
    let start = Instant::now();
    gram(&mut g, &a)?;
    let multiplied = start.elapsed();
    check_gram(&g, &gram_by_hand(&rows))?;
    println!(
        "G = AᵀA: {} nonzeros in {:.2} ms; every entry as summed by hand",
        g.nnz(),
        ms(multiplied)
    );

    let mut c = Vector::zeros([n]);
    transposed_product(&mut c, &a, &Vector::from_vec([m], b)?)?;
    let start = Instant::now();
    let (x, iterations) = conjugate_gradients(&g, &c)?;
    let error = x
        .iter()
        .zip(&x_true)
        .fold(0.0f64, |e, (x, t)| e.max((x - t).abs()));
    println!(
        "CG on G x = Aᵀb: {iterations} iterations in {:.2} ms, max |x - x*| = {error:.2e}",
        ms(start.elapsed())
    );
    if error > 1e-6 {
        return Err("the least-squares solution is not x*".into());
    }
    Ok(())
}

/// Rows of a tall matrix: `per_row` random columns each (duplicates merged), values in [-1, 1],
/// plus the diagonal of the top square so that A has full column rank.
fn random_rows(m: usize, n: usize, per_row: usize) -> Vec<Vec<(usize, f64)>> {
    let mut rng = Rng::new(17);
    (0..m)
        .map(|i| {
            let mut row: BTreeMap<usize, f64> = BTreeMap::new();
            if i < n {
                row.insert(i, 4.0);
            }
            for _ in 0..per_row {
                *row.entry(rng.below(n)).or_default() += 2.0 * rng.unit() - 1.0;
            }
            row.into_iter().collect()
        })
        .collect()
}

/// AᵀA as a map from (i, j) to its value: every pair of entries of each row of A.
fn gram_by_hand(rows: &[Vec<(usize, f64)>]) -> BTreeMap<(usize, usize), f64> {
    let mut g = BTreeMap::new();
    for row in rows {
        for &(i, u) in row {
            for &(j, v) in row {
                *g.entry((i, j)).or_insert(0.0) += u * v;
            }
        }
    }
    g
}

fn check_gram(
    g: &Tensor<f64, Csr>,
    expected: &BTreeMap<(usize, usize), f64>,
) -> Result<(), String> {
    if g.nnz() != expected.len() {
        return Err(format!(
            "G stores {} entries, AᵀA has {}",
            g.nnz(),
            expected.len()
        ));
    }
    for (c, v) in g.entries().iter() {
        let e = expected.get(&(c[0], c[1])).copied().unwrap_or(f64::NAN);
        if (v - e).abs() > 1e-12 * e.abs().max(1.0) {
            return Err(format!("G[{}, {}] = {v}, AᵀA has {e}", c[0], c[1]));
        }
    }
    Ok(())
}

/// Unpreconditioned conjugate gradients on the SPD matrix `g`, to a relative residual of 1e-12.
fn conjugate_gradients(
    g: &Tensor<f64, Csr>,
    c: &Vector,
) -> Result<(Vec<f64>, usize), Box<dyn Error>> {
    let n = c.shape()[0];
    let (mut x, mut r, mut p, mut q) =
        (Vector::zeros([n]), c.clone(), c.clone(), Vector::zeros([n]));
    let mut s = Tensor::<f64, Dense<0>>::zeros([]);
    dot(&mut s, &r, &r)?;
    let (mut rr, stop) = (s.values()[0], 1e-24 * s.values()[0]);
    for k in 1..=10 * n {
        spmv(&mut q, g, &p)?;
        dot(&mut s, &p, &q)?;
        let alpha = rr / s.values()[0];
        axpy(&mut x, alpha, &p)?;
        axpy(&mut r, -alpha, &q)?;
        dot(&mut s, &r, &r)?;
        if s.values()[0] <= stop {
            return Ok((x.to_dense(), k));
        }
        let beta = s.values()[0] / rr;
        rr = s.values()[0];
        xpby(&mut p, &r, beta)?;
    }
    Err(format!("no convergence in {} iterations", 10 * n).into())
}
