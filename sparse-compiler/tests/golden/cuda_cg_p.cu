// fn cg_p(p, r, beta); p(i) = r(i) + beta * p(i); scalars<beta>; schedule<split(i, block, thread, Down, 256) .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces)>;
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
extern "C" __global__ void cg_p(idx_t p_p_shape0, const T* __restrict__ p_r_vals, const T p_beta, T* __restrict__ p_p_vals) {
    {
        const idx_t v_block = 0u + (idx_t)(blockIdx.x);
        {
            const idx_t v_thread = 0u + (idx_t)(threadIdx.x);
            if (v_thread < sparse_min(256u, ((p_p_shape0 - 0u) - (v_block * 256u)))) {
                const idx_t v_i = (0u + ((v_block * 256u) + v_thread));
                p_p_vals[v_i] = (p_r_vals[v_i] + (p_beta * p_p_vals[v_i]));
            }
        }
    }
}
