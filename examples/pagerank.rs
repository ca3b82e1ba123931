//! PageRank (Page, Brin, Motwani and Winograd, "The PageRank Citation Ranking") by power iteration
//! on a generated power-law graph, with a row-parallel generated SpMV step and a convergence check.
//!
//! ```sh
//! cargo run --release --example pagerank               # 200000 vertices, about 8 links each
//! cargo run --release --example pagerank -- 5000       # vertices
//! ```
//!
//! `P(i,j) = 1/outdeg(j)` for each link j -> i, so one step is `r' = d P r + t`, where the
//! teleport term `t` also spreads the rank of vertices without links. The ranks are checked against
//! the same iteration written as plain loops over the link lists, and both are timed.

mod common;

use std::error::Error;
use std::time::Instant;

use common::{arg, ms, power_law_graph, relative_error};
use sparse::prelude::*;

tensor_kernel! {
    /// next = damping · P r + teleport, rows split into tiles across rayon's threads.
    pub fn step(next, damping, P, r, teleport);
    next(i) = damping * P(i,j) * r(j) + teleport;
    formats< P: csr >;
    scalars< damping, teleport >;
    schedule< split(i, i0, i1, Down, 512).parallelize(i0, CpuThread, NoRaces) >;
}

tensor_kernel! {
    /// The rank held by vertices without links: s = Σ dangling(j) r(j).
    pub fn dangling_mass;
    s = dangling(j) * r(j);
}

tensor_kernel! {
    /// The squared distance between two iterates, for the convergence check.
    pub fn distance;
    s = (a(i) - b(i)) * (a(i) - b(i));
}

const DAMPING: f64 = 0.85;
/// The iteration stops when successive rank vectors are this close (Euclidean distance).
const TOLERANCE: f64 = 1e-10;

fn main() -> Result<(), Box<dyn Error>> {
    let n = arg(1, 200_000)?;
    if n == 0 {
        return Err("the graph needs at least one vertex".into());
    }
    let graph = power_law_graph(n, 8, 42);
    let links: usize = graph.iter().map(Vec::len).sum();
    let dangling = graph.iter().filter(|out| out.is_empty()).count();
    println!("graph: {n} vertices, {links} links, {dangling} vertices without links");

    let start = Instant::now();
    let p = link_matrix(&graph)?;
    let built = start.elapsed();
    let start = Instant::now();
    let (ranks, iterations) = pagerank(&graph, &p)?;
    let ours = start.elapsed();
    let start = Instant::now();
    let (expected, iterations_ref) = pagerank_by_hand(&graph);
    let hand = start.elapsed();

    let error = relative_error(&ranks, &expected);
    let total: f64 = ranks.iter().sum();
    println!("P (CSR, {} nonzeros) built in {:.2} ms", p.nnz(), ms(built));
    println!(
        "ours:         {iterations} iterations, {:.2} ms ({:.3} ms each, {} threads)",
        ms(ours),
        ms(ours) / iterations as f64,
        rayon::current_num_threads()
    );
    println!(
        "hand-written: {iterations_ref} iterations, {:.2} ms ({:.3} ms each, 1 thread)",
        ms(hand),
        ms(hand) / iterations_ref as f64
    );
    let mut top: Vec<usize> = (0..n).collect();
    top.sort_by(|&a, &b| ranks[b].total_cmp(&ranks[a]));
    let top: Vec<String> = top
        .iter()
        .take(5)
        .map(|&v| format!("{v} ({:.4})", ranks[v]))
        .collect();
    println!("highest ranks: {}", top.join(", "));
    println!("Σ ranks = {total:.12}, max relative difference from hand-written {error:.1e}");
    if error > 1e-8 || (total - 1.0).abs() > 1e-9 {
        return Err("the kernels' ranks disagree with the hand-written iteration".into());
    }
    Ok(())
}

/// `P(i,j) = 1/outdeg(j)` for each link j -> i.
fn link_matrix(graph: &[Vec<usize>]) -> Result<Tensor<f64, Csr>, FormatError> {
    let n = graph.len();
    let entries = graph.iter().enumerate().flat_map(|(source, out)| {
        let weight = 1.0 / out.len() as f64;
        out.iter().map(move |&target| ([target, source], weight))
    });
    Tensor::from_entries([n, n], entries)
}

/// Power iteration with the generated kernels.
fn pagerank(
    graph: &[Vec<usize>],
    p: &Tensor<f64, Csr>,
) -> Result<(Vec<f64>, usize), Box<dyn Error>> {
    let n = graph.len();
    let mask: Vec<f64> = graph
        .iter()
        .map(|out| f64::from(u8::from(out.is_empty())))
        .collect();
    let mask = Tensor::from_dense([n], &mask)?;
    let mut r = Tensor::from_dense([n], &vec![1.0 / n as f64; n])?;
    let mut next = Tensor::zeros([n]);
    let mut s = Tensor::<f64, Dense<0>>::zeros([]);
    for k in 1..=1000 {
        dangling_mass(&mut s, &mask, &r)?;
        let teleport = (1.0 - DAMPING + DAMPING * s.values()[0]) / n as f64;
        step(&mut next, DAMPING, p, &r, teleport)?;
        distance(&mut s, &next, &r)?;
        std::mem::swap(&mut r, &mut next);
        if s.values()[0].sqrt() < TOLERANCE {
            return Ok((r.to_dense(), k));
        }
    }
    Err("no convergence in 1000 iterations".into())
}

/// The same iteration, pushing each vertex's rank along its links.
fn pagerank_by_hand(graph: &[Vec<usize>]) -> (Vec<f64>, usize) {
    let n = graph.len();
    let mut r = vec![1.0 / n as f64; n];
    for k in 1..=1000 {
        let lost: f64 = (0..n).filter(|&v| graph[v].is_empty()).map(|v| r[v]).sum();
        let teleport = (1.0 - DAMPING + DAMPING * lost) / n as f64;
        let mut next = vec![teleport; n];
        for (source, out) in graph.iter().enumerate() {
            let share = DAMPING * r[source] / out.len() as f64;
            for &target in out {
                next[target] += share;
            }
        }
        let distance: f64 = next.iter().zip(&r).map(|(a, b)| (a - b) * (a - b)).sum();
        r = next;
        if distance.sqrt() < TOLERANCE {
            return (r, k);
        }
    }
    (r, 1000)
}
