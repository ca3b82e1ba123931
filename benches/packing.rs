//! Packing benchmarks: how fast entries become a format, and what the padded formats cost.
//!
//! - `triplets_to_csr`: unsorted triplets with duplicates -> CSR, ours against sprs. Both start from
//!   the same triplets, already in memory in their own input structure; only the conversion is
//!   timed.
//! - `csr_to_padded`: CSR -> ELL, DIA and BCSR(4x4), each on a matrix whose structure suits that
//!   format, next to two baselines on the same matrix: a CSR -> CSR conversion through the same
//!   generic path, and a plain clone of the CSR arrays (the memory-copy floor).
//!
//! The generated matrices exceed the last-level cache (32 MiB on the machine of BENCHMARKS.md), so
//! the numbers are about memory traffic, not cache-resident loops. Under `cargo test --benches`
//! criterion runs every benchmark once as a smoke test; there the inputs are small so that CI stays
//! fast. Inputs are seeded, so every run measures the same matrices.

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group,
    criterion_main, measurement::WallTime,
};
use sparse_runtime::{Bcsr, Csr, Dia, Ell, Entries, ExplicitZeros, Format, Tensor};
use sprs::TriMatI;

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

/// The input sizes of one run: large enough to leave the cache when measuring, tiny when criterion
/// only checks that each benchmark runs.
#[derive(Clone, Copy)]
struct Sizes {
    /// Rows (and columns) of the power-law triplet matrix.
    power_law_rows: usize,
    /// Rows of the near-uniform matrix packed as ELL.
    uniform_rows: usize,
    /// Grid points along each side of the 3-D 7-point stencil packed as DIA.
    stencil_side: usize,
    /// Rows of the block-structured matrix packed as BCSR(4x4); a multiple of 4.
    block_rows: usize,
}

impl Sizes {
    /// Criterion passes `--bench` when it measures (`cargo bench`) and not when it only tests
    /// (`cargo test --benches`).
    fn from_args() -> Self {
        if std::env::args().any(|a| a == "--bench") {
            Sizes {
                power_law_rows: 1_500_000,
                uniform_rows: 1_000_000,
                stencil_side: 100,
                block_rows: 1_000_000,
            }
        } else {
            Sizes {
                power_law_rows: 2_000,
                uniform_rows: 2_000,
                stencil_side: 8,
                block_rows: 2_000,
            }
        }
    }
}

/// Triplets `(row, col, value)` of a square matrix.
struct Triplets {
    n: usize,
    list: Vec<(usize, usize, f64)>,
}

impl Triplets {
    fn to_entries(&self) -> Entries<f64> {
        let mut entries = Entries::with_capacity([self.n, self.n], self.list.len());
        for &(r, c, v) in &self.list {
            entries
                .push(&[r, c], v)
                .expect("generated coordinates are in bounds");
        }
        entries
    }

    /// sprs's triplets with `u32` indices, so that its CSR has the same `u32` index arrays as ours.
    fn to_trimat(&self) -> TriMatI<f64, u32> {
        let index = |x: usize| u32::try_from(x).expect("generated sizes fit u32");
        let rows = self.list.iter().map(|t| index(t.0)).collect();
        let cols = self.list.iter().map(|t| index(t.1)).collect();
        let vals = self.list.iter().map(|t| t.2).collect();
        TriMatI::from_triplets((self.n, self.n), rows, cols, vals)
    }

    fn to_csr(&self) -> Tensor<f64, Csr> {
        Tensor::from_entry_list(&self.to_entries(), ExplicitZeros::Drop)
            .expect("generated matrices pack")
    }
}

/// Rows with a power-law length (Pareto, shape 2, minimum 4: mean about 8, a few rows with
/// thousands of entries) at uniform random columns; then 2% of the triplets are repeated, and the
/// list is shuffled, as an assembly loop would leave it.
fn power_law(n: usize) -> Triplets {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut list = Vec::new();
    for r in 0..n {
        let len = ((4.0 / rng.unit().sqrt()) as usize).min(n);
        for _ in 0..len {
            list.push((r, rng.below(n), rng.value()));
        }
    }
    for _ in 0..list.len() / 50 {
        let (r, c, _) = list[rng.below(list.len())];
        list.push((r, c, rng.value()));
    }
    for k in (1..list.len()).rev() {
        list.swap(k, rng.below(k + 1));
    }
    Triplets { n, list }
}

/// Rows of 6 to 10 entries at uniform random columns: ELL pads every row to the longest.
fn near_uniform(n: usize) -> Triplets {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut list = Vec::new();
    for r in 0..n {
        for _ in 0..6 + rng.below(5) {
            list.push((r, rng.below(n), rng.value()));
        }
    }
    Triplets { n, list }
}

/// The 7-point Laplacian stencil on a `side`³ grid: seven diagonals, the outer ones with gaps at
/// the grid's faces, which DIA stores as padding.
fn stencil(side: usize) -> Triplets {
    let n = side * side * side;
    let mut list = Vec::with_capacity(7 * n);
    let offsets = [1, side, side * side];
    for r in 0..n {
        let at = [r % side, (r / side) % side, r / (side * side)];
        list.push((r, r, 6.0));
        for (axis, &step) in offsets.iter().enumerate() {
            if at[axis] > 0 {
                list.push((r, r - step, -1.0));
            }
            if at[axis] + 1 < side {
                list.push((r, r + step, -1.0));
            }
        }
    }
    Triplets { n, list }
}

/// 4x4 blocks: the diagonal block and two random ones per block row, each block missing about an
/// eighth of its entries, which BCSR stores as padding.
fn blocked(n: usize) -> Triplets {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let blocks = n / 4;
    let mut list = Vec::new();
    for br in 0..blocks {
        for bc in [br, rng.below(blocks), rng.below(blocks)] {
            for k in 0..16 {
                if rng.below(8) != 0 {
                    list.push((4 * br + k / 4, 4 * bc + k % 4, rng.value()));
                }
            }
        }
    }
    Triplets {
        n: blocks * 4,
        list,
    }
}

/// Long conversions: a handful of flat samples, short warm-up.
fn configure(group: &mut BenchmarkGroup<'_, WallTime>, elements: usize) {
    group
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(elements as u64));
}

fn triplets_to_csr(c: &mut Criterion) {
    let sizes = Sizes::from_args();
    let triplets = power_law(sizes.power_law_rows);
    let label = format!("power_law_{}", sizes.power_law_rows);
    let ours = triplets.to_entries();
    let theirs = triplets.to_trimat();
    drop(triplets);
    check_same_csr(&ours, &theirs);
    let mut group = c.benchmark_group("triplets_to_csr");
    configure(&mut group, ours.len());
    group.bench_function(BenchmarkId::new("ours", &label), |b| {
        b.iter(|| Tensor::<f64, Csr>::from_entry_list(black_box(&ours), ExplicitZeros::Drop))
    });
    group.bench_function(BenchmarkId::new("sprs", &label), |b| {
        b.iter(|| black_box(&theirs).to_csr::<u32>())
    });
    group.finish();
}

/// Both conversions must build the same matrix, or the comparison means nothing: same row
/// pointers and column indices, and the same values up to the order in which duplicates are added.
fn check_same_csr(ours: &Entries<f64>, theirs: &TriMatI<f64, u32>) {
    let a = Tensor::<f64, Csr>::from_entry_list(ours, ExplicitZeros::Drop)
        .expect("generated triplets pack");
    let b = theirs.to_csr::<u32>();
    assert_eq!(
        a.level(1).pos(),
        &b.proper_indptr()[..],
        "row pointers differ"
    );
    assert_eq!(a.level(1).crd(), b.indices(), "column indices differ");
    let close = a
        .values()
        .iter()
        .zip(b.data())
        .all(|(x, y)| (x - y).abs() <= 1e-12 * x.abs().max(1.0));
    assert!(close && a.values().len() == b.data().len(), "values differ");
}

/// Benchmarks CSR -> `F` on `csr`, with the CSR -> CSR and clone baselines on the same matrix.
fn bench_padded<F: Format>(c: &mut Criterion, target: &str, label: &str, csr: &Tensor<f64, Csr>) {
    let mut group = c.benchmark_group("csr_to_padded");
    configure(&mut group, csr.nnz());
    group.bench_function(BenchmarkId::new(format!("csr_to_{target}"), label), |b| {
        b.iter(|| black_box(csr).convert::<F>())
    });
    group.bench_function(BenchmarkId::new("csr_to_csr", label), |b| {
        b.iter(|| black_box(csr).convert::<Csr>())
    });
    group.bench_function(BenchmarkId::new("csr_clone", label), |b| {
        b.iter(|| black_box(csr).clone())
    });
    group.finish();
}

fn csr_to_padded(c: &mut Criterion) {
    let sizes = Sizes::from_args();
    let uniform = near_uniform(sizes.uniform_rows).to_csr();
    bench_padded::<Ell>(
        c,
        "ell",
        &format!("uniform_{}", sizes.uniform_rows),
        &uniform,
    );
    drop(uniform);
    let side = sizes.stencil_side;
    let laplacian = stencil(side).to_csr();
    bench_padded::<Dia>(c, "dia", &format!("stencil7_{side}^3"), &laplacian);
    drop(laplacian);
    let blocks = blocked(sizes.block_rows).to_csr();
    bench_padded::<Bcsr<4, 4>>(
        c,
        "bcsr4x4",
        &format!("blocked_{}", sizes.block_rows),
        &blocks,
    );
}

criterion_group! {
    name = packing;
    config = Criterion::default().sample_size(10);
    targets = triplets_to_csr, csr_to_padded
}
criterion_main!(packing);
