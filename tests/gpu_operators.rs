//! GPU kernels whose statements call intrinsics, compare, cast, take remainders and call user
//! operators (`ops<...>`, inlined as selects over their operands' presence): their CUDA
//! source compiles through NVRTC for every value type, and they run, on a device where one is
//! usable, else on the host simulator of `sparse::gpu` (the same source compiled as C++), against
//! the same expression evaluated on the host. Skipped as `tests/gpu_kernels.rs` skips.

mod common;

use common::cases;
use sparse::gpu::{Gpu, GpuError};
use sparse::prelude::*;

tensor_kernel! {
    /// One thread per row; every term is zero where `A` stores nothing, so the rows' entries suffice.
    pub fn rows;
    y(i) = square(A(i,j)) * heaviside(x(j), 1) + (A(i,j) > 0) * (x(j) % 2)
        - abs(A(i,j)) as i32 * atan2(A(i,j), x(j)) + sqrt(abs(A(i,j))) * exp(x(j))
        + pow(A(i,j), 3) * (x(j) != 0 || !(A(i,j) < 1));
    formats<A: csr>;
    schedule<split(i, block, thread, Down, 256)
        .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces)>;
}

tensor_kernel! {
    /// One thread per element of dense vectors, through functions nonzero at zero.
    pub fn elements;
    y(i) = cos(x(i)) + max(x(i), 0.5) * log(abs(x(i)) + 1) - cube(x(i) as f32) + cbrt(x(i));
    schedule<split(i, block, thread, Down, 128)
        .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces)>;
}

tensor_kernel! {
    /// A user operator per row, one thread per row.
    pub fn user_rows;
    y(i) = f(A(i,j), x(j));
    formats<A: csr>;
    ops< f(a, v) = a * v + a over a when a & !v => 2 * a - 1; >;
    schedule<split(i, block, thread, Down, 256)
        .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces)>;
}

tensor_kernel! {
    /// A user operator per row, one warp per row, its lanes' partial sums combined by shuffles.
    pub fn user_warp;
    y(i) = f(A(i,j), x(j));
    formats<A: csr>;
    ops< f(a, v) = a * v + a over a when a & !v => 2 * a - 1; >;
    schedule<split(i, block, block_row, Down, 256).split(block_row, warp_row, warp, Down, 8)
        .pos(j, jpos, A).split(jpos, thread_nz, thread, Down, 32)
        .reorder(block, warp, warp_row, thread, thread_nz)
        .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
        .parallelize(thread, GpuThread, ParallelReduction)>;
}

/// The user operator of `user_rows` and `user_warp`, applied by hand: an operand is present
/// where it is not zero (its fill).
fn user_term(a: f64, x: f64) -> f64 {
    match (a != 0.0, x != 0.0) {
        (true, false) => 2.0 * a - 1.0,
        (true, true) => a * x + a,
        (false, _) => 0.0,
    }
}

fn required(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| !v.is_empty() && v != "0")
}

fn rows_term(a: f64, x: f64) -> f64 {
    // heaviside(x, 1): 1 at zero and above.
    let step = if x >= 0.0 { 1.0 } else { 0.0 };
    let truth = |c: bool| if c { 1.0 } else { 0.0 };
    a * a * step + truth(a > 0.0) * (x % 2.0) - ((a.abs() as i32) as f64) * a.atan2(x)
        + a.abs().sqrt() * x.exp()
        + a.powf(3.0) * truth(x != 0.0 || a >= 1.0)
}

fn elements_value(x: f64) -> f64 {
    let cube = f64::from(x as f32).powi(3);
    x.cos() + x.max(0.5) * (x.abs() + 1.0).ln() - cube + x.cbrt()
}

#[test]
fn intrinsic_kernels_compile_through_nvrtc_for_every_value_type() {
    let kernels = [
        ("rows", ROWS_CUDA),
        ("elements", ELEMENTS_CUDA),
        ("user_rows", USER_ROWS_CUDA),
        ("user_warp", USER_WARP_CUDA),
    ];
    for (name, source) in kernels {
        for ty in ["double", "float", "int", "long long"] {
            let text = format!("typedef {ty} T;\ntypedef unsigned int idx_t;\n{source}");
            match sparse::gpu::compile_ptx(&text, name, "sm_90") {
                Ok(ptx) => assert!(ptx.contains(name), "{name} ({ty}): no entry in the PTX"),
                Err(e) if e.is_unavailable() && !required("SPARSE_REQUIRE_NVRTC") => {
                    eprintln!("skipped: {e}");
                    return;
                }
                Err(e) => panic!("{name} ({ty}): {e}\n{text}"),
            }
        }
    }
}

/// The device, else the simulator; `None` (after saying why) when neither is usable.
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

#[track_caller]
fn assert_near(found: &[f64], expected: &[f64], what: &str) {
    assert_eq!(found.len(), expected.len());
    for (k, (f, e)) in found.iter().zip(expected).enumerate() {
        let tolerance = 1e-9 * (1.0 + e.abs());
        assert!((f - e).abs() <= tolerance, "{what} [{k}]: {f} != {e}");
    }
}

#[test]
fn intrinsic_kernels_run_against_the_host() -> Result<(), GpuError> {
    let Some(gpu) = device() else {
        return Ok(());
    };
    for (m, n) in [(0, 0), (1, 1), (7, 5), (300, 40)] {
        let x: Vec<f64> = (0..n).map(|j| (j % 7) as f64 - 3.0).collect();
        for (case, entries) in cases([m, n], (m * 31 + n) as u64).into_iter().enumerate() {
            let a = Tensor::<f64, Csr>::from_entries([m, n], entries)?;
            let mut expected = vec![0.0; m];
            a.for_each_entry(|c, v| expected[c[0]] += rows_term(v, x[c[1]]));
            let mut y = gpu.zeros::<f64, DenseVec>([m])?;
            let xs = Tensor::from_dense([n], &x)?;
            rows(&mut y, &gpu.upload(&a)?, &gpu.upload(&xs)?)?;
            let what = format!("rows {m}x{n} case {case}");
            assert_near(&y.download()?.to_dense(), &expected, &what);
        }
    }
    for (m, n) in [(0, 0), (1, 1), (7, 5), (300, 40)] {
        let x: Vec<f64> = (0..n).map(|j| (j % 5) as f64 - 2.0).collect();
        for (case, entries) in cases([m, n], (m * 17 + n) as u64).into_iter().enumerate() {
            let a = Tensor::<f64, Csr>::from_entries([m, n], entries)?;
            let mut expected = vec![0.0; m];
            a.for_each_entry(|c, v| expected[c[0]] += user_term(v, x[c[1]]));
            let (da, dx) = (gpu.upload(&a)?, gpu.upload(&Tensor::from_dense([n], &x)?)?);
            let mut y = gpu.zeros::<f64, DenseVec>([m])?;
            user_rows(&mut y, &da, &dx)?;
            let what = format!("user_rows {m}x{n} case {case}");
            assert_near(&y.download()?.to_dense(), &expected, &what);
            let mut y = gpu.zeros::<f64, DenseVec>([m])?;
            user_warp(&mut y, &da, &dx)?;
            let what = format!("user_warp {m}x{n} case {case}");
            assert_near(&y.download()?.to_dense(), &expected, &what);
        }
    }
    for n in [0, 1, 129, 300] {
        let x: Vec<f64> = (0..n).map(|i| (i % 9) as f64 * 0.75 - 3.0).collect();
        let mut y = gpu.zeros::<f64, DenseVec>([n])?;
        elements(&mut y, &gpu.upload(&Tensor::from_dense([n], &x)?)?)?;
        let expected: Vec<f64> = x.iter().map(|&v| elements_value(v)).collect();
        assert_near(
            &y.download()?.to_dense(),
            &expected,
            &format!("elements {n}"),
        );
    }
    Ok(())
}
