//! User-defined operators (`ops<...>`): each region shape, `when` clauses, annihilators, fill
//! values, NaN and infinities, with dense, sparse and mixed operands, and a user operator summed
//! serially and under each CPU race strategy. Every kernel is checked against an evaluation
//! written out here: each element of each operand (its fill where nothing is stored), an operand
//! present where its value differs from its fill, and the operator's regions and bodies applied
//! by hand.
mod common;

use common::{Rng, assert_same};
use sparse::prelude::*;

const INF: f64 = f64::INFINITY;

/// The row-major values of an entry list: duplicates summed, the fill where nothing is given.
fn values<const N: usize>(shape: [usize; N], entries: &[([usize; N], f64)], fill: f64) -> Vec<f64> {
    let mut sums: Vec<Option<f64>> = vec![None; shape.iter().product()];
    for (c, v) in entries {
        let at = (0..N).fold(0, |at, k| at * shape[k] + c[k]);
        sums[at] = Some(sums[at].map_or(*v, |s| s + v));
    }
    sums.into_iter().map(|s| s.unwrap_or(fill)).collect()
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

/// Vectors of length `n`: empty, one entry, every element, and random ones drawn by `value`.
fn vectors(n: usize, seed: u64, value: fn(&mut Rng) -> f64) -> Vec<Vec<([usize; 1], f64)>> {
    let mut rng = Rng::new(seed);
    let mut out = vec![Vec::new()];
    if n == 0 {
        return out;
    }
    out.push(vec![([rng.below(n)], value(&mut rng))]);
    out.push((0..n).map(|i| ([i], value(&mut rng))).collect());
    for _ in 0..3 {
        let count = rng.below(n + 1);
        out.push(
            (0..count)
                .map(|_| ([rng.below(n)], value(&mut rng)))
                .collect(),
        );
    }
    out
}

/// Small exact values, zero among them.
fn plain(rng: &mut Rng) -> f64 {
    rng.value()
}

/// Values with infinities and NaN among them.
fn edgy(rng: &mut Rng) -> f64 {
    match rng.below(8) {
        0 => INF,
        1 => -INF,
        2 => f64::NAN,
        _ => rng.value(),
    }
}

/// An elementwise kernel `y(i) = f(a(i), b(i))`.
type Elementwise<F, G> =
    fn(&mut Tensor<f64, DenseVec>, &Tensor<f64, F>, &Tensor<f64, G>) -> Result<(), KernelError>;

/// One elementwise operator: the fills of `a`, `b` and `y`, the values to draw, and the operator
/// as the evaluation applies it to `(a, a present, b, b present)`.
struct Case {
    fills: [f64; 3],
    value: fn(&mut Rng) -> f64,
    apply: fn(f64, bool, f64, bool) -> f64,
}

fn check_elementwise<F: Format, G: Format>(c: &Case, kernel: Elementwise<F, G>, what: &str) {
    let [fa, fb, fy] = c.fills;
    for n in [0, 1, 5, 17] {
        for (k, ae) in vectors(n, n as u64 + 1, c.value).iter().enumerate() {
            for be in vectors(n, (n * 13 + k) as u64 + 7, c.value) {
                let a: Tensor<f64, F> = with_fill([n], ae, fa);
                let b: Tensor<f64, G> = with_fill([n], &be, fb);
                let mut y = garbage_out(n, fy);
                kernel(&mut y, &a, &b).unwrap();
                let (va, vb) = (values([n], ae, fa), values([n], &be, fb));
                let want: Vec<f64> = (0..n)
                    .map(|i| (c.apply)(va[i], va[i] != fa, vb[i], vb[i] != fb))
                    .collect();
                assert_same(&y.to_dense(), &want, &format!("{what}, n = {n}, a {k}"));
            }
        }
    }
}

/// The kernels of one operator over sparse, mixed and dense operands.
macro_rules! elementwise {
    ($name:ident, ops[$($ops:tt)*], fills[$($fills:tt)*], $case:expr) => {
        mod $name {
            use super::*;

            tensor_kernel! {
                pub fn sparse; y(i) = f(a(i), b(i)); formats<a: sparse, b: sparse>;
                fills<$($fills)*>; ops<$($ops)*>;
            }
            tensor_kernel! {
                pub fn mixed; y(i) = f(a(i), b(i)); formats<b: sparse>;
                fills<$($fills)*>; ops<$($ops)*>;
            }
            tensor_kernel! {
                pub fn mixed_other; y(i) = f(a(i), b(i)); formats<a: sparse>;
                fills<$($fills)*>; ops<$($ops)*>;
            }
            tensor_kernel! {
                pub fn dense; y(i) = f(a(i), b(i)); fills<$($fills)*>; ops<$($ops)*>;
            }

            #[test]
            fn agrees_with_the_dense_evaluation() {
                let c: Case = $case;
                check_elementwise::<SparseVec, SparseVec>(&c, sparse, "sparse");
                check_elementwise::<DenseVec, SparseVec>(&c, mixed, "dense a, sparse b");
                check_elementwise::<SparseVec, DenseVec>(&c, mixed_other, "sparse a, dense b");
                check_elementwise::<DenseVec, DenseVec>(&c, dense, "dense");
            }
        }
    };
}

// No `over`: the body wherever an operand is present; at the fills elsewhere (1, which the
// output does not hold by default, so every element is computed).
elementwise!(no_over, ops[f(x, y) = x * y + 2 * x - y + 1;], fills[], Case {
    fills: [0.0, 0.0, 0.0],
    value: plain,
    apply: |a, pa, b, pb| if pa || pb { a * b + 2.0 * a - b + 1.0 } else { 1.0 },
});

// `over x & y`: the intersection; elsewhere the body at the fills, which is the output's fill.
elementwise!(over_both, ops[f(x, y) = x + y + 1 over x & y;], fills[y: 1], Case {
    fills: [0.0, 0.0, 1.0],
    value: plain,
    apply: |a, pa, b, pb| if pa && pb { a + b + 1.0 } else { 1.0 },
});

// `over x | y` with fills other than zero: a dense operand's fill-valued elements are absent.
elementwise!(over_either, ops[f(x, y) = x * y - 3 over x | y;], fills[a: 2, b: -1, y: -5], Case {
    fills: [2.0, -1.0, -5.0],
    value: plain,
    apply: |a, pa, b, pb| if pa || pb { a * b - 3.0 } else { -5.0 },
});

// `over x & !y`: a mask; where both are present the result is the fill, not `x - y`.
elementwise!(over_masked, ops[f(x, y) = x - y + 4 over x & !y;], fills[y: 4], Case {
    fills: [0.0, 0.0, 4.0],
    value: plain,
    apply: |a, pa, b, pb| if pa && !pb { a - b + 4.0 } else { 4.0 },
});

// `when` clauses tried in order, then the body anywhere an operand is present.
elementwise!(whens, ops[f(x, y) = x + y when x & y => x * y when y & !x => 10 - y;], fills[], Case {
    fills: [0.0, 0.0, 0.0],
    value: plain,
    apply: |a, pa, b, pb| match (pa, pb) {
        (true, true) => a * b,
        (false, true) => 10.0 - b,
        (true, false) => a + b,
        (false, false) => 0.0,
    },
});

// An annihilator: where an operand holds it (here its fill), the result is it, whatever the
// body would give (`x * y + x` is `x` where `y` is 0).
elementwise!(annihilator, ops[f(x, y) = x * y + x annihilator 0;], fills[], Case {
    fills: [0.0, 0.0, 0.0],
    value: plain,
    apply: |a, pa, b, pb| if pa && pb { a * b + a } else { 0.0 },
});

// Infinities and NaN: NaN and infinities are present (they differ from the fill) and go through
// the body; the mask drops them where `y` is present.
elementwise!(nan_and_inf, ops[f(x, y) = x - y over x & !y;], fills[], Case {
    fills: [0.0, 0.0, 0.0],
    value: edgy,
    apply: |a, pa, b, pb| if pa && !pb { a - b } else { 0.0 },
});

// Infinite fills: a min-plus style union, the infinities absent.
elementwise!(infinite_fills, ops[f(x, y) = min(x, y + 1) over x | y;], fills[a: inf, b: inf, y: inf], Case {
    fills: [INF, INF, INF],
    value: plain,
    apply: |a, pa, b, pb| {
        let c = b + 1.0;
        if !(pa || pb) { INF } else if a <= c { a } else { c }
    },
});

// Calls of earlier operators inside a body, and a one-operand operator.
elementwise!(nested, ops[g(x) = x * x + 1 over x; f(x, y) = g(x) - g(y) over x | y;], fills[], Case {
    fills: [0.0, 0.0, 0.0],
    value: plain,
    apply: |a, pa, b, pb| {
        let g = |v: f64, p: bool| if p { v * v + 1.0 } else { 1.0 };
        if pa || pb { g(a, pa) - g(b, pb) } else { 0.0 }
    },
});

/// A matrix-vector kernel `y(i) = sum_j f(A(i,j), x(j))`.
type Summed<F, G> =
    fn(&mut Tensor<f64, DenseVec>, &Tensor<f64, F>, &Tensor<f64, G>) -> Result<(), KernelError>;

/// The term `f(A, x) = A * x + A over A & (x | !x..)`: as the kernels below define it.
fn term(a: f64, pa: bool, x: f64, px: bool) -> f64 {
    match (pa, px) {
        (true, true) => a * x + a,
        (true, false) => 2.0 * a,
        _ => 0.0,
    }
}

fn check_summed<F: Format, G: Format>(kernel: Summed<F, G>, what: &str) {
    for (m, n) in [(0, 0), (1, 1), (3, 1), (6, 9), (13, 7), (190, 190)] {
        for (k, ae) in common::cases([m, n], (m * 31 + n) as u64)
            .iter()
            .enumerate()
        {
            if m > 100 && k != 4 {
                continue;
            }
            for xe in vectors(n, (m + 7 * n + k) as u64, plain) {
                let a: Tensor<f64, F> = with_fill([m, n], ae, 0.0);
                let x: Tensor<f64, G> = with_fill([n], &xe, 0.0);
                let mut y = garbage_out(m, 0.0);
                kernel(&mut y, &a, &x).unwrap();
                let (va, vx) = (values([m, n], ae, 0.0), values([n], &xe, 0.0));
                let want: Vec<f64> = (0..m)
                    .map(|i| {
                        (0..n)
                            .map(|j| term(va[i * n + j], va[i * n + j] != 0.0, vx[j], vx[j] != 0.0))
                            .sum()
                    })
                    .collect();
                assert_same(
                    &y.to_dense(),
                    &want,
                    &format!("{what} on {m}x{n} input {k}"),
                );
            }
        }
    }
}

mod summed {
    use super::*;

    tensor_kernel! {
        pub fn csr; y(i) = f(A(i,j), x(j)); formats<A: csr>;
        ops< f(a, v) = a * v + a over a when a & !v => 2 * a; >;
    }
    tensor_kernel! {
        pub fn sparse_x; y(i) = f(A(i,j), x(j)); formats<A: csr, x: sparse>;
        ops< f(a, v) = a * v + a over a when a & !v => 2 * a; >;
    }
    tensor_kernel! {
        pub fn dense; y(i) = f(A(i,j), x(j));
        ops< f(a, v) = a * v + a over a when a & !v => 2 * a; >;
    }
    tensor_kernel! {
        pub fn rows; y(i) = f(A(i,j), x(j)); formats<A: csr>;
        ops< f(a, v) = a * v + a over a when a & !v => 2 * a; >;
        schedule<split(i, i0, i1, Down, 4).parallelize(i0, CpuThread, NoRaces)>;
    }
    tensor_kernel! {
        pub fn columns_temporary; y(i) = f(A(i,j), x(j)); formats<A: csc>;
        ops< f(a, v) = a * v + a over a when a & !v => 2 * a; >;
        schedule<parallelize(j, CpuThread, Temporary)>;
    }
    tensor_kernel! {
        pub fn columns_atomics; y(i) = f(A(i,j), x(j)); formats<A: csc>;
        ops< f(a, v) = a * v + a over a when a & !v => 2 * a; >;
        schedule<parallelize(j, CpuThread, Atomics)>;
    }
    tensor_kernel! {
        pub fn nnz_atomics; y(i) = f(A(i,j), x(j)); formats<A: csr>;
        ops< f(a, v) = a * v + a over a when a & !v => 2 * a; >;
        schedule<collapse(i, j, g).pos(g, p, A).split(p, p0, p1, Down, 4)
            .parallelize(p0, CpuThread, Atomics)>;
    }
    tensor_kernel! {
        pub fn nnz_temporary; y(i) = f(A(i,j), x(j)); formats<A: csr>;
        ops< f(a, v) = a * v + a over a when a & !v => 2 * a; >;
        schedule<collapse(i, j, g).pos(g, p, A).split(p, p0, p1, Down, 4)
            .parallelize(p0, CpuThread, Temporary)>;
    }

    #[test]
    fn agrees_with_the_dense_evaluation() {
        check_summed::<Csr, DenseVec>(csr, "csr");
        check_summed::<Csr, SparseVec>(sparse_x, "sparse x");
        check_summed::<DenseMat, DenseVec>(dense, "dense");
        check_summed::<Csr, DenseVec>(rows, "rows, NoRaces");
        check_summed::<Csc, DenseVec>(columns_temporary, "columns, Temporary");
        check_summed::<Csc, DenseVec>(columns_atomics, "columns, Atomics");
        check_summed::<Csr, DenseVec>(nnz_atomics, "nonzeros, Atomics");
        check_summed::<Csr, DenseVec>(nnz_temporary, "nonzeros, Temporary");
    }
}

/// A call written with bare scalar names parses as a call, and a user operator may be an
/// operand of the built-in ones.
mod scalars_and_nesting {
    use super::*;

    tensor_kernel! {
        pub fn k; y(i) = 2 * f(a(i), b(i)) + f(s, b(i)); formats<a: sparse>;
        ops< f(x, y) = x - y over x; >;
    }

    #[test]
    fn agrees_with_the_dense_evaluation() {
        let a: Tensor<f64, SparseVec> = with_fill([4], &[([1], 3.0), ([2], -1.0)], 0.0);
        let b = Tensor::from_dense([4], &[1.0, 0.0, 2.0, 5.0]).unwrap();
        let s = Tensor::from_dense([], &[0.5]).unwrap();
        let mut y = Tensor::zeros([4]);
        k(&mut y, &a, &b, &s).unwrap();
        // f(a, b) = a - b where a is present, else 0; f(s, b) = 0.5 - b everywhere.
        let want = [
            0.0 + 0.5 - 1.0,
            6.0 + 0.5,
            -6.0 + 0.5 - 2.0,
            0.0 + 0.5 - 5.0,
        ];
        assert_same(&y.to_dense(), &want, "scalar operands");
    }
}

/// A reduction with a user operator: `y(i) = reduce_j term(A(i,j), x(j))`, folded from the
/// operator's identity by `fold` (hand-written here), the term applied by `term` with each
/// operand's presence.
fn check_reduced<F: Format, G: Format>(
    kernel: Summed<F, G>,
    what: &str,
    term: fn(f64, f64) -> f64,
    fold: fn(f64, f64) -> f64,
) {
    for (m, n) in [(0, 0), (1, 1), (3, 1), (6, 9), (13, 7), (190, 190)] {
        for (k, ae) in common::cases([m, n], (m * 29 + n) as u64)
            .iter()
            .enumerate()
        {
            if m > 100 && k != 4 {
                continue;
            }
            for xe in vectors(n, (m + 5 * n + k) as u64, plain) {
                let a: Tensor<f64, F> = with_fill([m, n], ae, 0.0);
                let x: Tensor<f64, G> = with_fill([n], &xe, 0.0);
                let mut y = garbage_out(m, 0.0);
                kernel(&mut y, &a, &x).unwrap();
                let (va, vx) = (values([m, n], ae, 0.0), values([n], &xe, 0.0));
                let want: Vec<f64> = (0..m)
                    .map(|i| (0..n).fold(0.0, |acc, j| fold(acc, term(va[i * n + j], vx[j]))))
                    .collect();
                assert_same(
                    &y.to_dense(),
                    &want,
                    &format!("{what} on {m}x{n} input {k}"),
                );
            }
        }
    }
}

/// The kernels of one user reduction: serial over CSR, dense and CSC matrices and a sparse
/// vector, and under every CPU race strategy.
macro_rules! reduced {
    ($name:ident, [$($rhs:tt)*], ops[$($ops:tt)*], $op:ident, $term:expr, $fold:expr) => {
        mod $name {
            use super::*;

            tensor_kernel! { pub fn csr; y(i) = $($rhs)*; formats<A: csr>; reduce<j: $op>; ops<$($ops)*>; }
            tensor_kernel! { pub fn dense; y(i) = $($rhs)*; reduce<j: $op>; ops<$($ops)*>; }
            tensor_kernel! { pub fn sparse_x; y(i) = $($rhs)*; formats<A: csr, x: sparse>; reduce<j: $op>; ops<$($ops)*>; }
            tensor_kernel! {
                pub fn rows; y(i) = $($rhs)*; formats<A: csr>; reduce<j: $op>; ops<$($ops)*>;
                schedule<split(i, i0, i1, Down, 4).parallelize(i0, CpuThread, NoRaces)>;
            }
            tensor_kernel! {
                pub fn columns_temporary; y(i) = $($rhs)*; formats<A: csc>; reduce<j: $op>; ops<$($ops)*>;
                schedule<parallelize(j, CpuThread, Temporary)>;
            }
            tensor_kernel! {
                pub fn columns_atomics; y(i) = $($rhs)*; formats<A: csc>; reduce<j: $op>; ops<$($ops)*>;
                schedule<parallelize(j, CpuThread, Atomics)>;
            }
            tensor_kernel! {
                pub fn nnz_atomics; y(i) = $($rhs)*; formats<A: csr>; reduce<j: $op>; ops<$($ops)*>;
                schedule<collapse(i, j, g).pos(g, p, A).split(p, p0, p1, Down, 4)
                    .parallelize(p0, CpuThread, Atomics)>;
            }
            tensor_kernel! {
                pub fn nnz_temporary; y(i) = $($rhs)*; formats<A: csr>; reduce<j: $op>; ops<$($ops)*>;
                schedule<collapse(i, j, g).pos(g, p, A).split(p, p0, p1, Down, 4)
                    .parallelize(p0, CpuThread, Temporary)>;
            }

            #[test]
            fn agrees_with_the_dense_evaluation() {
                let (t, f): (fn(f64, f64) -> f64, fn(f64, f64) -> f64) = ($term, $fold);
                check_reduced::<Csr, DenseVec>(csr, "csr", t, f);
                check_reduced::<DenseMat, DenseVec>(dense, "dense", t, f);
                check_reduced::<Csr, SparseVec>(sparse_x, "sparse x", t, f);
                check_reduced::<Csr, DenseVec>(rows, "rows, NoRaces", t, f);
                check_reduced::<Csc, DenseVec>(columns_temporary, "columns, Temporary", t, f);
                check_reduced::<Csc, DenseVec>(columns_atomics, "columns, Atomics", t, f);
                check_reduced::<Csr, DenseVec>(nnz_atomics, "nonzeros, Atomics", t, f);
                check_reduced::<Csr, DenseVec>(nnz_temporary, "nonzeros, Temporary", t, f);
            }
        }
    };
}

// The largest magnitude: a body with no region, identity 0.
reduced!(largest_magnitude, [A(i,j) * x(j)], ops[big(p, q) = max(abs(p), abs(q)) identity 0;], big,
    |a, x| a * x,
    |acc, v| if v.abs() > acc { v.abs() } else { acc });

// Whether some term is nonzero, written with a `when` region over the operands' presence (a
// partial result is present where it is not the identity).
reduced!(some_nonzero, [A(i,j) * x(j)], ops[any(p, q) = 0 when p | q => 1 identity 0;], any,
    |a, x| a * x,
    |acc, v| if acc != 0.0 || v != 0.0 { 1.0 } else { 0.0 });

/// An integer kernel: literal fills, presence against them, and integer division in a `when`
/// body.
mod integers {
    use super::*;

    tensor_kernel! {
        pub fn k; y(i) = f(a(i), b(i)); formats<a: sparse>; fills<a: 2, b: -1, y: -5>;
        ops< f(x, y) = x * y - 3 over x | y when x & !y => x / 2; >;
    }

    #[test]
    fn agrees_with_the_hand_evaluation() -> Result<(), KernelError> {
        let entries = [([0], 7), ([1], 9), ([2], 2), ([3], -4)];
        let a = Tensor::<i64, SparseVec>::from_entries_with_fill([5], entries, 2)?;
        let b = Tensor::<i64, DenseVec>::from_entries_with_fill(
            [5],
            [([0], 3), ([3], 6), ([4], 0)],
            -1,
        )?;
        let mut y = Tensor::<i64, DenseVec>::filled([5], -5);
        k(&mut y, &a, &b)?;
        // 0: both present, 7 * 3 - 3; 1: only a, 9 / 2; 2: a holds its fill and b its own, so
        // the body at the fills, 2 * -1 - 3; 3: -4 * 6 - 3; 4: only b, 2 * 0 - 3.
        assert_eq!(y.to_dense(), vec![18, 4, -5, -27, -3]);
        Ok(())
    }
}
