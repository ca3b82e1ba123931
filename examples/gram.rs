//! Gram matrices of a sparse square matrix: `G = AᵀA` and `G = A Aᵀ` with A and G in CSR, each
//! written as one statement, against the same product built by hand from our parts (`Tensor::
//! transpose`, then the CSR SpGEMM kernel), against sprs (a transposed copy, then its SpGEMM) and,
//! for AᵀA, against scatter assembly (the coordinate/value triples the rows of A produce, sorted
//! and summed by the runtime, which is what the kernel would run without the planner's transposed
//! copy). Then triangle counting's masked product `C = A .* (A A)` against a merge written by
//! hand, and the same statement with its rows on rayon's threads, and the transpose alone (ours and
//! sprs's). All but the threaded statement run serially;
//! the sides alternate (a statement and its hand-built twin swap places every other run, each
//! into an empty output of its own), and each prints its best and worst of the runs.
//!
//! ```sh
//! cargo run --release --example gram                       # 200000 x 200000, 8 nonzeros a row
//! cargo run --release --example gram -- 2000 8 3           # rows, nonzeros a row, runs
//! ```
//!
//! Every result is checked against the hand-built product: the same structure, and values equal
//! up to rounding.

mod common;

use std::error::Error;
use std::hint::black_box;
use std::time::{Duration, Instant};

use common::{Rng, arg, ms};
use sparse::__private::{begin_entries, end_entries};
use sparse::prelude::*;
use sprs::CsMatI;

tensor_kernel! {
    /// G = AᵀA: the planner copies A transposed, then Gustavson's row-wise product.
    pub fn ata;
    G(i,j) = A(k,i) * A(k,j);
    formats< G: csr, A: csr >;
}

tensor_kernel! {
    /// G = A Aᵀ, the same way.
    pub fn aat;
    G(i,j) = A(i,k) * A(j,k);
    formats< G: csr, A: csr >;
}

tensor_kernel! {
    /// C = A .* (A A), triangle counting's masked product: one dot product per entry of A.
    pub fn masked;
    C(i,j) = A(i,j) * A(i,k) * A(k,j);
    formats< C: csr, A: csr >;
}

tensor_kernel! {
    /// The same, rows split across rayon's threads.
    pub fn masked_rows;
    C(i,j) = A(i,j) * A(i,k) * A(k,j);
    formats< C: csr, A: csr >;
    schedule< split(i, i0, i1, Down, 256).parallelize(i0, CpuThread, NoRaces) >;
}

tensor_kernel! {
    /// C = B D, both CSR.
    pub fn spgemm;
    C(i,j) = B(i,k) * D(k,j);
    formats< C: csr, B: csr, D: csr >;
}

type Matrix = Tensor<f64, Csr>;

fn main() -> Result<(), Box<dyn Error>> {
    let n = arg(1, 200_000)?;
    let per_row = arg(2, 8)?;
    let runs = arg(3, 5)?;
    if n == 0 {
        return Err("the matrix needs at least one row".into());
    }
    let a = random_matrix(n, per_row, 17)?;
    println!(
        "A: {n} x {n}, {} nonzeros ({per_row} a row on average), serial, {runs} runs each",
        a.nnz()
    );
    let theirs = to_sprs(&a);

    let mut reference = Matrix::zeros([n, n]);
    let mut ours = Matrix::zeros([n, n]);
    let mut times: Vec<(&str, Vec<Duration>)> = ["AᵀA statement", "AᵀA transpose+SpGEMM"]
        .into_iter()
        .chain(["AᵀA sprs", "AᵀA triples", "A Aᵀ statement"])
        .chain(["A Aᵀ transpose+SpGEMM", "A Aᵀ sprs"])
        .chain([
            "A.*(AA) statement",
            "A.*(AA) by hand",
            "A.*(AA) rows, threads",
        ])
        .chain(["Aᵀ Tensor::transpose", "Aᵀ sprs to_csr"])
        .map(|name| (name, Vec::new()))
        .collect();
    let (mut sprs_nnz, mut ata_nnz, mut aat_nnz) = ((0, 0), 0, 0);
    for run in 0..runs {
        // The Gram products of one run each write into an empty output of their own, as sprs's
        // product does, so that no side inherits another's capacity or freed memory; the
        // statement goes first in even runs and second in odd ones.
        let (mut g, mut g_ref) = (Matrix::zeros([n, n]), Matrix::zeros([n, n]));
        let (stmt, by_hand) = in_turn(
            run,
            || timed(|| ata(&mut g, &a)),
            || {
                timed(|| {
                    let at: Matrix = a.transpose()?;
                    spgemm(&mut g_ref, &at, &a)
                })
            },
        )?;
        times[0].1.push(stmt);
        times[1].1.push(by_hand);
        check(&g, &g_ref, "AᵀA")?;
        ata_nnz = g_ref.nnz();
        drop(g);
        times[2].1.push(timed(|| {
            let g = &theirs.transpose_view().to_csr() * &theirs;
            sprs_nnz.0 = g.nnz();
            Ok(())
        })?);
        times[3].1.push(timed(|| triples(&a, &mut ours))?);
        check(&ours, &g_ref, "AᵀA by triples")?;
        drop(g_ref);
        let (mut g, mut g_ref) = (Matrix::zeros([n, n]), Matrix::zeros([n, n]));
        let (stmt, by_hand) = in_turn(
            run,
            || timed(|| aat(&mut g, &a)),
            || {
                timed(|| {
                    let at: Matrix = a.transpose()?;
                    spgemm(&mut g_ref, &a, &at)
                })
            },
        )?;
        times[4].1.push(stmt);
        times[5].1.push(by_hand);
        check(&g, &g_ref, "A Aᵀ")?;
        aat_nnz = g_ref.nnz();
        drop((g, g_ref));
        times[6].1.push(timed(|| {
            let g = &theirs * &theirs.transpose_view().to_csr();
            sprs_nnz.1 = g.nnz();
            Ok(())
        })?);
        times[7].1.push(timed(|| masked(&mut ours, &a))?);
        times[8]
            .1
            .push(timed(|| masked_by_hand(&a, &mut reference))?);
        check(&ours, &reference, "A.*(AA)")?;
        times[9].1.push(timed(|| masked_rows(&mut ours, &a))?);
        check(&ours, &reference, "A.*(AA) on threads")?;
        times[10].1.push(timed(|| {
            let at: Matrix = a.transpose()?;
            drop(black_box(at));
            Ok(())
        })?);
        times[11].1.push(timed(|| {
            drop(black_box(theirs.transpose_view().to_csr()));
            Ok(())
        })?);
    }
    println!("\n{:<24} {:>12} {:>12}", "kernel", "best ms", "worst ms");
    for (name, t) in &times {
        let best = t.iter().min().copied().unwrap_or_default();
        let worst = t.iter().max().copied().unwrap_or_default();
        println!("{name:<24} {:>12.1} {:>12.1}", ms(best), ms(worst));
    }
    println!(
        "\nG nonzeros: AᵀA {} (sprs {}), A Aᵀ {} (sprs {})",
        ata_nnz, sprs_nnz.0, aat_nnz, sprs_nnz.1
    );
    Ok(())
}

/// Runs both sides, `first` before `second` in even runs and after it in odd ones, and returns
/// their times in the order of the arguments.
fn in_turn<E>(
    run: usize,
    first: impl FnOnce() -> Result<Duration, E>,
    second: impl FnOnce() -> Result<Duration, E>,
) -> Result<(Duration, Duration), E> {
    if run.is_multiple_of(2) {
        let a = first()?;
        Ok((a, second()?))
    } else {
        let b = second()?;
        Ok((first()?, b))
    }
}

fn timed(f: impl FnOnce() -> Result<(), KernelError>) -> Result<Duration, KernelError> {
    let start = Instant::now();
    f()?;
    Ok(start.elapsed())
}

/// AᵀA by scatter assembly: for each row of A, every pair of its entries is a triple of G; the
/// runtime sorts them, sums repeated coordinates and packs G.
fn triples(a: &Matrix, g: &mut Matrix) -> Result<(), KernelError> {
    let mut list = begin_entries(g);
    for k in 0..a.shape()[0] {
        let (cols, vals) = a.row(k).unwrap_or_default();
        for (&i, &x) in cols.iter().zip(vals) {
            for (&j, &y) in cols.iter().zip(vals) {
                list.push(&[i as usize, j as usize], x * y)?;
            }
        }
    }
    end_entries(g, list)?;
    Ok(())
}

/// `A .* (A A)` by hand: A transposed once, then for each entry (i, j) of A a merge of row i of A
/// with row j of the transpose (column j of A).
fn masked_by_hand(a: &Matrix, c: &mut Matrix) -> Result<(), KernelError> {
    let at: Matrix = a.transpose()?;
    let (pos, crd, vals) = (a.level(1).pos(), a.level(1).crd(), a.values());
    let (t_pos, t_crd, t_vals) = (at.level(1).pos(), at.level(1).crd(), at.values());
    let mut out = Vec::with_capacity(vals.len());
    for i in 0..a.shape()[0] {
        let (start, end) = (pos[i] as usize, pos[i + 1] as usize);
        for e in start..end {
            let j = crd[e] as usize;
            let (mut p, mut q, q_end) = (start, t_pos[j] as usize, t_pos[j + 1] as usize);
            let mut dot = 0.0;
            while p < end && q < q_end {
                match crd[p].cmp(&t_crd[q]) {
                    std::cmp::Ordering::Less => p += 1,
                    std::cmp::Ordering::Greater => q += 1,
                    std::cmp::Ordering::Equal => {
                        dot += vals[p] * t_vals[q];
                        (p, q) = (p + 1, q + 1);
                    }
                }
            }
            out.push(vals[e] * dot);
        }
    }
    *c = Tensor::from_parts(a.shape().to_vec(), a.levels().to_vec(), out)?;
    Ok(())
}

/// The same structure, and values within 1e-12 of the reference's largest magnitude.
fn check(got: &Matrix, want: &Matrix, what: &str) -> Result<(), String> {
    let same =
        got.level(1).pos() == want.level(1).pos() && got.level(1).crd() == want.level(1).crd();
    let scale = want.values().iter().fold(1.0f64, |m, v| m.max(v.abs()));
    let close =
        (got.values().iter().zip(want.values())).all(|(g, w)| (g - w).abs() <= 1e-12 * scale);
    match same && close {
        true => Ok(()),
        false => Err(format!(
            "{what}: the result differs from transpose + SpGEMM"
        )),
    }
}

/// `n x n` with `per_row` entries a row on average (0 to twice that), random columns, values in
/// [0.5, 1.5).
fn random_matrix(n: usize, per_row: usize, seed: u64) -> Result<Matrix, FormatError> {
    let mut rng = Rng::new(seed);
    let mut entries = Vec::with_capacity(n * per_row);
    for i in 0..n {
        for _ in 0..rng.below(2 * per_row + 1) {
            entries.push(([i, rng.below(n)], 0.5 + rng.unit()));
        }
    }
    Tensor::from_entries([n, n], entries)
}

/// sprs's CSR over copies of our arrays (`u32` indices, so both move the same bytes).
fn to_sprs(a: &Matrix) -> CsMatI<f64, u32, u32> {
    let n = a.shape()[0];
    let (pos, crd) = (a.level(1).pos().to_vec(), a.level(1).crd().to_vec());
    CsMatI::new((n, a.shape()[1]), pos, crd, a.values().to_vec())
}
