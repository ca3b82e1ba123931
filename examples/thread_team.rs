//! Thread regions on small inputs: the serial SpMV and SpMM against their row splits and the
//! SpMV's nonzero split, on random matrices of 4 nonzeros a row from 512 rows (a few
//! microseconds of work, where starting threads can cost more than it saves) to 131,072 rows,
//! each kernel called many times in a row as a solver calls it.
//!
//! ```sh
//! RUSTFLAGS="-C target-cpu=native" cargo run --release --example thread_team
//! cargo run --release --example thread_team -- 15   # rounds
//! ```
//!
//! Each round times a batch of calls (about 2 ms) of every kernel in turn, so that the load of a
//! shared machine falls on all alike; the table gives the fastest round's time a call. Every
//! result is checked against plain loops over the matrix's arrays.

mod common;

use std::error::Error;
use std::hint::black_box;
use std::time::Instant;

use common::{Rng, arg, relative_error};
use sparse::prelude::*;
use sparse::{Idx, Level};

tensor_kernel! {
    /// SpMV, unscheduled.
    fn spmv; y(i) = A(i,j) * x(j); formats<A: csr>;
}

tensor_kernel! {
    /// SpMV, blocks of 32 rows over threads.
    fn spmv_rows; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<split(i, i0, i1, Down, 32).parallelize(i0, CpuThread, NoRaces)>;
}

tensor_kernel! {
    /// SpMV, tiles of 16 nonzeros over threads.
    fn spmv_nonzeros; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 16)
        .parallelize(p0, CpuThread, Atomics)>;
}

tensor_kernel! {
    /// SpMM with 32 dense columns, unscheduled.
    fn spmm; C(i,j) = A(i,k) * B(k,j); formats<C: dense, A: csr, B: dense>;
}

tensor_kernel! {
    /// SpMM, blocks of 16 rows over threads.
    fn spmm_rows; C(i,j) = A(i,k) * B(k,j); formats<C: dense, A: csr, B: dense>;
    schedule<split(i, i0, i1, Down, 16).parallelize(i0, CpuThread, NoRaces)>;
}

/// Dense columns of SpMM's right operand.
const COLUMNS: usize = 32;

type Matrix = Tensor<f64, Csr>;
type Vector = Tensor<f64, DenseVec>;
type Dense2 = Tensor<f64, DenseMat>;
type SpMV = fn(&mut Vector, &Matrix, &Vector) -> Result<(), KernelError>;
type SpMM = fn(&mut Dense2, &Matrix, &Dense2) -> Result<(), KernelError>;

/// An `n` x `n` matrix of 4 uniform random columns a row (fewer where two coincide).
fn random_matrix(n: usize, rng: &mut Rng) -> Result<Matrix, Box<dyn Error>> {
    let (mut pos, mut crd): (Vec<Idx>, Vec<Idx>) = (vec![0], Vec::new());
    for _ in 0..n {
        let mut row: Vec<usize> = (0..4).map(|_| rng.below(n)).collect();
        row.sort_unstable();
        row.dedup();
        crd.extend(row.into_iter().map(|j| j as Idx));
        pos.push(crd.len() as Idx);
    }
    let vals = (0..crd.len()).map(|_| rng.unit() - 0.5).collect();
    let levels = vec![Level::Dense { size: n }, Level::Compressed { pos, crd }];
    Ok(Tensor::from_parts(vec![n, n], levels, vals)?)
}

/// `A B` for a row-major `B` of `cols` columns, as plain loops over the CSR arrays.
fn reference(a: &Matrix, b: &[f64], cols: usize) -> Vec<f64> {
    let (pos, crd) = (a.level(1).pos(), a.level(1).crd());
    let mut c = vec![0.0; (pos.len() - 1) * cols];
    for (i, row) in c.chunks_mut(cols).enumerate() {
        let (lo, hi) = (pos[i] as usize, pos[i + 1] as usize);
        for (&v, &k) in a.values()[lo..hi].iter().zip(&crd[lo..hi]) {
            let k = k as usize;
            for (out, bk) in row.iter_mut().zip(&b[k * cols..(k + 1) * cols]) {
                *out += v * bk;
            }
        }
    }
    c
}

/// The fastest round's time a call of `call`, in microseconds, over `rounds` rounds of batches of
/// about 2 ms.
fn time_a_call(
    rounds: usize,
    mut call: impl FnMut() -> Result<(), KernelError>,
) -> Result<f64, KernelError> {
    let start = Instant::now();
    call()?;
    let batch = (2e-3 / start.elapsed().as_secs_f64().max(1e-8)).clamp(1.0, 1e5) as usize;
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        let start = Instant::now();
        for _ in 0..batch {
            call()?;
        }
        best = best.min(start.elapsed().as_secs_f64() / batch as f64);
    }
    Ok(best * 1e6)
}

fn main() -> Result<(), Box<dyn Error>> {
    let rounds = arg(1, 9)?;
    let mut rng = Rng::new(11);
    println!(
        "{} threads, {rounds} rounds; µs a call (fastest round)",
        rayon::current_num_threads()
    );
    println!("| rows | nonzeros | SpMV | row split | nonzero split | SpMM | row split |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for n in [512, 1024, 2048, 4096, 8192, 32_768, 131_072] {
        let a = random_matrix(n, &mut rng)?;
        let x_vals: Vec<f64> = (0..n).map(|_| rng.unit()).collect();
        let b_vals: Vec<f64> = (0..n * COLUMNS).map(|_| rng.unit()).collect();
        let (x, b) = (
            Vector::from_vec([n], x_vals.clone())?,
            Dense2::from_vec([n, COLUMNS], b_vals.clone())?,
        );
        let (y_want, c_want) = (reference(&a, &x_vals, 1), reference(&a, &b_vals, COLUMNS));
        let mut y = Vector::zeros([n]);
        let mut c = Dense2::zeros([n, COLUMNS]);
        let mut row = vec![n.to_string(), a.values().len().to_string()];
        let spmvs: [(&str, SpMV); 3] = [
            ("spmv", spmv),
            ("spmv_rows", spmv_rows),
            ("spmv_nonzeros", spmv_nonzeros),
        ];
        for (name, kernel) in spmvs {
            let t = time_a_call(rounds, || kernel(black_box(&mut y), &a, &x))?;
            check(name, n, y.values(), &y_want)?;
            row.push(format!("{t:.2}"));
        }
        let spmms: [(&str, SpMM); 2] = [("spmm", spmm), ("spmm_rows", spmm_rows)];
        for (name, kernel) in spmms {
            let t = time_a_call(rounds, || kernel(black_box(&mut c), &a, &b))?;
            check(name, n, c.values(), &c_want)?;
            row.push(format!("{t:.1}"));
        }
        println!("| {} |", row.join(" | "));
    }
    Ok(())
}

fn check(name: &str, n: usize, got: &[f64], want: &[f64]) -> Result<(), String> {
    match relative_error(got, want) {
        e if e <= 1e-12 => Ok(()),
        e => Err(format!("{name} on {n} rows: relative error {e}")),
    }
}
