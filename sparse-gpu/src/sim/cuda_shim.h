// cuda_shim.h: the CUDA C subset of sparse's generated kernels, as host C++, for the GPU
// simulator of sparse-gpu (`Gpu::simulator`). The simulator compiles each kernel source as
// `#include "cuda_shim.h"` + the source + one launch trampoline per `__global__` function, into a
// shared library, with the system C++ compiler (C++17).
//
// How a grid runs
// ---------------
// - Blocks run one after another, in order (x fastest, then y, then z): results are
//   deterministic, atomics included.
// - The threads of a block run as cooperative fibers (ucontext's makecontext/setcontext start
//   each on its own stack of FIBER_STACK bytes, then _setjmp/_longjmp switch). A fiber runs
//   until it finishes or reaches a barrier; a scheduler resumes the others in thread order and
//   releases a barrier once every thread it waits for has reached it:
//     * __syncthreads(): every thread of the block that has not exited;
//     * __syncwarp(mask) and the warp collectives (shuffles, ballot, any, all): the threads of
//       the warp (32 consecutive linear thread ids) named in the masks of the waiting lanes,
//       leaving out lanes that have exited or do not exist (a partial last warp).
//   If no thread can run and no barrier can be released (threads wait at different barriers),
//   the launch stops with an error that says so (a device would hang or be undefined).
// - A source that names no barrier and no warp collective is run without fibers: each thread
//   runs to its end in turn (the simulator chooses, from the source text).
// - threadIdx, blockIdx, blockDim and gridDim are thread-local variables that the scheduler sets
//   before it resumes a thread.
// - __shared__ variables are `static thread_local`: the fibers of a block (one OS thread) share
//   them. When the source declares any, each block runs on a fresh OS thread (started and joined
//   in turn), so every block gets its own copy, zeroed (a device leaves it unspecified: a kernel
//   must not read shared memory before writing it, and the simulator does not catch one that
//   does). Otherwise blocks run on the launching thread.
//
// Supported: __global__, __device__, __host__, __forceinline__, __noinline__, __restrict__,
// __launch_bounds__(...), __shared__ arrays and scalars (static sizes), __constant__ (as a plain
// global), the index variables and dim3/uint3, warpSize, __syncthreads, __syncwarp,
// __shfl_sync/__shfl_down_sync/__shfl_up_sync/__shfl_xor_sync (with an optional width) for
// int, unsigned, long long, unsigned long long, float, double (any arithmetic type of at most 8
// bytes), __ballot_sync/__any_sync/__all_sync, __activemask, atomicAdd (float, double, int,
// unsigned, unsigned long long, long long), atomicSub, atomicExch, atomicMin/atomicMax/atomicCAS
// (int, unsigned, long long, unsigned long long), __threadfence*, __ldg, min/max of any two
// arithmetic types, the <cmath> functions with their float overloads (sqrt, fabs, exp, log, ...,
// and the `f`-suffixed C names), rsqrt/rsqrtf, INFINITY, NAN, printf.
//
// Not supported: dynamic shared memory (`extern __shared__`, refused at launch), textures,
// surfaces, cooperative groups, half precision, warp-synchronous code that relies on lockstep
// execution without __syncwarp (fibers interleave only at barriers), __trap, device-side
// assert that stops only the kernel. An out-of-bounds access is a host memory error, not
// CUDA_ERROR_ILLEGAL_ADDRESS. A thread's stack is FIBER_STACK bytes.

#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <csetjmp>
#include <cstring>
#include <math.h>
#include <memory>
#include <type_traits>
#include <ucontext.h>
#include <utility>
#include <system_error>
#include <thread>
#include <vector>

// ---- Declaration specifiers ------------------------------------------------------------------

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
// One copy per OS thread, which is one copy per running block (see above).
#define __shared__ static thread_local
#define __constant__
// `__restrict__` is a GCC and Clang keyword already.

// ---- Index variables ---------------------------------------------------------------------------

struct uint3 {
    unsigned x, y, z;
};

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};

namespace sparse_sim {

// The running thread's coordinates, set by the scheduler before it resumes a thread.
inline thread_local uint3 thread_idx;
inline thread_local uint3 block_idx;
inline thread_local dim3 block_dim;
inline thread_local dim3 grid_dim;

}  // namespace sparse_sim

#define threadIdx (::sparse_sim::thread_idx)
#define blockIdx (::sparse_sim::block_idx)
#define blockDim (::sparse_sim::block_dim)
#define gridDim (::sparse_sim::grid_dim)
#define warpSize 32

// ---- The fiber scheduler -----------------------------------------------------------------------

namespace sparse_sim {

constexpr std::size_t FIBER_STACK = 128 * 1024;
constexpr unsigned WARP = 32;

enum class State { Ready, BlockBarrier, WarpBarrier, Done };

struct Fiber {
    ucontext_t context;  // where the fiber starts (its stack and entry)
    jmp_buf resume;      // where it continues, once it has started and suspended
    bool started;
    uint3 idx;
    State state;
    unsigned mask;  // the lanes a warp barrier waits for (relative to the warp)
};

// The block being run on this OS thread, with its fibers.
struct Block {
    void (*body)(void *);
    void *body_context;
    unsigned threads;
    std::vector<Fiber> fibers;
    std::unique_ptr<char[]> stacks;
    jmp_buf scheduler;
    unsigned current;
    // Two 8-byte slots per thread, through which warp collectives exchange values: the ones of
    // parity `warp_generation & 1` of the thread's warp (see `exchange`).
    std::vector<unsigned long long> exchange;
    // How many times each warp's barrier has been released.
    std::vector<unsigned> warp_generation;
    const char *error;
};

inline thread_local Block *block = nullptr;
// A barrier reached by a kernel run without fibers (which the simulator did not expect).
inline thread_local const char *fiberless_error = nullptr;

// Switching: a fiber is entered the first time with setcontext (onto its own stack, at
// fiber_main), and from then on fibers and the scheduler switch with _setjmp/_longjmp, which,
// unlike swapcontext, make no system call (they leave the signal mask alone). The simulator
// compiles with -U_FORTIFY_SOURCE, whose longjmp check would refuse a jump to another stack.
// No C++ object with a destructor is live in a frame that a jump leaves.

// Where a fiber starts: runs the kernel for the current thread, marks it done and returns to
// the scheduler for good.
inline void fiber_main() {
    Block *b = block;
    b->body(b->body_context);
    b->fibers[b->current].state = State::Done;
    _longjmp(b->scheduler, 1);
}

// Suspends the running fiber (which has set its state) and resumes the scheduler.
__attribute__((noinline)) inline void suspend() {
    Block *b = block;
    if (_setjmp(b->fibers[b->current].resume) == 0) _longjmp(b->scheduler, 1);
}

// Runs fiber `t` until it suspends or finishes.
__attribute__((noinline)) inline void resume(Block &b, unsigned t) {
    b.current = t;
    thread_idx = b.fibers[t].idx;
    if (_setjmp(b.scheduler) != 0) return;
    Fiber &f = b.fibers[t];
    if (!f.started) {
        f.started = true;
        setcontext(&f.context);
    }
    _longjmp(f.resume, 1);
}

// Releases the barriers that every thread they wait for has reached; whether any was.
inline bool release(Block &b) {
    bool released = false;
    for (unsigned base = 0; base < b.threads; base += WARP) {
        unsigned lanes = std::min(WARP, b.threads - base);
        unsigned waiting = 0, wanted = 0, live = 0;
        for (unsigned l = 0; l < lanes; l++) {
            const Fiber &f = b.fibers[base + l];
            if (f.state != State::Done) live |= 1u << l;
            if (f.state == State::WarpBarrier) {
                waiting |= 1u << l;
                wanted |= f.mask;
            }
        }
        wanted = (wanted | waiting) & live;
        if (waiting != 0 && (wanted & ~waiting) == 0) {
            for (unsigned l = 0; l < lanes; l++)
                if (waiting & (1u << l)) b.fibers[base + l].state = State::Ready;
            b.warp_generation[base / WARP]++;
            released = true;
        }
    }
    if (released) return true;
    unsigned live = 0, at_barrier = 0;
    for (const Fiber &f : b.fibers) {
        if (f.state != State::Done) live++;
        if (f.state == State::BlockBarrier) at_barrier++;
    }
    if (at_barrier == 0 || at_barrier != live) return false;
    for (Fiber &f : b.fibers)
        if (f.state == State::BlockBarrier) f.state = State::Ready;
    return true;
}

// Runs one block: every thread a fiber, resumed in thread order until all have finished.
// 0, or 1 with b.error set.
inline int run_block(Block &b) {
    unsigned n = b.threads;
    for (unsigned t = 0; t < n; t++) {
        Fiber &f = b.fibers[t];
        f.idx = uint3{t % block_dim.x, (t / block_dim.x) % block_dim.y,
                      t / (block_dim.x * block_dim.y)};
        f.state = State::Ready;
        f.mask = 0;
        f.started = false;
        getcontext(&f.context);
        f.context.uc_stack.ss_sp = b.stacks.get() + std::size_t(t) * FIBER_STACK;
        f.context.uc_stack.ss_size = FIBER_STACK;
        f.context.uc_link = nullptr;  // fiber_main never returns
        makecontext(&f.context, fiber_main, 0);
    }
    for (;;) {
        bool ran = false;
        for (unsigned t = 0; t < n; t++) {
            if (b.fibers[t].state != State::Ready) continue;
            resume(b, t);
            ran = true;
        }
        bool done = true;
        for (const Fiber &f : b.fibers) done = done && f.state == State::Done;
        if (done) return 0;
        if (!release(b) && !ran) {
            b.error = "deadlock: the threads of a block wait at barriers that cannot all be "
                      "reached (a __syncthreads or warp collective not reached by every "
                      "thread it waits for)";
            return 1;
        }
    }
}

// Waits until every live thread of the block reaches this call.
inline void block_barrier() {
    Block *b = block;
    if (b == nullptr) {
        fiberless_error = "a barrier was reached by a kernel run without fibers";
        return;
    }
    b->fibers[b->current].state = State::BlockBarrier;
    suspend();
}

// Waits until the live lanes of `mask` (in this thread's warp) reach a warp barrier.
inline void warp_barrier(unsigned mask) {
    Block *b = block;
    if (b == nullptr) {
        fiberless_error = "a barrier was reached by a kernel run without fibers";
        return;
    }
    Fiber &f = b->fibers[b->current];
    f.state = State::WarpBarrier;
    f.mask = mask;
    suspend();
}

inline void write_message(char *message, unsigned long len, const char *text) {
    if (len == 0) return;
    std::snprintf(message, len, "%s", text);
}

// What `run_grid` was asked to do, for the blocks it runs.
enum Mode {
    // Run the threads of a block as fibers (the source has barriers or warp collectives).
    FIBERS = 1,
    // Run each block on a fresh OS thread, so that its `__shared__` variables (thread-locals)
    // start zeroed whatever the previous blocks left (the source declares `__shared__` data).
    FRESH_SHARED = 2,
};

struct Grid {
    dim3 grid, blk;
    int mode;
    void (*body)(void *);
    void *body_context;
    Block *fibers;  // null without FIBERS
};

// Runs block `idx` on the calling OS thread. nullptr, or why it failed.
inline const char *run_one_block(const Grid &g, uint3 idx) {
    grid_dim = g.grid;
    block_dim = g.blk;
    block_idx = idx;
    fiberless_error = nullptr;
    if (g.fibers != nullptr) {
        Block *outer = block;
        block = g.fibers;
        int status = run_block(*g.fibers);
        block = outer;
        return status == 0 ? nullptr : g.fibers->error;
    }
    for (unsigned tz = 0; tz < g.blk.z; tz++)
        for (unsigned ty = 0; ty < g.blk.y; ty++)
            for (unsigned tx = 0; tx < g.blk.x; tx++) {
                thread_idx = uint3{tx, ty, tz};
                g.body(g.body_context);
            }
    return fiberless_error;
}

// Runs the whole grid, block after block in order (x fastest); `body` runs the kernel for the
// current thread. 0 on success, else 1 with the reason in `message`.
inline int run_grid(const unsigned *grid, const unsigned *blk, int mode, void (*body)(void *),
                    void *body_context, char *message, unsigned long message_len) {
    unsigned threads = blk[0] * blk[1] * blk[2];
    if (threads == 0 || grid[0] == 0 || grid[1] == 0 || grid[2] == 0) return 0;
    Grid g{dim3(grid[0], grid[1], grid[2]), dim3(blk[0], blk[1], blk[2]), mode, body,
           body_context, nullptr};
    Block b;
    if (mode & FIBERS) {
        b.body = body;
        b.body_context = body_context;
        b.threads = threads;
        b.fibers.resize(threads);
        // Not value-initialized: untouched stack pages are never committed. The stacks are
        // reused by every block (a block's fibers have all finished before the next starts).
        b.stacks.reset(new (std::nothrow) char[std::size_t(threads) * FIBER_STACK]);
        if (!b.stacks) {
            write_message(message, message_len, "no memory for the fibers' stacks");
            return 1;
        }
        b.exchange.assign(2 * std::size_t(threads), 0);
        b.warp_generation.assign((threads + WARP - 1) / WARP, 0);
        b.error = nullptr;
        g.fibers = &b;
    }
    const char *error = nullptr;
    for (unsigned bz = 0; bz < grid[2] && error == nullptr; bz++)
        for (unsigned by = 0; by < grid[1] && error == nullptr; by++)
            for (unsigned bx = 0; bx < grid[0] && error == nullptr; bx++) {
                uint3 idx{bx, by, bz};
                if (!(mode & FRESH_SHARED)) {
                    error = run_one_block(g, idx);
                    continue;
                }
                try {
                    std::thread t([&] { error = run_one_block(g, idx); });
                    t.join();
                } catch (const std::system_error &) {
                    error = "could not start a thread for a block";
                }
            }
    if (error != nullptr) {
        write_message(message, message_len, error);
        return 1;
    }
    return 0;
}

// ---- Launch trampolines ------------------------------------------------------------------------

// Calls `kernel` with its arguments read from CUDA's argument array: args[i] points at the bytes
// of parameter i, of its declared type.
template <typename... P, std::size_t... I>
void call(void (*kernel)(P...), void **args, std::index_sequence<I...>) {
    kernel(*static_cast<std::remove_cv_t<P> *>(args[I])...);
}

template <typename... P>
int launch(void (*kernel)(P...), const unsigned *grid, const unsigned *blk, int mode,
           void **args, char *message, unsigned long message_len) {
    struct Context {
        void (*kernel)(P...);
        void **args;
    } context{kernel, args};
    auto body = [](void *c) {
        auto *ctx = static_cast<Context *>(c);
        call(ctx->kernel, ctx->args, std::index_sequence_for<P...>{});
    };
    return run_grid(grid, blk, mode, body, &context, message, message_len);
}

// Reports the size of each parameter and whether it is floating point; returns their number.
template <typename... P>
unsigned params(void (*)(P...), unsigned *sizes, int *floats, unsigned cap) {
    const unsigned s[] = {unsigned(sizeof(P))..., 0u};
    const int f[] = {int(std::is_floating_point<P>::value)..., 0};
    for (unsigned i = 0; i < sizeof...(P) && i < cap; i++) {
        sizes[i] = s[i];
        floats[i] = f[i];
    }
    return unsigned(sizeof...(P));
}

// ---- Warp collectives --------------------------------------------------------------------------

// Every lane of `mask` publishes `v`; after the warp barrier each reads lane `src` of its warp
// (its own value when `src` is out of range). The slots used alternate with the warp barrier's
// generation: a lane can write this parity's slots again only two releases later, when every
// lane of the warp has passed the next barrier and so has read these (for lanes that take part
// in the same collectives, as convergent code does).
template <typename T>
T exchange(unsigned mask, T v, int src, bool valid) {
    static_assert(std::is_arithmetic<T>::value && sizeof(T) <= 8,
                  "warp shuffles of arithmetic types of at most 8 bytes");
    Block *b = block;
    if (b == nullptr) {
        fiberless_error = "a warp shuffle was reached by a kernel run without fibers";
        return v;
    }
    unsigned me = b->current;
    unsigned base = me - me % WARP;
    std::size_t slots = std::size_t(b->threads) * (b->warp_generation[me / WARP] & 1);
    unsigned long long bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    b->exchange[slots + me] = bits;
    warp_barrier(mask);
    T out = v;
    if (valid && src >= 0 && unsigned(src) < WARP && base + unsigned(src) < b->threads) {
        bits = b->exchange[slots + base + unsigned(src)];
        std::memcpy(&out, &bits, sizeof(T));
    }
    return out;
}

inline unsigned lane_id() { return block == nullptr ? 0 : block->current % WARP; }

inline unsigned vote(unsigned mask, bool predicate) {
    unsigned ballot = 0;
    for (unsigned l = 0; l < WARP; l++) {
        // Lanes outside the mask contribute nothing; exchange keeps everyone in step.
        bool p = exchange<int>(mask, predicate ? 1 : 0, int(l), true) != 0;
        if (p && (mask & (1u << l))) ballot |= 1u << l;
    }
    return ballot;
}

}  // namespace sparse_sim

inline void __syncthreads() { sparse_sim::block_barrier(); }
inline void __syncwarp(unsigned mask = 0xffffffffu) { sparse_sim::warp_barrier(mask); }

template <typename T>
T __shfl_sync(unsigned mask, T v, int src_lane, int width = 32) {
    int lane = int(sparse_sim::lane_id());
    int src = (lane / width) * width + ((src_lane % width + width) % width);
    return sparse_sim::exchange(mask, v, src, true);
}

template <typename T>
T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
    int lane = int(sparse_sim::lane_id());
    bool valid = (lane % width) + int(delta) < width;
    return sparse_sim::exchange(mask, v, lane + int(delta), valid);
}

template <typename T>
T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32) {
    int lane = int(sparse_sim::lane_id());
    bool valid = (lane % width) >= int(delta);
    return sparse_sim::exchange(mask, v, lane - int(delta), valid);
}

template <typename T>
T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {
    int lane = int(sparse_sim::lane_id());
    int src = lane ^ lane_mask;
    bool valid = src / width == lane / width;
    return sparse_sim::exchange(mask, v, src, valid);
}

inline unsigned __ballot_sync(unsigned mask, int predicate) {
    return sparse_sim::vote(mask, predicate != 0);
}
inline int __any_sync(unsigned mask, int predicate) {
    return sparse_sim::vote(mask, predicate != 0) != 0;
}
inline int __all_sync(unsigned mask, int predicate) {
    return (sparse_sim::vote(mask, predicate != 0) & mask) == mask;
}
// Lanes run one at a time here; report the whole warp as a kernel written for a device expects.
inline unsigned __activemask() { return 0xffffffffu; }

// ---- Memory ------------------------------------------------------------------------------------

template <typename T>
inline T __ldg(const T *p) {
    return *p;
}
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// ---- Atomics -----------------------------------------------------------------------------------
// Blocks and threads never run at once here, but the GCC builtins keep these atomic anyway.
// Each returns the old value, as CUDA's do.

namespace sparse_sim {

// Floating-point read-modify-write through a compare-and-swap on the bits.
template <typename F, typename Bits, typename Op>
F float_rmw(F *address, Op op) {
    static_assert(sizeof(F) == sizeof(Bits), "bit width");
    Bits *bits = reinterpret_cast<Bits *>(address);
    Bits old = __atomic_load_n(bits, __ATOMIC_RELAXED);
    for (;;) {
        F old_value, new_value;
        std::memcpy(&old_value, &old, sizeof(F));
        new_value = op(old_value);
        Bits desired;
        std::memcpy(&desired, &new_value, sizeof(F));
        if (__atomic_compare_exchange_n(bits, &old, desired, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED))
            return old_value;
    }
}

template <typename T>
T int_min(T *address, T v) {
    T old = __atomic_load_n(address, __ATOMIC_RELAXED);
    while (v < old &&
           !__atomic_compare_exchange_n(address, &old, v, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED)) {
    }
    return old;
}

template <typename T>
T int_max(T *address, T v) {
    T old = __atomic_load_n(address, __ATOMIC_RELAXED);
    while (v > old &&
           !__atomic_compare_exchange_n(address, &old, v, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED)) {
    }
    return old;
}

template <typename T>
T int_cas(T *address, T compare, T value) {
    __atomic_compare_exchange_n(address, &compare, value, false, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
    return compare;  // the old value, whether or not it was swapped
}

}  // namespace sparse_sim

inline float atomicAdd(float *a, float v) {
    return sparse_sim::float_rmw<float, unsigned>(a, [v](float o) { return o + v; });
}
inline double atomicAdd(double *a, double v) {
    return sparse_sim::float_rmw<double, unsigned long long>(a, [v](double o) { return o + v; });
}

// The integer atomics, for each of CUDA's integer types (`long long` is an extension of this
// simulator, which NVRTC spells with a cast to `unsigned long long`).
#define SPARSE_SIM_INT_ATOMICS(T)                                                                  \
    inline T atomicAdd(T *a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }         \
    inline T atomicSub(T *a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }         \
    inline T atomicExch(T *a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }       \
    inline T atomicMin(T *a, T v) { return sparse_sim::int_min(a, v); }                          \
    inline T atomicMax(T *a, T v) { return sparse_sim::int_max(a, v); }                          \
    inline T atomicCAS(T *a, T c, T v) { return sparse_sim::int_cas(a, c, v); }
SPARSE_SIM_INT_ATOMICS(int)
SPARSE_SIM_INT_ATOMICS(unsigned int)
SPARSE_SIM_INT_ATOMICS(long long)
SPARSE_SIM_INT_ATOMICS(unsigned long long)
#undef SPARSE_SIM_INT_ATOMICS

inline float atomicExch(float *a, float v) {
    return sparse_sim::float_rmw<float, unsigned>(a, [v](float) { return v; });
}

// ---- Arithmetic --------------------------------------------------------------------------------

// CUDA's min and max take any two arithmetic types (int and unsigned give unsigned, as the usual
// conversions do).
template <typename A, typename B,
          typename = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value>>
inline std::common_type_t<A, B> min(A a, B b) {
    using C = std::common_type_t<A, B>;
    return C(b) < C(a) ? C(b) : C(a);
}
template <typename A, typename B,
          typename = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value>>
inline std::common_type_t<A, B> max(A a, B b) {
    using C = std::common_type_t<A, B>;
    return C(a) < C(b) ? C(b) : C(a);
}

// The float overloads of <cmath> at global scope, so that `sqrt(x)` of a float stays a float as
// in CUDA.
using std::abs;
using std::acos;
using std::asin;
using std::atan;
using std::atan2;
using std::cbrt;
using std::ceil;
using std::cos;
using std::cosh;
using std::erf;
using std::exp;
using std::exp2;
using std::expm1;
using std::fabs;
using std::floor;
using std::fma;
using std::fmax;
using std::fmin;
using std::fmod;
using std::isfinite;
using std::isinf;
using std::isnan;
using std::log;
using std::log10;
using std::log1p;
using std::log2;
using std::pow;
using std::round;
using std::sin;
using std::sinh;
using std::sqrt;
using std::tan;
using std::tanh;
using std::trunc;

inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float rsqrt(float x) { return 1.0f / std::sqrt(x); }
