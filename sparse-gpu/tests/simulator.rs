//! The host simulator of the GPU ([`Gpu::simulator`]): hand-written CUDA kernels run on the CPU
//! and are compared with dense products computed here on the host. These tests need no GPU and
//! no `cuda` feature, only a C++ compiler; without one they skip, unless
//! `SPARSE_REQUIRE_SIMULATOR` is set (not empty, not `0`), which makes that a failure.

mod common;

use sparse_gpu::{DeviceTensor, Gpu, GpuError, GpuScalar, KernelArg, LaunchShape};
use sparse_runtime::{Csr, DenseVec, Scalar, Tensor};

/// The simulator, or `None` (after printing why) when there is no C++ compiler and no test
/// requires one.
fn simulator(test: &str) -> Option<Gpu> {
    match Gpu::simulator() {
        Ok(gpu) => {
            assert!(gpu.is_simulator());
            Some(gpu)
        }
        Err(e) => {
            // `SPARSE_REQUIRE_GPU` asks for a device, not for the simulator's C++ compiler: only
            // `SPARSE_REQUIRE_SIMULATOR` turns this skip into a failure.
            let required = std::env::var_os("SPARSE_REQUIRE_SIMULATOR")
                .is_some_and(|v| !v.is_empty() && v != "0");
            assert!(!required && e.is_unavailable(), "{test}: {e}");
            eprintln!("skipping {test}: {e}");
            None
        }
    }
}

/// A small deterministic generator (64-bit LCG), so that patterns vary without a dependency.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(self.0 >> 33).unwrap() % bound.max(1)
    }
}

fn cast<T: Scalar>(n: usize) -> T {
    (0..n).fold(T::ZERO, |s, _| s + T::ONE)
}

/// A `rows x cols` CSR matrix with empty rows, a full row (when `rows > 2`), duplicate-free
/// random entries of small integer values (exact in every value type), and its dense form.
fn matrix<T: GpuScalar>(rows: usize, cols: usize, seed: u64) -> (Tensor<T, Csr>, Vec<T>) {
    let mut rng = Lcg(seed);
    let mut dense = vec![T::ZERO; rows * cols];
    let mut entries = Vec::new();
    for i in 0..rows {
        let count = match i % 5 {
            _ if cols == 0 => 0,
            _ if rows > 2 && i == rows / 2 => cols,
            0 => 0,
            1 => 1,
            _ => rng.next(2 * cols.min(70)),
        };
        let mut taken = vec![false; cols];
        for k in 0..count {
            let j = if count == cols { k } else { rng.next(cols) };
            if taken[j] {
                continue;
            }
            taken[j] = true;
            // Values 1..=3, some negative.
            let mut v = cast::<T>(1 + rng.next(3));
            if rng.next(4) == 0 {
                v = T::ZERO - v;
            }
            dense[i * cols + j] = v;
            entries.push(([i, j], v));
        }
    }
    (Tensor::from_entries([rows, cols], entries).unwrap(), dense)
}

fn vector<T: GpuScalar>(n: usize) -> Vec<T> {
    (0..n).map(|j| cast::<T>(j % 5) - cast::<T>(2)).collect()
}

/// `dense * x`, on the host.
fn reference<T: GpuScalar>(dense: &[T], x: &[T], rows: usize, cols: usize) -> Vec<T> {
    (0..rows)
        .map(|i| (0..cols).fold(T::ZERO, |s, j| s + dense[i * cols + j] * x[j]))
        .collect()
}

/// One warp (32 lanes) per row: each lane sums a strided part of the row, then a
/// `__shfl_down_sync` tree gives lane 0 the row's sum.
fn warp_spmv_source<T: GpuScalar>() -> String {
    r#"
__device__ __forceinline__ VALUE warp_sum(VALUE v) {
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

extern "C" __global__ void __launch_bounds__(128) spmv_warp(int m, const unsigned int *__restrict__ pos, const unsigned int *__restrict__ crd, const VALUE *__restrict__ vals, const VALUE *__restrict__ x, VALUE *__restrict__ y) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= m) return;
    VALUE sum = 0;
    for (unsigned int p = pos[row] + lane; p < pos[row + 1]; p += 32) {
        sum += vals[p] * __ldg(&x[crd[p]]);
    }
    sum = warp_sum(sum);
    if (lane == 0) y[row] = sum;
}
"#
    .replace("VALUE", T::CUDA_TYPE)
}

/// Runs `kernel` of `source` as `y = A x` with the six arguments of both SpMV kernels.
fn run_spmv<T: GpuScalar>(
    gpu: &Gpu,
    source: &str,
    kernel: &str,
    a: &Tensor<T, Csr>,
    x: &[T],
    shape: LaunchShape,
) -> Vec<T> {
    let rows = a.shape()[0];
    let da = gpu.upload(a).unwrap();
    let dx = gpu
        .upload(&Tensor::<T, DenseVec>::from_dense([x.len()], x).unwrap())
        .unwrap();
    let mut dy: DeviceTensor<T, DenseVec> = gpu.zeros([rows]).unwrap();
    let args = [
        KernelArg::from(i32::try_from(rows).unwrap()),
        da.pos_array(1).into(),
        da.crd_array(1).into(),
        da.values_array().into(),
        dx.values_array().into(),
        dy.values_array_mut().into(),
    ];
    gpu.launch(source, kernel, shape, &args).unwrap();
    dy.download().unwrap().to_dense()
}

fn thread_per_row<T: GpuScalar>(gpu: &Gpu, rows: usize, cols: usize, seed: u64) {
    let (a, dense) = matrix::<T>(rows, cols, seed);
    let x = vector::<T>(cols);
    let shape = LaunchShape::linear(LaunchShape::blocks_for(rows, 64), 64);
    let y = run_spmv(gpu, &common::spmv_source::<T>(), "spmv_csr", &a, &x, shape);
    assert_eq!(
        y,
        reference(&dense, &x, rows, cols),
        "{} {rows}x{cols}",
        T::CUDA_TYPE
    );
}

fn warp_per_row<T: GpuScalar>(gpu: &Gpu, rows: usize, cols: usize, seed: u64) {
    let (a, dense) = matrix::<T>(rows, cols, seed);
    let x = vector::<T>(cols);
    // Four warps (rows) per block of 128 threads.
    let shape = LaunchShape::linear(LaunchShape::blocks_for(rows, 4), 128);
    let y = run_spmv(gpu, &warp_spmv_source::<T>(), "spmv_warp", &a, &x, shape);
    assert_eq!(
        y,
        reference(&dense, &x, rows, cols),
        "{} {rows}x{cols}",
        T::CUDA_TYPE
    );
}

#[test]
fn thread_per_row_spmv_matches_the_dense_product() {
    let Some(gpu) = simulator("thread_per_row_spmv_matches_the_dense_product") else {
        return;
    };
    thread_per_row::<f64>(&gpu, 300, 200, 1);
    thread_per_row::<f32>(&gpu, 130, 70, 2);
    thread_per_row::<i32>(&gpu, 65, 9, 3);
    thread_per_row::<i64>(&gpu, 64, 64, 4);
}

#[test]
fn warp_per_row_spmv_with_shuffles_matches_the_dense_product() {
    let Some(gpu) = simulator("warp_per_row_spmv_with_shuffles_matches_the_dense_product") else {
        return;
    };
    // Rows longer than 32 (the full middle row) make every lane add several products.
    warp_per_row::<f64>(&gpu, 37, 100, 5);
    warp_per_row::<f32>(&gpu, 9, 40, 6);
    warp_per_row::<i32>(&gpu, 21, 33, 7);
    warp_per_row::<i64>(&gpu, 5, 200, 8);
}

#[test]
fn empty_matrices_empty_rows_and_single_entries() {
    let Some(gpu) = simulator("empty_matrices_empty_rows_and_single_entries") else {
        return;
    };
    for (rows, cols) in [(0, 0), (0, 5), (4, 0)] {
        let a = Tensor::<f64, Csr>::from_entries([rows, cols], []).unwrap();
        let x = vector::<f64>(cols);
        let shape = LaunchShape::linear(LaunchShape::blocks_for(rows, 32), 32);
        let y = run_spmv(
            &gpu,
            &common::spmv_source::<f64>(),
            "spmv_csr",
            &a,
            &x,
            shape,
        );
        assert_eq!(y, vec![0.0; rows]);
        let shape = LaunchShape::linear(LaunchShape::blocks_for(rows, 4), 128);
        let y = run_spmv(&gpu, &warp_spmv_source::<f64>(), "spmv_warp", &a, &x, shape);
        assert_eq!(y, vec![0.0; rows]);
    }
    // One entry in the last row and column; every other row empty.
    let a = Tensor::<i64, Csr>::from_entries([6, 3], [([5, 2], 7)]).unwrap();
    let x = vec![1, 2, 3];
    let shape = LaunchShape::linear(1, 32);
    let y = run_spmv(
        &gpu,
        &common::spmv_source::<i64>(),
        "spmv_csr",
        &a,
        &x,
        shape,
    );
    assert_eq!(y, vec![0, 0, 0, 0, 0, 21]);
    let shape = LaunchShape::linear(2, 128);
    let y = run_spmv(&gpu, &warp_spmv_source::<i64>(), "spmv_warp", &a, &x, shape);
    assert_eq!(y, vec![0, 0, 0, 0, 0, 21]);
}

const BLOCK_SUM: &str = r#"
// Each block sums its 256 elements of x in shared memory; thread 0 writes the block's sum.
extern "C" __global__ void block_sum(int n, const double *__restrict__ x, double *__restrict__ out) {
    __shared__ double partial[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? x[i] : 0.0;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
"#;

#[test]
fn shared_memory_and_block_barriers_give_block_sums() {
    let Some(gpu) = simulator("shared_memory_and_block_barriers_give_block_sums") else {
        return;
    };
    // Not a multiple of the block: the last block reads zeros past the end.
    let n = 1000usize;
    let x_host: Vec<f64> = (0..n).map(|i| ((i * 37) % 101) as f64 - 50.0).collect();
    let blocks = n.div_ceil(256);
    let x = gpu
        .upload(&Tensor::<f64, DenseVec>::from_dense([n], &x_host).unwrap())
        .unwrap();
    let mut out: DeviceTensor<f64, DenseVec> = gpu.zeros([blocks]).unwrap();
    let args = [
        KernelArg::from(i32::try_from(n).unwrap()),
        x.values_array().into(),
        out.values_array_mut().into(),
    ];
    let shape = LaunchShape::linear(u32::try_from(blocks).unwrap(), 256);
    gpu.launch(BLOCK_SUM, "block_sum", shape, &args).unwrap();
    let expected: Vec<f64> = x_host.chunks(256).map(|c| c.iter().sum()).collect();
    assert_eq!(out.download().unwrap().to_dense(), expected);
}

const ATOMICS: &str = r#"
// Every thread adds (its global index + 1) into one cell of each type. A `long long` is added as
// NVRTC needs it spelled (CUDA has no `long long` atomicAdd): through `unsigned long long`, whose
// wrapping sum is the signed one. Valid CUDA: NVRTC compiles it (below).
extern "C" __global__ void add_all(int n, int *i32s, long long *i64s, unsigned long long *u64s, float *f32s, double *f64s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(&i32s[0], i + 1);
    atomicAdd((unsigned long long *)&i64s[0], (unsigned long long)((long long)(i + 1) * 1000000000LL));
    atomicAdd((unsigned long long *)&i64s[2], (unsigned long long)(-(long long)(i + 1)));
    atomicAdd(&u64s[0], (unsigned long long)(i + 1));
    atomicAdd(&f32s[0], 0.5f);
    atomicAdd(&f64s[0], (double)(i + 1));
    atomicMax(&i32s[1], i);
    atomicMin(&i64s[1], (long long)-i);
    atomicCAS(&i32s[2], 0, i + 1);
}
"#;

#[test]
fn atomic_adds_from_many_threads_are_exact() {
    let Some(gpu) = simulator("atomic_adds_from_many_threads_are_exact") else {
        return;
    };
    let n = 5000i64;
    let mut i32s: DeviceTensor<i32, DenseVec> = gpu.zeros([3]).unwrap();
    let mut i64s: DeviceTensor<i64, DenseVec> = gpu.zeros([3]).unwrap();
    let mut u64s: DeviceTensor<i64, DenseVec> = gpu.zeros([1]).unwrap();
    let mut f32s: DeviceTensor<f32, DenseVec> = gpu.zeros([1]).unwrap();
    let mut f64s: DeviceTensor<f64, DenseVec> = gpu.zeros([1]).unwrap();
    let args = [
        KernelArg::from(i32::try_from(n).unwrap()),
        i32s.values_array_mut().into(),
        i64s.values_array_mut().into(),
        u64s.values_array_mut().into(),
        f32s.values_array_mut().into(),
        f64s.values_array_mut().into(),
    ];
    let shape = LaunchShape::linear(LaunchShape::blocks_for(5000, 256), 256);
    gpu.launch(ATOMICS, "add_all", shape, &args).unwrap();
    let triangle = n * (n + 1) / 2;
    let ints = i32s.download().unwrap().to_dense();
    assert_eq!(ints[..2], [i32::try_from(triangle).unwrap(), 4999]);
    // Exactly one compare-and-swap won, whichever thread it was.
    assert!((1..=5000).contains(&ints[2]), "{}", ints[2]);
    assert_eq!(
        i64s.download().unwrap().to_dense(),
        vec![triangle * 1_000_000_000, -4999, -triangle]
    );
    assert_eq!(u64s.download().unwrap().to_dense(), vec![triangle]);
    assert_eq!(f32s.download().unwrap().to_dense(), vec![2500.0]);
    assert_eq!(f64s.download().unwrap().to_dense(), vec![triangle as f64]);
}

#[test]
fn a_compile_error_returns_the_compiler_log() {
    let Some(gpu) = simulator("a_compile_error_returns_the_compiler_log") else {
        return;
    };
    let broken = "extern \"C\" __global__ void k(float *y) {\n    y[0] = undefined_name;\n}\n";
    let mut y: DeviceTensor<f32, DenseVec> = gpu.zeros([1]).unwrap();
    let args = [KernelArg::from(y.values_array_mut())];
    match gpu.launch(broken, "k", LaunchShape::linear(1, 1), &args) {
        Err(GpuError::Nvrtc {
            program,
            status,
            log,
        }) => {
            assert_eq!(program, "kernel.cu");
            assert!(status.contains("C++ compiler"), "{status}");
            // The message names the identifier and the source's own line.
            assert!(log.contains("undefined_name"), "{log}");
            assert!(log.contains("kernel.cu:2"), "{log}");
        }
        other => panic!("a broken kernel gave {other:?}"),
    }
}

#[test]
fn a_grid_of_no_blocks_does_nothing() {
    let Some(gpu) = simulator("a_grid_of_no_blocks_does_nothing") else {
        return;
    };
    let y_host = Tensor::<f64, DenseVec>::from_dense([3], &[1.0, 2.0, 3.0]).unwrap();
    let mut y = gpu.upload(&y_host).unwrap();
    let source = r#"extern "C" __global__ void clear(double *y) { y[threadIdx.x] = -1.0; }"#;
    let args = [KernelArg::from(y.values_array_mut())];
    gpu.launch(source, "clear", LaunchShape::linear(0, 3), &args)
        .unwrap();
    let shape = LaunchShape {
        grid: [1, 0, 1],
        block: [3, 1, 1],
        shared_bytes: 0,
    };
    gpu.launch(source, "clear", shape, &args).unwrap();
    assert_eq!(y.download().unwrap().to_dense(), vec![1.0, 2.0, 3.0]);
    // The same kernel on one block does write: the launches above were skipped, not broken.
    let args = [KernelArg::from(y.values_array_mut())];
    gpu.launch(source, "clear", LaunchShape::linear(1, 3), &args)
        .unwrap();
    assert_eq!(y.download().unwrap().to_dense(), vec![-1.0; 3]);
}

#[test]
fn arguments_are_checked_against_the_kernel() {
    let Some(gpu) = simulator("arguments_are_checked_against_the_kernel") else {
        return;
    };
    let source = common::spmv_source::<f64>();
    let y: DeviceTensor<f64, DenseVec> = gpu.zeros([1]).unwrap();
    let args = [
        KernelArg::from(1i32),
        y.values_array().into(),
        y.values_array().into(),
        y.values_array().into(),
        y.values_array().into(),
        y.values_array().into(),
    ];
    let e = gpu
        .launch(&source, "spmv_csr", LaunchShape::linear(1, 1), &args[1..])
        .unwrap_err();
    assert!(e.to_string().contains("takes 6 parameters"), "{e}");
    let mut wrong = args;
    wrong[0] = KernelArg::from(1.0f64);
    let e = gpu
        .launch(&source, "spmv_csr", LaunchShape::linear(1, 1), &wrong)
        .unwrap_err();
    assert!(e.to_string().contains("parameter 0"), "{e}");
    let e = gpu
        .launch(&source, "missing", LaunchShape::linear(1, 1), &args)
        .unwrap_err();
    assert!(
        matches!(&e, GpuError::Driver { name, .. } if name == "CUDA_ERROR_NOT_FOUND"),
        "{e}"
    );
}

#[test]
fn a_barrier_that_cannot_be_reached_is_an_error() {
    let Some(gpu) = simulator("a_barrier_that_cannot_be_reached_is_an_error") else {
        return;
    };
    // Half the warp waits for the block, the other half for the whole warp.
    let source = r#"
extern "C" __global__ void split(int *y) {
    if (threadIdx.x < 16) __syncthreads(); else __syncwarp();
    y[threadIdx.x] = 1;
}
"#;
    let mut y: DeviceTensor<i32, DenseVec> = gpu.zeros([32]).unwrap();
    let args = [KernelArg::from(y.values_array_mut())];
    let e = gpu
        .launch(source, "split", LaunchShape::linear(1, 32), &args)
        .unwrap_err();
    assert!(e.to_string().contains("deadlock"), "{e}");
}

#[test]
fn shuffles_of_every_kind_and_a_ballot() {
    let Some(gpu) = simulator("shuffles_of_every_kind_and_a_ballot") else {
        return;
    };
    // Two warps; each lane records what the shuffles give it.
    let source = r#"
extern "C" __global__ void lanes(long long *out) {
    int t = threadIdx.x;
    int lane = t % 32;
    long long v = 100 * t;
    out[5 * t + 0] = __shfl_sync(0xffffffffu, v, 3);
    out[5 * t + 1] = __shfl_down_sync(0xffffffffu, v, 4);
    out[5 * t + 2] = __shfl_up_sync(0xffffffffu, v, 1);
    out[5 * t + 3] = (long long)__shfl_xor_sync(0xffffffffu, (double)v, 1);
    out[5 * t + 4] = __ballot_sync(0xffffffffu, lane % 2 == 0);
}
"#;
    let mut out: DeviceTensor<i64, DenseVec> = gpu.zeros([5 * 64]).unwrap();
    let args = [KernelArg::from(out.values_array_mut())];
    gpu.launch(source, "lanes", LaunchShape::linear(1, 64), &args)
        .unwrap();
    let out = out.download().unwrap().to_dense();
    for t in 0..64i64 {
        let (lane, base) = (t % 32, t - t % 32);
        let at = |k: i64| out[usize::try_from(5 * t + k).unwrap()];
        assert_eq!(at(0), 100 * (base + 3), "shfl t={t}");
        let down = if lane + 4 < 32 { t + 4 } else { t };
        assert_eq!(at(1), 100 * down, "shfl_down t={t}");
        let up = if lane >= 1 { t - 1 } else { t };
        assert_eq!(at(2), 100 * up, "shfl_up t={t}");
        assert_eq!(at(3), 100 * (t ^ 1), "shfl_xor t={t}");
        assert_eq!(at(4), 0x5555_5555, "ballot t={t}");
    }
}

#[test]
fn shared_memory_is_one_per_block_and_fresh_for_each() {
    let Some(gpu) = simulator("shared_memory_is_one_per_block_and_fresh_for_each") else {
        return;
    };
    // Thread 0 of each block records what it finds in shared memory, then every thread of the
    // block adds 1 to a shared counter; after the barrier, the last thread reads the count.
    // Reading shared memory before writing it is undefined on a device; the simulator promises
    // zeros (each block runs on a fresh OS thread).
    let source = r#"
extern "C" __global__ void count(int *seen, int *counts) {
    __shared__ int counter;
    __shared__ int leftover[4];
    if (threadIdx.x == 0) {
        seen[blockIdx.x] = counter + leftover[0] + leftover[3];
        leftover[0] = 7;
        leftover[3] = 9;
    }
    __syncthreads();
    atomicAdd(&counter, 1);
    __syncthreads();
    if (threadIdx.x == blockDim.x - 1) counts[blockIdx.x] = counter;
}
"#;
    let mut seen: DeviceTensor<i32, DenseVec> = gpu.zeros([6]).unwrap();
    let mut counts: DeviceTensor<i32, DenseVec> = gpu.zeros([6]).unwrap();
    let args = [
        KernelArg::from(seen.values_array_mut()),
        counts.values_array_mut().into(),
    ];
    gpu.launch(source, "count", LaunchShape::linear(6, 96), &args)
        .unwrap();
    assert_eq!(seen.download().unwrap().to_dense(), vec![0; 6]);
    assert_eq!(counts.download().unwrap().to_dense(), vec![96; 6]);
}

#[test]
fn the_simulator_also_takes_long_long_atomics() {
    let Some(gpu) = simulator("the_simulator_also_takes_long_long_atomics") else {
        return;
    };
    // The host spelling of an i64 atomic add (NVRTC would refuse it: see `add_all`).
    let source = r#"
extern "C" __global__ void sub(long long *y) { atomicAdd(&y[0], -3ll); atomicAdd(&y[1], 1ll << 40); }
"#;
    let mut y: DeviceTensor<i64, DenseVec> = gpu.zeros([2]).unwrap();
    let args = [KernelArg::from(y.values_array_mut())];
    gpu.launch(source, "sub", LaunchShape::linear(3, 100), &args)
        .unwrap();
    assert_eq!(y.download().unwrap().to_dense(), vec![-900, 300i64 << 40]);
}

#[test]
fn the_kernels_run_here_are_cuda_that_nvrtc_compiles() {
    let sources = [
        ("spmv_warp f64", warp_spmv_source::<f64>()),
        ("spmv_warp i64", warp_spmv_source::<i64>()),
        ("block_sum", BLOCK_SUM.to_string()),
        ("add_all", ATOMICS.to_string()),
    ];
    for (name, source) in sources {
        match sparse_gpu::compile_ptx(&source, name, "sm_90") {
            Ok(ptx) => assert!(ptx.contains(".entry"), "{name}"),
            Err(e) if e.is_unavailable() => {
                common::skip_nvrtc("the_kernels_run_here_are_cuda_that_nvrtc_compiles", &e);
                return;
            }
            Err(e) => panic!("{name}: {e}"),
        }
    }
}

#[test]
fn simulators_share_host_memory_and_say_what_they_are() {
    let Some(a) = simulator("simulators_share_host_memory_and_say_what_they_are") else {
        return;
    };
    let b = Gpu::simulator().unwrap();
    assert!(a.same_device(&b));
    assert_eq!(a.name(), "host simulator");
    assert!(format!("{a:?}").contains("simulator: true"), "{a:?}");
    let x = a
        .upload(&Tensor::<f32, DenseVec>::from_dense([2], &[1.5, -2.0]).unwrap())
        .unwrap();
    x.check_device(&b).unwrap();
    let zeros: DeviceTensor<i64, DenseVec> = b.zeros_like(&x).unwrap();
    assert_eq!(zeros.download().unwrap().to_dense(), vec![0, 0]);
    assert_eq!(x.download().unwrap().to_dense(), vec![1.5, -2.0]);
    // Without SPARSE_REQUIRE_GPU, the test GPU is the device or else the simulator.
    if !sparse_gpu::gpu_required() {
        let gpu = Gpu::for_tests().unwrap();
        assert_eq!(gpu.is_simulator(), Gpu::new(0).is_err());
    }
}

/// `Gpu::time` runs what it is given once and reports a duration.
#[test]
fn time_runs_the_work_once_and_reports_a_duration() {
    let Some(gpu) = simulator("time_runs_the_work_once_and_reports_a_duration") else {
        return;
    };
    let mut runs = 0;
    let seconds = gpu
        .time(|| {
            runs += 1;
            Ok(())
        })
        .unwrap();
    assert_eq!(runs, 1);
    assert!(seconds >= 0.0 && seconds.is_finite(), "{seconds}");
    let failed = gpu.time(|| Err(GpuError::Invalid("broken".into())));
    assert_eq!(failed, Err(GpuError::Invalid("broken".into())));
}
