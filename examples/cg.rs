//! Conjugate gradients with a Jacobi preconditioner on a real symmetric positive definite matrix,
//! built from five small generated kernels: an SpMV, a dot product, the preconditioner and two
//! vector updates whose scalars are plain `f64` arguments.
//!
//! ```sh
//! cargo run --release --example cg                       # data/lund_a.mtx (HB/lund_a, 147 x 147)
//! cargo run --release --example cg -- path/to/spd.mtx    # any SPD Matrix Market file
//! ```
//!
//! The right-hand side is `b = A 1`, so the solution is a vector of ones. The iterates are checked
//! against the same algorithm written as plain loops over CSR arrays, and both are timed.

mod common;

use std::error::Error;
use std::time::Instant;

use common::ms;
use sparse::io::load_matrix_market;
use sparse::prelude::*;

tensor_kernel! {
    /// q = A p.
    pub fn spmv;
    q(i) = A(i,j) * p(j);
    formats< A: csr >;
}

tensor_kernel! {
    /// s = a · b.
    pub fn dot;
    s = a(i) * b(i);
}

tensor_kernel! {
    /// z = r ./ d: the Jacobi preconditioner, d the diagonal of A.
    pub fn jacobi;
    z(i) = r(i) / d(i);
}

tensor_kernel! {
    /// y += alpha x.
    pub fn axpy(y, alpha, x);
    y(i) += alpha * x(i);
    scalars< alpha >;
}

tensor_kernel! {
    /// p = z + beta p: the new search direction, read and written in place.
    pub fn xpby(p, z, beta);
    p(i) = z(i) + beta * p(i);
    scalars< beta >;
}

type Vector = Tensor<f64, DenseVec>;

/// Relative residual at which both solvers stop.
const TOLERANCE: f64 = 1e-10;

fn main() -> Result<(), Box<dyn Error>> {
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/data/lund_a.mtx");
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| shipped.to_string());
    let a = load_matrix_market::<f64, Csr>(&path)?;
    let n = a.shape()[0];
    if a.shape() != [n, n] {
        return Err(format!("{path}: a square matrix is needed, not {:?}", a.shape()).into());
    }
    let rows = CsrArrays::from(&a);
    let diagonal = rows.diagonal()?;
    let b = rows.times(&vec![1.0; n]);
    println!("{path}: {n} x {n}, {} nonzeros; b = A·1", a.nnz());

    let start = Instant::now();
    let (x, iterations) = solve(&a, &diagonal, &b)?;
    let ours = start.elapsed();
    let start = Instant::now();
    let (x_ref, iterations_ref) = rows.solve(&diagonal, &b);
    let hand = start.elapsed();

    let residual = norm(&sub(&b, &rows.times(&x))) / norm(&b);
    let from_ones = x.iter().fold(0.0f64, |m, v| m.max((v - 1.0).abs()));
    let apart = common::relative_error(&x, &x_ref);
    println!(
        "ours:         {iterations} iterations in {:.3} ms",
        ms(ours)
    );
    println!(
        "hand-written: {iterations_ref} iterations in {:.3} ms",
        ms(hand)
    );
    println!(
        "‖b - A x‖/‖b‖ = {residual:.2e}, max |x - 1| = {from_ones:.2e}, ours vs hand-written {apart:.1e}"
    );
    if iterations != iterations_ref || residual > 10.0 * TOLERANCE || apart > 1e-6 {
        return Err("the kernels' solve disagrees with the hand-written one".into());
    }
    Ok(())
}

/// Preconditioned conjugate gradients (Hestenes and Stiefel) with the generated kernels.
fn solve(a: &Tensor<f64, Csr>, d: &[f64], b: &[f64]) -> Result<(Vec<f64>, usize), Box<dyn Error>> {
    let n = b.len();
    let d = Vector::from_dense([n], d)?;
    let bt = Vector::from_dense([n], b)?;
    let (mut x, mut r) = (Vector::zeros([n]), bt.clone());
    let (mut z, mut q) = (Vector::zeros([n]), Vector::zeros([n]));
    let mut s = Tensor::<f64, Dense<0>>::zeros([]);
    jacobi(&mut z, &r, &d)?;
    let mut p = z.clone();
    dot(&mut s, &r, &z)?;
    let mut rz = s.values()[0];
    dot(&mut s, &bt, &bt)?;
    let stop = TOLERANCE * s.values()[0].sqrt();
    for k in 1..=10 * n {
        spmv(&mut q, a, &p)?;
        dot(&mut s, &p, &q)?;
        let alpha = rz / s.values()[0];
        axpy(&mut x, alpha, &p)?;
        axpy(&mut r, -alpha, &q)?;
        dot(&mut s, &r, &r)?;
        if s.values()[0].sqrt() <= stop {
            return Ok((x.to_dense(), k));
        }
        jacobi(&mut z, &r, &d)?;
        dot(&mut s, &r, &z)?;
        let beta = s.values()[0] / rz;
        rz = s.values()[0];
        xpby(&mut p, &z, beta)?;
    }
    Err(format!("no convergence in {} iterations", 10 * n).into())
}

/// The matrix as plain CSR arrays, for the hand-written solver.
struct CsrArrays {
    pos: Vec<usize>,
    crd: Vec<usize>,
    val: Vec<f64>,
}

impl From<&Tensor<f64, Csr>> for CsrArrays {
    fn from(a: &Tensor<f64, Csr>) -> Self {
        let mut pos = vec![0; a.shape()[0] + 1];
        let (mut crd, mut val) = (Vec::new(), Vec::new());
        for (c, v) in a.entries().iter() {
            pos[c[0] + 1] += 1;
            crd.push(c[1]);
            val.push(v);
        }
        for i in 1..pos.len() {
            pos[i] += pos[i - 1];
        }
        CsrArrays { pos, crd, val }
    }
}

impl CsrArrays {
    fn times(&self, x: &[f64]) -> Vec<f64> {
        (0..self.pos.len() - 1)
            .map(|i| {
                (self.pos[i]..self.pos[i + 1])
                    .map(|p| self.val[p] * x[self.crd[p]])
                    .sum()
            })
            .collect()
    }

    fn diagonal(&self) -> Result<Vec<f64>, String> {
        (0..self.pos.len() - 1)
            .map(|i| {
                (self.pos[i]..self.pos[i + 1])
                    .find(|&p| self.crd[p] == i)
                    .map(|p| self.val[p])
                    .filter(|&v| v > 0.0)
                    .ok_or(format!(
                        "row {i} has no positive diagonal: the matrix is not SPD"
                    ))
            })
            .collect()
    }

    /// The same preconditioned conjugate gradients, as plain loops.
    fn solve(&self, d: &[f64], b: &[f64]) -> (Vec<f64>, usize) {
        let n = b.len();
        let (mut x, mut r) = (vec![0.0; n], b.to_vec());
        let mut z: Vec<f64> = r.iter().zip(d).map(|(r, d)| r / d).collect();
        let mut p = z.clone();
        let mut rz = dot_of(&r, &z);
        let stop = TOLERANCE * norm(b);
        for k in 1..=10 * n {
            let q = self.times(&p);
            let alpha = rz / dot_of(&p, &q);
            for i in 0..n {
                x[i] += alpha * p[i];
                r[i] -= alpha * q[i];
            }
            if norm(&r) <= stop {
                return (x, k);
            }
            z = r.iter().zip(d).map(|(r, d)| r / d).collect();
            let rz_next = dot_of(&r, &z);
            let beta = rz_next / rz;
            rz = rz_next;
            for i in 0..n {
                p[i] = z[i] + beta * p[i];
            }
        }
        (x, 10 * n)
    }
}

fn dot_of(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}

fn norm(a: &[f64]) -> f64 {
    dot_of(a, a).sqrt()
}

fn sub(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(a, b)| a - b).collect()
}
