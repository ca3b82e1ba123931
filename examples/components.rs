//! Connected components of an undirected graph by label propagation: every vertex starts with its
//! own number as label and takes the smallest label among itself and its neighbours, until no
//! label changes; each component then carries its smallest vertex. One step is a min-plus SpMV
//! over an adjacency matrix whose stored values are all 0, so `+` passes a neighbour's label
//! through and `min` keeps the smallest (Shiloach and Vishkin's hooking, without the shortcuts).
//! Checked against a union-find written by hand; timed against it and against the same label
//! propagation written as plain loops.
//!
//! ```sh
//! cargo run --release --example components                 # a generated graph, 200000 vertices
//! cargo run --release --example components -- 5000         # vertices
//! cargo run --release --example components -- graph.mtx    # a real graph
//! cargo run --release --example components -- data/lund_a.mtx
//! ```
//!
//! A Matrix Market file's entry (i, j) is an edge between i and j in either direction, whatever
//! its value. The number of steps is at most the largest diameter of a component plus one.

mod common;

use std::error::Error;
use std::time::Instant;

use common::{Adjacency, graph_from_args, graph_from_file, ms, power_law_graph};
use sparse::prelude::*;

tensor_kernel! {
    /// One step: next(i) = min_j A(i,j) + l(j), with A(i,i) = 0 so a vertex keeps its own label
    /// when no neighbour has a smaller one. Rows split across rayon's threads.
    pub fn propagate;
    next(i) = A(i,j) + l(j);
    formats< A: csr >;
    fills< A: inf, l: inf, next: inf >;
    reduce< j: min >;
    schedule< split(i, i0, i1, Down, 256).parallelize(i0, CpuThread, NoRaces) >;
}

tensor_kernel! {
    /// How many labels a step changed: s = Σ_i (a(i) != b(i)).
    pub fn changed;
    s = (a(i) != b(i)) as f64;
    fills< a: inf, b: inf >;
}

fn main() -> Result<(), Box<dyn Error>> {
    let (graph, what) = graph_from_args(
        200_000,
        |path| graph_from_file(path, |j, _| j),
        |n| power_law_graph(n, 4, 5),
    )?;
    let n = graph.len();
    let edges: usize = graph.iter().map(Vec::len).sum();
    println!("graph: {what}: {n} vertices, {edges} edges");

    let start = Instant::now();
    let a = adjacency(&graph)?;
    let built = start.elapsed();
    let start = Instant::now();
    let (labels, steps) = label_propagation(&a)?;
    let ours = start.elapsed();
    let start = Instant::now();
    let expected = union_find(&graph);
    let hand = start.elapsed();
    let neighbours = undirected(&graph);
    let start = Instant::now();
    let (by_hand, steps_by_hand) = propagation_by_hand(&neighbours);
    let loops = start.elapsed();

    let components = (0..n).filter(|&v| expected[v] == v).count();
    let largest = largest_component(&expected);
    println!("A (CSR, {} stored) built in {:.2} ms", a.nnz(), ms(built));
    println!(
        "ours (min-plus SpMV): {steps} steps, {:.2} ms ({:.3} ms each, {} threads)",
        ms(ours),
        ms(ours) / steps as f64,
        rayon::current_num_threads()
    );
    println!(
        "hand-written label propagation: {steps_by_hand} steps, {:.2} ms (1 thread)",
        ms(loops)
    );
    println!("hand-written union-find: {:.3} ms (1 thread)", ms(hand));
    println!("components: {components}, the largest with {largest} vertices");
    let wrong = (0..n).find(|&v| labels[v] != expected[v] as f64 || by_hand[v] != expected[v]);
    if let Some(v) = wrong {
        let message = format!(
            "vertex {v}: the kernels give label {}, the plain loops {}, union-find {}",
            labels[v], by_hand[v], expected[v]
        );
        return Err(message.into());
    }
    println!("every label agrees with union-find's smallest vertex of the component");
    Ok(())
}

/// `A(i,j) = 0` for each edge between i and j, in both directions, and on the diagonal; `+inf`
/// (the fill) elsewhere.
fn adjacency(graph: &Adjacency<usize>) -> Result<Tensor<f64, Csr>, FormatError> {
    let n = graph.len();
    let edges = graph.iter().enumerate().flat_map(|(u, out)| {
        out.iter()
            .flat_map(move |&v| [([u, v], 0.0), ([v, u], 0.0)])
    });
    let diagonal = (0..n).map(|i| ([i, i], 0.0));
    // Duplicates (an edge listed both ways, or twice) sum to 0 again.
    Tensor::from_entries_with_fill([n, n], edges.chain(diagonal), f64::INFINITY)
}

/// Steps from `l(i) = i` until no label changes; returns the labels and the number of steps.
fn label_propagation(a: &Tensor<f64, Csr>) -> Result<(Vec<f64>, usize), Box<dyn Error>> {
    let n = a.shape()[0];
    let own: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let mut l = Tensor::from_dense([n], &own)?.with_fill(f64::INFINITY);
    let mut next = Tensor::filled([n], f64::INFINITY);
    let mut count = Tensor::<f64, Dense<0>>::zeros([]);
    for step in 1..=n.max(1) {
        propagate(&mut next, a, &l)?;
        changed(&mut count, &next, &l)?;
        std::mem::swap(&mut l, &mut next);
        if count.values()[0] == 0.0 {
            return Ok((l.to_dense(), step));
        }
    }
    Err("a label still changed after as many steps as vertices".into())
}

/// Each vertex's neighbours, both directions, itself excluded.
fn undirected(graph: &Adjacency<usize>) -> Adjacency<usize> {
    let mut neighbours = vec![Vec::new(); graph.len()];
    for (u, out) in graph.iter().enumerate() {
        for &v in out.iter().filter(|&&v| v != u) {
            neighbours[u].push(v);
            neighbours[v].push(u);
        }
    }
    neighbours
}

/// The same steps as [`label_propagation`], as loops over neighbour lists.
fn propagation_by_hand(neighbours: &Adjacency<usize>) -> (Vec<usize>, usize) {
    let mut l: Vec<usize> = (0..neighbours.len()).collect();
    let mut step = 0;
    loop {
        step += 1;
        let next: Vec<usize> = neighbours
            .iter()
            .enumerate()
            .map(|(v, out)| out.iter().fold(l[v], |m, &u| m.min(l[u])))
            .collect();
        if next == l {
            return (l, step);
        }
        l = next;
    }
}

/// Each vertex's component, named by its smallest vertex: union by smaller root, with path
/// halving.
fn union_find(graph: &Adjacency<usize>) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..graph.len()).collect();
    fn root(parent: &mut [usize], mut v: usize) -> usize {
        while parent[v] != v {
            parent[v] = parent[parent[v]];
            v = parent[v];
        }
        v
    }
    for (u, out) in graph.iter().enumerate() {
        for &v in out {
            let (ru, rv) = (root(&mut parent, u), root(&mut parent, v));
            parent[ru.max(rv)] = ru.min(rv);
        }
    }
    (0..graph.len()).map(|v| root(&mut parent, v)).collect()
}

/// The number of vertices of the largest component.
fn largest_component(component: &[usize]) -> usize {
    let mut size = vec![0usize; component.len()];
    for &c in component {
        size[c] += 1;
    }
    size.into_iter().max().unwrap_or(0)
}
