// Expansion of: fn spmv_warp; y(i) = A(i,j) * x(j); formats<A: csr>; schedule<split(i, block, block_row, Down, 256).split(block_row, warp_row, warp, Down, 8) .pos(j, jpos, A(i,j)).split(jpos, thread_nz, thread, Down, 32) .reorder(block, warp, warp_row, thread, thread_nz) .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces) .parallelize(thread, GpuThread, Temporary)>;
/// The CUDA source [`spmv_warp`] launches, without the `typedef <value type> T;` it puts first.
#[allow(non_upper_case_globals)]
const SPMV_WARP_CUDA: &str = "template <typename A> __device__ __forceinline__ A sparse_abs(A a) { return a < (A)0 ? (A)0 - a : a; }\ntemplate <typename A, typename B> __device__ __forceinline__ auto sparse_min(A a, B b) -> decltype(a + b) { return a < b ? a : b; }\ntemplate <typename A, typename B> __device__ __forceinline__ auto sparse_max(A a, B b) -> decltype(a + b) { return a < b ? b : a; }\n__device__ __forceinline__ float sparse_divide(float a, float b) { return a / b; }\n__device__ __forceinline__ double sparse_divide(double a, double b) { return a / b; }\n__device__ __forceinline__ int sparse_divide(int a, int b) { return b == 0 ? 0 : (b == -1 ? (int)(0u - (unsigned)a) : a / b); }\n__device__ __forceinline__ long long sparse_divide(long long a, long long b) { return b == 0 ? 0 : (b == -1 ? (long long)(0ull - (unsigned long long)a) : a / b); }\n__device__ __forceinline__ void sparse_atomic_add(float* p, float v) { atomicAdd(p, v); }\n__device__ __forceinline__ void sparse_atomic_add(double* p, double v) { atomicAdd(p, v); }\n__device__ __forceinline__ void sparse_atomic_add(int* p, int v) { atomicAdd(p, v); }\n__device__ __forceinline__ void sparse_atomic_add(long long* p, long long v) { atomicAdd((unsigned long long*)p, (unsigned long long)v); }\n__device__ __forceinline__ T sparse_warp_sum(T v) {\n    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);\n    return v;\n}\n__device__ __forceinline__ idx_t sparse_count_up_to(const unsigned int* a, idx_t n, idx_t target) {\n    idx_t lo = 0, hi = n;\n    while (lo < hi) { idx_t mid = lo + (hi - lo) / 2; if ((idx_t)a[mid] <= target) lo = mid + 1; else hi = mid; }\n    return lo;\n}\nextern \"C\" __global__ void spmv_warp(idx_t p_y_shape0, const unsigned int* __restrict__ p_A_l1_pos, const unsigned int* __restrict__ p_A_l1_crd, const T* __restrict__ p_A_vals, const T* __restrict__ p_x_vals, T* __restrict__ p_y_vals) {\n    {\n        const idx_t v_block = 0u + (idx_t)(blockIdx.x);\n        {\n            const idx_t v_warp = 0u + (idx_t)(threadIdx.x / 32);\n            if (v_warp < 8u) {\n                for (idx_t v_warp_row = 0u; v_warp_row < (((256u - 0u) + 7u) / 8u); v_warp_row++) {\n                    const idx_t v_block_row = (0u + ((v_warp_row * 8u) + v_warp));\n                    if ((v_block_row < 256u)) {\n                        const idx_t v_i = (0u + ((v_block * 256u) + v_block_row));\n                        if ((v_i < p_y_shape0)) {\n                            T v_partial = ((T)0);\n                            {\n                                const idx_t v_thread = 0u + (idx_t)(threadIdx.x % 32);\n                                if (v_thread < 32u) {\n                                    for (idx_t v_thread_nz = 0u; v_thread_nz < (((((idx_t)p_A_l1_pos[(v_i + 1u)]) - ((idx_t)p_A_l1_pos[v_i])) + 31u) / 32u); v_thread_nz++) {\n                                        const idx_t v_jpos = (((idx_t)p_A_l1_pos[v_i]) + ((v_thread_nz * 32u) + v_thread));\n                                        if ((v_jpos < ((idx_t)p_A_l1_pos[(v_i + 1u)]))) {\n                                            const idx_t v_j = ((idx_t)p_A_l1_crd[v_jpos]);\n                                            v_partial += (p_A_vals[v_jpos] * p_x_vals[v_j]);\n                                        }\n                                    }\n                                }\n                                v_partial = sparse_warp_sum(v_partial);\n                            }\n                            if (threadIdx.x % 32 == 0) p_y_vals[v_i] += v_partial;\n                        }\n                    }\n                }\n            }\n        }\n    }\n}\n";
#[allow(non_snake_case, unused_variables, unused_parens, clippy::all, clippy::pedantic)]
fn spmv_warp<T: ::sparse::gpu::GpuScalar>(
    y: &mut ::sparse::gpu::DeviceTensor<T, ::sparse::Dense<1>>,
    A: &::sparse::gpu::DeviceTensor<T, ::sparse::Csr>,
    x: &::sparse::gpu::DeviceTensor<T, ::sparse::Dense<1>>,
) -> ::core::result::Result<(), ::sparse::gpu::GpuError> {
    let __gpu = y.gpu().clone();
    A.check_device(&__gpu)?;
    x.check_device(&__gpu)?;
    let __y_shape: ::std::vec::Vec<usize> = y.shape().to_vec();
    let __A_shape: ::std::vec::Vec<usize> = A.shape().to_vec();
    let __x_shape: ::std::vec::Vec<usize> = x.shape().to_vec();
    if __A_shape[0] != __y_shape[0] {
        return ::core::result::Result::Err(
            ::sparse::KernelError::ShapeMismatch {
                index: "i",
                tensor: "A",
                dim: 0,
                expected: __y_shape[0],
                found: __A_shape[0],
            }
                .into(),
        );
    }
    if __x_shape[0] != __A_shape[1] {
        return ::core::result::Result::Err(
            ::sparse::KernelError::ShapeMismatch {
                index: "j",
                tensor: "x",
                dim: 0,
                expected: __A_shape[1],
                found: __x_shape[0],
            }
                .into(),
        );
    }
    y.zero_values()?;
    let __blocks: usize = ((((__y_shape[0] - 0) + 255) / 256) - 0);
    let __grid = u32::try_from(__blocks)
        .map_err(|_| {
            ::sparse::gpu::GpuError::Invalid(
                ::std::format!(
                    "`{}` needs {} blocks, more than a launch takes", "spmv_warp",
                    __blocks
                ),
            )
        })?;
    let __output: &::sparse::gpu::DeviceTensor<T, _> = &*y;
    let __narrow = [
        __y_shape[0],
        A.pos_array(1).len(),
        A.crd_array(1).len(),
        A.values_array().len(),
        x.values_array().len(),
        __output.values_array().len(),
        __y_shape.iter().copied().max().unwrap_or(0),
        __A_shape.iter().copied().max().unwrap_or(0),
        __x_shape.iter().copied().max().unwrap_or(0),
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
        SPMV_WARP_CUDA
    );
    let __args = [
        __index(__y_shape[0]),
        ::sparse::gpu::KernelArg::from(A.pos_array(1)),
        ::sparse::gpu::KernelArg::from(A.crd_array(1)),
        ::sparse::gpu::KernelArg::from(A.values_array()),
        ::sparse::gpu::KernelArg::from(x.values_array()),
        ::sparse::gpu::KernelArg::from(__output.values_array()),
    ];
    __gpu
        .launch(
            &__source,
            "spmv_warp",
            ::sparse::gpu::LaunchShape::linear(__grid, 256u32),
            &__args,
        )
}
