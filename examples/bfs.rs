//! Breadth-first search levels by masked or-and steps (the boolean semiring: `&&` follows an edge
//! from the frontier, `||` combines the edges into a vertex): each step finds the vertices with an
//! edge from the frontier that are not visited yet. Checked against a queue-based BFS written by
//! hand, and both timed.
//!
//! ```sh
//! cargo run --release --example bfs                     # a generated graph, 200000 vertices
//! cargo run --release --example bfs -- 5000             # vertices
//! cargo run --release --example bfs -- graph.mtx [SOURCE]
//! ```
//!
//! `A(i,j)` is 1 for each edge j -> i (a Matrix Market file's entry (i, j) is the edge i -> j), so
//! a step pulls: `next(i) = OR_j (A(i,j) && frontier(j)) && !visited(i)`. The kernel reads the mask
//! `visited(i)` once per row and skips the rows it rules out, and stops a row at its first edge
//! from the frontier.

mod common;

use std::collections::VecDeque;
use std::error::Error;
use std::time::Instant;

use common::{graph_and_source, graph_from_file, ms, power_law_graph};
use sparse::prelude::*;

tensor_kernel! {
    /// One masked BFS step, blocks of rows across rayon's threads.
    pub fn step;
    next(i) = ((A(i,j) as bool) && (frontier(j) as bool) && !(visited(i) as bool)) as f64;
    formats< A: csr >;
    reduce< j: || >;
    schedule< split(i, i0, i1, Down, 256).parallelize(i0, CpuThread, NoRaces) >;
}

tensor_kernel! {
    /// The vertices visited after a step.
    pub fn visit;
    after(i) = ((visited(i) as bool) || (next(i) as bool)) as f64;
}

tensor_kernel! {
    /// Whether the frontier holds a vertex: s = OR_i frontier(i).
    pub fn any;
    s = frontier(i);
    reduce< i: || >;
}

fn main() -> Result<(), Box<dyn Error>> {
    let (graph, source) = graph_and_source(
        200_000,
        |path| graph_from_file(path, |j, _| j),
        |n| power_law_graph(n, 8, 3),
    )?;

    let start = Instant::now();
    let a = adjacency(&graph)?;
    let built = start.elapsed();
    let start = Instant::now();
    let (levels, steps) = bfs(&a, source)?;
    let ours = start.elapsed();
    let start = Instant::now();
    let expected = bfs_by_hand(&graph, source);
    let hand = start.elapsed();

    let reached = expected.iter().filter(|l| l.is_some()).count();
    let depth = expected.iter().flatten().max().copied().unwrap_or(0);
    println!("A (CSR, {} stored) built in {:.2} ms", a.nnz(), ms(built));
    println!(
        "ours (masked or-and steps): {steps} steps, {:.2} ms ({:.3} ms each, {} threads)",
        ms(ours),
        ms(ours) / steps as f64,
        rayon::current_num_threads()
    );
    println!("hand-written queue BFS: {:.2} ms (1 thread)", ms(hand));
    println!("{reached} vertices reached, {depth} levels deep");
    if let Some(v) = (0..graph.len()).find(|&v| levels[v] != expected[v]) {
        let message = format!(
            "vertex {v}: the kernels give level {:?}, the queue BFS {:?}",
            levels[v], expected[v]
        );
        return Err(message.into());
    }
    println!("every level agrees with the queue BFS");
    Ok(())
}

/// `A(i,j)` = 1 for each edge j -> i.
fn adjacency(graph: &[Vec<usize>]) -> Result<Tensor<f64, Csr>, FormatError> {
    let n = graph.len();
    let mut entries: Vec<([usize; 2], f64)> = (graph.iter().enumerate())
        .flat_map(|(source, out)| out.iter().map(move |&target| ([target, source], 1.0)))
        .collect();
    entries.sort_unstable_by_key(|e| e.0);
    entries.dedup_by_key(|e| e.0);
    Tensor::from_entries([n, n], entries)
}

/// Each vertex's level (`None` where the search does not reach it).
type Levels = Vec<Option<usize>>;

/// Masked steps from `frontier = {source}` until the frontier is empty: each vertex's level is
/// the step that first reaches it. Returns the levels and the number of steps.
fn bfs(a: &Tensor<f64, Csr>, source: usize) -> Result<(Levels, usize), Box<dyn Error>> {
    let n = a.shape()[0];
    let mut levels = vec![None; n];
    levels[source] = Some(0);
    let mut frontier = Tensor::from_entries([n], [([source], 1.0)])?;
    let mut visited = frontier.clone();
    let mut next = Tensor::zeros([n]);
    let mut after = Tensor::zeros([n]);
    let mut nonempty = Tensor::<f64, Dense<0>>::zeros([]);
    for level in 1..=n {
        step(&mut next, a, &frontier, &visited)?;
        any(&mut nonempty, &next)?;
        if nonempty.values()[0] == 0.0 {
            return Ok((levels, level));
        }
        for (v, &x) in next.values().iter().enumerate() {
            if x != 0.0 {
                levels[v] = Some(level);
            }
        }
        visit(&mut after, &visited, &next)?;
        std::mem::swap(&mut visited, &mut after);
        std::mem::swap(&mut frontier, &mut next);
    }
    Ok((levels, n + 1))
}

/// A queue-based BFS over the successor lists.
fn bfs_by_hand(graph: &[Vec<usize>], source: usize) -> Levels {
    let mut levels = vec![None; graph.len()];
    levels[source] = Some(0);
    let mut queue = VecDeque::from([source]);
    while let Some(u) = queue.pop_front() {
        let next = levels[u].map(|l| l + 1);
        for &v in &graph[u] {
            if levels[v].is_none() {
                levels[v] = next;
                queue.push_back(v);
            }
        }
    }
    levels
}
