//! The two thread splits of a CSR SpMV side by side: rows (`split(i, ..)`, each task a block of
//! rows) against nonzeros (`collapse`, `pos`, `split(p, ..)`: each task an equal share of the
//! stored values, atomics only where a row straddles two tasks), on matrices whose rows are even
//! (banded, uniform) and skewed (power-law, a few hub rows).
//!
//! ```sh
//! RUSTFLAGS="-C target-cpu=native" cargo run --release --example spmv_split          # 1M rows
//! cargo run --release --example spmv_split -- 100000 7   # rows, rounds
//! ```
//!
//! Each round times every kernel once, in turn, so that the load of a shared machine falls on all
//! of them alike; the table gives the fastest, median and slowest round. Every result is checked
//! against plain loops over the matrix's arrays.

mod common;

use std::error::Error;
use std::time::Instant;

use common::{Rng, arg, relative_error};
use sparse::prelude::*;
use sparse::{Idx, Level};

tensor_kernel! {
    /// The unscheduled kernel.
    fn serial; y(i) = A(i,j) * x(j); formats<A: csr>;
}

tensor_kernel! {
    /// Blocks of 32 rows per parallel iteration.
    fn rows; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<split(i, i0, i1, Down, 32).parallelize(i0, CpuThread, NoRaces)>;
}

tensor_kernel! {
    /// Tiles of 16 nonzeros, run in tasks of many tiles.
    fn nonzeros; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 16)
        .parallelize(p0, CpuThread, Atomics)>;
}

/// A square CSR matrix from the column lists of its rows, with random values.
fn csr(n: usize, rows: Vec<Vec<usize>>, rng: &mut Rng) -> Result<Tensor<f64, Csr>, Box<dyn Error>> {
    let mut pos: Vec<Idx> = vec![0];
    let mut crd: Vec<Idx> = Vec::new();
    for row in rows {
        crd.extend(row.into_iter().map(|j| j as Idx));
        pos.push(crd.len() as Idx);
    }
    let vals = (0..crd.len()).map(|_| rng.unit() - 0.5).collect();
    let levels = vec![Level::Dense { size: n }, Level::Compressed { pos, crd }];
    Ok(Tensor::from_parts(vec![n, n], levels, vals)?)
}

/// Sorted, duplicate-free columns: `count` drawn uniformly.
fn random_row(n: usize, count: usize, rng: &mut Rng) -> Vec<usize> {
    let mut row: Vec<usize> = (0..count).map(|_| rng.below(n)).collect();
    row.sort_unstable();
    row.dedup();
    row
}

/// A matrix with its name.
type Named = (&'static str, Tensor<f64, Csr>);

/// The matrices.
fn matrices(n: usize, rng: &mut Rng) -> Result<Vec<Named>, Box<dyn Error>> {
    let band = (0..n)
        .map(|i| (i.saturating_sub(8)..(i + 9).min(n)).collect())
        .collect();
    let uniform = (0..n).map(|_| random_row(n, 10, rng)).collect();
    // Row `r` (in a random order) holds about `n / 8 / (rank + 1)` entries: Zipf-like lengths,
    // the longest rows an eighth of the columns, most rows a handful.
    let mut ranks: Vec<usize> = (0..n).collect();
    for k in (1..n).rev() {
        ranks.swap(k, rng.below(k + 1));
    }
    let zipf = |rank: usize| (n / 8 / (rank + 1)).max(1) + rank % 7;
    let power = (0..n).map(|i| random_row(n, zipf(ranks[i]), rng)).collect();
    // Ten hub rows of n / 4 entries at the start, the rest 4 per row.
    let hubs = (0..n)
        .map(|i| random_row(n, if i < 10 { n / 4 } else { 4 }, rng))
        .collect();
    Ok(vec![
        ("banded (width 17)", csr(n, band, rng)?),
        ("uniform (10 per row)", csr(n, uniform, rng)?),
        ("power-law (Zipf rows)", csr(n, power, rng)?),
        ("hubs (10 rows of n/4)", csr(n, hubs, rng)?),
    ])
}

/// `y = A x` as plain loops over the CSR arrays.
fn reference(a: &Tensor<f64, Csr>, x: &[f64]) -> Vec<f64> {
    let (pos, crd) = (a.level(1).pos(), a.level(1).crd());
    (0..pos.len() - 1)
        .map(|i| {
            let (lo, hi) = (pos[i] as usize, pos[i + 1] as usize);
            (lo..hi).map(|p| a.values()[p] * x[crd[p] as usize]).sum()
        })
        .collect()
}

type Vector = Tensor<f64, DenseVec>;
type Kernel = fn(&mut Vector, &Tensor<f64, Csr>, &Vector) -> Result<(), KernelError>;

fn main() -> Result<(), Box<dyn Error>> {
    let n = arg(1, 1_000_000)?;
    let rounds = arg(2, 9)?;
    let mut rng = Rng::new(7);
    let x_vals: Vec<f64> = (0..n).map(|_| rng.unit()).collect();
    let x = Vector::from_vec([n], x_vals.clone())?;
    let kernels: [(&str, Kernel); 3] = [
        ("serial", serial),
        ("rows 32", rows),
        ("nonzeros 16", nonzeros),
    ];
    println!(
        "{} threads, {rounds} rounds; ms as fastest / median / slowest",
        rayon::current_num_threads()
    );
    for (name, a) in matrices(n, &mut rng)? {
        let expected = reference(&a, &x_vals);
        let mut times = vec![Vec::new(); kernels.len()];
        for _ in 0..rounds {
            for (k, (label, kernel)) in kernels.iter().enumerate() {
                let mut y = Vector::zeros([n]);
                let start = Instant::now();
                kernel(&mut y, &a, &x)?;
                times[k].push(start.elapsed().as_secs_f64() * 1e3);
                let error = relative_error(y.values(), &expected);
                if error > 1e-10 {
                    return Err(format!("{label} on {name}: relative error {error}").into());
                }
            }
        }
        println!("{name}, {} nonzeros:", a.values().len());
        for ((label, _), t) in kernels.iter().zip(&mut times) {
            t.sort_by(f64::total_cmp);
            println!(
                "  {label:12} {:8.2} {:8.2} {:8.2}",
                t[0],
                t[t.len() / 2],
                t[t.len() - 1]
            );
        }
    }
    Ok(())
}
