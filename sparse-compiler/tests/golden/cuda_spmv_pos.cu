// fn spmv_pos; y(i) = A(i,j) * x(j); formats<A: csr>; schedule<collapse(i, j, f).pos(f, fpos, A(i,j)) .split(fpos, block, fpos1, Down, 3584).split(fpos1, warp, fpos2, Down, 224) .split(fpos2, thread, thread_nz, Down, 7).reorder(block, warp, thread, thread_nz) .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces) .parallelize(thread, GpuThread, Atomics)>;
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
extern "C" __global__ void spmv_pos(const unsigned int* __restrict__ p_A_l1_crd, idx_t p_A_l1_crd_len, const unsigned int* __restrict__ p_A_l1_pos, idx_t p_A_l1_pos_len, T* __restrict__ p_y_vals, const T* __restrict__ p_A_vals, const T* __restrict__ p_x_vals) {
    {
        const idx_t v_block = 0u + (idx_t)(blockIdx.x);
        {
            const idx_t v_warp = 0u + (idx_t)(threadIdx.x / 32);
            if (v_warp < (((3584u - 0u) + 223u) / 224u)) {
                {
                    const idx_t v_thread = 0u + (idx_t)(threadIdx.x % 32);
                    if (v_thread < (((224u - 0u) + 6u) / 7u)) {
                        idx_t v_A_segment = (sparse_count_up_to(p_A_l1_pos, p_A_l1_pos_len, (0u + ((v_block * 3584u) + (0u + ((v_warp * 224u) + (0u + ((v_thread * 7u) + 0u))))))) - 1u);
                        idx_t v_A_segment_end = (((v_A_segment + 1u) < p_A_l1_pos_len) ? ((idx_t)p_A_l1_pos[(v_A_segment + 1u)]) : 0u);
                        const idx_t v_A_segment_first = v_A_segment;
                        T v_segment_sum = ((T)0);
                        for (idx_t v_thread_nz = 0u; v_thread_nz < sparse_min(7u, ((224u - 0u) - (v_thread * 7u))); v_thread_nz++) {
                            const idx_t v_fpos2 = (0u + ((v_thread * 7u) + v_thread_nz));
                            const idx_t v_fpos1 = (0u + ((v_warp * 224u) + v_fpos2));
                            if ((v_fpos1 < 3584u)) {
                                const idx_t v_fpos = (0u + ((v_block * 3584u) + v_fpos1));
                                if ((v_fpos < p_A_l1_crd_len)) {
                                    while ((v_A_segment_end <= v_fpos)) {
                                        if ((v_segment_sum != ((T)0))) {
                                            if ((v_A_segment != v_A_segment_first)) {
                                                p_y_vals[v_A_segment] = v_segment_sum;
                                            }
                                            else {
                                                sparse_atomic_add(&p_y_vals[v_A_segment], v_segment_sum);
                                            }
                                            v_segment_sum = ((T)0);
                                        }
                                        v_A_segment += 1u;
                                        v_A_segment_end = ((idx_t)p_A_l1_pos[(v_A_segment + 1u)]);
                                    }
                                    const idx_t v_i = v_A_segment;
                                    const idx_t v_j = ((idx_t)p_A_l1_crd[v_fpos]);
                                    v_segment_sum += (p_A_vals[v_fpos] * p_x_vals[v_j]);
                                }
                            }
                        }
                        if ((v_segment_sum != ((T)0))) {
                            sparse_atomic_add(&p_y_vals[v_A_segment], v_segment_sum);
                            v_segment_sum = ((T)0);
                        }
                    }
                }
            }
        }
    }
}
