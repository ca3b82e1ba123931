//! GPU kernels from `tensor_kernel!` with the GPU schedules of Senanayake et al.'s evaluation:
//! each one's CUDA source compiles through NVRTC for every value type, and each one runs against
//! a dense reference on the inputs every kernel must handle (empty, empty rows, a single entry,
//! duplicates): on a device where one is usable, else on the host simulator of `sparse::gpu`
//! (the same CUDA source compiled as C++), so CI runs them without a GPU. `SPARSE_REQUIRE_GPU`
//! makes a missing device a failure; without NVRTC or a C++ compiler the checks that need them
//! are skipped, unless `SPARSE_REQUIRE_NVRTC` or `SPARSE_REQUIRE_SIMULATOR` (both set by CI) ask
//! for a failure.

mod common;
mod gpu_schedules;

use common::cases;
use gpu_schedules::*;
use sparse::gpu::{DeviceTensor, Gpu, GpuError};
use sparse::prelude::*;

tensor_kernel! {
    /// The CG update `p = r + beta p` on the GPU: `beta` by value, `p` read where it is written.
    fn cg_p_gpu(p, r, beta);
    p(i) = r(i) + beta * p(i);
    scalars<beta>;
    schedule<split(i, block, thread, Down, 256)
        .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces)>;
}

tensor_kernel! {
    /// A warp per row, each of its 32 lanes a coordinate tile of the row's columns: every lane
    /// finds where its tile starts by a binary search in the row (`binarySearchAfter`).
    fn spmv_warp_tiles;
    y(i) = A(i,j) * x(j);
    formats<A: csr>;
    schedule<split(i, block, warp, Down, 8).split(j, lane, tile, Up, 32)
        .parallelize(block, GpuBlock, NoRaces).parallelize(warp, GpuWarp, NoRaces)
        .parallelize(lane, GpuThread, ParallelReduction)>;
}

tensor_kernel! {
    /// Min-plus SpMV, one thread per row.
    fn minplus_thread;
    y(i) = A(i,j) + x(j);
    formats<A: csr>;
    fills<A: inf, x: inf, y: inf>;
    reduce<j: min>;
    schedule<split(i, block, thread, Down, 256)
        .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces)>;
}

tensor_kernel! {
    /// Max-plus SpMV, one warp per row, the lanes' maxima combined by shuffles.
    fn maxplus_warp;
    y(i) = A(i,j) + x(j);
    formats<A: csr>;
    fills<A: -inf, x: -inf, y: -inf>;
    reduce<j: max>;
    schedule<split(i, block, block_row, Down, 256).split(block_row, warp_row, warp, Down, 8)
        .pos(j, jpos, A(i,j)).split(jpos, thread_nz, thread, Down, 32)
        .reorder(block, warp, warp_row, thread, thread_nz)
        .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
        .parallelize(thread, GpuThread, Temporary)>;
}

tensor_kernel! {
    /// Min-plus SpMV over nonzeros, segments combined by compare-and-swap.
    fn minplus_pos;
    y(i) = A(i,j) + x(j);
    formats<A: csr>;
    fills<A: inf, x: inf, y: inf>;
    reduce<j: min>;
    schedule<collapse(i, j, f).pos(f, fpos, A(i,j))
        .split(fpos, block, fpos1, Down, 3584).split(fpos1, warp, fpos2, Down, 224)
        .split(fpos2, thread, thread_nz, Down, 7).reorder(block, warp, thread, thread_nz)
        .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
        .parallelize(thread, GpuThread, Atomics)>;
}

tensor_kernel! {
    /// An or-and step, one thread per row.
    fn or_and_thread;
    y(i) = A(i,j) && x(j);
    formats<A: csr>;
    reduce<j: ||>;
    schedule<split(i, block, thread, Down, 256)
        .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces)>;
}

const SOURCES: [(&str, &str); 15] = [
    ("spmv_warp_tiles", SPMV_WARP_TILES_CUDA),
    ("minplus_thread", MINPLUS_THREAD_CUDA),
    ("maxplus_warp", MAXPLUS_WARP_CUDA),
    ("minplus_pos", MINPLUS_POS_CUDA),
    ("or_and_thread", OR_AND_THREAD_CUDA),
    ("cg_p_gpu", CG_P_GPU_CUDA),
    ("spmv_thread", SPMV_THREAD_CUDA),
    ("spmv_warp", SPMV_WARP_CUDA),
    ("spmv_pos", SPMV_POS_CUDA),
    ("spmv_pos_pre", SPMV_POS_PRE_CUDA),
    ("spmm", SPMM_CUDA),
    ("sddmm", SDDMM_CUDA),
    ("spmspv", SPMSPV_CUDA),
    ("ttv", TTV_CUDA),
    ("mttkrp", MTTKRP_CUDA),
];

fn required(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| !v.is_empty() && v != "0")
}

#[test]
fn every_kernel_compiles_through_nvrtc_for_every_value_type() {
    for (name, source) in SOURCES {
        let types = ["double", "float", "int", "long long"];
        let indices = ["unsigned int", "unsigned long long"];
        for (ty, index) in types.into_iter().flat_map(|t| indices.map(|i| (t, i))) {
            let text = format!("typedef {ty} T;\ntypedef {index} idx_t;\n{source}");
            match sparse::gpu::compile_ptx(&text, name, "sm_90") {
                Ok(ptx) => assert!(
                    ptx.contains(name),
                    "{name} ({ty}, {index}): no entry in the PTX"
                ),
                Err(e) if e.is_unavailable() && !required("SPARSE_REQUIRE_NVRTC") => {
                    eprintln!("skipped: {e}");
                    return;
                }
                Err(e) => panic!("{name} ({ty}, {index}): {e}\n{text}"),
            }
        }
    }
}

/// What the kernels run on: the device, else the simulator; `None` (after saying why) when
/// neither is usable and none is required.
fn device() -> Option<Gpu> {
    match Gpu::for_tests() {
        Ok(gpu) => Some(gpu),
        Err(e)
            if e.is_unavailable()
                && !required("SPARSE_REQUIRE_SIMULATOR")
                && !required("SPARSE_REQUIRE_GPU") =>
        {
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("no device and no simulator: {e}"),
    }
}

fn spmv_reference(m: usize, n: usize, entries: &[([usize; 2], f64)], x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; m];
    for &([i, j], v) in entries {
        assert!(j < n);
        y[i] += v * x[j];
    }
    y
}

type DeviceSpmv<T> = fn(
    &mut DeviceTensor<T, DenseVec>,
    &DeviceTensor<T, Csr>,
    &DeviceTensor<T, DenseVec>,
) -> Result<(), GpuError>;

/// Runs `kernel` on every case of an `m` x `n` matrix, in f64 and i64 (exact sums).
/// The kernels of one schedule, in three value types.
struct Spmvs {
    name: &'static str,
    f64: DeviceSpmv<f64>,
    f32: DeviceSpmv<f32>,
    i64: DeviceSpmv<i64>,
}

/// Every case of `cases`, plus one huge row (every column of row 1 of 3 stored), on sizes no split
/// factor divides; f64 and f32 against the dense reference, i64 exactly.
fn check_spmv(gpu: &Gpu, kernels: &Spmvs) {
    let (name, f64_kernel, i64_kernel) = (kernels.name, kernels.f64, kernels.i64);
    for (m, n) in [(0, 0), (1, 1), (7, 5), (300, 40), (200, 700), (3, 5000)] {
        let mut all = cases([m, n], (m * 31 + n) as u64);
        if m == 3 {
            all.push((0..n).map(|j| ([1, j], (j % 5) as f64 - 2.0)).collect());
        }
        for (case, entries) in all.into_iter().enumerate() {
            let x: Vec<f64> = (0..n).map(|j| (j % 7) as f64 - 3.0).collect();
            let expected = spmv_reference(m, n, &entries, &x);
            let a = Tensor::<f64, Csr>::from_entries([m, n], entries.clone()).unwrap();
            let xs = Tensor::from_dense([n], &x).unwrap();
            let mut y = gpu.zeros::<f64, DenseVec>([m]).unwrap();
            f64_kernel(&mut y, &gpu.upload(&a).unwrap(), &gpu.upload(&xs).unwrap()).unwrap();
            let found = y.download().unwrap().to_dense();
            for (k, (f, e)) in found.iter().zip(&expected).enumerate() {
                assert!(
                    (f - e).abs() < 1e-9,
                    "{name} {m}x{n} case {case} y[{k}]: {f} != {e}"
                );
            }
            let a32 = Tensor::<f32, Csr>::from_entries(
                [m, n],
                entries.iter().map(|&(c, v)| (c, v as f32)),
            )
            .unwrap();
            let x32 =
                Tensor::from_dense([n], &x.iter().map(|&v| v as f32).collect::<Vec<_>>()).unwrap();
            let mut y32 = gpu.zeros::<f32, DenseVec>([m]).unwrap();
            (kernels.f32)(
                &mut y32,
                &gpu.upload(&a32).unwrap(),
                &gpu.upload(&x32).unwrap(),
            )
            .unwrap();
            for (k, (f, e)) in y32
                .download()
                .unwrap()
                .to_dense()
                .iter()
                .zip(&expected)
                .enumerate()
            {
                let tolerance = 1e-4 * (1.0 + e.abs());
                assert!(
                    (f64::from(*f) - e).abs() < tolerance,
                    "{name} (f32) {m}x{n} case {case} y[{k}]: {f} != {e}"
                );
            }
            let ai = Tensor::<i64, Csr>::from_entries(
                [m, n],
                entries.iter().map(|&(c, v)| (c, (v * 16.0) as i64)),
            )
            .unwrap();
            let xi =
                Tensor::from_dense([n], &x.iter().map(|&v| v as i64).collect::<Vec<_>>()).unwrap();
            let mut yi = gpu.zeros::<i64, DenseVec>([m]).unwrap();
            i64_kernel(
                &mut yi,
                &gpu.upload(&ai).unwrap(),
                &gpu.upload(&xi).unwrap(),
            )
            .unwrap();
            let found: Vec<i64> = yi.download().unwrap().to_dense();
            let expected: Vec<i64> = expected
                .iter()
                .map(|&e| (e * 16.0).round() as i64)
                .collect();
            assert_eq!(found, expected, "{name} (i64) {m}x{n} case {case}");
        }
    }
}

#[test]
fn spmv_schedules_match_a_dense_reference_on_the_device() {
    let Some(gpu) = device() else { return };
    check_spmv(
        &gpu,
        &Spmvs {
            name: "spmv_thread",
            f64: spmv_thread::<f64>,
            f32: spmv_thread::<f32>,
            i64: spmv_thread::<i64>,
        },
    );
    check_spmv(
        &gpu,
        &Spmvs {
            name: "spmv_warp",
            f64: spmv_warp::<f64>,
            f32: spmv_warp::<f32>,
            i64: spmv_warp::<i64>,
        },
    );
    check_spmv(
        &gpu,
        &Spmvs {
            name: "spmv_warp_tiles",
            f64: spmv_warp_tiles::<f64>,
            f32: spmv_warp_tiles::<f32>,
            i64: spmv_warp_tiles::<i64>,
        },
    );
    check_spmv(
        &gpu,
        &Spmvs {
            name: "spmv_pos",
            f64: spmv_pos::<f64>,
            f32: spmv_pos::<f32>,
            i64: spmv_pos::<i64>,
        },
    );
    check_spmv(
        &gpu,
        &Spmvs {
            name: "spmv_pos_pre",
            f64: spmv_pos_pre::<f64>,
            f32: spmv_pos_pre::<f32>,
            i64: spmv_pos_pre::<i64>,
        },
    );
}

#[test]
fn spmm_matches_a_dense_reference_on_the_device() {
    let Some(gpu) = device() else { return };
    for (m, n, k) in [(0, 0, 0), (1, 1, 1), (9, 7, 5), (200, 64, 70)] {
        for (case, entries) in cases([m, n], (m + n + k) as u64).into_iter().enumerate() {
            let b: Vec<f64> = (0..n * k).map(|p| (p % 5) as f64 - 2.0).collect();
            let mut expected = vec![0.0; m * k];
            for &([i, j], v) in &entries {
                for c in 0..k {
                    expected[c * m + i] += v * b[j * k + c];
                }
            }
            let a = Tensor::<f64, Csr>::from_entries([m, n], entries.clone()).unwrap();
            let bt = Tensor::<f64, DenseMat>::from_dense([n, k], &b).unwrap();
            let mut c = gpu.zeros([m, k]).unwrap();
            spmm(&mut c, &gpu.upload(&a).unwrap(), &gpu.upload(&bt).unwrap()).unwrap();
            let found: Tensor<f64, _> = c.download().unwrap();
            let found = found.to_dense();
            // to_dense is row-major whatever the storage order.
            for i in 0..m {
                for col in 0..k {
                    let (f, e) = (found[i * k + col], expected[col * m + i]);
                    assert!(
                        (f - e).abs() < 1e-9,
                        "spmm {m}x{n}x{k} case {case} C[{i},{col}]"
                    );
                }
            }
        }
    }
}

/// SDDMM's output takes B's structure on the device. The schedule's `bound(.., 4, MaxExact)`
/// promises 4 tiles of 32 over the dense index (97 to 128 wide); another width is the bound's
/// run-time error.
#[test]
fn sddmm_matches_a_dense_reference_on_the_device() {
    let Some(gpu) = device() else { return };
    for (m, n, k) in [(0, 0, 128), (1, 1, 100), (9, 7, 97), (120, 90, 128)] {
        for (case, entries) in cases([m, n], (m * n + k) as u64).into_iter().enumerate() {
            let c: Vec<f64> = (0..m * k).map(|p| (p % 7) as f64 - 3.0).collect();
            let d: Vec<f64> = (0..k * n).map(|p| (p % 5) as f64 - 2.0).collect();
            let b = Tensor::<f64, Csr>::from_entries([m, n], entries.clone()).unwrap();
            let dense = b.to_dense();
            let mut expected = vec![0.0; m * n];
            for i in 0..m {
                for col in 0..n {
                    let dot: f64 = (0..k).map(|j| c[i * k + j] * d[j * n + col]).sum();
                    expected[i * n + col] = dense[i * n + col] * dot;
                }
            }
            let ct = Tensor::<f64, DenseMat>::from_dense([m, k], &c).unwrap();
            let dt = Tensor::from_dense([k, n], &d).unwrap();
            let mut a = gpu.zeros([m, n]).unwrap();
            let (b, ct, dt) = (
                gpu.upload(&b).unwrap(),
                gpu.upload(&ct).unwrap(),
                gpu.upload(&dt).unwrap(),
            );
            sddmm(&mut a, &b, &ct, &dt).unwrap();
            let found: Tensor<f64, Csr> = a.download().unwrap();
            for (p, (f, e)) in found.to_dense().iter().zip(&expected).enumerate() {
                assert!(
                    (f - e).abs() < 1e-9,
                    "sddmm {m}x{n}x{k} case {case} at {p}: {f} != {e}"
                );
            }
        }
    }
    let b = gpu
        .upload(&Tensor::<f64, Csr>::from_entries([2, 2], [([0, 0], 1.0)]).unwrap())
        .unwrap();
    let c = gpu
        .upload(&Tensor::<f64, DenseMat>::zeros([2, 129]))
        .unwrap();
    let d = gpu.upload(&Tensor::zeros([129, 2])).unwrap();
    let mut a = gpu.zeros([2, 2]).unwrap();
    let error = sddmm(&mut a, &b, &c, &d).unwrap_err();
    assert!(error.to_string().contains("dense_val_unbounded"), "{error}");
}

/// SpMSpV: the grid has a block per 512 stored entries of `x`, read back from the device.
#[test]
fn spmspv_matches_a_dense_reference_on_the_device() {
    let Some(gpu) = device() else { return };
    for (m, n) in [(0, 0), (1, 1), (7, 5), (40, 1100)] {
        for (case, entries) in cases([m, n], (m * 7 + n) as u64).into_iter().enumerate() {
            // Every third coordinate of x stored, so some columns of A are skipped.
            let x: Vec<([usize; 1], f64)> = (0..n)
                .step_by(3)
                .map(|j| ([j], (j % 5) as f64 - 2.0))
                .collect();
            let mut dense_x = vec![0.0; n];
            for &([j], v) in &x {
                dense_x[j] = v;
            }
            let expected = spmv_reference(m, n, &entries, &dense_x);
            let a = Tensor::<f64, Csc>::from_entries([m, n], entries.clone()).unwrap();
            let xs = Tensor::<f64, SparseVec>::from_entries([n], x).unwrap();
            let mut y = gpu.zeros::<f64, DenseVec>([m]).unwrap();
            spmspv(&mut y, &gpu.upload(&a).unwrap(), &gpu.upload(&xs).unwrap()).unwrap();
            let found = y.download().unwrap().to_dense();
            for (k, (f, e)) in found.iter().zip(&expected).enumerate() {
                assert!(
                    (f - e).abs() < 1e-9,
                    "spmspv {m}x{n} case {case} y[{k}]: {f} != {e}"
                );
            }
        }
    }
}

#[test]
fn shapes_that_disagree_are_an_error_not_a_launch() {
    let Some(gpu) = device() else { return };
    let a = gpu
        .upload(&Tensor::<f64, Csr>::from_entries([3, 4], [([0, 1], 1.0)]).unwrap())
        .unwrap();
    let x = gpu
        .upload(&Tensor::from_dense([5], &[1.0; 5]).unwrap())
        .unwrap();
    let mut y = gpu.zeros::<f64, DenseVec>([3]).unwrap();
    let error = spmv_warp(&mut y, &a, &x).unwrap_err();
    assert!(error.to_string().contains("`j`"), "{error}");
}

tensor_kernel! {
    /// TTV on the CPU, unscheduled: the twin the GPU kernel is checked against.
    fn ttv_cpu;
    A(i,j) = B(i,j,k) * c(k);
    formats<A: (dense, compressed), B: (dense, compressed, compressed)>;
}

tensor_kernel! {
    /// MTTKRP on the CPU, unscheduled.
    fn mttkrp_cpu;
    A(i,j) = B(i,k,l) * C(k,j) * D(l,j);
    formats<B: csf>;
}

/// The usual cases of a 3-tensor, plus one whose nonzeros all sit in one slice of the first
/// dimension (one huge row for the position splits).
fn tensor_cases(shape: [usize; 3], seed: u64) -> Vec<Vec<([usize; 3], f64)>> {
    let mut all = cases(shape, seed);
    let n = shape.iter().product::<usize>() / 2;
    all.push(
        (0..n)
            .map(|p| {
                (
                    [shape[0] / 2, p % shape[1], (p * 7) % shape[2]],
                    (p % 9) as f64 - 4.0,
                )
            })
            .collect(),
    );
    all
}

/// Whether `found` agrees with `expected` to the precision of `T`.
fn agrees<T: Scalar>(found: &[T], expected: &[f64]) -> bool {
    let tolerance = if T::IS_INTEGER || size_of::<T>() == 8 {
        1e-9
    } else {
        1e-4
    };
    found.len() == expected.len()
        && (found.iter().zip(expected))
            .all(|(f, e)| (f.to_f64() - e).abs() <= tolerance * e.abs().max(1.0))
}

/// TTV into an output with B's structure: `i` and `j` of each nonzero are recovered on the device
/// by walking B's two upper levels of segments. f32 and f64, against the dense reference and the
/// CPU kernel, on sizes that no split factor (2048, 128, 4) divides.
#[test]
fn ttv_matches_a_dense_reference_on_the_device() {
    let Some(gpu) = device() else { return };
    check_ttv::<f64>(&gpu);
    check_ttv::<f32>(&gpu);
}

fn check_ttv<T: sparse::gpu::GpuScalar>(gpu: &Gpu) {
    for (m, n, q) in [(0, 0, 0), (1, 1, 1), (9, 4, 7), (60, 20, 30), (3, 40, 50)] {
        let c: Vec<f64> = (0..q).map(|k| (k % 5) as f64 - 2.0).collect();
        let ct = Tensor::<T, DenseVec>::from_dense([q], &convert(&c)).unwrap();
        for (case, entries) in tensor_cases([m, n, q], (m + n + q) as u64)
            .into_iter()
            .enumerate()
        {
            let mut expected = vec![0.0; m * n];
            for &([i, j, k], v) in &entries {
                expected[i * n + j] += v * c[k];
            }
            let typed = entries.iter().map(|&(c, v)| (c, T::from_f64(v)));
            let b = Tensor::<T, Ttv3>::from_entries([m, n, q], typed).unwrap();
            let mut on_cpu = Tensor::<T, Ttv2>::zeros([m, n]);
            ttv_cpu(&mut on_cpu, &b, &ct).unwrap();
            let mut a = gpu.zeros([m, n]).unwrap();
            ttv(&mut a, &gpu.upload(&b).unwrap(), &gpu.upload(&ct).unwrap()).unwrap();
            let found: Tensor<T, Ttv2> = a.download().unwrap();
            let what = format!("ttv {} {m}x{n}x{q} case {case}", T::CUDA_TYPE);
            assert!(
                agrees(&found.to_dense(), &expected),
                "{what}: against the dense reference"
            );
            let cpu: Vec<f64> = on_cpu.to_dense().iter().map(|v| v.to_f64()).collect();
            assert!(
                agrees(&found.to_dense(), &cpu),
                "{what}: against the CPU kernel"
            );
        }
    }
}

fn convert<T: Scalar>(values: &[f64]) -> Vec<T> {
    values.iter().map(|&v| T::from_f64(v)).collect()
}

type Ttv3 = sparse::Custom<
    {
        sparse::encode_levels(&[
            sparse::LevelSpec::dense(0),
            sparse::LevelSpec::compressed(1),
            sparse::LevelSpec::compressed(2),
        ])
    },
>;
type Ttv2 = sparse::Custom<
    {
        sparse::encode_levels(&[
            sparse::LevelSpec::dense(0),
            sparse::LevelSpec::compressed(1),
        ])
    },
>;

/// MTTKRP over a CSF tensor: `i` and `k` of each nonzero recovered on the device; the factors'
/// 32 columns are the schedule's bound (another width is its run-time error). f32 and f64,
/// against the dense reference and the CPU kernel.
#[test]
fn mttkrp_matches_a_dense_reference_on_the_device() {
    let Some(gpu) = device() else { return };
    check_mttkrp::<f64>(&gpu);
    check_mttkrp::<f32>(&gpu);
    let b = Tensor::<f64, Csf<3>>::from_entries([2, 2, 2], [([0, 1, 1], 1.0)]).unwrap();
    let (c, d) = (
        Tensor::<f64, DenseMat>::zeros([2, 33]),
        Tensor::zeros([2, 33]),
    );
    let mut a = gpu.zeros([2, 33]).unwrap();
    let (b, c, d) = (
        gpu.upload(&b).unwrap(),
        gpu.upload(&c).unwrap(),
        gpu.upload(&d).unwrap(),
    );
    let error = mttkrp(&mut a, &b, &c, &d).unwrap_err();
    assert!(error.to_string().contains("dense_val_unbounded"), "{error}");
}

fn check_mttkrp<T: sparse::gpu::GpuScalar>(gpu: &Gpu) {
    let r = 32;
    for (m, p, q) in [(0, 0, 0), (1, 1, 1), (9, 4, 7), (50, 12, 10), (3, 30, 20)] {
        let c: Vec<f64> = (0..p * r).map(|x| (x % 7) as f64 - 3.0).collect();
        let d: Vec<f64> = (0..q * r).map(|x| (x % 5) as f64 - 2.0).collect();
        let ct = Tensor::<T, DenseMat>::from_dense([p, r], &convert(&c)).unwrap();
        let dt = Tensor::<T, DenseMat>::from_dense([q, r], &convert(&d)).unwrap();
        for (case, entries) in tensor_cases([m, p, q], (m * p + q) as u64)
            .into_iter()
            .enumerate()
        {
            let mut expected = vec![0.0; m * r];
            for &([i, k, l], v) in &entries {
                for j in 0..r {
                    expected[i * r + j] += v * c[k * r + j] * d[l * r + j];
                }
            }
            let typed = entries.iter().map(|&(c, v)| (c, T::from_f64(v)));
            let b = Tensor::<T, Csf<3>>::from_entries([m, p, q], typed).unwrap();
            let mut on_cpu = Tensor::<T, DenseMat>::zeros([m, r]);
            mttkrp_cpu(&mut on_cpu, &b, &ct, &dt).unwrap();
            let mut a = gpu.zeros([m, r]).unwrap();
            let (b, c, d) = (
                gpu.upload(&b).unwrap(),
                gpu.upload(&ct).unwrap(),
                gpu.upload(&dt).unwrap(),
            );
            mttkrp(&mut a, &b, &c, &d).unwrap();
            let found: Tensor<T, DenseMat> = a.download().unwrap();
            let what = format!("mttkrp {} {m}x{p}x{q} case {case}", T::CUDA_TYPE);
            assert!(
                agrees(&found.to_dense(), &expected),
                "{what}: against the dense reference"
            );
            let cpu: Vec<f64> = on_cpu.to_dense().iter().map(|v| v.to_f64()).collect();
            assert!(
                agrees(&found.to_dense(), &cpu),
                "{what}: against the CPU kernel"
            );
        }
    }
}

#[test]
fn a_scalar_input_is_passed_by_value_and_the_output_read_in_place() {
    let Some(gpu) = device() else { return };
    for n in [0, 1, 300] {
        let p: Vec<f64> = (0..n).map(|k| (k % 7) as f64 - 3.0).collect();
        let r: Vec<f64> = (0..n).map(|k| (k % 5) as f64 * 0.5).collect();
        let mut dp = gpu
            .upload(&Tensor::<f64, DenseVec>::from_dense([n], &p).unwrap())
            .unwrap();
        let dr = gpu
            .upload(&Tensor::<f64, DenseVec>::from_dense([n], &r).unwrap())
            .unwrap();
        cg_p_gpu(&mut dp, &dr, -1.5).unwrap();
        let want: Vec<f64> = (0..n).map(|k| r[k] - 1.5 * p[k]).collect();
        assert_eq!(dp.download().unwrap().to_dense(), want, "n = {n}");
        let pi: Vec<i32> = (0..n as i32).map(|k| k % 9 - 4).collect();
        let ri: Vec<i32> = (0..n as i32).map(|k| k % 4).collect();
        let mut dp = gpu
            .upload(&Tensor::<i32, DenseVec>::from_dense([n], &pi).unwrap())
            .unwrap();
        let dr = gpu
            .upload(&Tensor::<i32, DenseVec>::from_dense([n], &ri).unwrap())
            .unwrap();
        cg_p_gpu(&mut dp, &dr, 3).unwrap();
        let want: Vec<i32> = (0..n).map(|k| ri[k] + 3 * pi[k]).collect();
        assert_eq!(dp.download().unwrap().to_dense(), want, "n = {n} (i32)");
    }
}

type DeviceSemiring = fn(
    &mut DeviceTensor<f64, DenseVec>,
    &DeviceTensor<f64, Csr>,
    &DeviceTensor<f64, DenseVec>,
) -> Result<(), GpuError>;

/// `y(i) = reduce_j term(A(i,j), x(j))` on the device against a dense evaluation: each absent
/// element at the fill, an absent operand whose fill absorbs the term giving the absorbed value,
/// the reduction folded from its identity.
fn check_semiring(
    gpu: &Gpu,
    name: &str,
    kernel: DeviceSemiring,
    fill: f64,
    term: fn(Option<f64>, Option<f64>) -> f64,
    reduce: fn(f64, f64) -> f64,
    identity: f64,
) {
    for (m, n) in [(0, 0), (1, 1), (7, 5), (300, 40), (3, 5000)] {
        for (case, entries) in cases([m, n], (m * 7 + n) as u64).into_iter().enumerate() {
            let a =
                Tensor::<f64, Csr>::from_entries_with_fill([m, n], entries.clone(), fill).unwrap();
            let xe: Vec<([usize; 1], f64)> = (0..n)
                .filter(|j| j % 3 != 2)
                .map(|j| ([j], (j % 7) as f64 - 3.0))
                .collect();
            let x = Tensor::<f64, DenseVec>::from_entries_with_fill([n], xe, fill).unwrap();
            let (ad, xd) = (a.to_dense(), x.to_dense());
            let present = |v: f64| (v != fill).then_some(v);
            let expected: Vec<f64> = (0..m)
                .map(|i| {
                    (0..n).fold(identity, |acc, j| {
                        let a_ij = a
                            .get(&[i, j])
                            .and_then(present)
                            .filter(|_| ad[i * n + j] != fill);
                        // x is dense: it stores its fill, and the kernel computes with it.
                        reduce(acc, term(a_ij, Some(xd[j])))
                    })
                })
                .collect();
            let mut y = gpu.zeros::<f64, DenseVec>([m]).unwrap();
            kernel(&mut y, &gpu.upload(&a).unwrap(), &gpu.upload(&x).unwrap()).unwrap();
            let found = y.download().unwrap().to_dense();
            assert_eq!(found, expected, "{name} {m}x{n} case {case}");
        }
    }
}

#[test]
fn semiring_reductions_match_a_dense_reference_on_the_device() {
    let Some(gpu) = device() else { return };
    let min = |acc: f64, v: f64| if v < acc { v } else { acc };
    let max = |acc: f64, v: f64| if v > acc { v } else { acc };
    let inf = f64::INFINITY;
    let min_plus: fn(Option<f64>, Option<f64>) -> f64 = |a, x| match (a, x) {
        (Some(a), Some(x)) => a + x,
        _ => f64::INFINITY,
    };
    let max_plus: fn(Option<f64>, Option<f64>) -> f64 = |a, x| match (a, x) {
        (Some(a), Some(x)) => a + x,
        _ => f64::NEG_INFINITY,
    };
    check_semiring(
        &gpu,
        "minplus_thread",
        minplus_thread,
        inf,
        min_plus,
        min,
        inf,
    );
    check_semiring(&gpu, "minplus_pos", minplus_pos, inf, min_plus, min, inf);
    check_semiring(
        &gpu,
        "maxplus_warp",
        maxplus_warp,
        -inf,
        max_plus,
        max,
        -inf,
    );
    let and: fn(Option<f64>, Option<f64>) -> f64 =
        |a, x| f64::from(u8::from(a.unwrap_or(0.0) != 0.0 && x.unwrap_or(0.0) != 0.0));
    let or = |acc: f64, v: f64| f64::from(u8::from(acc != 0.0 || v != 0.0));
    check_semiring(&gpu, "or_and_thread", or_and_thread, 0.0, and, or, 0.0);
}
