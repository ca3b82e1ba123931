//! Single-source shortest paths by Bellman-Ford iterations of a min-plus SpMV (the tropical
//! semiring: `+` combines a distance with an edge, `min` combines the paths), until no distance
//! changes; checked against Dijkstra's algorithm written by hand, and both timed.
//!
//! ```sh
//! cargo run --release --example sssp                    # a generated graph, 200000 vertices
//! cargo run --release --example sssp -- 5000            # vertices
//! cargo run --release --example sssp -- graph.mtx [SOURCE]
//! ```
//!
//! `W(i,j)` is the weight of the edge j -> i (a Matrix Market file's entry (i, j) is the edge
//! i -> j, weighted by its magnitude; a pattern file's edges weigh 1), and `W(i,i) = 0`, so one
//! step `d'(i) = min_j W(i,j) + d(j)` keeps every distance already found. Every tensor holds
//! `+inf` where it stores nothing: an edge that is not there, a vertex not reached.

mod common;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::error::Error;
use std::time::Instant;

use common::{Rng, graph_and_source, graph_from_file, ms, power_law_graph};
use sparse::prelude::*;

tensor_kernel! {
    /// One Bellman-Ford step: next(i) = min_j W(i,j) + d(j), rows split across rayon's threads.
    pub fn relax;
    next(i) = W(i,j) + d(j);
    formats< W: csr >;
    fills< W: inf, d: inf, next: inf >;
    reduce< j: min >;
    schedule< split(i, i0, i1, Down, 256).parallelize(i0, CpuThread, NoRaces) >;
}

tensor_kernel! {
    /// Whether any distance changed: s = OR_i (a(i) != b(i)).
    pub fn changed;
    s = (a(i) != b(i)) as f64;
    fills< a: inf, b: inf >;
    reduce< i: || >;
}

/// A weighted directed graph: each vertex's (target, weight) edges.
type Graph = Vec<Vec<(usize, f64)>>;

fn main() -> Result<(), Box<dyn Error>> {
    let (graph, source) = graph_and_source(
        200_000,
        |path| graph_from_file(path, |j, v| (j, v.abs())),
        generated,
    )?;

    let start = Instant::now();
    let w = weights(&graph)?;
    let built = start.elapsed();
    let start = Instant::now();
    let (distances, iterations) = bellman_ford(&w, source)?;
    let ours = start.elapsed();
    let start = Instant::now();
    let expected = dijkstra(&graph, source);
    let hand = start.elapsed();

    let reached = expected.iter().filter(|d| d.is_finite()).count();
    let far = expected
        .iter()
        .copied()
        .filter(|d| d.is_finite())
        .fold(0.0, f64::max);
    println!("W (CSR, {} stored) built in {:.2} ms", w.nnz(), ms(built));
    println!(
        "ours (min-plus SpMV): {iterations} iterations, {:.2} ms ({:.3} ms each, {} threads)",
        ms(ours),
        ms(ours) / iterations as f64,
        rayon::current_num_threads()
    );
    println!("hand-written Dijkstra: {:.2} ms (1 thread)", ms(hand));
    println!("{reached} vertices reached, the farthest at distance {far}");
    let wrong = (0..graph.len()).find(|&v| !same_distance(distances[v], expected[v]));
    if let Some(v) = wrong {
        let message = format!(
            "vertex {v}: the kernels give distance {}, Dijkstra {}",
            distances[v], expected[v]
        );
        return Err(message.into());
    }
    println!("every distance agrees with Dijkstra's");
    Ok(())
}

/// Both unreachable, or equal up to the rounding of sums taken along different shortest paths.
fn same_distance(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

/// A power-law graph with integer weights 1 to 9.
fn generated(n: usize) -> Graph {
    let mut rng = Rng::new(7);
    power_law_graph(n, 8, 11)
        .into_iter()
        .map(|out| {
            out.into_iter()
                .map(|t| (t, (1 + rng.below(9)) as f64))
                .collect()
        })
        .collect()
}

/// `W(i,j)` = the weight of edge j -> i (the lightest of parallel edges), `W(i,i)` = 0.
fn weights(graph: &Graph) -> Result<Tensor<f64, Csr>, FormatError> {
    let n = graph.len();
    let mut lightest = std::collections::HashMap::new();
    for (source, out) in graph.iter().enumerate() {
        for &(target, weight) in out {
            if target != source {
                let w = lightest.entry((target, source)).or_insert(f64::INFINITY);
                *w = f64::min(*w, weight);
            }
        }
    }
    let edges = lightest.into_iter().map(|((i, j), w)| ([i, j], w));
    let diagonal = (0..n).map(|i| ([i, i], 0.0));
    Tensor::from_entries_with_fill([n, n], edges.chain(diagonal), f64::INFINITY)
}

/// Min-plus steps from `d(source) = 0` until no distance changes.
fn bellman_ford(w: &Tensor<f64, Csr>, source: usize) -> Result<(Vec<f64>, usize), Box<dyn Error>> {
    let n = w.shape()[0];
    let mut d = Tensor::from_entries_with_fill([n], [([source], 0.0)], f64::INFINITY)?;
    let mut next = Tensor::filled([n], f64::INFINITY);
    let mut any = Tensor::<f64, Dense<0>>::zeros([]);
    for k in 1..=n.max(1) {
        relax(&mut next, w, &d)?;
        changed(&mut any, &next, &d)?;
        std::mem::swap(&mut d, &mut next);
        if any.values()[0] == 0.0 {
            return Ok((d.to_dense(), k));
        }
    }
    Err("a distance still changed after as many steps as vertices".into())
}

/// Dijkstra's algorithm with a binary heap.
fn dijkstra(graph: &Graph, source: usize) -> Vec<f64> {
    let mut dist = vec![f64::INFINITY; graph.len()];
    let mut heap = BinaryHeap::new();
    dist[source] = 0.0;
    heap.push(Reverse(Entry(0.0, source)));
    while let Some(Reverse(Entry(d, u))) = heap.pop() {
        if d > dist[u] {
            continue;
        }
        for &(v, w) in &graph[u] {
            let candidate = d + w;
            if candidate < dist[v] {
                dist[v] = candidate;
                heap.push(Reverse(Entry(candidate, v)));
            }
        }
    }
    dist
}

/// A heap entry: a distance and a vertex, ordered by distance.
#[derive(PartialEq)]
struct Entry(f64, usize);

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}
