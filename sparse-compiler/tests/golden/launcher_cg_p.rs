// Expansion of: fn cg_p(p, r, beta); p(i) = r(i) + beta * p(i); scalars<beta>; schedule<split(i, block, thread, Down, 256) .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces)>;
/// The CUDA source [`cg_p`] launches, without the `typedef <value type> T;` it puts first.
#[allow(non_upper_case_globals)]
const CG_P_CUDA: &str = "template <typename A> __device__ __forceinline__ A sparse_abs(A a) { return a < (A)0 ? (A)0 - a : a; }\ntemplate <typename A, typename B> __device__ __forceinline__ auto sparse_min(A a, B b) -> decltype(a + b) { return a < b ? a : b; }\ntemplate <typename A, typename B> __device__ __forceinline__ auto sparse_max(A a, B b) -> decltype(a + b) { return a < b ? b : a; }\n__device__ __forceinline__ float sparse_divide(float a, float b) { return a / b; }\n__device__ __forceinline__ double sparse_divide(double a, double b) { return a / b; }\n__device__ __forceinline__ int sparse_divide(int a, int b) { return b == 0 ? 0 : (b == -1 ? (int)(0u - (unsigned)a) : a / b); }\n__device__ __forceinline__ long long sparse_divide(long long a, long long b) { return b == 0 ? 0 : (b == -1 ? (long long)(0ull - (unsigned long long)a) : a / b); }\n__device__ __forceinline__ void sparse_atomic_add(float* p, float v) { atomicAdd(p, v); }\n__device__ __forceinline__ void sparse_atomic_add(double* p, double v) { atomicAdd(p, v); }\n__device__ __forceinline__ void sparse_atomic_add(int* p, int v) { atomicAdd(p, v); }\n__device__ __forceinline__ void sparse_atomic_add(long long* p, long long v) { atomicAdd((unsigned long long*)p, (unsigned long long)v); }\n__device__ __forceinline__ T sparse_warp_sum(T v) {\n    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);\n    return v;\n}\n__device__ __forceinline__ idx_t sparse_count_up_to(const unsigned int* a, idx_t n, idx_t target) {\n    idx_t lo = 0, hi = n;\n    while (lo < hi) { idx_t mid = lo + (hi - lo) / 2; if ((idx_t)a[mid] <= target) lo = mid + 1; else hi = mid; }\n    return lo;\n}\nextern \"C\" __global__ void cg_p(idx_t p_p_shape0, const T* __restrict__ p_r_vals, const T p_beta, T* __restrict__ p_p_vals) {\n    {\n        const idx_t v_block = 0u + (idx_t)(blockIdx.x);\n        {\n            const idx_t v_thread = 0u + (idx_t)(threadIdx.x);\n            if (v_thread < sparse_min(256u, ((p_p_shape0 - 0u) - (v_block * 256u)))) {\n                const idx_t v_i = (0u + ((v_block * 256u) + v_thread));\n                p_p_vals[v_i] = (p_r_vals[v_i] + (p_beta * p_p_vals[v_i]));\n            }\n        }\n    }\n}\n";
#[allow(non_snake_case, unused_variables, unused_parens, clippy::all, clippy::pedantic)]
fn cg_p<T: ::sparse::gpu::GpuScalar>(
    p: &mut ::sparse::gpu::DeviceTensor<T, ::sparse::Dense<1>>,
    r: &::sparse::gpu::DeviceTensor<T, ::sparse::Dense<1>>,
    beta: T,
) -> ::core::result::Result<(), ::sparse::gpu::GpuError> {
    let __gpu = p.gpu().clone();
    r.check_device(&__gpu)?;
    let __p_shape: ::std::vec::Vec<usize> = p.shape().to_vec();
    let __r_shape: ::std::vec::Vec<usize> = r.shape().to_vec();
    if __r_shape[0] != __p_shape[0] {
        return ::core::result::Result::Err(
            ::sparse::KernelError::ShapeMismatch {
                index: "i",
                tensor: "r",
                dim: 0,
                expected: __p_shape[0],
                found: __r_shape[0],
            }
                .into(),
        );
    }
    let __blocks: usize = ((((__p_shape[0] - 0) + 255) / 256) - 0);
    let __grid = u32::try_from(__blocks)
        .map_err(|_| {
            ::sparse::gpu::GpuError::Invalid(
                ::std::format!(
                    "`{}` needs {} blocks, more than a launch takes", "cg_p", __blocks
                ),
            )
        })?;
    let __output: &::sparse::gpu::DeviceTensor<T, _> = &*p;
    let __narrow = [
        __p_shape[0],
        r.values_array().len(),
        __output.values_array().len(),
        __p_shape.iter().copied().max().unwrap_or(0),
        __r_shape.iter().copied().max().unwrap_or(0),
    ]
        .into_iter()
        .all(|n: usize| n < (1usize << 31));
    let __index = |n: usize| match __narrow {
        true => ::sparse::gpu::KernelArg::from(n as u32),
        false => ::sparse::gpu::KernelArg::from(n as u64),
    };
    let __source = ::std::format!(
        "typedef {} T;\ntypedef {} idx_t;\n{}", < T as ::sparse::gpu::GpuScalar >
        ::CUDA_TYPE, if __narrow { "unsigned int" } else { "unsigned long long" },
        CG_P_CUDA
    );
    let __args = [
        __index(__p_shape[0]),
        ::sparse::gpu::KernelArg::from(r.values_array()),
        ::sparse::gpu::GpuScalar::kernel_arg(beta),
        ::sparse::gpu::KernelArg::from(__output.values_array()),
    ];
    __gpu
        .launch(
            &__source,
            "cg_p",
            ::sparse::gpu::LaunchShape::linear(__grid, 256u32),
            &__args,
        )
}
