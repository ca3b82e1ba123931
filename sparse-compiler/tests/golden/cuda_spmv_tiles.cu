// fn spmv_warp_tiles; y(i) = A(i,j) * x(j); formats<A: csr>; schedule<split(i, block, warp, Down, 8).split(j, lane, tile, Up, 32) .parallelize(block, GpuBlock, NoRaces).parallelize(warp, GpuWarp, NoRaces) .parallelize(lane, GpuThread, ParallelReduction)>;
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
__device__ __forceinline__ idx_t sparse_binary_search_after(const unsigned int* a, idx_t lo, idx_t hi, idx_t target) {
    while (lo < hi) { idx_t mid = lo + (hi - lo) / 2; if ((idx_t)a[mid] < target) lo = mid + 1; else hi = mid; }
    return lo;
}
extern "C" __global__ void spmv_warp_tiles(idx_t p_y_shape0, idx_t p_A_shape1, const unsigned int* __restrict__ p_A_l1_pos, const unsigned int* __restrict__ p_A_l1_crd, const T* __restrict__ p_A_vals, const T* __restrict__ p_x_vals, T* __restrict__ p_y_vals) {
    {
        const idx_t v_block = 0u + (idx_t)(blockIdx.x);
        {
            const idx_t v_warp = 0u + (idx_t)(threadIdx.x / 32);
            if (v_warp < sparse_min(8u, ((p_y_shape0 - 0u) - (v_block * 8u)))) {
                const idx_t v_i = (0u + ((v_block * 8u) + v_warp));
                T v_partial = ((T)0);
                {
                    const idx_t v_lane = 0u + (idx_t)(threadIdx.x % 32);
                    if (v_lane < 32u) {
                        const idx_t v_j_tile_lo = sparse_min((0u + (v_lane * (((p_A_shape1 - 0u) + 31u) / 32u))), p_A_shape1);
                        const idx_t v_j_tile_hi = sparse_min((v_j_tile_lo + (((p_A_shape1 - 0u) + 31u) / 32u)), p_A_shape1);
                        const idx_t v_pA1_segment = ((idx_t)p_A_l1_pos[v_i]);
                        const idx_t v_pA1_segment_end = ((idx_t)p_A_l1_pos[(v_i + 1u)]);
                        const idx_t v_pA1_tile = sparse_binary_search_after(p_A_l1_crd, v_pA1_segment, v_pA1_segment_end, v_j_tile_lo);
                        const idx_t v_pA1_tile_end = sparse_binary_search_after(p_A_l1_crd, v_pA1_tile, sparse_min(v_pA1_segment_end, (v_pA1_tile + (v_j_tile_hi - v_j_tile_lo))), v_j_tile_hi);
                        for (idx_t v_pA1 = v_pA1_tile; v_pA1 < v_pA1_tile_end; v_pA1++) {
                            const idx_t v_j = ((idx_t)p_A_l1_crd[v_pA1]);
                            v_partial += (p_A_vals[v_pA1] * p_x_vals[v_j]);
                        }
                    }
                    v_partial = sparse_warp_sum(v_partial);
                }
                if (threadIdx.x % 32 == 0) p_y_vals[v_i] += v_partial;
            }
        }
    }
}
