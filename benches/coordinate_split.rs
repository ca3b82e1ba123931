//! Coordinate splits of loops over sparse levels: each tile of coordinates finds its first
//! position in every sparse operand by a binary search, so its tiles can run on threads.
//!
//! - `mttkrp`: `A(i,j) = B(i,k,l) * C(k,j) * D(l,j)` with `B` in CSF, unscheduled against
//!   `split(i, i0, i1, Down, 64).parallelize(i0, CpuThread, NoRaces)`, a task per stored row
//!   (`parallelize(i, CpuThread, NoRaces)`) and `schedule<auto>` (64 `Up` tiles on threads, the
//!   rank loop in lanes).
//! - `vadd`: `a(i) = b(i) + c(i)` over sparse vectors into a dense vector (a union), unscheduled
//!   against the same split serially (the searches alone), on threads, and `schedule<auto>`, at a
//!   density of 10% and of 0.01% (where most tiles are empty and the searches are all the work).
//!
//! - a small sparse vector sum, below the work threshold under which thread regions run on the
//!   calling thread: what the searches cost where threads cannot pay.
//!
//! The machine is shared, so the kernels of one comparison run alternately: each round times every
//! kernel (the median of a few calls), and the report gives the range over the rounds. Every
//! result is checked against the unscheduled kernel's first. Under `cargo test --benches` (no
//! `--bench` argument) the inputs are tiny and there is one round: a smoke test.

use std::hint::black_box;
use std::time::Instant;

use sparse::prelude::*;

// `unit` serves the other benchmarks.
#[allow(dead_code)]
#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

tensor_kernel! {
    fn mttkrp_serial; A(i,j) = B(i,k,l) * C(k,j) * D(l,j); formats<B: csf>;
}
tensor_kernel! {
    fn mttkrp_tiles; A(i,j) = B(i,k,l) * C(k,j) * D(l,j); formats<B: csf>;
    schedule<split(i, i0, i1, Down, 64).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn mttkrp_rows; A(i,j) = B(i,k,l) * C(k,j) * D(l,j); formats<B: csf>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn mttkrp_auto; A(i,j) = B(i,k,l) * C(k,j) * D(l,j); formats<B: csf>;
    schedule<auto>;
}
tensor_kernel! { fn vadd_serial; a(i) = b(i) + c(i); formats<b: sparse, c: sparse>; }
tensor_kernel! {
    fn vadd_tiles_serial; a(i) = b(i) + c(i); formats<b: sparse, c: sparse>;
    schedule<split(i, i0, i1, Down, 64)>;
}
tensor_kernel! {
    fn vadd_tiles; a(i) = b(i) + c(i); formats<b: sparse, c: sparse>;
    schedule<split(i, i0, i1, Down, 64).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn vadd_auto; a(i) = b(i) + c(i); formats<b: sparse, c: sparse>;
    schedule<auto>;
}

/// A kernel to time, by name, running into an output of type `O`.
type Named<'k, O> = (&'k str, &'k dyn Fn(&mut O));

/// Times each of `kernels` `calls` times per round, alternating, for `rounds` rounds; prints the
/// range of the per-round medians in milliseconds, and the range over the rounds of the first
/// kernel's median divided by each kernel's in the same round (a speedup measured under the same
/// load).
fn compare<O>(title: &str, (rounds, calls): (usize, usize), out: &mut O, kernels: &[Named<'_, O>]) {
    let mut medians = vec![Vec::new(); kernels.len()];
    for _ in 0..rounds {
        for (k, (_, run)) in kernels.iter().enumerate() {
            let mut times: Vec<f64> = (0..calls)
                .map(|_| {
                    let start = Instant::now();
                    run(black_box(&mut *out));
                    start.elapsed().as_secs_f64() * 1e3
                })
                .collect();
            times.sort_by(f64::total_cmp);
            medians[k].push(times[calls / 2]);
        }
    }
    println!("{title}");
    let range = |m: &[f64]| {
        let lo = m.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = m.iter().copied().fold(0.0, f64::max);
        (lo, hi)
    };
    for ((name, _), m) in kernels.iter().zip(&medians) {
        let (lo, hi) = range(m);
        let ratios: Vec<f64> = medians[0].iter().zip(m).map(|(b, t)| b / t).collect();
        let (r_lo, r_hi) = range(&ratios);
        println!("  {name:<32} {lo:>9.3} - {hi:>9.3} ms   speedup {r_lo:.2}x - {r_hi:.2}x");
    }
}

fn dense(rows: usize, cols: usize, rng: &mut Rng) -> Tensor<f64, Dense<2>> {
    let values: Vec<f64> = (0..rows * cols).map(|_| rng.value()).collect();
    Tensor::from_dense([rows, cols], &values).expect("valid shape")
}

fn bench_mttkrp(measure: bool) {
    let (p, q, r, nnz, rank) = if measure {
        (4096, 1024, 1024, 8_000_000, 16)
    } else {
        (40, 10, 10, 200, 4)
    };
    let mut rng = Rng(17);
    let entries = (0..nnz).map(|_| {
        let i = rng.below(p);
        // One slice in eight is empty, a few are ten times as full: uneven work per tile.
        let i = if i % 8 == 3 { (i + 1) % p } else { i };
        ([i, rng.below(q), rng.below(r)], rng.value())
    });
    let b = Tensor::<f64, Csf<3>>::from_entries([p, q, r], entries).expect("valid entries");
    let (c, d) = (dense(q, rank, &mut rng), dense(r, rank, &mut rng));
    let mut want = Tensor::zeros([p, rank]);
    mttkrp_serial(&mut want, &b, &c, &d).expect("shapes agree");
    let mut out = Tensor::zeros([p, rank]);
    for kernel in [mttkrp_tiles, mttkrp_rows, mttkrp_auto] {
        kernel(&mut out, &b, &c, &d).expect("shapes agree");
        let close = (out.values().iter().zip(want.values()))
            .all(|(x, y)| (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0));
        assert!(close, "a tiled MTTKRP differs");
    }
    let title = format!(
        "mttkrp: B {p} x {q} x {r} CSF, {} nonzeros, rank {rank}",
        b.nnz()
    );
    let rounds = if measure { (10, 3) } else { (1, 1) };
    compare(
        &title,
        rounds,
        &mut out,
        &[
            ("unscheduled", &|o| {
                mttkrp_serial(o, &b, &c, &d).expect("shapes agree")
            }),
            ("split Down 64, threads", &|o| {
                mttkrp_tiles(o, &b, &c, &d).expect("shapes agree")
            }),
            ("parallelize(i): a task per row", &|o| {
                mttkrp_rows(o, &b, &c, &d).expect("shapes agree")
            }),
            ("auto (64 Up tiles, threads)", &|o| {
                mttkrp_auto(o, &b, &c, &d).expect("shapes agree")
            }),
        ],
    );
}

fn sparse_vector(n: usize, nnz: usize, rng: &mut Rng) -> Tensor<f64, SparseVec> {
    let entries: Vec<([usize; 1], f64)> = (0..nnz).map(|_| ([rng.below(n)], rng.value())).collect();
    Tensor::from_entries([n], entries).expect("valid entries")
}

fn bench_vadd(measure: bool, density: f64) {
    let n = if measure { 20_000_000 } else { 1000 };
    let nnz = ((n as f64) * density).ceil() as usize;
    let mut rng = Rng(23);
    let (b, c) = (
        sparse_vector(n, nnz, &mut rng),
        sparse_vector(n, nnz, &mut rng),
    );
    let mut want = Tensor::zeros([n]);
    vadd_serial(&mut want, &b, &c).expect("shapes agree");
    let mut out = Tensor::zeros([n]);
    for kernel in [vadd_tiles_serial, vadd_tiles, vadd_auto] {
        kernel(&mut out, &b, &c).expect("shapes agree");
        assert_eq!(out.values(), want.values(), "a tiled vector sum differs");
    }
    let title = format!(
        "vadd: n = {n}, {} + {} nonzeros (density {density})",
        b.nnz(),
        c.nnz()
    );
    let rounds = if measure { (10, 5) } else { (1, 1) };
    compare(
        &title,
        rounds,
        &mut out,
        &[
            ("unscheduled", &|o| {
                vadd_serial(o, &b, &c).expect("shapes agree")
            }),
            ("split Down 64, serial", &|o| {
                vadd_tiles_serial(o, &b, &c).expect("shapes agree")
            }),
            ("split Down 64, threads", &|o| {
                vadd_tiles(o, &b, &c).expect("shapes agree")
            }),
            ("auto (64 Up tiles, threads)", &|o| {
                vadd_auto(o, &b, &c).expect("shapes agree")
            }),
        ],
    );
}

/// Small inputs, below the work threshold, where every thread region runs on the calling thread:
/// what the tiles' searches cost there. Each timed call runs the kernel 1,000 times.
fn bench_small(measure: bool) {
    let (n, nnz, repeat) = if measure {
        (4096, 400, 1000)
    } else {
        (64, 8, 1)
    };
    let mut rng = Rng(29);
    let (b, c) = (
        sparse_vector(n, nnz, &mut rng),
        sparse_vector(n, nnz, &mut rng),
    );
    let mut out = Tensor::zeros([n]);
    let title = format!(
        "vadd, small: n = {n}, {} + {} nonzeros, x{repeat}",
        b.nnz(),
        c.nnz()
    );
    let rounds = if measure { (10, 5) } else { (1, 1) };
    let (b, c) = (&b, &c);
    let times = |kernel: fn(&mut _, &_, &_) -> Result<(), KernelError>| {
        move |o: &mut Tensor<f64, Dense<1>>| {
            for _ in 0..repeat {
                kernel(black_box(&mut *o), b, c).expect("shapes agree");
            }
        }
    };
    let (serial, tiles, auto) = (times(vadd_serial), times(vadd_tiles), times(vadd_auto));
    compare(
        &title,
        rounds,
        &mut out,
        &[
            ("unscheduled", &serial),
            ("split Down 64, threads", &tiles),
            ("auto (64 Up tiles, threads)", &auto),
        ],
    );
}

fn main() {
    let measure = std::env::args().any(|a| a == "--bench");
    let threads = rayon::current_num_threads();
    println!("rayon threads: {threads}");
    bench_mttkrp(measure);
    bench_vadd(measure, 0.1);
    bench_vadd(measure, 0.0001);
    bench_small(measure);
}
