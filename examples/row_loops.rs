//! The serial row loops on small, cache-resident matrices: the default CSR SpMV and one masked or-and
//! BFS step, each against the same loop written by hand over the CSR arrays, called many times in
//! a row so that what a call costs besides its rows (checks, set-up) and what a row costs besides
//! its nonzeros both show.
//!
//! ```sh
//! RUSTFLAGS="-C target-cpu=native" cargo run --release --example row_loops -- a.mtx b.mtx
//! RUSTFLAGS="-C target-cpu=native" cargo run --release --example row_loops   # generated only
//! ```
//!
//! Each file named is read as a matrix; a generated one of 2,000,000 rows with 8 uniform random
//! columns a row (larger than the caches) always comes last. Each of 15 rounds times a batch of
//! calls of ours, then of the hand-written loop (about 2 ms each), so that the load of a shared
//! machine falls on both alike; the table gives the ratio ours / hand of the fastest and of the
//! median round, and the fastest time a call. Every result is checked against the hand-written
//! loop.
//!
//! Loops this short run up to 40% faster or slower depending on where they land relative to 32-
//! and 64-byte boundaries, on either side; adding `-C llvm-args=-align-loops=64` to `RUSTFLAGS`
//! takes that out of a comparison (BENCHMARKS.md).

mod common;

use std::error::Error;
use std::hint::black_box;
use std::time::Instant;

use common::Rng;
use sparse::io::load_matrix_market;
use sparse::prelude::*;
use sparse::{Idx, Level};

tensor_kernel! {
    /// SpMV, default schedule.
    fn spmv; y(i) = A(i,j) * x(j); formats< A: csr >;
}

tensor_kernel! {
    /// One masked BFS step, default schedule.
    fn bfs_step;
    nx(i) = ((A(i,j) as bool) && (f(j) as bool) && !(v(i) as bool)) as f64;
    formats< A: csr >;
    reduce< j: || >;
}

/// Rows of the generated matrix: its arrays (about 200 MB) are far larger than the caches.
const LARGE_ROWS: usize = 2_000_000;

type Vector = Tensor<f64, DenseVec>;
type Matrix = Tensor<f64, Csr>;

/// The rows of `a` as ranges of positions in its coordinates and values.
fn rows(a: &Matrix) -> impl Iterator<Item = (usize, usize)> + '_ {
    a.level(1)
        .pos()
        .windows(2)
        .map(|w| (w[0] as usize, w[1] as usize))
}

/// `y = A x` as one would write it over the CSR arrays.
fn spmv_hand(a: &Matrix, x: &[f64], y: &mut [f64]) {
    let (crd, vals) = (a.level(1).crd(), a.values());
    for (yi, (s, e)) in y.iter_mut().zip(rows(a)) {
        *yi = crd[s..e]
            .iter()
            .zip(&vals[s..e])
            .map(|(&j, &v)| v * x[j as usize])
            .sum();
    }
}

/// The BFS step over the CSR arrays: a visited row is 0, otherwise 1 where some stored nonzero's
/// column is in the frontier (the scan stops there).
fn bfs_hand(a: &Matrix, f: &[f64], v: &[f64], nx: &mut [f64]) {
    let (crd, vals) = (a.level(1).crd(), a.values());
    for ((out, (s, e)), &vi) in nx.iter_mut().zip(rows(a)).zip(v) {
        *out = if vi != 0.0 {
            0.0
        } else {
            let hit = crd[s..e]
                .iter()
                .zip(&vals[s..e])
                .any(|(&j, &a)| a != 0.0 && f[j as usize] != 0.0);
            f64::from(u8::from(hit))
        };
    }
}

/// A CSR matrix of `n` rows, `per_row` distinct uniform random columns each.
fn uniform(n: usize, per_row: usize, rng: &mut Rng) -> Result<Matrix, Box<dyn Error>> {
    let mut pos: Vec<Idx> = vec![0];
    let mut crd: Vec<Idx> = Vec::with_capacity(n * per_row);
    for _ in 0..n {
        let mut row: Vec<Idx> = (0..per_row).map(|_| rng.below(n) as Idx).collect();
        row.sort_unstable();
        row.dedup();
        crd.extend(row);
        pos.push(crd.len() as Idx);
    }
    let vals = (0..crd.len()).map(|_| rng.unit() - 0.5).collect();
    let levels = vec![Level::Dense { size: n }, Level::Compressed { pos, crd }];
    Ok(Tensor::from_parts(vec![n, n], levels, vals)?)
}

/// The same pattern with every stored value 1, as a graph's adjacency matrix.
fn pattern(a: &Matrix) -> Result<Matrix, Box<dyn Error>> {
    let levels = vec![
        Level::Dense { size: a.shape()[0] },
        Level::Compressed {
            pos: a.level(1).pos().to_vec(),
            crd: a.level(1).crd().to_vec(),
        },
    ];
    let ones = vec![1.0; a.values().len()];
    Ok(Tensor::from_parts(a.shape().to_vec(), levels, ones)?)
}

/// A 0/1 vector with about `percent` in 100 entries set.
fn bits(n: usize, percent: usize, rng: &mut Rng) -> Vec<f64> {
    (0..n)
        .map(|_| f64::from(u8::from(rng.below(100) < percent)))
        .collect()
}

/// Fastest and median ratio ours / hand over the rounds, and the fastest call of each in µs.
struct Timing {
    ratio_min: f64,
    ratio_median: f64,
    ours_us: f64,
    hand_us: f64,
}

/// Times `ours` and `hand` alternately, `rounds` batches each.
fn race(rounds: usize, mut ours: impl FnMut(), mut hand: impl FnMut()) -> Timing {
    let start = Instant::now();
    ours();
    hand();
    let once = start.elapsed().as_secs_f64() / 2.0;
    let batch = ((2e-3 / once.max(1e-9)).ceil() as usize).clamp(1, 1_000_000);
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        for _ in 0..batch {
            f();
        }
        start.elapsed().as_secs_f64() / batch as f64
    };
    let (mut o, mut h) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        o.push(time(&mut ours));
        h.push(time(&mut hand));
    }
    let mut ratios: Vec<f64> = o.iter().zip(&h).map(|(a, b)| a / b).collect();
    ratios.sort_by(f64::total_cmp);
    let fastest = |t: &[f64]| t.iter().copied().fold(f64::INFINITY, f64::min) * 1e6;
    Timing {
        ratio_min: fastest(&o) / fastest(&h),
        ratio_median: ratios[ratios.len() / 2],
        ours_us: fastest(&o),
        hand_us: fastest(&h),
    }
}

fn report(kernel: &str, name: &str, t: &Timing) {
    println!(
        "{kernel:4} {name:24} {:7.3} {:7.3} {:11.2} {:11.2}",
        t.ratio_min, t.ratio_median, t.ours_us, t.hand_us
    );
}

fn run(name: &str, a: &Matrix, rounds: usize, rng: &mut Rng) -> Result<(), Box<dyn Error>> {
    let (m, n) = (a.shape()[0], a.shape()[1]);
    let x = Vector::from_vec([n], (0..n).map(|_| rng.unit()).collect())?;
    let mut y = Vector::zeros([m]);
    let mut expected = vec![0.0; m];
    spmv_hand(a, x.values(), &mut expected);
    spmv(&mut y, a, &x)?;
    if y.values() != expected.as_slice() {
        return Err(format!("spmv on {name}: ours differs from the hand-written loop").into());
    }
    // Both sides read and write the same arrays, so that where they lie in memory (4 KiB aliasing
    // between a load and an earlier store) favours neither.
    let y = std::cell::RefCell::new(y);
    let t = race(
        rounds,
        || spmv(black_box(&mut y.borrow_mut()), black_box(a), black_box(&x)).expect("shapes match"),
        || {
            spmv_hand(
                black_box(a),
                black_box(x.values()),
                black_box(y.borrow_mut().values_mut()),
            )
        },
    );
    report("spmv", name, &t);

    let p = pattern(a)?;
    let f = Vector::from_vec([n], bits(n, 5, rng))?;
    let v = Vector::from_vec([m], bits(m, 29, rng))?;
    let mut nx = Vector::zeros([m]);
    bfs_hand(&p, f.values(), v.values(), &mut expected);
    bfs_step(&mut nx, &p, &f, &v)?;
    if nx.values() != expected.as_slice() {
        return Err(format!("bfs on {name}: ours differs from the hand-written loop").into());
    }
    let nx = std::cell::RefCell::new(nx);
    let t = race(
        rounds,
        || {
            bfs_step(
                black_box(&mut nx.borrow_mut()),
                black_box(&p),
                black_box(&f),
                black_box(&v),
            )
            .expect("ok")
        },
        || {
            bfs_hand(
                black_box(&p),
                black_box(f.values()),
                black_box(v.values()),
                black_box(nx.borrow_mut().values_mut()),
            )
        },
    );
    report("bfs", name, &t);
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let rounds = 15;
    let mut rng = Rng::new(11);
    println!("ours / hand (fastest round, median round); fastest call in µs");
    println!("kern matrix                     fastest  median        ours        hand");
    for path in std::env::args().skip(1) {
        let a: Matrix = load_matrix_market(&path)?;
        let name = std::path::Path::new(&path)
            .file_stem()
            .map_or(path.clone(), |s| s.to_string_lossy().into_owned());
        run(&name, &a, rounds, &mut rng)?;
    }
    let a = uniform(LARGE_ROWS, 8, &mut rng)?;
    run("uniform 2M x 8", &a, rounds, &mut rng)?;
    Ok(())
}
