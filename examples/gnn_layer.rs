//! One graph-attention-style layer of a graph neural network, built from three generated kernels:
//! a dense transform `Z = H W`, edge scores on the graph's edges (SDDMM: `S = A ∘ (Z Zᵀ)`, only
//! where `A` stores an edge) and the aggregation `Y = S Z` (SpMM, row-parallel). A real layer
//! would also normalize the scores with a softmax; that needs `exp`, which the kernel language
//! does not have yet, so this layer aggregates with the raw scores.
//!
//! ```sh
//! cargo run --release --example gnn_layer                # 20000 vertices, 32 features
//! cargo run --release --example gnn_layer -- 2000 16     # vertices, features
//! ```
//!
//! Each kernel's result is checked against hand-written loops over the graph's adjacency lists,
//! and both are timed (best of five).

mod common;

use std::error::Error;

use common::{Rng, arg, best_of, ms, power_law_graph, relative_error};
use sparse::prelude::*;

tensor_kernel! {
    /// Z = H W: every vertex's features through the layer's weights.
    pub fn transform;
    Z(i,k) = H(i,j) * W(j,k);
}

tensor_kernel! {
    /// S(i,j) = A(i,j) · Σk Z(i,k) Z(j,k): a dot product per edge, none where there is no edge.
    pub fn edge_scores;
    S(i,j) = A(i,j) * Z(i,k) * Z(j,k);
    formats< S: csr, A: csr >;
    schedule< split(i, i0, i1, Down, 64).parallelize(i0, CpuThread, NoRaces) >;
}

tensor_kernel! {
    /// Y = S Z: each vertex sums its neighbours' features weighted by the edges' scores.
    pub fn aggregate;
    Y(i,k) = S(i,j) * Z(j,k);
    formats< S: csr >;
    schedule< split(i, i0, i1, Down, 64).parallelize(i0, CpuThread, NoRaces) >;
}

fn main() -> Result<(), Box<dyn Error>> {
    let n = arg(1, 20_000)?;
    let k = arg(2, 32)?;
    let graph = power_law_graph(n, 8, 7);
    let edges: usize = graph.iter().map(Vec::len).sum();
    println!("graph: {n} vertices, {edges} edges (power-law in-degrees), {k} features");

    // The adjacency matrix with unit weights, the features and the weights, all seeded.
    let entries = graph
        .iter()
        .enumerate()
        .flat_map(|(i, row)| row.iter().map(move |&j| ([i, j], 1.0)));
    let a = Tensor::<f64, Csr>::from_entries([n, n], entries)?;
    let mut rng = Rng::new(11);
    let h: Vec<f64> = (0..n * k).map(|_| rng.unit() - 0.5).collect();
    let w: Vec<f64> = (0..k * k).map(|_| (rng.unit() - 0.5) / k as f64).collect();
    let ht = Tensor::<f64, DenseMat>::from_dense([n, k], &h)?;
    let wt = Tensor::<f64, DenseMat>::from_dense([k, k], &w)?;

    let mut z = Tensor::zeros([n, k]);
    let (t_ours, ()) = best_of(5, || transform(&mut z, &ht, &wt).expect("shapes agree"));
    let (t_hand, z_ref) = best_of(5, || dense_product(&h, &w, n, k));
    report(
        "Z = H W (dense)",
        t_ours,
        t_hand,
        relative_error(&z.to_dense(), &z_ref),
    )?;

    let mut s = Tensor::<f64, Csr>::zeros([n, n]);
    let (t_ours, ()) = best_of(5, || edge_scores(&mut s, &a, &z).expect("shapes agree"));
    let (t_hand, s_ref) = best_of(5, || edge_scores_by_hand(&graph, &z_ref, k));
    let s_got: Vec<f64> = s.entries().iter().map(|(_, v)| v).collect();
    report(
        "S = A ∘ Z Zᵀ (SDDMM)",
        t_ours,
        t_hand,
        relative_error(&s_got, &s_ref),
    )?;
    if s.nnz() != edges {
        return Err(format!("S stores {} entries, the graph has {edges} edges", s.nnz()).into());
    }

    let mut y = Tensor::zeros([n, k]);
    let (t_ours, ()) = best_of(5, || aggregate(&mut y, &s, &z).expect("shapes agree"));
    let (t_hand, y_ref) = best_of(5, || aggregate_by_hand(&graph, &s_ref, &z_ref, k));
    report(
        "Y = S Z (SpMM)",
        t_ours,
        t_hand,
        relative_error(&y.to_dense(), &y_ref),
    )?;
    println!(
        "threads: {} (rayon's global pool)",
        rayon::current_num_threads()
    );
    Ok(())
}

/// Prints one kernel's line, or fails when its result is not the reference's.
fn report(
    what: &str,
    ours: std::time::Duration,
    hand: std::time::Duration,
    error: f64,
) -> Result<(), Box<dyn Error>> {
    let verdict = if error < 1e-12 { "ok" } else { "WRONG" };
    println!(
        "{what:<24} ours {:>8.3} ms   hand-written {:>8.3} ms   max rel. error {error:.1e}  {verdict}",
        ms(ours),
        ms(hand)
    );
    match verdict {
        "ok" => Ok(()),
        _ => Err(format!("{what}: the kernel disagrees with the hand-written loops").into()),
    }
}

fn dense_product(h: &[f64], w: &[f64], n: usize, k: usize) -> Vec<f64> {
    let mut z = vec![0.0; n * k];
    for i in 0..n {
        for j in 0..k {
            for c in 0..k {
                z[i * k + c] += h[i * k + j] * w[j * k + c];
            }
        }
    }
    z
}

/// One score per edge, in the graph's row order (which is CSR's entry order).
fn edge_scores_by_hand(graph: &[Vec<usize>], z: &[f64], k: usize) -> Vec<f64> {
    let mut scores = Vec::new();
    for (i, row) in graph.iter().enumerate() {
        for &j in row {
            scores.push((0..k).map(|c| z[i * k + c] * z[j * k + c]).sum());
        }
    }
    scores
}

fn aggregate_by_hand(graph: &[Vec<usize>], scores: &[f64], z: &[f64], k: usize) -> Vec<f64> {
    let mut y = vec![0.0; graph.len() * k];
    let mut edge = 0;
    for (i, row) in graph.iter().enumerate() {
        for &j in row {
            for c in 0..k {
                y[i * k + c] += scores[edge] * z[j * k + c];
            }
            edge += 1;
        }
    }
    y
}
