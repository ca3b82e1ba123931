//! SDDMM `A(i,j) = B(i,j) * C(i,k) * D(j,k)` (A and B CSR, C and D dense and row-major with 32
//! columns), as the compiler generates it (`B(i,j)` applied once per entry, after the sum over
//! `k`), against two hand-written safe loops on one thread: the same form, and the per-term form
//! `t += B(i,j) * C(i,k) * D(j,k)` that the kernel had before the factor was hoisted.
//!
//! ```sh
//! RUSTFLAGS="-C target-cpu=native" cargo run --release --example sddmm_rows       # 1M rows
//! cargo run --release --example sddmm_rows -- 20000 7        # rows, rounds
//! cargo run --release --example sddmm_rows -- matrix.mtx 15   # a Matrix Market file, rounds
//! ```
//!
//! The generated matrix has about 10 random columns per row. Each round times the three kernels
//! in turn, each over enough calls to take about 20 ms; the table gives the fastest, median and
//! slowest round per call. Every result is checked against the per-term loop.

mod common;

use std::error::Error;
use std::time::Instant;

use common::{Rng, arg, relative_error};
use sparse::io::load_matrix_market;
use sparse::prelude::*;
use sparse::{Idx, Level};

tensor_kernel! {
    /// The unscheduled kernel (loops i, j, k).
    fn sddmm; A(i,j) = B(i,j) * C(i,k) * D(j,k); formats<A: csr, B: csr>;
}

const K: usize = 32;

/// The CSR operand as its arrays.
struct Csr3<'a> {
    pos: &'a [Idx],
    crd: &'a [Idx],
    vals: &'a [f64],
}

/// The kernel before the hoist: every term multiplies by `B(i,j)`. Both hand-written loops index
/// by position, as the generated kernel does.
#[allow(clippy::needless_range_loop)]
fn per_term(a: &mut [f64], b: &Csr3, c: &[f64], d: &[f64]) {
    for i in 0..b.pos.len() - 1 {
        let c_row = &c[i * K..i * K + K];
        for p in b.pos[i] as usize..b.pos[i + 1] as usize {
            let (j, bv) = (b.crd[p] as usize, b.vals[p]);
            let mut t = 0.0;
            if bv != 0.0 {
                let d_row = &d[j * K..j * K + K];
                for k in 0..K {
                    t += bv * c_row[k] * d_row[k];
                }
            }
            a[p] = t;
        }
    }
}

/// The hoisted form: the dot product of two rows, scaled once.
#[allow(clippy::needless_range_loop)]
fn hoisted(a: &mut [f64], b: &Csr3, c: &[f64], d: &[f64]) {
    for i in 0..b.pos.len() - 1 {
        let c_row = &c[i * K..i * K + K];
        for p in b.pos[i] as usize..b.pos[i + 1] as usize {
            let (j, bv) = (b.crd[p] as usize, b.vals[p]);
            let mut t = 0.0;
            if bv != 0.0 {
                let d_row = &d[j * K..j * K + K];
                for k in 0..K {
                    t += c_row[k] * d_row[k];
                }
            }
            a[p] = bv * t;
        }
    }
}

/// The matrix `B`: read from the file the first argument names, or generated with the number
/// of rows it gives.
fn matrix(rng: &mut Rng) -> Result<(Tensor<f64, Csr>, String), Box<dyn Error>> {
    if let Some(path) = std::env::args()
        .nth(1)
        .filter(|a| a.parse::<usize>().is_err())
    {
        return Ok((load_matrix_market::<f64, Csr>(&path)?, path));
    }
    let n = arg(1, 1_000_000)?;
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
    let levels = vec![Level::Dense { size: n }, Level::Compressed { pos, crd }];
    let b = Tensor::<f64, Csr>::from_parts(vec![n, n], levels, vals)?;
    Ok((b, format!("generated, {n} rows")))
}

/// Milliseconds per call of `f`, over `calls` calls.
fn per_call(
    calls: usize,
    mut f: impl FnMut() -> Result<(), Box<dyn Error>>,
) -> Result<f64, Box<dyn Error>> {
    let start = Instant::now();
    for _ in 0..calls {
        f()?;
    }
    Ok(start.elapsed().as_secs_f64() * 1e3 / calls as f64)
}

fn main() -> Result<(), Box<dyn Error>> {
    let rounds = arg(2, 9)?;
    let mut rng = Rng::new(13);
    let (b, what) = matrix(&mut rng)?;
    let (m, n) = (b.shape()[0], b.shape()[1]);
    let c_vals: Vec<f64> = (0..m * K).map(|_| rng.unit() - 0.5).collect();
    let d_vals: Vec<f64> = (0..n * K).map(|_| rng.unit() - 0.5).collect();
    let c = Tensor::<f64, DenseMat>::from_dense([m, K], &c_vals)?;
    let d = Tensor::<f64, DenseMat>::from_dense([n, K], &d_vals)?;
    let parts = Csr3 {
        pos: b.level(1).pos(),
        crd: b.level(1).crd(),
        vals: b.values(),
    };
    let mut want = vec![0.0; parts.vals.len()];
    per_term(&mut want, &parts, &c_vals, &d_vals);
    let mut a = Tensor::<f64, Csr>::zeros([m, n]);
    sddmm(&mut a, &b, &c, &d)?;
    let mut hand = want.clone();
    // Enough calls per sample to take about 20 ms.
    let once = per_call(1, || {
        per_term(&mut hand, &parts, &c_vals, &d_vals);
        Ok(())
    })?;
    let calls = ((20.0 / once.max(1e-6)) as usize).clamp(1, 100_000);
    let mut times = [Vec::new(), Vec::new(), Vec::new()];
    for _ in 0..rounds {
        times[0].push(per_call(calls, || Ok(sddmm(&mut a, &b, &c, &d)?))?);
        let error = relative_error(a.values(), &want);
        if error > 1e-12 {
            return Err(format!("generated: relative error {error}").into());
        }
        times[1].push(per_call(calls, || {
            per_term(&mut hand, &parts, &c_vals, &d_vals);
            Ok(())
        })?);
        times[2].push(per_call(calls, || {
            hoisted(&mut hand, &parts, &c_vals, &d_vals);
            Ok(())
        })?);
        let error = relative_error(&hand, &want);
        if error > 1e-12 {
            return Err(format!("hand, hoisted: relative error {error}").into());
        }
    }
    println!(
        "{what}: {m} x {n}, {} nonzeros, K = {K}; {rounds} rounds of {calls} calls; \
         ms per call as fastest / median / slowest",
        parts.vals.len()
    );
    for (label, t) in ["generated", "hand, per term", "hand, hoisted"]
        .iter()
        .zip(&mut times)
    {
        t.sort_by(f64::total_cmp);
        println!(
            "  {label:16} {:9.4} {:9.4} {:9.4}",
            t[0],
            t[t.len() / 2],
            t[t.len() - 1]
        );
    }
    Ok(())
}
