//! Kernel benchmarks: what the code `tensor_kernel!` generates costs, next to the alternatives a
//! user has, and what the macro itself costs at build time.
//!
//! - `stream_triad`: `a[i] = b[i] + s * c[i]` on one thread, the memory bandwidth every SpMV number
//!   is divided by (counted as 3 x 8 bytes per element, the STREAM convention).
//! - `spmv_csr`: `y = A x` on one thread, with the same matrix and output buffer for all four
//!   kernels: the macro's, the best safe hand-written loop, the same loop without bounds checks,
//!   and sprs. Three matrices: uniform random columns, power-law row lengths, and a band (the same
//!   streams as the uniform one with a cache-friendly gather from `x`). The throughput carries both
//!   the nonzeros and the bytes that must move, so that criterion's bytes per second divided by the
//!   triad's is the fraction of the bandwidth bound.
//! - `spgemm_csr`: `A = B C`, the macro's Gustavson kernel against sprs's.
//! - Before criterion starts, every `tensor_kernel!` invocation in `tests/kernels_*.rs` is run
//!   through `sparse_compiler::compile`, and the median and slowest times are printed.
//!
//! The SpMV matrices (about 20M nonzeros, 250 MB) and the triad arrays (1.5 GB) exceed the
//! last-level cache (32 MiB on the machine of BENCHMARKS.md), so the numbers are about memory
//! traffic. Under `cargo test --benches` criterion runs every benchmark once as a smoke test; there
//! the inputs are tiny so that CI stays fast. Inputs are seeded, so every run measures the same
//! matrices, and every kernel's result is checked against the others before it is timed.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput, measurement::WallTime,
};
use proc_macro2::{TokenStream, TokenTree};
use sparse::prelude::*;
use sparse::{Idx, Level};
use sprs::CsMatI;

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

tensor_kernel! {
    /// The SpMV under test, exactly as a user writes it.
    fn spmv_macro; y(i) = A(i,j) * x(j); formats<A: csr>;
}

tensor_kernel! {
    /// The SpGEMM under test: Gustavson's row-by-row product with a dense workspace.
    fn spgemm_macro; A(i,j) = B(i,k) * C(k,j); formats<A: csr, B: csr, C: csr>;
}

/// The input sizes of one run: larger than the cache when measuring, tiny when criterion only
/// checks that each benchmark runs.
#[derive(Clone, Copy)]
struct Sizes {
    /// Rows (and columns) of the SpMV matrices.
    spmv_rows: usize,
    /// Rows (and columns) of the SpGEMM operands.
    spgemm_rows: usize,
    /// Elements of each triad array.
    stream_len: usize,
    /// Timed compilations of each kernel for the expansion report.
    expansion_runs: usize,
    /// Rounds of the interleaved comparison that follows each criterion group.
    rounds: usize,
}

impl Sizes {
    /// Criterion passes `--bench` when it measures (`cargo bench`) and not when it only tests
    /// (`cargo test --benches`).
    fn from_args() -> Self {
        if std::env::args().any(|a| a == "--bench") {
            Sizes {
                spmv_rows: 2_000_000,
                spgemm_rows: 200_000,
                stream_len: 64 << 20,
                expansion_runs: 21,
                rounds: 11,
            }
        } else {
            Sizes {
                spmv_rows: 2_000,
                spgemm_rows: 1_000,
                stream_len: 4_096,
                expansion_runs: 5,
                rounds: 1,
            }
        }
    }
}

/// A square CSR matrix as plain arrays, built directly (sorted, duplicate-free rows) so that a 20M
/// nonzero input takes seconds, not minutes, to make; both libraries are built from these arrays.
struct CsrArrays {
    n: usize,
    pos: Vec<Idx>,
    crd: Vec<Idx>,
    vals: Vec<f64>,
}

impl CsrArrays {
    /// Rows of `row_len(rng)` columns drawn by `column(rng, row)` (fewer where a column is drawn
    /// twice).
    fn generate(
        n: usize,
        seed: u64,
        mut row_len: impl FnMut(&mut Rng) -> usize,
        mut column: impl FnMut(&mut Rng, usize) -> usize,
    ) -> Self {
        let mut rng = Rng(seed);
        let mut pos = Vec::with_capacity(n + 1);
        let mut crd = Vec::new();
        pos.push(0);
        for row in 0..n {
            let start = crd.len();
            let len = row_len(&mut rng).min(n);
            crd.extend((0..len).map(|_| idx(column(&mut rng, row))));
            crd[start..].sort_unstable();
            let kept = dedup_len(&mut crd[start..]);
            crd.truncate(start + kept);
            pos.push(idx(crd.len()));
        }
        let vals = (0..crd.len()).map(|_| rng.value()).collect();
        CsrArrays { n, pos, crd, vals }
    }

    fn nnz(&self) -> usize {
        self.crd.len()
    }

    fn to_tensor(&self) -> Tensor<f64, Csr> {
        let levels = vec![
            Level::Dense { size: self.n },
            Level::Compressed {
                pos: self.pos.clone(),
                crd: self.crd.clone(),
            },
        ];
        Tensor::from_parts(vec![self.n, self.n], levels, self.vals.clone())
            .expect("generated CSR arrays are valid")
    }

    /// sprs's CSR with `u32` row pointers and column indices, so it moves the same bytes as ours.
    fn to_sprs(&self) -> CsMatI<f64, u32, u32> {
        CsMatI::new(
            (self.n, self.n),
            self.pos.clone(),
            self.crd.clone(),
            self.vals.clone(),
        )
    }

    /// A one-line description: nonzeros, longest row, and the share of the longest 1% of rows.
    fn describe(&self, label: &str) -> String {
        let mut lens: Vec<usize> = self
            .pos
            .windows(2)
            .map(|w| (w[1] - w[0]) as usize)
            .collect();
        lens.sort_unstable_by(|a, b| b.cmp(a));
        let top: usize = lens.iter().take(self.n.div_ceil(100)).sum();
        format!(
            "{label}: {n} x {n}, {nnz} nonzeros ({per:.1} per row), longest row {max}, \
             longest 1% of rows hold {share:.0}% of the nonzeros",
            n = self.n,
            nnz = self.nnz(),
            per = self.nnz() as f64 / self.n.max(1) as f64,
            max = lens.first().copied().unwrap_or(0),
            share = 100.0 * top as f64 / self.nnz().max(1) as f64,
        )
    }
}

fn idx(x: usize) -> Idx {
    Idx::try_from(x).expect("generated sizes fit u32")
}

/// Moves the distinct values of a sorted slice to its front and returns how many there are.
fn dedup_len(sorted: &mut [Idx]) -> usize {
    let mut kept = 0;
    for k in 0..sorted.len() {
        if kept == 0 || sorted[k] != sorted[kept - 1] {
            sorted[kept] = sorted[k];
            kept += 1;
        }
    }
    kept
}

/// `mean / 2` to `mean * 3 / 2` nonzeros per row (`mean` on average) at uniform random columns.
fn uniform(n: usize, seed: u64, mean: usize) -> CsrArrays {
    CsrArrays::generate(
        n,
        seed,
        |rng| mean / 2 + rng.below(mean + 1),
        |rng, _| rng.below(n),
    )
}

/// Row lengths from a Pareto law with shape 1 (`P(len >= k) = 0.7 / k`, cut at `n`) at uniform
/// random columns: 30% of the rows are empty, and the longest 1% of rows hold most of the
/// nonzeros. About 10 per row at 2M rows.
fn power_law(n: usize, seed: u64) -> CsrArrays {
    CsrArrays::generate(
        n,
        seed,
        |rng| (0.7 / rng.unit()) as usize,
        |rng, _| rng.below(n),
    )
}

/// The row lengths of [`uniform`], with columns within 64 of the diagonal: the same arrays to
/// stream, but the gather from `x` hits the cache. Against [`uniform`] it separates what the
/// random gather costs from what the kernel costs.
fn banded(n: usize, seed: u64, mean: usize) -> CsrArrays {
    CsrArrays::generate(
        n,
        seed,
        |rng| mean / 2 + rng.below(mean + 1),
        |rng, row| (row + rng.below(129)).saturating_sub(64).min(n - 1),
    )
}

/// The bytes an SpMV must move at least: every value and column index once, the row pointers, `x`
/// once and `y` once (each `x` element is counted once although a gather may fetch it again).
fn spmv_bytes(a: &CsrArrays) -> u64 {
    let bytes = a.nnz() * (8 + 4) + (a.n + 1) * 4 + a.n * 8 + a.n * 8;
    bytes as u64
}

/// The best safe SpMV we can write over the same arrays: a row's column indices and values are
/// sliced once (one check per row), zipped, and summed in the order the macro sums them, so the only
/// check left per nonzero is the gather from `x`.
fn spmv_safe(y: &mut [f64], a: &Tensor<f64, Csr>, x: &[f64]) {
    let (pos, crd, vals) = (a.level(1).pos(), a.level(1).crd(), a.values());
    for (yi, row) in y.iter_mut().zip(pos.windows(2)) {
        let (lo, hi) = (row[0] as usize, row[1] as usize);
        let mut sum = 0.0;
        for (&j, &v) in crd[lo..hi].iter().zip(&vals[lo..hi]) {
            sum += v * x[j as usize];
        }
        *yi = sum;
    }
}

/// [`spmv_safe`] with every bounds check removed, to show what the checks cost.
///
/// The workspace denies `unsafe_code`; it is allowed here, in the benchmark only, because this
/// function exists to measure what the safe versions pay.
#[allow(unsafe_code)]
fn spmv_unchecked(y: &mut [f64], a: &Tensor<f64, Csr>, x: &[f64]) {
    let (pos, crd, vals) = (a.level(1).pos(), a.level(1).crd(), a.values());
    assert!(y.len() == a.shape()[0] && x.len() == a.shape()[1]);
    for (i, yi) in y.iter_mut().enumerate() {
        // SAFETY: a `Tensor<f64, Csr>` is validated when built: `pos` has `shape[0] + 1` (here
        // `y.len() + 1`) nondecreasing entries ending at `crd.len() == vals.len()`, and every
        // column in `crd` is below `shape[1]`, which the assert makes `x.len()`.
        unsafe {
            let (lo, hi) = (
                *pos.get_unchecked(i) as usize,
                *pos.get_unchecked(i + 1) as usize,
            );
            let mut sum = 0.0;
            for p in lo..hi {
                let j = *crd.get_unchecked(p) as usize;
                sum += *vals.get_unchecked(p) * *x.get_unchecked(j);
            }
            *yi = sum;
        }
    }
}

fn dense_vector(values: Vec<f64>) -> Tensor<f64, Dense<1>> {
    let n = values.len();
    Tensor::from_parts(vec![n], vec![Level::Dense { size: n }], values)
        .expect("a dense vector is valid")
}

/// Short groups: ten flat samples of loops that take tens of milliseconds (SpMV, the triad) up to
/// a second (SpGEMM), in `seconds` of measurement. Prints the load average first: the machine is
/// shared, and a group measured while something else ran is worth knowing about.
fn configure(group: &mut BenchmarkGroup<'_, WallTime>, throughput: Throughput, seconds: u64) {
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        println!("load average: {}", load.trim());
    }
    group
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(seconds))
        .throughput(throughput);
}

/// Runs `count` kernels, `run(k)` being kernel `k`, each once per round in turn for `rounds`
/// rounds, and returns each one's fastest and median run.
///
/// Criterion measures one kernel after another, so on a shared machine a build that starts halfway
/// through lands on some kernels and not others, and the ratio of two of its estimates carries
/// that. Interleaving spreads such disturbances over all kernels alike, and the fastest run is the
/// least disturbed: the ratios of fastest runs are the steadiest this machine allows.
fn interleaved(
    rounds: usize,
    count: usize,
    mut run: impl FnMut(usize),
) -> Vec<(Duration, Duration)> {
    let mut times = vec![Vec::with_capacity(rounds); count];
    for _ in 0..rounds {
        for (k, kernel_times) in times.iter_mut().enumerate() {
            let start = Instant::now();
            run(k);
            kernel_times.push(start.elapsed());
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort();
            (t[0], t[t.len() / 2])
        })
        .collect()
}

/// Prints the interleaved comparison of `names` on `label`: each kernel's fastest and median run,
/// the first kernel's time over each other's (below 1: the first is faster), and, given the bytes
/// that must move and the triad's bandwidth, each kernel's fraction of the bandwidth bound.
fn report_interleaved(
    label: &str,
    names: &[&str],
    times: &[(Duration, Duration)],
    bound: Option<(u64, f64)>,
) {
    println!("{label}, interleaved (fastest / median of each kernel's runs):");
    for (name, &(fastest, median)) in names.iter().zip(times) {
        let fraction = bound.map_or(String::new(), |(bytes, bandwidth)| {
            let achieved = bytes as f64 / fastest.as_secs_f64();
            format!(
                ", {:.1}% of the bandwidth bound",
                100.0 * achieved / bandwidth
            )
        });
        println!(
            "  {name:<20} {:>9.2} / {:>9.2} ms{fraction}",
            ms(fastest),
            ms(median)
        );
    }
    if let Some(&(first, _)) = times.first() {
        for (name, &(other, _)) in names.iter().zip(times).skip(1) {
            let ratio = first.as_secs_f64() / other.as_secs_f64();
            println!("  {} / {name}: {ratio:.3}", names[0]);
        }
    }
}

/// Measures the triad with criterion, then returns the bandwidth of its fastest interleaved run in
/// bytes per second: the bound the SpMV numbers are divided by.
fn stream_triad(c: &mut Criterion, sizes: Sizes) -> f64 {
    let n = sizes.stream_len;
    let bytes = (n * 3 * 8) as u64;
    let b = vec![1.5f64; n];
    let cc = vec![2.5f64; n];
    let mut a = vec![0.0f64; n];
    let mut triad = || {
        let s = black_box(3.0);
        for ((ai, bi), ci) in a.iter_mut().zip(&b).zip(&cc) {
            *ai = bi + s * ci;
        }
        black_box(&mut a);
    };
    let mut group = c.benchmark_group("stream_triad");
    configure(&mut group, Throughput::Bytes(bytes), 3);
    group.bench_function(BenchmarkId::new("triad", n), |bench| bench.iter(&mut triad));
    group.finish();
    let times = interleaved(sizes.rounds, 1, |_| triad());
    let bandwidth = bytes as f64 / times[0].0.as_secs_f64();
    println!(
        "stream_triad/triad/{n}: fastest of {} runs {:.2} ms, {:.2} GB/s",
        sizes.rounds,
        ms(times[0].0),
        bandwidth / 1e9
    );
    bandwidth
}

/// One SpMV input: the matrix in both libraries' CSR, and `x`.
struct SpmvCase {
    a: Tensor<f64, Csr>,
    theirs: CsMatI<f64, u32, u32>,
    x: Tensor<f64, Dense<1>>,
}

/// An SpMV contender: writes `A x` into `y`.
type SpmvKernel = fn(&mut Tensor<f64, Dense<1>>, &SpmvCase) -> Result<(), KernelError>;

/// The four SpMVs, by benchmark name; the macro's first, as the ratios put it over the others.
const SPMV_KERNELS: [(&str, SpmvKernel); 4] = [
    ("macro", |y, case| spmv_macro(y, &case.a, &case.x)),
    ("safe_handwritten", |y, case| {
        spmv_safe(y.values_mut(), &case.a, case.x.values());
        Ok(())
    }),
    ("unsafe_unchecked", |y, case| {
        spmv_unchecked(y.values_mut(), &case.a, case.x.values());
        Ok(())
    }),
    ("sprs", |y, case| {
        // sprs accumulates into its output (`y += A x`); its own `&a * &x` starts from zeros too.
        let out = y.values_mut();
        out.fill(0.0);
        sprs::prod::mul_acc_mat_vec_csr(case.theirs.view(), case.x.values(), out);
        Ok(())
    }),
];

fn spmv_csr(c: &mut Criterion, sizes: Sizes, bandwidth: f64) {
    let n = sizes.spmv_rows;
    // Each matrix is a temporary, dropped before the next is made.
    let uniform_label = format!("uniform_{n}");
    bench_spmv(
        c,
        sizes,
        bandwidth,
        &uniform_label,
        &uniform(n, 0x9E37_79B9_7F4A_7C15, 10),
    );
    let power_law_label = format!("power_law_{n}");
    bench_spmv(
        c,
        sizes,
        bandwidth,
        &power_law_label,
        &power_law(n, 0xD1B5_4A32_D192_ED03),
    );
    let banded_label = format!("banded_{n}");
    bench_spmv(
        c,
        sizes,
        bandwidth,
        &banded_label,
        &banded(n, 0x6A09_E667_F3BC_C908, 10),
    );
}

fn bench_spmv(c: &mut Criterion, sizes: Sizes, bandwidth: f64, label: &str, arrays: &CsrArrays) {
    println!("{}", arrays.describe(label));
    let case = SpmvCase {
        a: arrays.to_tensor(),
        theirs: arrays.to_sprs(),
        x: dense_vector((0..arrays.n).map(|j| 1.0 + (j % 7) as f64 / 8.0).collect()),
    };
    let mut y = Tensor::<f64, Dense<1>>::zeros([arrays.n]);
    check_spmv_agree(&case, &mut y);
    let bytes = spmv_bytes(arrays);
    let mut group = c.benchmark_group("spmv_csr");
    configure(
        &mut group,
        Throughput::ElementsAndBytes {
            elements: arrays.nnz() as u64,
            bytes,
        },
        3,
    );
    for (name, kernel) in SPMV_KERNELS {
        group.bench_function(BenchmarkId::new(name, label), |b| {
            b.iter(|| kernel(black_box(&mut y), black_box(&case)))
        });
    }
    group.finish();
    let times = interleaved(sizes.rounds, SPMV_KERNELS.len(), |k| {
        black_box(SPMV_KERNELS[k].1(black_box(&mut y), black_box(&case))).ok();
    });
    let names = SPMV_KERNELS.map(|(name, _)| name);
    report_interleaved(
        &format!("spmv_csr/{label}"),
        &names,
        &times,
        Some((bytes, bandwidth)),
    );
}

/// The four SpMVs compute the same sums, the macro's rows of four entries or more as dot products
/// in SIMD lanes and the others in order, so their outputs agree to rounding; anything more would
/// be a different computation.
fn check_spmv_agree(case: &SpmvCase, y: &mut Tensor<f64, Dense<1>>) {
    let mut want = None;
    for (name, kernel) in SPMV_KERNELS {
        y.values_mut().fill(f64::NAN);
        kernel(y, case).expect("shapes agree");
        let got = y.values().to_vec();
        let first = want.get_or_insert_with(|| got.clone());
        let close =
            (got.iter().zip(first.iter())).all(|(g, w)| (g - w).abs() <= 1e-12 * w.abs().max(1.0));
        assert!(close, "{name} differs from {}", SPMV_KERNELS[0].0);
    }
}

fn spgemm_csr(c: &mut Criterion, sizes: Sizes) {
    let n = sizes.spgemm_rows;
    let right = uniform(n, 0x2545_F491_4F6C_DD1D, 8);
    let left = uniform(n, 0x94D0_49BB_1331_11EB, 8);
    bench_spgemm(c, sizes, "uniform", &left, &right);
    drop(left);
    let left = power_law(n, 0xBF58_476D_1CE4_E5B9);
    bench_spgemm(c, sizes, "power_law", &left, &right);
}

/// The SpGEMMs, by benchmark name: the macro's into an output reused from the previous call (what a
/// loop does; only the first call allocates); its compute-only twin, which writes the values into
/// that output's existing structure; the macro's into a fresh output; and sprs's, which always
/// allocates its result.
const SPGEMM_KERNELS: [&str; 4] = ["macro", "macro_compute_only", "macro_fresh_output", "sprs"];

/// Benchmarks `B C` for a left operand `b` and the uniform right operand `c`; the throughput is
/// the number of multiply-adds.
fn bench_spgemm(c: &mut Criterion, sizes: Sizes, name: &str, left: &CsrArrays, right: &CsrArrays) {
    let label = format!("{name}_x_uniform_{}", left.n);
    println!("{}", left.describe(&format!("{name}_{} (B)", left.n)));
    println!("{}", right.describe(&format!("uniform_{} (C)", right.n)));
    let products: usize = left
        .crd
        .iter()
        .map(|&k| (right.pos[k as usize + 1] - right.pos[k as usize]) as usize)
        .sum();
    let (b, cm) = (left.to_tensor(), right.to_tensor());
    let (theirs_b, theirs_c) = (left.to_sprs(), right.to_sprs());
    let mut out = Tensor::<f64, Csr>::zeros([left.n, right.n]);
    check_spgemm_agree(&mut out, &b, &cm, &(&theirs_b * &theirs_c));
    println!(
        "{label}: {products} multiply-adds, {} nonzeros in B C",
        out.nnz()
    );
    let shape = [left.n, right.n];
    let mut run = |k: usize| match k {
        0 => drop(black_box(spgemm_macro(
            black_box(&mut out),
            black_box(&b),
            black_box(&cm),
        ))),
        1 => drop(black_box(spgemm_macro_compute(
            black_box(&mut out),
            black_box(&b),
            black_box(&cm),
        ))),
        2 => {
            let mut fresh = Tensor::<f64, Csr>::zeros(shape);
            let result = spgemm_macro(&mut fresh, black_box(&b), black_box(&cm));
            drop(black_box((result, fresh)));
        }
        _ => drop(black_box(black_box(&theirs_b) * black_box(&theirs_c))),
    };
    let mut group = c.benchmark_group("spgemm_csr");
    configure(&mut group, Throughput::Elements(products as u64), 10);
    for (k, kernel) in SPGEMM_KERNELS.iter().enumerate() {
        group.bench_function(BenchmarkId::new(*kernel, &label), |bench| {
            bench.iter(|| run(k))
        });
    }
    group.finish();
    let times = interleaved(sizes.rounds, SPGEMM_KERNELS.len(), run);
    report_interleaved(
        &format!("spgemm_csr/{label}"),
        &SPGEMM_KERNELS,
        &times,
        None,
    );
}

/// The macro's product and sprs's must have the same structure and, up to rounding, the same
/// values (the two may add a row's products in different orders); the compute-only twin must
/// reproduce the macro's values exactly.
fn check_spgemm_agree(
    out: &mut Tensor<f64, Csr>,
    b: &Tensor<f64, Csr>,
    c: &Tensor<f64, Csr>,
    theirs: &CsMatI<f64, u32, u32>,
) {
    spgemm_macro(out, b, c).expect("shapes agree");
    let assembled = out.values().to_vec();
    out.values_mut().fill(f64::NAN);
    spgemm_macro_compute(out, b, c).expect("the structure is the one just assembled");
    assert!(out.values() == assembled, "the compute-only twin differs");
    assert_eq!(
        out.level(1).pos(),
        &theirs.proper_indptr()[..],
        "row pointers differ"
    );
    assert_eq!(out.level(1).crd(), theirs.indices(), "columns differ");
    let close = out
        .values()
        .iter()
        .zip(theirs.data())
        .all(|(x, y)| (x - y).abs() <= 1e-12 * x.abs().max(1.0));
    assert!(close, "values differ");
}

/// One `tensor_kernel!` invocation found in a test file.
struct Invocation {
    name: String,
    body: TokenStream,
}

/// Every `tensor_kernel! { ... }` in `tests/kernels_*.rs`, found by walking the files' tokens (so
/// comments and strings that mention the macro are skipped) at any depth.
fn test_kernels() -> Vec<Invocation> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/ is readable")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|f| f.to_str())
                .is_some_and(|f| f.starts_with("kernels_") && f.ends_with(".rs"))
        })
        .collect();
    files.sort();
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("test files are readable");
        let tokens: TokenStream = text.parse().expect("test files are Rust tokens");
        collect_invocations(tokens, &mut found);
    }
    found
}

fn collect_invocations(tokens: TokenStream, found: &mut Vec<Invocation>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (k, tree) in tokens.iter().enumerate() {
        match (tree, tokens.get(k + 1), tokens.get(k + 2)) {
            (TokenTree::Ident(id), Some(TokenTree::Punct(bang)), Some(TokenTree::Group(body)))
                if id == "tensor_kernel" && bang.as_char() == '!' =>
            {
                found.push(Invocation {
                    name: kernel_name(&body.stream()),
                    body: body.stream(),
                });
            }
            (TokenTree::Group(group), _, _) => collect_invocations(group.stream(), found),
            _ => {}
        }
    }
}

/// The identifier after `fn` in a kernel body.
fn kernel_name(body: &TokenStream) -> String {
    let mut after_fn = false;
    for tree in body.clone() {
        if let TokenTree::Ident(id) = tree {
            if after_fn {
                return id.to_string();
            }
            after_fn = id == "fn";
        }
    }
    String::from("?")
}

/// Compiles every test kernel `runs` times (after one untimed run) and prints each kernel's median
/// and, over the kernels, the median and the slowest. Outside rustc proc-macro2 uses its own token
/// implementation, so this is the compiler's own time, without rustc's proc-macro bridge. Cargo
/// builds proc macros without optimization unless a profile's `build-override` says otherwise, so
/// the unoptimized numbers of `cargo test --benches` are the ones a user's build sees; `cargo
/// bench` shows what optimizing the macro would buy.
fn expansion_report(runs: usize) {
    let kernels = test_kernels();
    let mut medians = Vec::with_capacity(kernels.len());
    for kernel in &kernels {
        if let Err(errors) = sparse_compiler::compile(kernel.body.clone()) {
            println!("expansion: {} fails to compile: {errors:?}", kernel.name);
            continue;
        }
        let mut times: Vec<Duration> = (0..runs)
            .map(|_| {
                let body = kernel.body.clone();
                let start = Instant::now();
                let out = sparse_compiler::compile(body);
                let elapsed = start.elapsed();
                drop(black_box(out));
                elapsed
            })
            .collect();
        times.sort();
        medians.push((times[times.len() / 2], &kernel.name));
    }
    medians.sort();
    for (time, name) in &medians {
        println!("expansion: {name:<24} {:>9.3} ms", ms(*time));
    }
    let build = if cfg!(debug_assertions) {
        "unoptimized"
    } else {
        "optimized"
    };
    if let (Some(mid), Some(slowest)) = (medians.get(medians.len() / 2), medians.last()) {
        println!(
            "expansion ({build} compiler): {} kernels, median {:.3} ms, slowest {:.3} ms ({})",
            medians.len(),
            ms(mid.0),
            ms(slowest.0),
            slowest.1
        );
    }
}

fn ms(time: Duration) -> f64 {
    time.as_secs_f64() * 1e3
}

/// What `criterion_group!` and `criterion_main!` would generate, with the expansion report first and
/// the triad's bandwidth handed on to the SpMV group.
fn main() {
    let sizes = Sizes::from_args();
    expansion_report(sizes.expansion_runs);
    let mut c = Criterion::default().sample_size(10).configure_from_args();
    let bandwidth = stream_triad(&mut c, sizes);
    spmv_csr(&mut c, sizes, bandwidth);
    spgemm_csr(&mut c, sizes);
    c.final_summary();
}
