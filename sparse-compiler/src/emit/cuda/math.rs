//! The CUDA text of intrinsic calls, and the helpers they need, printed only into kernels that
//! call one. Values convert from `double` as Rust's `as` converts (NaN becomes 0, out-of-range
//! values saturate), where a plain C cast would be undefined.

use crate::ir::Intrinsic;

/// Helpers of intrinsic calls, after the launcher's `typedef` of `T` and the common prelude.
pub(super) const MATH_PRELUDE: &str = r#"template <typename R> __device__ __forceinline__ R sparse_value(double x) { return (R)x; }
template <> __device__ __forceinline__ int sparse_value<int>(double x) { return x != x ? 0 : (x <= -2147483648.0 ? (-2147483647 - 1) : (x >= 2147483647.0 ? 2147483647 : (int)x)); }
template <> __device__ __forceinline__ long long sparse_value<long long>(double x) { return x != x ? 0 : (x <= -9223372036854775808.0 ? (-9223372036854775807ll - 1) : (x >= 9223372036854775807.0 ? 9223372036854775807ll : (long long)x)); }
template <typename A> __device__ __forceinline__ A sparse_square(A a) { return a * a; }
template <typename A> __device__ __forceinline__ A sparse_cube(A a) { return a * a * a; }
template <typename A> __device__ __forceinline__ A sparse_heaviside(A x, A h) { return x > (A)0 ? (A)1 : (x == (A)0 ? h : (A)0); }
__device__ __forceinline__ float sparse_remainder(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double sparse_remainder(double a, double b) { return fmod(a, b); }
__device__ __forceinline__ int sparse_remainder(int a, int b) { return b == 0 || b == -1 ? 0 : a % b; }
__device__ __forceinline__ long long sparse_remainder(long long a, long long b) { return b == 0 || b == -1 ? 0 : a % b; }
__device__ __forceinline__ long long sparse_to_i64(float a) { return sparse_value<long long>(a); }
__device__ __forceinline__ long long sparse_to_i64(double a) { return sparse_value<long long>(a); }
__device__ __forceinline__ long long sparse_to_i64(int a) { return a; }
__device__ __forceinline__ long long sparse_to_i64(long long a) { return a; }
__device__ __forceinline__ int sparse_to_i32(float a) { return sparse_value<int>(a); }
__device__ __forceinline__ int sparse_to_i32(double a) { return sparse_value<int>(a); }
__device__ __forceinline__ int sparse_to_i32(int a) { return a; }
__device__ __forceinline__ int sparse_to_i32(long long a) { return (int)(unsigned int)(unsigned long long)a; }
"#;

/// The call of `f` on the printed arguments, computed as the Rust back end computes it: `abs`,
/// `min`, `max`, `square`, `cube`, `heaviside` and the remainder in `T`, conversions through the
/// target type, the other functions in `double`.
pub(super) fn call(f: Intrinsic, args: &[String]) -> Result<String, String> {
    Ok(match (f, args) {
        (Intrinsic::Abs, [a]) => format!("sparse_abs({a})"),
        (Intrinsic::Min, [a, b]) => format!("sparse_min({a}, {b})"),
        (Intrinsic::Max, [a, b]) => format!("sparse_max({a}, {b})"),
        (Intrinsic::Square, [a]) => format!("sparse_square({a})"),
        (Intrinsic::Cube, [a]) => format!("sparse_cube({a})"),
        (Intrinsic::Heaviside, [a, b]) => format!("sparse_heaviside({a}, {b})"),
        (Intrinsic::Remainder, [a, b]) => format!("sparse_remainder({a}, {b})"),
        (Intrinsic::ToF64, [a]) => format!("sparse_value<T>((double)({a}))"),
        (Intrinsic::ToF32, [a]) => format!("sparse_value<T>((double)(float)({a}))"),
        (Intrinsic::ToI64, [a]) => format!("((T)sparse_to_i64({a}))"),
        (Intrinsic::ToI32, [a]) => format!("((T)sparse_to_i32({a}))"),
        (f, [a, b]) => format!(
            "sparse_value<T>({}((double)({a}), (double)({b})))",
            f.name()
        ),
        (f, [a]) => format!("sparse_value<T>({}((double)({a})))", f.name()),
        _ => return Err(format!("`{}` with {} arguments", f.name(), args.len())),
    })
}
