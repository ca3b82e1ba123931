//! What the GPU tests share: the device or else the host simulator, skipping without either or
//! without NVRTC (failing instead under `SPARSE_REQUIRE_GPU`), and a hand-written CSR SpMV
//! kernel.

#![allow(dead_code)]

use sparse_gpu::{Gpu, GpuError, GpuScalar, gpu_required};

/// Skips (prints why and returns `true`) when `e` says the GPU or NVRTC is unavailable and no GPU
/// is required; panics with the error otherwise.
pub fn skip(test: &str, e: &GpuError) -> bool {
    if e.is_unavailable() && !gpu_required() {
        eprintln!("skipping {test}: {e}");
        return true;
    }
    panic!(
        "{test}: {e} (SPARSE_REQUIRE_GPU={:?})",
        std::env::var("SPARSE_REQUIRE_GPU").ok()
    );
}

/// Like [`skip`] for a test that needs NVRTC but no device: `SPARSE_REQUIRE_NVRTC` (set, not
/// empty, not `0`) also makes it fail, so that CI, which installs NVRTC but has no GPU, cannot
/// skip it silently.
pub fn skip_nvrtc(test: &str, e: &GpuError) -> bool {
    let required =
        std::env::var_os("SPARSE_REQUIRE_NVRTC").is_some_and(|v| !v.is_empty() && v != "0");
    if required && e.is_unavailable() {
        panic!("{test}: NVRTC is required (SPARSE_REQUIRE_NVRTC) but {e}");
    }
    skip(test, e)
}

/// Device 0, else the host simulator ([`Gpu::for_tests`]), or `None` (after printing why) when
/// the test should skip (no device and no C++ compiler for the simulator).
pub fn gpu(test: &str) -> Option<Gpu> {
    match Gpu::for_tests() {
        Ok(gpu) => {
            let (major, minor) = gpu.compute_capability();
            eprintln!("{test}: running on {} (sm_{major}{minor})", gpu.name());
            Some(gpu)
        }
        Err(e) => {
            skip(test, &e);
            None
        }
    }
}

/// `y = A x` for a CSR `A` of `m` rows, one thread per row, for values of type `T`.
pub fn spmv_source<T: GpuScalar>() -> String {
    r#"
extern "C" __global__ void spmv_csr(int m, const unsigned int *__restrict__ pos,
                                    const unsigned int *__restrict__ crd,
                                    const VALUE *__restrict__ vals,
                                    const VALUE *__restrict__ x, VALUE *__restrict__ y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    VALUE sum = 0;
    for (unsigned int p = pos[i]; p < pos[i + 1]; p++) {
        sum += vals[p] * x[crd[p]];
    }
    y[i] = sum;
}
"#
    .replace("VALUE", T::CUDA_TYPE)
}
