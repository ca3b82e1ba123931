//! CP decomposition of a sparse 3-tensor by alternating least squares (CP-ALS; Kolda and Bader,
//! "Tensor Decompositions and Applications"), built on three generated MTTKRP kernels, one per
//! mode, over a tensor read from a FROSTT `.tns` file into CSF.
//!
//! ```sh
//! cargo run --release --example cp_als                          # a generated rank-8 tensor
//! cargo run --release --example cp_als -- path/to/tensor.tns 16 # any FROSTT file, rank 16
//! ```
//!
//! Without a path the example writes a tensor of exact CP rank 8 (sparse factors, so the tensor is
//! sparse too) to a `.tns` file in the temporary folder and decomposes that, so the fit should
//! approach 1. Each MTTKRP of the first iteration is checked against a hand-written loop over the
//! file's coordinates, and the time of the MTTKRPs is compared with that loop's.

mod common;

use std::error::Error;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use common::{Rng, best_of, ms, relative_error};
use sparse::io::load_tns;
use sparse::prelude::*;

tensor_kernel! {
    /// The mode-0 MTTKRP: M(i,r) = Σ X(i,j,k) B(j,r) C(k,r).
    pub fn mttkrp0;
    M(i,r) = X(i,j,k) * B(j,r) * C(k,r);
    formats< X: csf >;
}

tensor_kernel! {
    /// The mode-1 MTTKRP, walking the same CSF tensor: M(j,r) = Σ X(i,j,k) A(i,r) C(k,r).
    pub fn mttkrp1;
    M(j,r) = X(i,j,k) * A(i,r) * C(k,r);
    formats< X: csf >;
}

tensor_kernel! {
    /// The mode-2 MTTKRP: M(k,r) = Σ X(i,j,k) A(i,r) B(j,r).
    pub fn mttkrp2;
    M(k,r) = X(i,j,k) * A(i,r) * B(j,r);
    formats< X: csf >;
}

tensor_kernel! {
    /// The Gram matrix of a factor: G = Fᵀ F.
    pub fn gram;
    G(r,s) = F(i,r) * F(i,s);
}

type Matrix = Tensor<f64, DenseMat>;

/// The shape of the tensor written when no file is given.
const GENERATED: [usize; 3] = [300, 200, 100];

fn main() -> Result<(), Box<dyn Error>> {
    let rank = match std::env::args().nth(2) {
        Some(r) => r
            .parse()
            .map_err(|_| format!("the rank must be a number, not `{r}`"))?,
        None => 8,
    };
    // A FROSTT file does not say its shape: a user's file gets the largest coordinates'.
    let (path, shape, generated) = match std::env::args().nth(1) {
        Some(p) => (PathBuf::from(p), None, false),
        None => (
            write_low_rank_tensor(GENERATED, 8, 5)?,
            Some(GENERATED),
            true,
        ),
    };
    let x = load_tns::<f64, Csf<3>>(&path, shape.as_ref().map(|s| &s[..]))?;
    if generated {
        std::fs::remove_file(&path)?;
    }
    let shape = [x.shape()[0], x.shape()[1], x.shape()[2]];
    let coords: Vec<([usize; 3], f64)> = x
        .entries()
        .iter()
        .map(|(c, v)| ([c[0], c[1], c[2]], v))
        .collect();
    println!(
        "{}: {shape:?}, {} nonzeros, rank {rank}",
        path.display(),
        x.nnz()
    );

    let norm_x = coords.iter().map(|(_, v)| v * v).sum::<f64>().sqrt();
    let mut rng = Rng::new(1);
    let mut factors: Vec<Vec<f64>> = shape
        .iter()
        .map(|&n| (0..n * rank).map(|_| rng.unit()).collect())
        .collect();
    let mut lambda = vec![1.0; rank];
    let (mut ours, mut hand) = (Duration::ZERO, Duration::ZERO);
    for iteration in 1..=25 {
        for mode in 0..3 {
            let (t, m) = best_of(1, || mttkrp(mode, &x, &factors, shape, rank));
            ours += t;
            let (t, m_ref) = best_of(1, || mttkrp_by_hand(mode, &coords, &factors, shape, rank));
            hand += t;
            let m = m?;
            let error = relative_error(&m, &m_ref);
            if error > 1e-10 {
                return Err(format!("mode-{mode} MTTKRP is off by {error:.1e}").into());
            }
            let v = hadamard_of_grams(&factors, mode, shape, rank)?;
            factors[mode] = solve_rows(&m, &v, rank)?;
            lambda = normalize_columns(&mut factors[mode], rank);
            if mode == 2 && (iteration % 5 == 0 || iteration == 1) {
                let fit = fit(norm_x, &m, &factors, &lambda, shape, rank)?;
                println!("iteration {iteration:>3}: fit {fit:.6}");
            }
        }
    }
    println!(
        "MTTKRP, all modes and iterations: ours {:.2} ms, hand-written loop over coordinates {:.2} ms",
        ms(ours),
        ms(hand)
    );
    Ok(())
}

/// The MTTKRP of `mode` by the generated kernels.
fn mttkrp(
    mode: usize,
    x: &Tensor<f64, Csf<3>>,
    factors: &[Vec<f64>],
    shape: [usize; 3],
    rank: usize,
) -> Result<Vec<f64>, Box<dyn Error>> {
    let f = |m: usize| Matrix::from_dense([shape[m], rank], &factors[m]);
    let mut out = Matrix::zeros([shape[mode], rank]);
    match mode {
        0 => mttkrp0(&mut out, x, &f(1)?, &f(2)?)?,
        1 => mttkrp1(&mut out, x, &f(0)?, &f(2)?)?,
        _ => mttkrp2(&mut out, x, &f(0)?, &f(1)?)?,
    }
    Ok(out.to_dense())
}

/// The same product, one nonzero at a time, from the coordinates the file held.
fn mttkrp_by_hand(
    mode: usize,
    coords: &[([usize; 3], f64)],
    factors: &[Vec<f64>],
    shape: [usize; 3],
    rank: usize,
) -> Vec<f64> {
    let others: Vec<usize> = (0..3).filter(|&m| m != mode).collect();
    let mut out = vec![0.0; shape[mode] * rank];
    for (c, v) in coords {
        let (p, q) = (c[others[0]] * rank, c[others[1]] * rank);
        let row = &mut out[c[mode] * rank..][..rank];
        for r in 0..rank {
            row[r] += v * factors[others[0]][p + r] * factors[others[1]][q + r];
        }
    }
    out
}

/// The element-wise product of the Gram matrices of every factor but `mode`'s.
fn hadamard_of_grams(
    factors: &[Vec<f64>],
    mode: usize,
    shape: [usize; 3],
    rank: usize,
) -> Result<Vec<f64>, Box<dyn Error>> {
    let mut v = vec![1.0; rank * rank];
    for m in (0..3).filter(|&m| m != mode) {
        for (e, g) in v.iter_mut().zip(gram_of(&factors[m], shape[m], rank)?) {
            *e *= g;
        }
    }
    Ok(v)
}

fn gram_of(factor: &[f64], rows: usize, rank: usize) -> Result<Vec<f64>, Box<dyn Error>> {
    let mut g = Matrix::zeros([rank, rank]);
    gram(&mut g, &Matrix::from_dense([rows, rank], factor)?)?;
    Ok(g.to_dense())
}

/// Solves `X V = M` for X, row by row, by a Cholesky factorization of the symmetric `V`.
fn solve_rows(m: &[f64], v: &[f64], rank: usize) -> Result<Vec<f64>, Box<dyn Error>> {
    let l = cholesky(v, rank).ok_or("the normal equations are singular: try a smaller rank")?;
    let mut x = m.to_vec();
    for row in x.chunks_mut(rank) {
        for i in 0..rank {
            let s: f64 = (0..i).map(|k| l[i * rank + k] * row[k]).sum();
            row[i] = (row[i] - s) / l[i * rank + i];
        }
        for i in (0..rank).rev() {
            let s: f64 = (i + 1..rank).map(|k| l[k * rank + i] * row[k]).sum();
            row[i] = (row[i] - s) / l[i * rank + i];
        }
    }
    Ok(x)
}

/// The lower factor `L` of `V = L Lᵀ`, or `None` where `V` is not positive definite.
fn cholesky(v: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = (0..j).map(|k| l[i * n + k] * l[j * n + k]).sum();
            if i == j {
                let d = v[i * n + i] - s;
                if d <= 0.0 {
                    return None;
                }
                l[i * n + i] = d.sqrt();
            } else {
                l[i * n + j] = (v[i * n + j] - s) / l[j * n + j];
            }
        }
    }
    Some(l)
}

/// Scales each column to unit length and returns the lengths.
fn normalize_columns(factor: &mut [f64], rank: usize) -> Vec<f64> {
    let mut norms = vec![0.0f64; rank];
    for row in factor.chunks(rank) {
        for (n, v) in norms.iter_mut().zip(row) {
            *n += v * v;
        }
    }
    for n in &mut norms {
        *n = n.sqrt().max(f64::MIN_POSITIVE);
    }
    for row in factor.chunks_mut(rank) {
        for (v, n) in row.iter_mut().zip(&norms) {
            *v /= n;
        }
    }
    norms
}

/// 1 - ‖X - X̂‖ / ‖X‖, from the last mode's MTTKRP `m` (so ⟨X, X̂⟩ costs no pass over X).
fn fit(
    norm_x: f64,
    m: &[f64],
    factors: &[Vec<f64>],
    lambda: &[f64],
    shape: [usize; 3],
    rank: usize,
) -> Result<f64, Box<dyn Error>> {
    let inner: f64 = m
        .chunks(rank)
        .zip(factors[2].chunks(rank))
        .map(|(mr, fr)| (0..rank).map(|r| mr[r] * fr[r] * lambda[r]).sum::<f64>())
        .sum();
    let mut v = hadamard_of_grams(factors, 2, shape, rank)?;
    for (e, g) in v.iter_mut().zip(gram_of(&factors[2], shape[2], rank)?) {
        *e *= g;
    }
    let norm_model: f64 = (0..rank * rank)
        .map(|p| lambda[p / rank] * lambda[p % rank] * v[p])
        .sum();
    let residual = (norm_x * norm_x + norm_model - 2.0 * inner).max(0.0).sqrt();
    Ok(1.0 - residual / norm_x)
}

/// Writes Σr a_r ∘ b_r ∘ c_r, with factors that are nonzero on a tenth of their entries, to a
/// FROSTT file (1-based coordinates, one nonzero per line) and returns its path.
fn write_low_rank_tensor(
    shape: [usize; 3],
    rank: usize,
    seed: u64,
) -> Result<PathBuf, Box<dyn Error>> {
    let mut rng = Rng::new(seed);
    let mut dense = std::collections::BTreeMap::<[usize; 3], f64>::new();
    for _ in 0..rank {
        let support: Vec<Vec<(usize, f64)>> = shape
            .iter()
            .map(|&n| {
                (0..n)
                    .filter_map(|i| {
                        let kept = rng.unit() < 0.1;
                        let value = 0.5 + rng.unit();
                        kept.then_some((i, value))
                    })
                    .collect()
            })
            .collect();
        for &(i, a) in &support[0] {
            for &(j, b) in &support[1] {
                for &(k, c) in &support[2] {
                    *dense.entry([i, j, k]).or_default() += a * b * c;
                }
            }
        }
    }
    let path = std::env::temp_dir().join(format!("sparse-cp-als-{}.tns", std::process::id()));
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path)?);
    for ([i, j, k], v) in dense {
        writeln!(file, "{} {} {} {v}", i + 1, j + 1, k + 1)?;
    }
    file.flush()?;
    Ok(path)
}
