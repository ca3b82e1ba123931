//! GPU SpMV, SpMM and SDDMM from `tensor_kernel!` with the GPU schedules of Senanayake et al.'s
//! evaluation, timed on a device with CUDA events (median of many launches after warm-up), on
//! matrices far larger than the L2 cache and on the skewed shapes of that evaluation.
//!
//! ```sh
//! cargo build --release --features cuda --example gpu_bench   # needs libcuda.so.1 to link
//! gpu_bench OUT_DIR          # on the GPU machine: prints one JSON line per timing
//! python3 scripts/gpu_bench_cusparse.py OUT_DIR   # cuSPARSE (CuPy; SDDMM: PyTorch), the bound
//! ```
//!
//! Each matrix's CSR arrays are written to `OUT_DIR/<name>/` (`indptr.u32`, `indices.u32`,
//! `data.f64`, `shape.txt`), so cuSPARSE runs on exactly the same matrix, and every result is
//! checked against a host SpMV first. `GPU_BENCH_ONLY=NAME` keeps the matrices whose names
//! contain NAME (for a profiler run).

use std::error::Error;
use std::io::Write;
use std::path::Path;

use sparse::Level;
use sparse::gpu::{DeviceTensor, Gpu, GpuError, GpuScalar};
use sparse::prelude::*;

// The same kernels as the GPU tests.
#[path = "../tests/gpu_schedules/mod.rs"]
mod gpu_schedules;

use gpu_schedules::{sddmm, spmm, spmv_pos, spmv_pos_pre, spmv_thread, spmv_warp};

const WARMUP: usize = 5;
const RUNS: usize = 50;

/// xorshift64*: the same matrices on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64) as usize
    }

    fn unit(&mut self) -> f64 {
        (self.below(1 << 30) as f64 + 0.5) / f64::from(1u32 << 30)
    }
}

/// A CSR matrix as plain arrays, rows sorted and unique.
struct Csr {
    name: &'static str,
    m: usize,
    n: usize,
    indptr: Vec<u32>,
    indices: Vec<u32>,
}

impl Csr {
    fn from_rows(
        name: &'static str,
        m: usize,
        n: usize,
        mut row: impl FnMut(usize) -> Vec<usize>,
    ) -> Csr {
        let (mut indptr, mut indices) = (vec![0u32], Vec::new());
        for i in 0..m {
            let mut cols = row(i);
            cols.sort_unstable();
            cols.dedup();
            indices.extend(cols.into_iter().map(|c| c as u32));
            indptr.push(indices.len() as u32);
        }
        Csr {
            name,
            m,
            n,
            indptr,
            indices,
        }
    }

    fn value(p: usize) -> f64 {
        ((p * 7 + 3) % 17) as f64 / 8.0 - 1.0
    }

    fn tensor<T: Scalar>(&self) -> Result<Tensor<T, sparse::Csr>, Box<dyn Error>> {
        let levels = vec![
            Level::Dense { size: self.m },
            Level::Compressed {
                pos: self.indptr.clone(),
                crd: self.indices.clone(),
            },
        ];
        let vals = (0..self.indices.len())
            .map(|p| T::from_f64(Csr::value(p)))
            .collect();
        Ok(Tensor::from_parts(vec![self.m, self.n], levels, vals)?)
    }

    fn spmv(&self, x: &[f64]) -> Vec<f64> {
        (0..self.m)
            .map(|i| {
                let (lo, hi) = (self.indptr[i] as usize, self.indptr[i + 1] as usize);
                (lo..hi)
                    .map(|p| Csr::value(p) * x[self.indices[p] as usize])
                    .sum()
            })
            .collect()
    }

    fn write(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let bytes = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        std::fs::write(dir.join("indptr.u32"), bytes(&self.indptr))?;
        std::fs::write(dir.join("indices.u32"), bytes(&self.indices))?;
        let data: Vec<u8> = (0..self.indices.len())
            .flat_map(|p| Csr::value(p).to_le_bytes())
            .collect();
        std::fs::write(dir.join("data.f64"), data)?;
        std::fs::write(dir.join("shape.txt"), format!("{} {}\n", self.m, self.n))
    }
}

fn matrices() -> Vec<Csr> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let big = 4_000_000;
    vec![
        // A 1-D stencil of 11 diagonals: 44M nonzeros, 0.5 GB in CSR f64.
        Csr::from_rows("banded", big, big, |i| {
            (i.saturating_sub(5)..(i + 6).min(big)).collect()
        }),
        Csr::from_rows("uniform", big, big, |_| {
            (0..8).map(|_| rng.below(big)).collect()
        }),
        {
            let mut rng = Rng(77);
            Csr::from_rows("powerlaw", big, big, move |_| {
                let len = ((2.0 / rng.unit().powf(1.0 / 1.2)) as usize).min(100_000);
                (0..len).map(|_| rng.below(big)).collect()
            })
        },
        {
            let mut rng = Rng(5);
            Csr::from_rows("wide_100x100k", 100, 100_000, move |_| {
                (0..10_000).map(|_| rng.below(100_000)).collect()
            })
        },
        {
            let mut rng = Rng(11);
            let n = 1_000_000;
            Csr::from_rows("skewed", n, n, move |i| {
                let len = if i % 125_000 == 0 { 200_000 } else { 4 };
                (0..len).map(|_| rng.below(n)).collect()
            })
        },
    ]
}

/// One kernel's timing on one matrix, and its check.
struct Timing {
    kernel: String,
    value_type: &'static str,
    seconds: f64,
    worst: f64,
    ok: bool,
}

impl Timing {
    /// One JSON line, printed and written to `out` (the Python side reads `sparse.jsonl`).
    fn report(&self, a: &Csr, out: &mut dyn Write) -> Result<(), Box<dyn Error>> {
        let line = format!(
            "{{\"matrix\":\"{}\",\"kernel\":\"{}\",\"type\":\"{}\",\"nnz\":{},\"seconds\":{:e},\"max_rel_error\":{:e},\"ok\":{}}}",
            a.name,
            self.kernel,
            self.value_type,
            a.indices.len(),
            self.seconds,
            self.worst,
            self.ok
        );
        println!("{line}");
        writeln!(out, "{line}")?;
        Ok(())
    }
}

type Spmv<T> = fn(
    &mut DeviceTensor<T, DenseVec>,
    &DeviceTensor<T, sparse::Csr>,
    &DeviceTensor<T, DenseVec>,
) -> Result<(), GpuError>;

/// The median of `RUNS` timed runs after `WARMUP`, in seconds.
fn median(gpu: &Gpu, mut run: impl FnMut() -> Result<(), GpuError>) -> Result<f64, GpuError> {
    for _ in 0..WARMUP {
        run()?;
    }
    let mut times = (0..RUNS)
        .map(|_| gpu.time(&mut run))
        .collect::<Result<Vec<f64>, GpuError>>()?;
    times.sort_by(f64::total_cmp);
    Ok(times[RUNS / 2])
}

fn bench_spmv<T: GpuScalar>(gpu: &Gpu, a: &Csr, out: &mut dyn Write) -> Result<(), Box<dyn Error>> {
    let x: Vec<f64> = (0..a.n).map(|j| ((j % 13) as f64 - 6.0) / 4.0).collect();
    let expected = a.spmv(&x);
    let da = gpu.upload(&a.tensor::<T>()?)?;
    let xs: Vec<T> = x.iter().map(|&v| T::from_f64(v)).collect();
    let dx = gpu.upload(&Tensor::<T, DenseVec>::from_dense([a.n], &xs)?)?;
    let kernels: [(&str, Spmv<T>); 4] = [
        ("thread_per_row", spmv_thread::<T>),
        ("warp_per_row", spmv_warp::<T>),
        ("pos_split", spmv_pos::<T>),
        ("pos_split_precompute_unroll", spmv_pos_pre::<T>),
    ];
    let tolerance = if T::CUDA_TYPE == "float" { 1e-3 } else { 1e-9 };
    for (kernel, f) in kernels {
        let mut y = gpu.zeros::<T, DenseVec>([a.m])?;
        f(&mut y, &da, &dx)?;
        let found = y.download()?.to_dense();
        let worst = (found.iter().zip(&expected))
            .map(|(f, e)| (f.to_f64() - e).abs() / (1.0 + e.abs()))
            .fold(0.0, f64::max);
        let seconds = median(gpu, || f(&mut y, &da, &dx))?;
        let timing = Timing {
            kernel: kernel.to_string(),
            value_type: T::CUDA_TYPE,
            seconds,
            worst,
            ok: worst < tolerance,
        };
        timing.report(a, out)?;
    }
    Ok(())
}

fn bench_spmm(gpu: &Gpu, a: &Csr, k: usize, out: &mut dyn Write) -> Result<(), Box<dyn Error>> {
    let b: Vec<f64> = (0..a.n * k)
        .map(|p| ((p % 11) as f64 - 5.0) / 4.0)
        .collect();
    let da = gpu.upload(&a.tensor::<f64>()?)?;
    let db = gpu.upload(&Tensor::<f64, DenseMat>::from_dense([a.n, k], &b)?)?;
    let mut c = gpu.zeros([a.m, k])?;
    spmm(&mut c, &da, &db)?;
    let found: Tensor<f64, _> = c.download()?;
    let found = found.to_dense();
    let mut worst: f64 = 0.0;
    for i in (0..a.m).step_by((a.m / 1000).max(1)) {
        for col in 0..k {
            let (lo, hi) = (a.indptr[i] as usize, a.indptr[i + 1] as usize);
            let e: f64 = (lo..hi)
                .map(|p| Csr::value(p) * b[a.indices[p] as usize * k + col])
                .sum();
            worst = worst.max((found[i * k + col] - e).abs() / (1.0 + e.abs()));
        }
    }
    let seconds = median(gpu, || spmm(&mut c, &da, &db))?;
    let timing = Timing {
        kernel: format!("spmm_n{k}"),
        value_type: "double",
        seconds,
        worst,
        ok: worst < 1e-9,
    };
    timing.report(a, out)
}

/// SDDMM `A = B .* (C D)` with a dense index of 128 (the schedule's `bound`): `B`'s structure,
/// `C` n x 128 row-major, `D` 128 x n stored by columns.
fn bench_sddmm(gpu: &Gpu, b: &Csr, out: &mut dyn Write) -> Result<(), Box<dyn Error>> {
    const K: usize = 128;
    let c: Vec<f64> = (0..b.m * K).map(|p| ((p % 7) as f64 - 3.0) / 4.0).collect();
    let d: Vec<f64> = (0..K * b.n).map(|p| ((p % 5) as f64 - 2.0) / 4.0).collect();
    let db = gpu.upload(&b.tensor::<f64>()?)?;
    let dc = gpu.upload(&Tensor::<f64, DenseMat>::from_dense([b.m, K], &c)?)?;
    let dd = gpu.upload(&Tensor::from_dense([K, b.n], &d)?)?;
    let mut a = gpu.zeros([b.m, b.n])?;
    sddmm(&mut a, &db, &dc, &dd)?;
    let found: Tensor<f64, sparse::Csr> = a.download()?;
    let vals = found.values();
    let mut worst: f64 = 0.0;
    for i in (0..b.m).step_by((b.m / 1000).max(1)) {
        let (lo, hi) = (b.indptr[i] as usize, b.indptr[i + 1] as usize);
        for (p, (&col, &v)) in (lo..hi).zip(b.indices[lo..hi].iter().zip(&vals[lo..hi])) {
            let col = col as usize;
            let dot: f64 = (0..K).map(|j| c[i * K + j] * d[j * b.n + col]).sum();
            let e = Csr::value(p) * dot;
            worst = worst.max((v - e).abs() / (1.0 + e.abs()));
        }
    }
    let seconds = median(gpu, || sddmm(&mut a, &db, &dc, &dd))?;
    let timing = Timing {
        kernel: format!("sddmm_k{K}"),
        value_type: "double",
        seconds,
        worst,
        ok: worst < 1e-9,
    };
    timing.report(b, out)
}

fn main() -> Result<(), Box<dyn Error>> {
    let dir = std::env::args().nth(1).ok_or("usage: gpu_bench OUT_DIR")?;
    let dir = Path::new(&dir);
    let gpu = Gpu::new(0)?;
    eprintln!(
        "device: {} (sm_{}{})",
        gpu.name(),
        gpu.compute_capability().0,
        gpu.compute_capability().1
    );
    std::fs::create_dir_all(dir)?;
    let mut out = std::fs::File::create(dir.join("sparse.jsonl"))?;
    // `GPU_BENCH_ONLY=banded` (a substring of the names) runs fewer matrices, for a profiler.
    let only = std::env::var("GPU_BENCH_ONLY").unwrap_or_default();
    for a in matrices().into_iter().filter(|a| a.name.contains(&only)) {
        eprintln!(
            "{}: {} x {}, {} nonzeros",
            a.name,
            a.m,
            a.n,
            a.indices.len()
        );
        a.write(&dir.join(a.name))?;
        bench_spmv::<f64>(&gpu, &a, &mut out)?;
        bench_spmv::<f32>(&gpu, &a, &mut out)?;
    }
    if !"spmm_uniform".contains(&only) {
        return Ok(());
    }
    let spmm_a = {
        let mut rng = Rng(3);
        let n = 500_000;
        Csr::from_rows("spmm_uniform", n, n, move |_| {
            (0..8).map(|_| rng.below(n)).collect()
        })
    };
    spmm_a.write(&dir.join(spmm_a.name))?;
    for k in [32, 128] {
        bench_spmm(&gpu, &spmm_a, k, &mut out)?;
    }
    let sddmm_b = {
        let mut rng = Rng(9);
        let n = 200_000;
        Csr::from_rows("sddmm_uniform", n, n, move |_| {
            (0..16).map(|_| rng.below(n)).collect()
        })
    };
    sddmm_b.write(&dir.join(sddmm_b.name))?;
    bench_sddmm(&gpu, &sddmm_b, &mut out)?;
    Ok(())
}
