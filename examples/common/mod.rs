//! What the examples share: a seeded random number generator, a generated power-law graph, a
//! graph read from a Matrix Market file, a timer and command-line sizes. Nothing here runs a
//! kernel of `sparse` (only its file reader), so the examples' references are independent of the
//! kernels they check.

#![allow(dead_code)] // each example uses its own part of this module

use std::error::Error;
use std::time::{Duration, Instant};

use sparse::io::load_matrix_market;
use sparse::{Coo, Tensor};

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators"): small,
/// seeded, and the same on every machine, so an example's output is reproducible.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [0, n); `n` must be positive.
    pub fn below(&mut self, n: usize) -> usize {
        (self.unit() * n as f64) as usize % n
    }
}

/// A directed graph on `n` vertices with about `n * mean_degree` edges whose in-degrees follow a
/// power law: edge targets are drawn as `n * u^3` for uniform `u`, so low-numbered vertices are
/// hubs, as in web and social graphs. Out-degrees vary around the mean, some vertices have none.
/// Returns each vertex's sorted, duplicate-free successor list.
pub fn power_law_graph(n: usize, mean_degree: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let degree = rng.below(2 * mean_degree + 1);
            let mut targets: Vec<usize> = (0..degree)
                .map(|_| ((n as f64) * rng.unit().powi(3)) as usize % n)
                .collect();
            targets.sort_unstable();
            targets.dedup();
            targets
        })
        .collect()
}

/// The fastest of `runs` calls of `f`, with the result of the last call.
pub fn best_of<R>(runs: usize, mut f: impl FnMut() -> R) -> (Duration, R) {
    let mut best = Duration::MAX;
    let mut result = None;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let r = f();
        best = best.min(start.elapsed());
        result = Some(r);
    }
    (best, result.expect("at least one run"))
}

/// The `k`-th command-line argument as a number, or `default` where it is absent.
pub fn arg(k: usize, default: usize) -> Result<usize, String> {
    match std::env::args().nth(k) {
        None => Ok(default),
        Some(s) => s
            .parse()
            .map_err(|_| format!("argument {k} must be a whole number, not `{s}`")),
    }
}

/// Milliseconds, for the examples' tables.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The largest difference between two slices, relative to the largest magnitude in `expected`.
pub fn relative_error(got: &[f64], expected: &[f64]) -> f64 {
    assert_eq!(got.len(), expected.len(), "results of different lengths");
    let scale = expected.iter().fold(1e-300f64, |m, v| m.max(v.abs()));
    got.iter()
        .zip(expected)
        .fold(0.0f64, |m, (g, e)| m.max((g - e).abs()))
        / scale
}

/// A graph as each vertex's outgoing edges.
pub type Adjacency<E> = Vec<Vec<E>>;

/// The edges of a square Matrix Market matrix: entry (i, j) with value v is the edge
/// `edge(j, v)` out of vertex i.
pub fn graph_from_file<E>(
    path: &str,
    edge: impl Fn(usize, f64) -> E,
) -> Result<Adjacency<E>, Box<dyn Error>> {
    let a: Tensor<f64, Coo<2>> = load_matrix_market(path)?;
    let (rows, cols) = (a.shape()[0], a.shape()[1]);
    if rows != cols {
        return Err(format!("{path}: a graph needs a square matrix, not {rows} x {cols}").into());
    }
    let mut graph: Adjacency<E> = (0..rows).map(|_| Vec::new()).collect();
    a.for_each_entry(|c, v| graph[c[0]].push(edge(c[1], v)));
    Ok(graph)
}

/// The graph a graph example runs on: the first argument names a Matrix Market file, which `load`
/// reads, or is the vertex count of the graph `generate` makes (`default_n` without one). Returns
/// the graph and what it is, for the example's first line.
pub fn graph_from_args<E>(
    default_n: usize,
    load: impl FnOnce(&str) -> Result<Adjacency<E>, Box<dyn Error>>,
    generate: impl FnOnce(usize) -> Adjacency<E>,
) -> Result<(Adjacency<E>, String), Box<dyn Error>> {
    match std::env::args().nth(1) {
        Some(path) if path.parse::<usize>().is_err() => Ok((load(&path)?, path)),
        _ => {
            let n = arg(1, default_n)?;
            Ok((generate(n), format!("generated, {n} vertices")))
        }
    }
}

/// The graph a graph example runs on ([`graph_from_args`]), and its source vertex: the second
/// argument, 0 by default, which must be a vertex. Prints the graph's size.
pub fn graph_and_source<E>(
    default_n: usize,
    load: impl FnOnce(&str) -> Result<Adjacency<E>, Box<dyn Error>>,
    generate: impl FnOnce(usize) -> Adjacency<E>,
) -> Result<(Adjacency<E>, usize), Box<dyn Error>> {
    let (graph, what) = graph_from_args(default_n, load, generate)?;
    let n = graph.len();
    let source = arg(2, 0)?;
    if source >= n {
        return Err(format!("source vertex {source} is not below the vertex count {n}").into());
    }
    let edges: usize = graph.iter().map(Vec::len).sum();
    println!("graph: {what}: {n} vertices, {edges} edges, source {source}");
    Ok((graph, source))
}
