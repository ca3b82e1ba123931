// fn spmm; C(i,k) = A(i,j) * B(j,k); formats<A: csr, C: (dense, dense) order(1,0)>; schedule<reorder(i, j, k).collapse(i, j, f).pos(f, fpos, A(i,j)) .split(fpos, block, fpos1, Down, 256).split(fpos1, warp, nnz, Down, 16) .split(k, dense_val, thread, Down, 32).reorder(block, warp, thread, dense_val, nnz) .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces) .parallelize(thread, GpuThread, Atomics)>;
template <typename A> __device__ __forceinline__ A sparse_abs(A a) { return a < (A)0 ? (A)0 - a : a; }
template <typename A, typename B> __device__ __forceinline__ auto sparse_min(A a, B b) -> decltype(a + b) { return a < b ? a : b; }
template <typename A, typename B> __device__ __forceinline__ auto sparse_max(A a, B b) -> decltype(a + b) { return a < b ? b : a; }
__device__ __forceinline__ float sparse_divide(float a, float b) { return a / b; }
__device__ __forceinline__ double sparse_divide(double a, double b) { return a / b; }
__device__ __forceinline__ int sparse_divide(int a, int b) { return b == 0 ? 0 : (b == -1 ? (int)(0u - (unsigned)a) : a / b); }
__device__ __forceinline__ long long sparse_divide(long long a, long long b) { return b == 0 ? 0 : (b == -1 ? (long long)(0ull - (unsigned long long)a) : a / b); }
__device__ __forceinline__ void sparse_atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void sparse_atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void sparse_atomic_add(int* p, int v) { atomicAdd(p, v); }
__device__ __forceinline__ void sparse_atomic_add(long long* p, long long v) { atomicAdd((unsigned long long*)p, (unsigned long long)v); }
__device__ __forceinline__ T sparse_warp_sum(T v) {
    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}
__device__ __forceinline__ idx_t sparse_count_up_to(const unsigned int* a, idx_t n, idx_t target) {
    idx_t lo = 0, hi = n;
    while (lo < hi) { idx_t mid = lo + (hi - lo) / 2; if ((idx_t)a[mid] <= target) lo = mid + 1; else hi = mid; }
    return lo;
}
extern "C" __global__ void spmm(const unsigned int* __restrict__ p_A_l1_crd, idx_t p_A_l1_crd_len, idx_t p_C_shape1, const unsigned int* __restrict__ p_A_l1_pos, idx_t p_A_l1_pos_len, idx_t p_C_l1_size, idx_t p_B_l1_size, const T* __restrict__ p_A_vals, const T* __restrict__ p_B_vals, T* __restrict__ p_C_vals) {
    {
        const idx_t v_block = 0u + (idx_t)(blockIdx.x);
        {
            const idx_t v_warp = 0u + (idx_t)(threadIdx.x / 32);
            if (v_warp < (((256u - 0u) + 15u) / 16u)) {
                {
                    const idx_t v_thread = 0u + (idx_t)(threadIdx.x % 32);
                    if (v_thread < 32u) {
                        for (idx_t v_dense_val = 0u; v_dense_val < (((p_C_shape1 - 0u) + 31u) / 32u); v_dense_val++) {
                            const idx_t v_k = (0u + ((v_dense_val * 32u) + v_thread));
                            if ((v_k < p_C_shape1)) {
                                for (idx_t v_nnz = 0u; v_nnz < sparse_min(16u, ((256u - 0u) - (v_warp * 16u))); v_nnz++) {
                                    idx_t v_A_segment = (sparse_count_up_to(p_A_l1_pos, p_A_l1_pos_len, (0u + ((v_block * 256u) + (0u + ((v_warp * 16u) + v_nnz))))) - 1u);
                                    idx_t v_A_segment_end = (((v_A_segment + 1u) < p_A_l1_pos_len) ? ((idx_t)p_A_l1_pos[(v_A_segment + 1u)]) : 0u);
                                    const idx_t v_fpos1 = (0u + ((v_warp * 16u) + v_nnz));
                                    const idx_t v_fpos = (0u + ((v_block * 256u) + v_fpos1));
                                    if ((v_fpos < p_A_l1_crd_len)) {
                                        while ((v_A_segment_end <= v_fpos)) {
                                            v_A_segment += 1u;
                                            v_A_segment_end = ((idx_t)p_A_l1_pos[(v_A_segment + 1u)]);
                                        }
                                        const idx_t v_i = v_A_segment;
                                        const idx_t v_j = ((idx_t)p_A_l1_crd[v_fpos]);
                                        const idx_t v_p = ((v_k * p_C_l1_size) + v_i);
                                        const idx_t v_p_1 = ((v_j * p_B_l1_size) + v_k);
                                        sparse_atomic_add(&p_C_vals[v_p], (p_A_vals[v_fpos] * p_B_vals[v_p_1]));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
