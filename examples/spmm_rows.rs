//! SpMM `C(i,k) = A(i,j) * B(j,k)` (A CSR, B and C dense and row-major), unscheduled and split
//! into blocks of rows on threads, against two hand-written safe loops on one thread: rows of `B`
//! scaled into a row of `C` through slices, and the same with the row of `C` held in a local
//! array of 32 columns.
//!
//! ```sh
//! RUSTFLAGS="-C target-cpu=native" cargo run --release --example spmm_rows             # 200k rows
//! cargo run --release --example spmm_rows -- 20000 7   # rows, rounds
//! ```
//!
//! `B` and `C` have 32 columns; `A` about 10 random columns per row. Each round times every kernel
//! once, in turn; the table gives the fastest, median and slowest round. Every result is checked
//! against the first hand-written loop.

mod common;

use std::error::Error;
use std::time::Instant;

use common::{Rng, arg, relative_error};
use sparse::prelude::*;
use sparse::{Idx, Level};

tensor_kernel! {
    /// The unscheduled kernel (loops i, j, k).
    fn spmm; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
}

tensor_kernel! {
    /// Blocks of 16 rows on rayon's threads.
    fn spmm_split; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;
    schedule<split(i, i0, i1, Down, 16).parallelize(i0, CpuThread, NoRaces)>;
}

const N: usize = 32;

/// Row `i` of `C` is the sum of the rows of `B` that row `i` of `A` selects, scaled.
fn by_slices(c: &mut [f64], pos: &[Idx], crd: &[Idx], vals: &[f64], b: &[f64]) {
    for (i, row) in c.chunks_exact_mut(N).enumerate() {
        row.fill(0.0);
        let (lo, hi) = (pos[i] as usize, pos[i + 1] as usize);
        for (&j, &a) in crd[lo..hi].iter().zip(&vals[lo..hi]) {
            let j = j as usize;
            for (c, b) in row.iter_mut().zip(&b[j * N..j * N + N]) {
                *c += a * b;
            }
        }
    }
}

/// As [`by_slices`], the row of `C` summed in a local array the compiler keeps in registers.
fn in_registers(c: &mut [f64], pos: &[Idx], crd: &[Idx], vals: &[f64], b: &[f64]) {
    for (i, row) in c.chunks_exact_mut(N).enumerate() {
        let mut sum = [0.0; N];
        let (lo, hi) = (pos[i] as usize, pos[i + 1] as usize);
        for (&j, &a) in crd[lo..hi].iter().zip(&vals[lo..hi]) {
            let j = j as usize;
            let b: &[f64; N] = b[j * N..j * N + N].try_into().expect("a row of B");
            for k in 0..N {
                sum[k] += a * b[k];
            }
        }
        row.copy_from_slice(&sum);
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let n = arg(1, 200_000)?;
    let rounds = arg(2, 9)?;
    let mut rng = Rng::new(11);
    let mut pos: Vec<Idx> = vec![0];
    let mut crd: Vec<Idx> = Vec::new();
    for _ in 0..n {
        let mut row: Vec<usize> = (0..10).map(|_| rng.below(n)).collect();
        row.sort_unstable();
        row.dedup();
        crd.extend(row.into_iter().map(|j| j as Idx));
        pos.push(crd.len() as Idx);
    }
    let vals: Vec<f64> = (0..crd.len()).map(|_| rng.unit() - 0.5).collect();
    let levels = vec![
        Level::Dense { size: n },
        Level::Compressed {
            pos: pos.clone(),
            crd: crd.clone(),
        },
    ];
    let a = Tensor::<f64, Csr>::from_parts(vec![n, n], levels, vals.clone())?;
    let b_vals: Vec<f64> = (0..n * N).map(|_| rng.unit()).collect();
    let b = Tensor::<f64, DenseMat>::from_dense([n, N], &b_vals)?;
    let mut want = vec![0.0; n * N];
    by_slices(&mut want, &pos, &crd, &vals, &b_vals);
    let mut times = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    // Outputs made (and their pages touched) once, outside the timed calls.
    let mut c = Tensor::<f64, DenseMat>::from_dense([n, N], &want)?;
    let mut hand = want.clone();
    for _ in 0..rounds {
        let start = Instant::now();
        spmm(&mut c, &a, &b)?;
        times[0].push(start.elapsed().as_secs_f64() * 1e3);
        let error = relative_error(c.values(), &want);
        if error > 1e-12 {
            return Err(format!("generated: relative error {error}").into());
        }
        let start = Instant::now();
        spmm_split(&mut c, &a, &b)?;
        times[3].push(start.elapsed().as_secs_f64() * 1e3);
        let error = relative_error(c.values(), &want);
        if error > 1e-12 {
            return Err(format!("row split: relative error {error}").into());
        }
        let start = Instant::now();
        by_slices(&mut hand, &pos, &crd, &vals, &b_vals);
        times[1].push(start.elapsed().as_secs_f64() * 1e3);
        let start = Instant::now();
        in_registers(&mut hand, &pos, &crd, &vals, &b_vals);
        times[2].push(start.elapsed().as_secs_f64() * 1e3);
        let error = relative_error(&hand, &want);
        if error > 1e-12 {
            return Err(format!("in registers: relative error {error}").into());
        }
    }
    println!(
        "{n} rows, {} nonzeros, {N} columns; {rounds} rounds; ms as fastest / median / slowest",
        crd.len()
    );
    for (label, t) in [
        "generated",
        "hand, slices",
        "hand, registers",
        "row split 16",
    ]
    .iter()
    .zip(&mut times)
    {
        t.sort_by(f64::total_cmp);
        println!(
            "  {label:16} {:8.2} {:8.2} {:8.2}",
            t[0],
            t[t.len() / 2],
            t[t.len() - 1]
        );
    }
    Ok(())
}
