//! Reductions other than the sum (`reduce< j: op >` with `+ * min max || &&`) and fill values
//! (`fills<...>`), serial and under each CPU race strategy, against a dense evaluation written out
//! here: every element of every operand, an unstored one at its tensor's fill, each operator
//! applied elementwise and the reduction folded over the whole index range from its identity.
//!
//! The evaluation follows the algebra's documented conventions where IEEE arithmetic has edges:
//! an operand that stores nothing where its fill absorbs the operator gives the absorbed value
//! (`inf + x` is `inf`, `0 * x` is `0`, even for an `x` of `-inf` or NaN, as a sparse product skips
//! the terms of an absent factor), while a dense operand stores its fill and computes with it (so
//! `-inf + inf` is NaN there, as IEEE says); and `min`/`max` reductions keep the accumulator
//! unless a value is smaller (larger), so a NaN term never enters (as `f64::min` ignores NaN).
mod common;

use common::{Rng, assert_same};
use sparse::prelude::*;
use sparse::{Coord, LevelKind};

const INF: f64 = f64::INFINITY;

/// A tensor element as the evaluation sees it: `Some(value)` where stored and not the fill,
/// `None` where absent.
type Elem = Option<f64>;

/// `entries` scattered (duplicates summed) into per-element presence: an element whose sum is the
/// fill is absent, as `from_entries_with_fill` leaves it out.
fn presence<const N: usize>(
    shape: [usize; N],
    entries: &[([usize; N], f64)],
    fill: f64,
) -> Vec<Elem> {
    let mut sums: Vec<Elem> = vec![None; shape.iter().product()];
    for (c, v) in entries {
        let mut at = 0;
        for k in 0..N {
            at = at * shape[k] + c[k];
        }
        sums[at] = Some(sums[at].map_or(*v, |s| s + v));
    }
    sums.into_iter().map(|s| s.filter(|&v| v != fill)).collect()
}

/// The elements of a tensor of format `F` made from `entries`: [`presence`], except that a dense
/// format stores every element, its fill included.
fn elems<F: Format, const N: usize>(
    shape: [usize; N],
    entries: &[([usize; N], f64)],
    fill: f64,
) -> Vec<Elem> {
    let stores_all = F::LEVELS
        .iter()
        .all(|l| l.kind == LevelKind::Dense && matches!(l.coord, Coord::Dim(_)));
    let p = presence(shape, entries, fill);
    match stores_all {
        true => p.into_iter().map(|e| Some(e.unwrap_or(fill))).collect(),
        false => p,
    }
}

fn with_fill<F: Format, const N: usize>(
    shape: [usize; N],
    entries: &[([usize; N], f64)],
    fill: f64,
) -> Tensor<f64, F> {
    Tensor::from_entries_with_fill(shape, entries.iter().copied(), fill).expect("valid input")
}

/// A dense output holding a value no kernel computes, with fill `fill`.
fn garbage_out(m: usize, fill: f64) -> Tensor<f64, DenseVec> {
    let entries: Vec<([usize; 1], f64)> = (0..m).map(|i| ([i], -777.25)).collect();
    Tensor::from_entries_with_fill([m], entries, fill).expect("valid shape")
}

/// The reduction operators as the evaluation applies them (hand-written, not the kernels').
mod fold {
    pub fn add(a: f64, b: f64) -> f64 {
        a + b
    }
    pub fn mul(a: f64, b: f64) -> f64 {
        a * b
    }
    pub fn min(acc: f64, v: f64) -> f64 {
        if v < acc { v } else { acc }
    }
    pub fn max(acc: f64, v: f64) -> f64 {
        if v > acc { v } else { acc }
    }
    pub fn or(a: f64, b: f64) -> f64 {
        if a != 0.0 || b != 0.0 { 1.0 } else { 0.0 }
    }
    pub fn and(a: f64, b: f64) -> f64 {
        if a != 0.0 && b != 0.0 { 1.0 } else { 0.0 }
    }
}

/// One semiring matrix-vector product `y(i) = reduce_j term(A(i,j), x(j))`: the fills, the term
/// with absent operands (`None`), the reduction and its identity, and the values to draw.
struct Semiring {
    a_fill: f64,
    x_fill: f64,
    y_fill: f64,
    term: fn(Elem, Elem) -> f64,
    reduce: fn(f64, f64) -> f64,
    identity: f64,
    value: fn(&mut Rng) -> f64,
}

/// Values that sum and multiply exactly, with the IEEE edges now and then.
fn edgy(rng: &mut Rng) -> f64 {
    match rng.below(40) {
        0 => INF,
        1 => -INF,
        2 => f64::NAN,
        3 => 0.0,
        _ => rng.value(),
    }
}

/// Small finite values.
fn plain(rng: &mut Rng) -> f64 {
    rng.value()
}

/// Powers of two and zero, whose products stay exact.
fn powers(rng: &mut Rng) -> f64 {
    [0.5, -1.0, 2.0, 1.0, -0.5, 0.0][rng.below(6)]
}

/// Zeros and ones (and other nonzeros, which read as true).
fn truths(rng: &mut Rng) -> f64 {
    [0.0, 1.0, 1.0, -3.0, 0.0][rng.below(5)]
}

/// Entry lists for an `m x n` matrix: empty, one entry, sparse, half full with an empty first,
/// middle and last row, nearly full, and duplicates.
fn matrices(m: usize, n: usize, s: &Semiring, seed: u64) -> Vec<Vec<([usize; 2], f64)>> {
    let mut rng = Rng::new(seed);
    let mut out = vec![Vec::new()];
    if m * n == 0 {
        return out;
    }
    out.push(vec![([rng.below(m), rng.below(n)], (s.value)(&mut rng))]);
    for density in [0.1, 0.5, 0.95] {
        let mut e = Vec::new();
        for i in 0..m {
            let skip = density == 0.5 && (i == 0 || i == m / 2 || i + 1 == m);
            for j in 0..n {
                if !skip && (rng.below(1000) as f64) < density * 1000.0 {
                    e.push(([i, j], (s.value)(&mut rng)));
                }
            }
        }
        out.push(e);
    }
    let c = [rng.below(m), rng.below(n)];
    out.push(vec![
        (c, 1.0),
        ([rng.below(m), rng.below(n)], 2.0),
        (c, -0.5),
        (c, 0.25),
    ]);
    out
}

fn vectors(n: usize, s: &Semiring, seed: u64) -> Vec<Vec<([usize; 1], f64)>> {
    let mut rng = Rng::new(seed);
    let mut out = vec![Vec::new()];
    for density in [0.3, 1.0] {
        let mut e = Vec::new();
        for j in 0..n {
            if (rng.below(100) as f64) < density * 100.0 {
                e.push(([j], (s.value)(&mut rng)));
            }
        }
        out.push(e);
    }
    out
}

/// The dense evaluation of `y(i) = reduce_j term(A(i,j), x(j))`.
fn evaluate(s: &Semiring, m: usize, n: usize, a: &[Elem], x: &[Elem]) -> Vec<f64> {
    (0..m)
        .map(|i| {
            (0..n).fold(s.identity, |acc, j| {
                (s.reduce)(acc, (s.term)(a[i * n + j], x[j]))
            })
        })
        .collect()
}

type Dense1 = Tensor<f64, DenseVec>;
type Kernel<F, G> = fn(&mut Dense1, &Tensor<f64, F>, &Tensor<f64, G>) -> Result<(), KernelError>;

/// Runs `kernel` on every input and compares with the evaluation. `large` adds a matrix big
/// enough (over `PARALLEL_MIN_WORK` stored values) for thread regions to use the pool.
fn check<F: Format, G: Format>(s: &Semiring, kernel: Kernel<F, G>, what: &str, large: bool) {
    common::regions_on_small_inputs();
    let mut shapes = vec![(0, 0), (1, 1), (3, 1), (6, 9), (13, 7)];
    if large {
        shapes.push((190, 190));
    }
    for (m, n) in shapes {
        for (k, a_entries) in matrices(m, n, s, (m * 31 + n) as u64).iter().enumerate() {
            if m > 100 && k != 4 {
                continue;
            }
            for x_entries in vectors(n, s, (m + 7 * n + k) as u64) {
                let a_elems = elems::<F, 2>([m, n], a_entries, s.a_fill);
                let x_elems = elems::<G, 1>([n], &x_entries, s.x_fill);
                let a: Tensor<f64, F> = with_fill([m, n], a_entries, s.a_fill);
                let x: Tensor<f64, G> = with_fill([n], &x_entries, s.x_fill);
                let mut y = garbage_out(m, s.y_fill);
                kernel(&mut y, &a, &x).unwrap();
                let want = evaluate(s, m, n, &a_elems, &x_elems);
                assert_same(
                    &y.to_dense(),
                    &want,
                    &format!("{what} on {m}x{n} input {k}"),
                );
                assert_eq!(
                    y.fill().to_bits(),
                    s.y_fill.to_bits(),
                    "{what}: the output's fill"
                );
            }
        }
    }
}

/// The kernels of one semiring: CSR, dense, COO and CSC matrices, a sparse vector, and every CPU
/// race strategy (rows split with `NoRaces`; columns of a CSC matrix with `Temporary` and
/// `Atomics`). `nnz` adds the nonzero split of a CSR matrix under `Atomics` and `Temporary`, for
/// semirings whose matrix fill absorbs the term (so only its entries are visited).
macro_rules! semiring {
    ($name:ident, [$($rhs:tt)*], fills[$($fills:tt)*], $op:tt, $semiring:expr, nnz: $nnz:tt) => {
        #[allow(non_snake_case, dead_code)]
        mod $name {
            use super::*;

            tensor_kernel! { pub fn csr; y(i) = $($rhs)*; formats<A: csr>; fills<$($fills)*>; reduce<j: $op>; }
            tensor_kernel! { pub fn dense; y(i) = $($rhs)*; fills<$($fills)*>; reduce<j: $op>; }
            tensor_kernel! { pub fn coo; y(i) = $($rhs)*; formats<A: coo>; fills<$($fills)*>; reduce<j: $op>; }
            tensor_kernel! { pub fn csc; y(i) = $($rhs)*; formats<A: csc>; fills<$($fills)*>; reduce<j: $op>; }
            tensor_kernel! { pub fn sparse_x; y(i) = $($rhs)*; formats<A: csr, x: sparse>; fills<$($fills)*>; reduce<j: $op>; }
            tensor_kernel! {
                pub fn rows; y(i) = $($rhs)*; formats<A: csr>; fills<$($fills)*>; reduce<j: $op>;
                schedule<split(i, i0, i1, Down, 4).parallelize(i0, CpuThread, NoRaces)>;
            }
            tensor_kernel! {
                pub fn columns_temporary; y(i) = $($rhs)*; formats<A: csc>; fills<$($fills)*>; reduce<j: $op>;
                schedule<parallelize(j, CpuThread, Temporary)>;
            }
            tensor_kernel! {
                pub fn columns_atomics; y(i) = $($rhs)*; formats<A: csc>; fills<$($fills)*>; reduce<j: $op>;
                schedule<parallelize(j, CpuThread, Atomics)>;
            }
            semiring!(@nnz $nnz, [$($rhs)*], fills[$($fills)*], $op);

            #[test]
            fn agrees_with_the_dense_evaluation() {
                let s: Semiring = $semiring;
                check::<Csr, DenseVec>(&s, csr, "csr", false);
                check::<DenseMat, DenseVec>(&s, dense, "dense", false);
                check::<Coo<2>, DenseVec>(&s, coo, "coo", false);
                check::<Csc, DenseVec>(&s, csc, "csc", false);
                check::<Csr, SparseVec>(&s, sparse_x, "sparse x", false);
                check::<Csr, DenseVec>(&s, rows, "rows, NoRaces", true);
                check::<Csc, DenseVec>(&s, columns_temporary, "columns, Temporary", true);
                check::<Csc, DenseVec>(&s, columns_atomics, "columns, Atomics", true);
                semiring!(@check_nnz $nnz, s);
            }
        }
    };
    (@nnz true, [$($rhs:tt)*], fills[$($fills:tt)*], $op:tt) => {
        tensor_kernel! {
            pub fn nnz_atomics; y(i) = $($rhs)*; formats<A: csr>; fills<$($fills)*>; reduce<j: $op>;
            schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 4)
                .parallelize(p0, CpuThread, Atomics)>;
        }
        tensor_kernel! {
            pub fn nnz_temporary; y(i) = $($rhs)*; formats<A: csr>; fills<$($fills)*>; reduce<j: $op>;
            schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 4)
                .parallelize(p0, CpuThread, Temporary)>;
        }
    };
    (@nnz false, [$($rhs:tt)*], fills[$($fills:tt)*], $op:tt) => {};
    (@check_nnz true, $s:ident) => {
        check::<Csr, DenseVec>(&$s, nnz_atomics, "nonzeros, Atomics", true);
        check::<Csr, DenseVec>(&$s, nnz_temporary, "nonzeros, Temporary", true);
    };
    (@check_nnz false, $s:ident) => {};
}

semiring!(min_plus, [A(i,j) + x(j)], fills[A: inf, x: inf, y: inf], min, Semiring {
    a_fill: INF,
    x_fill: INF,
    y_fill: INF,
    term: |a, x| match (a, x) {
        (Some(a), Some(x)) => a + x,
        _ => INF,
    },
    reduce: fold::min,
    identity: INF,
    value: edgy,
}, nnz: true);

semiring!(max_plus, [A(i,j) + x(j)], fills[A: -inf, x: -inf, y: -inf], max, Semiring {
    a_fill: -INF,
    x_fill: -INF,
    y_fill: -INF,
    term: |a, x| match (a, x) {
        (Some(a), Some(x)) => a + x,
        _ => -INF,
    },
    reduce: fold::max,
    identity: -INF,
    value: edgy,
}, nnz: true);

// Zero fills: a term with an absent factor is 0, which is not `max`'s identity, so every column
// is visited.
semiring!(max_times, [A(i,j) * x(j)], fills[], max, Semiring {
    a_fill: 0.0,
    x_fill: 0.0,
    y_fill: 0.0,
    term: |a, x| match (a, x) {
        (Some(a), Some(x)) => a * x,
        _ => 0.0,
    },
    reduce: fold::max,
    identity: -INF,
    value: edgy,
}, nnz: false);

semiring!(min_times_inf_output, [A(i,j) * x(j)], fills[y: inf], min, Semiring {
    a_fill: 0.0,
    x_fill: 0.0,
    y_fill: INF,
    term: |a, x| match (a, x) {
        (Some(a), Some(x)) => a * x,
        _ => 0.0,
    },
    reduce: fold::min,
    identity: INF,
    value: plain,
}, nnz: false);

semiring!(plus_times_named, [A(i,j) * x(j)], fills[], +, Semiring {
    a_fill: 0.0,
    x_fill: 0.0,
    y_fill: 0.0,
    term: |a, x| match (a, x) {
        (Some(a), Some(x)) => a * x,
        _ => 0.0,
    },
    reduce: fold::add,
    identity: 0.0,
    value: edgy,
}, nnz: true);

// A named `+` covers the whole right-hand side: sum_j (A(i,j) + x(j)), every column.
semiring!(plus_plus_named, [A(i,j) + x(j)], fills[], +, Semiring {
    a_fill: 0.0,
    x_fill: 0.0,
    y_fill: 0.0,
    term: |a, x| a.unwrap_or(0.0) + x.unwrap_or(0.0),
    reduce: fold::add,
    identity: 0.0,
    value: plain,
}, nnz: false);

semiring!(times_over_ones, [A(i,j) * x(j)], fills[A: 1, x: 1, y: 1], *, Semiring {
    a_fill: 1.0,
    x_fill: 1.0,
    y_fill: 1.0,
    term: |a, x| a.unwrap_or(1.0) * x.unwrap_or(1.0),
    reduce: fold::mul,
    identity: 1.0,
    value: powers,
}, nnz: false);

semiring!(times_over_zeros, [A(i,j) + x(j)], fills[], *, Semiring {
    a_fill: 0.0,
    x_fill: 0.0,
    y_fill: 0.0,
    term: |a, x| a.unwrap_or(0.0) + x.unwrap_or(0.0),
    reduce: fold::mul,
    identity: 1.0,
    value: powers,
}, nnz: false);

semiring!(or_and, [A(i,j) && x(j)], fills[], ||, Semiring {
    a_fill: 0.0,
    x_fill: 0.0,
    y_fill: 0.0,
    term: |a, x| fold::and(a.unwrap_or(0.0), x.unwrap_or(0.0)),
    reduce: fold::or,
    identity: 0.0,
    value: truths,
}, nnz: true);

semiring!(and_or, [A(i,j) || x(j)], fills[], &&, Semiring {
    a_fill: 0.0,
    x_fill: 0.0,
    y_fill: 0.0,
    term: |a, x| fold::or(a.unwrap_or(0.0), x.unwrap_or(0.0)),
    reduce: fold::and,
    identity: 1.0,
    value: truths,
}, nnz: false);

// `&&` over entries whose fill is true: only stored zeros (false) change the result.
semiring!(and_over_true_fill, [A(i,j) && x(j)], fills[A: 1, x: 1, y: 1], &&, Semiring {
    a_fill: 1.0,
    x_fill: 1.0,
    y_fill: 1.0,
    term: |a, x| fold::and(a.unwrap_or(1.0), x.unwrap_or(1.0)),
    reduce: fold::and,
    identity: 1.0,
    value: truths,
}, nnz: false);

/// The performance harness's kernels, exactly as it writes them.
mod harness {
    use super::*;

    tensor_kernel! { pub fn minplus; y(i) = A(i,j) + x(j); formats< A: csr >; fills< A: inf, x: inf, y: inf >; reduce< j: min >; }
    tensor_kernel! { pub fn minplus_par; y(i) = A(i,j) + x(j); formats< A: csr >; fills< A: inf, x: inf, y: inf >; reduce< j: min >; schedule< split(i,i0,i1,Down,32).parallelize(i0,CpuThread,NoRaces) >; }
    tensor_kernel! { pub fn bfs_step; nx(i) = ((A(i,j) as bool) && (f(j) as bool) && !(v(i) as bool)) as f64; formats< A: csr >; reduce< j: || >; }
    tensor_kernel! { pub fn bfs_step_par; nx(i) = ((A(i,j) as bool) && (f(j) as bool) && !(v(i) as bool)) as f64; formats< A: csr >; reduce< j: || >; schedule< split(i,i0,i1,Down,32).parallelize(i0,CpuThread,NoRaces) >; }

    #[test]
    fn min_plus_as_the_harness_calls_it() {
        for (m, n) in [(0, 0), (1, 1), (40, 30), (300, 250)] {
            let mut rng = Rng::new((m + n) as u64);
            let entries: Vec<([usize; 2], f64)> = (0..m)
                .flat_map(|i| (0..n).map(move |j| (i, j)))
                .filter(|_| rng.below(10) < 3)
                .map(|(i, j)| ([i, j], ((i * 7 + j) % 11) as f64))
                .collect();
            let xv: Vec<f64> = (0..n)
                .map(|j| if j % 3 == 2 { INF } else { (j % 5) as f64 })
                .collect();
            let a = Tensor::from_entries_with_fill([m, n], entries.iter().copied(), INF).unwrap();
            let xe: Vec<([usize; 1], f64)> = xv
                .iter()
                .enumerate()
                .filter(|(_, v)| v.is_finite())
                .map(|(j, &v)| ([j], v))
                .collect();
            let x = Tensor::from_entries_with_fill([n], xe, INF).unwrap();
            let mut want = vec![INF; m];
            for &([i, j], v) in &entries {
                want[i] = want[i].min(v + xv[j]);
            }
            for kernel in [minplus, minplus_par] {
                let mut y = Tensor::filled([m], INF);
                kernel(&mut y, &a, &x).unwrap();
                assert_same(&y.to_dense(), &want, "min-plus");
            }
        }
    }

    #[test]
    fn a_masked_bfs_step() {
        for (m, n) in [(0, 0), (1, 1), (40, 40), (400, 400)] {
            let mut rng = Rng::new((m * 3 + n) as u64);
            let entries: Vec<([usize; 2], f64)> = (0..m)
                .flat_map(|i| (0..n).map(move |j| (i, j)))
                .filter(|_| rng.below(10) < 2)
                .map(|(i, j)| ([i, j], 1.0))
                .collect();
            let fv: Vec<f64> = (0..n).map(|j| f64::from(u8::from(j % 4 == 1))).collect();
            let vv: Vec<f64> = (0..m).map(|i| f64::from(u8::from(i % 3 == 0))).collect();
            let a = Tensor::from_entries([m, n], entries.iter().copied()).unwrap();
            let f = Tensor::from_dense([n], &fv).unwrap();
            let v = Tensor::from_dense([m], &vv).unwrap();
            let mut want = vec![0.0; m];
            for &([i, j], _) in &entries {
                if fv[j] != 0.0 && vv[i] == 0.0 {
                    want[i] = 1.0;
                }
            }
            for kernel in [bfs_step, bfs_step_par] {
                let mut nx = Tensor::zeros([m]);
                kernel(&mut nx, &a, &f, &v).unwrap();
                assert_same(&nx.to_dense(), &want, "bfs step");
            }
        }
    }

    #[test]
    fn a_tensor_with_another_fill_is_an_error() {
        let a = Tensor::<f64, Csr>::from_entries([2, 2], [([0, 1], 1.0)]).unwrap();
        let x = Tensor::from_entries_with_fill([2], [([0], 1.0)], INF).unwrap();
        let mut y = Tensor::filled([2], INF);
        let err = minplus(&mut y, &a, &x).unwrap_err();
        assert_eq!(
            err,
            KernelError::FillMismatch {
                tensor: "A",
                expected: "inf".into(),
                found: "0".into()
            }
        );
        assert!(err.to_string().contains("`A` has fill value 0"), "{err}");
        let a = Tensor::from_entries_with_fill([2, 2], [([0, 1], 1.0)], INF).unwrap();
        let mut zero_y = Tensor::zeros([2]);
        let err = minplus(&mut zero_y, &a, &x).unwrap_err();
        assert!(
            matches!(err, KernelError::FillMismatch { tensor: "y", .. }),
            "{err}"
        );
        // An undeclared fill is zero: a kernel without `fills<...>` refuses another.
        let (f, v) = (Tensor::zeros([2]), Tensor::zeros([2]));
        let mut nx = Tensor::filled([2], 1.0);
        assert!(matches!(
            bfs_step(&mut nx, &Tensor::zeros([2, 2]), &f, &v),
            Err(KernelError::FillMismatch { tensor: "nx", .. })
        ));
    }
}

/// Reductions of a vector to a scalar, for every operator, serial and on threads.
macro_rules! to_scalar {
    ($name:ident, $op:tt, fills[$($fills:tt)*], $x_fill:expr, $reduce:expr, $identity:expr, $value:expr) => {
        #[allow(non_snake_case, dead_code)]
        mod $name {
            use super::*;

            tensor_kernel! { pub fn dense; s = x(i); fills<$($fills)*>; reduce<i: $op>; }
            tensor_kernel! { pub fn sparse_x; s = x(i); formats<x: sparse>; fills<$($fills)*>; reduce<i: $op>; }
            tensor_kernel! {
                pub fn atomics; s = x(i); fills<$($fills)*>; reduce<i: $op>;
                schedule<split(i, i0, i1, Down, 4).parallelize(i0, CpuThread, Atomics)>;
            }
            tensor_kernel! {
                pub fn temporary; s = x(i); fills<$($fills)*>; reduce<i: $op>;
                schedule<split(i, i0, i1, Down, 4).parallelize(i0, CpuThread, Temporary)>;
            }
            tensor_kernel! {
                pub fn parallel_reduction; s = x(i); fills<$($fills)*>; reduce<i: $op>;
                schedule<parallelize(i, CpuThread, ParallelReduction)>;
            }
            tensor_kernel! {
                pub fn lanes; s = x(i); fills<$($fills)*>; reduce<i: $op>;
                schedule<parallelize(i, CpuVector, ParallelReduction)>;
            }

            #[test]
            fn agrees_with_the_dense_evaluation() {
                let x_fill: f64 = $x_fill;
                let value: fn(&mut Rng) -> f64 = $value;
                for n in [0, 1, 5, 33, 40_000] {
                    let mut rng = Rng::new(n as u64 + 5);
                    for density in [0, 30, 100] {
                        let mut entries: Vec<([usize; 1], f64)> = Vec::new();
                        for i in 0..n {
                            if rng.below(100) < density {
                                entries.push(([i], value(&mut rng)));
                            }
                        }
                        let elems = presence([n], &entries, x_fill);
                        let want = elems
                            .iter()
                            .fold($identity, |acc: f64, e| $reduce(acc, e.unwrap_or(x_fill)));
                        let x: Tensor<f64, DenseVec> = with_fill([n], &entries, x_fill);
                        let xs: Tensor<f64, SparseVec> = with_fill([n], &entries, x_fill);
                        let what = format!("n = {n}, density {density}");
                        for kernel in [dense, atomics, temporary, parallel_reduction, lanes] {
                            let mut s = Tensor::<f64, Dense<0>>::from_dense([], &[-777.25]).unwrap();
                            kernel(&mut s, &x).unwrap();
                            assert_same(s.values(), &[want], &what);
                        }
                        let mut s = Tensor::<f64, Dense<0>>::from_dense([], &[-777.25]).unwrap();
                        sparse_x(&mut s, &xs).unwrap();
                        assert_same(s.values(), &[want], &what);
                    }
                }
            }
        }
    };
}

to_scalar!(scalar_min, min, fills[x: inf], INF, fold::min, INF, edgy);
to_scalar!(scalar_min_zero_fill, min, fills[], 0.0, fold::min, INF, plain);
to_scalar!(scalar_max, max, fills[x: -inf], -INF, fold::max, -INF, edgy);
to_scalar!(scalar_times, *, fills[x: 1], 1.0, fold::mul, 1.0, |r: &mut Rng| [0.5, 2.0, -1.0, 1.0][r.below(4)]);
to_scalar!(scalar_or, ||, fills[], 0.0, fold::or, 0.0, truths);
to_scalar!(scalar_and, &&, fills[x: 1], 1.0, fold::and, 1.0, truths);
to_scalar!(scalar_sum, +, fills[], 0.0, fold::add, 0.0, plain);

/// Elementwise operators over tensors with fills, into dense and sparse outputs: a sparse output
/// must read back as the evaluation, whatever it stores.
macro_rules! elementwise {
    ($name:ident, [$($rhs:tt)*], [$($m:tt)*], fills[$($fills:tt)*], $a_fill:expr, $b_fill:expr, $y_fill:expr, $f:expr) => {
        #[allow(non_snake_case, dead_code)]
        mod $name {
            use super::*;

            tensor_kernel! { pub fn sparse_in; y(i) = $($rhs)*; formats<a: sparse, b: sparse>; fills<$($fills)*>; }
            tensor_kernel! { pub fn mixed; y(i) = $($rhs)*; formats<a: sparse>; fills<$($fills)*>; }
            tensor_kernel! { pub fn sparse_out; y(i) = $($rhs)*; formats<a: sparse, b: sparse, y: sparse>; fills<$($fills)*>; }
            tensor_kernel! { pub fn matrix; y(i,j) = $($m)*; formats<a: csr, b: csr, y: csr>; fills<$($fills)*>; }

            #[test]
            fn agrees_with_the_dense_evaluation() {
                let (a_fill, b_fill, y_fill): (f64, f64, f64) = ($a_fill, $b_fill, $y_fill);
                let f: fn(Elem, Elem) -> f64 = $f;
                let s = Semiring { a_fill, x_fill: b_fill, y_fill, term: f, reduce: fold::add, identity: 0.0, value: edgy };
                for n in [0, 1, 9, 24] {
                    for (k, ae) in vectors(n, &s, n as u64).iter().enumerate() {
                        for be in vectors(n, &s, n as u64 + 100 + k as u64) {
                            let (ap, bp) = (presence([n], ae, a_fill), presence([n], &be, b_fill));
                            let want: Vec<f64> = (0..n).map(|i| f(ap[i], bp[i])).collect();
                            let bd_elems = elems::<DenseVec, 1>([n], &be, b_fill);
                            let want_mixed: Vec<f64> = (0..n).map(|i| f(ap[i], bd_elems[i])).collect();
                            let what = format!("n = {n}, inputs {k}");
                            let (a, b) = (with_fill::<SparseVec, 1>([n], ae, a_fill), with_fill::<SparseVec, 1>([n], &be, b_fill));
                            let mut y = garbage_out(n, y_fill);
                            sparse_in(&mut y, &a, &b).unwrap();
                            assert_same(&y.to_dense(), &want, &what);
                            let bd: Tensor<f64, DenseVec> = with_fill([n], &be, b_fill);
                            let mut y = garbage_out(n, y_fill);
                            mixed(&mut y, &a, &bd).unwrap();
                            assert_same(&y.to_dense(), &want_mixed, &what);
                            let mut z = Tensor::<f64, SparseVec>::filled([n], y_fill);
                            sparse_out(&mut z, &a, &b).unwrap();
                            assert_same(&z.to_dense(), &want, &what);
                            // The same elements as the rows of a 3-row matrix.
                            let rows = |e: &[([usize; 1], f64)]| -> Vec<([usize; 2], f64)> {
                                e.iter().flat_map(|&([i], v)| (0..3).map(move |r| ([r, i], v))).collect()
                            };
                            let (am, bm) = (with_fill::<Csr, 2>([3, n], &rows(ae), a_fill), with_fill::<Csr, 2>([3, n], &rows(&be), b_fill));
                            let mut ym = Tensor::<f64, Csr>::filled([3, n], y_fill);
                            matrix(&mut ym, &am, &bm).unwrap();
                            let want3: Vec<f64> = (0..3).flat_map(|_| want.iter().copied()).collect();
                            assert_same(&ym.to_dense(), &want3, &what);
                        }
                    }
                }
            }
        }
    };
}

// `inf` absorbs `+`: only the common coordinates.
elementwise!(plus_inf_fills, [a(i) + b(i)], [a(i,j) + b(i,j)], fills[a: inf, b: inf, y: inf], INF, INF, INF, |a, b| match (a, b) {
    (Some(a), Some(b)) => a + b,
    _ => INF,
});
// `min` with `inf` fills: either operand's coordinates.
elementwise!(min_inf_fills, [min(a(i), b(i))], [min(a(i,j), b(i,j))], fills[a: inf, b: inf, y: inf], INF, INF, INF, |a, b| {
    let (a, b) = (a.unwrap_or(INF), b.unwrap_or(INF));
    if a <= b { a } else { b }
});
// A product whose one factor has fill 2: zero where `b` is absent.
elementwise!(times_mixed_fills, [a(i) * b(i)], [a(i,j) * b(i,j)], fills[a: 2], 2.0, 0.0, 0.0, |a, b| match b {
    None => 0.0,
    Some(b) => a.unwrap_or(2.0) * b,
});
// Fills 1 and 1 into an output of fill 2: the union.
elementwise!(plus_union_fill_two, [a(i) + b(i)], [a(i,j) + b(i,j)], fills[a: 1, b: 1, y: 2], 1.0, 1.0, 2.0, |a, b| {
    a.unwrap_or(1.0) + b.unwrap_or(1.0)
});
// Fill 1 into an output of fill 0: the result is 1 where both are absent, so every coordinate is
// stored.
elementwise!(plus_everywhere, [a(i) + b(i)], [a(i,j) + b(i,j)], fills[a: 1], 1.0, 0.0, 0.0, |a, b| {
    a.unwrap_or(1.0) + b.unwrap_or(0.0)
});

/// Reductions that do not promote to a scalar: over the rows of a CSR matrix into a dense vector
/// (the output accumulates), and min-plus into a sparse output.
mod accumulating {
    use super::*;

    tensor_kernel! { pub fn column_max; y(j) = A(i,j); formats<A: csr>; reduce<i: max>; }
    tensor_kernel! { pub fn column_min_inf; y(j) = A(i,j); formats<A: csr>; fills<A: inf, y: inf>; reduce<i: min>; }
    tensor_kernel! {
        pub fn min_plus_sparse_out; z(i) = A(i,j) + x(j); formats<A: csr, z: sparse>;
        fills<A: inf, x: inf, z: inf>; reduce<j: min>;
    }
    tensor_kernel! {
        pub fn min_plus_dcsr_out; Z(i,k) = A(i,j) + B(j,k); formats<A: csr, B: csr, Z: csr>;
        fills<A: inf, B: inf, Z: inf>; reduce<j: min>;
    }

    #[test]
    fn column_reductions() {
        for (m, n) in [(0, 0), (1, 1), (7, 5), (12, 30)] {
            let s = Semiring {
                a_fill: 0.0,
                x_fill: 0.0,
                y_fill: 0.0,
                term: |a, _| a.unwrap_or(0.0),
                reduce: fold::max,
                identity: -INF,
                value: edgy,
            };
            for entries in matrices(m, n, &s, (m + n) as u64) {
                let a_elems = presence([m, n], &entries, 0.0);
                let want: Vec<f64> = (0..n)
                    .map(|j| {
                        (0..m).fold(-INF, |acc, i| {
                            fold::max(acc, a_elems[i * n + j].unwrap_or(0.0))
                        })
                    })
                    .collect();
                let a: Tensor<f64, Csr> = with_fill([m, n], &entries, 0.0);
                let mut y = garbage_out(n, 0.0);
                column_max(&mut y, &a).unwrap();
                assert_same(&y.to_dense(), &want, "column max");

                let a_elems = presence([m, n], &entries, INF);
                let want: Vec<f64> = (0..n)
                    .map(|j| {
                        (0..m).fold(INF, |acc, i| {
                            fold::min(acc, a_elems[i * n + j].unwrap_or(INF))
                        })
                    })
                    .collect();
                let a: Tensor<f64, Csr> = with_fill([m, n], &entries, INF);
                let mut y = garbage_out(n, INF);
                column_min_inf(&mut y, &a).unwrap();
                assert_same(&y.to_dense(), &want, "column min");
            }
        }
    }

    #[test]
    fn min_plus_into_sparse_outputs() {
        let s = Semiring {
            a_fill: INF,
            x_fill: INF,
            y_fill: INF,
            term: |a, x| match (a, x) {
                (Some(a), Some(x)) => a + x,
                _ => INF,
            },
            reduce: fold::min,
            identity: INF,
            value: edgy,
        };
        for (m, n) in [(0, 0), (1, 1), (6, 9), (13, 7)] {
            for (k, a_entries) in matrices(m, n, &s, (m * 5 + n) as u64).iter().enumerate() {
                for x_entries in vectors(n, &s, k as u64) {
                    let (ap, xp) = (
                        presence([m, n], a_entries, INF),
                        elems::<DenseVec, 1>([n], &x_entries, INF),
                    );
                    let want = evaluate(&s, m, n, &ap, &xp);
                    let a: Tensor<f64, Csr> = with_fill([m, n], a_entries, INF);
                    let x: Tensor<f64, DenseVec> = with_fill([n], &x_entries, INF);
                    let mut z = Tensor::<f64, SparseVec>::filled([m], INF);
                    min_plus_sparse_out(&mut z, &a, &x).unwrap();
                    assert_same(&z.to_dense(), &want, "min-plus into a sparse vector");
                    // Rows with nothing to reduce are not stored.
                    for (c, _) in z.iter() {
                        let i = c[0];
                        assert!((0..n).any(|j| ap[i * n + j].is_some()), "row {i} stored");
                    }
                }
            }
        }
        // A min-plus matrix product (the distances of paths of two edges).
        for (m, n) in [(0, 0), (5, 5), (9, 7)] {
            for (k, a_entries) in matrices(m, n, &s, 3).iter().enumerate() {
                let b_entries = &matrices(n, m, &s, 9 + k as u64)[k % 4];
                let (ap, bp) = (
                    presence([m, n], a_entries, INF),
                    presence([n, m], b_entries, INF),
                );
                let mut want = vec![INF; m * m];
                for i in 0..m {
                    for kk in 0..m {
                        for j in 0..n {
                            let term = match (ap[i * n + j], bp[j * m + kk]) {
                                (Some(a), Some(b)) => a + b,
                                _ => INF,
                            };
                            want[i * m + kk] = fold::min(want[i * m + kk], term);
                        }
                    }
                }
                let a: Tensor<f64, Csr> = with_fill([m, n], a_entries, INF);
                let b: Tensor<f64, Csr> = with_fill([n, m], b_entries, INF);
                let mut z = Tensor::<f64, Csr>::filled([m, m], INF);
                min_plus_dcsr_out(&mut z, &a, &b).unwrap();
                assert_same(&z.to_dense(), &want, "min-plus SpGEMM");
            }
        }
    }
}

/// A named reduction around an implicit sum, slot formats (ELL, DIA) and a 3-tensor reduced over
/// two indices with one operator.
mod shapes {
    use super::*;

    tensor_kernel! {
        /// y(i) = min_j A(i,j) + Σk B(j,k) x(k): the sum is a partial one inside the minimum.
        pub fn min_of_sums; y(i) = A(i,j) + B(j,k) * x(k); formats<A: csr, B: csr>;
        fills<A: inf, y: inf>; reduce<j: min>;
    }
    tensor_kernel! {
        /// y(i) = max_j Σk A(i,j) B(j,k): the implicit sum over k covers the whole product, inside
        /// the named maximum.
        pub fn max_of_products; y(i) = A(i,j) * B(j,k); formats<A: csr, B: csr>; reduce<j: max>;
    }
    tensor_kernel! { pub fn min_plus_ell; y(i) = A(i,j) + x(j); formats<A: ell>; fills<A: inf, x: inf, y: inf>; reduce<j: min>; }
    tensor_kernel! { pub fn min_plus_dia; y(i) = A(i,j) + x(j); formats<A: dia>; fills<A: inf, x: inf, y: inf>; reduce<j: min>; }
    tensor_kernel! { pub fn min_plus_dcsr; y(i) = A(i,j) + x(j); formats<A: dcsr>; fills<A: inf, x: inf, y: inf>; reduce<j: min>; }
    tensor_kernel! { pub fn min_over_two; y(i) = T(i,j,k); formats<T: csf>; fills<T: inf, y: inf>; reduce<j: min, k: min>; }

    fn matrix(m: usize, n: usize, seed: u64, fill: f64) -> (Vec<([usize; 2], f64)>, Vec<Elem>) {
        let mut rng = Rng::new(seed);
        let mut e = Vec::new();
        for i in 0..m {
            for j in 0..n {
                if rng.below(10) < 3 && i % 5 != 2 {
                    e.push(([i, j], (1 + rng.below(9)) as f64));
                }
            }
        }
        let p = presence([m, n], &e, fill);
        (e, p)
    }

    #[test]
    fn a_partial_sum_inside_a_named_reduction() {
        for (m, n, l) in [(0, 0, 0), (1, 1, 1), (7, 6, 5), (12, 9, 14)] {
            let (ae, ap) = matrix(m, n, 1, INF);
            let (be, bp) = matrix(n, l, 2, 0.0);
            let xv: Vec<f64> = (0..l).map(|k| (k % 4) as f64).collect();
            let sums: Vec<f64> = (0..n)
                .map(|j| (0..l).map(|k| bp[j * l + k].unwrap_or(0.0) * xv[k]).sum())
                .collect();
            let want: Vec<f64> = (0..m)
                .map(|i| {
                    (0..n).fold(INF, |acc, j| match ap[i * n + j] {
                        Some(a) => fold::min(acc, a + sums[j]),
                        None => acc,
                    })
                })
                .collect();
            let a: Tensor<f64, Csr> = with_fill([m, n], &ae, INF);
            let b: Tensor<f64, Csr> = with_fill([n, l], &be, 0.0);
            let x = Tensor::from_dense([l], &xv).unwrap();
            let mut y = garbage_out(m, INF);
            min_of_sums(&mut y, &a, &b, &x).unwrap();
            assert_same(&y.to_dense(), &want, "min of sums");

            let (ae, ap) = matrix(m, n, 3, 0.0);
            let want: Vec<f64> = (0..m)
                .map(|i| {
                    (0..n).fold(-INF, |acc, j| {
                        let s: f64 = (0..l)
                            .map(|k| ap[i * n + j].unwrap_or(0.0) * bp[j * l + k].unwrap_or(0.0))
                            .sum();
                        fold::max(acc, s)
                    })
                })
                .collect();
            let a: Tensor<f64, Csr> = with_fill([m, n], &ae, 0.0);
            let mut y = garbage_out(m, 0.0);
            max_of_products(&mut y, &a, &b).unwrap();
            assert_same(&y.to_dense(), &want, "max of products");
        }
    }

    #[test]
    fn slot_and_doubly_compressed_formats() {
        let s = Semiring {
            a_fill: INF,
            x_fill: INF,
            y_fill: INF,
            term: |a, x| match (a, x) {
                (Some(a), Some(x)) => a + x,
                _ => INF,
            },
            reduce: fold::min,
            identity: INF,
            value: plain,
        };
        check::<Ell, DenseVec>(&s, min_plus_ell, "ell", false);
        check::<Dia, DenseVec>(&s, min_plus_dia, "dia", false);
        check::<Dcsr, DenseVec>(&s, min_plus_dcsr, "dcsr", false);
    }

    #[test]
    fn a_tensor_reduced_over_two_indices() {
        for (m, n, l) in [(0, 0, 0), (1, 1, 1), (4, 5, 6), (9, 3, 7)] {
            let mut rng = Rng::new((m + n + l) as u64);
            let mut e = Vec::new();
            for i in 0..m {
                for j in 0..n {
                    for k in 0..l {
                        if rng.below(10) < 2 && i != 1 {
                            e.push(([i, j, k], rng.value()));
                        }
                    }
                }
            }
            let p = presence([m, n, l], &e, INF);
            let want: Vec<f64> = (0..m)
                .map(|i| {
                    (0..n * l).fold(INF, |acc, jk| {
                        fold::min(acc, p[i * n * l + jk].unwrap_or(INF))
                    })
                })
                .collect();
            let t: Tensor<f64, Csf<3>> = with_fill([m, n, l], &e, INF);
            let mut y = garbage_out(m, INF);
            min_over_two(&mut y, &t).unwrap();
            assert_same(&y.to_dense(), &want, "min over j and k");
        }
    }
}
