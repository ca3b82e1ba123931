//! Every operator of the kernel language (intrinsics, comparisons, casts, booleans, `%`), on
//! sparse, dense and mixed operands, against a dense evaluation that applies the operator
//! elementwise with every missing entry at its fill value, zero: `exp(x(i))` is 1 where `x` stores
//! nothing. The one exception is the quotient's rule (`/` and `%` give zero where an operand stores
//! nothing). A sparse output must store exactly the coordinates the operator's rule iterates: an
//! operand's own (intersection), either operand's (union), or every coordinate (dense).
mod common;

use std::collections::BTreeSet;

use common::*;
use sparse::prelude::*;

/// Which coordinates an operator visits, as worked out by hand from its value at zero.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rule {
    /// Zero where an operand is zero: the operands' common coordinates.
    Intersect,
    /// `/` and `%`: like `Intersect`, and zero where an operand stores nothing.
    Quotient,
    /// Zero only where every operand is zero: either operand's coordinates.
    Union,
    /// Nonzero where every operand is zero: every coordinate.
    Dense,
}

type Unary = fn(f64) -> f64;
type Binary = fn(f64, f64) -> f64;
type VecIn<F> = fn(&mut Tensor<f64, DenseVec>, &Tensor<f64, F>) -> Result<(), KernelError>;
type VecOut = fn(&mut Tensor<f64, SparseVec>, &Tensor<f64, SparseVec>) -> Result<(), KernelError>;
type MatIn = fn(&mut Tensor<f64, DenseMat>, &Tensor<f64, Csr>) -> Result<(), KernelError>;
type VecIn2<F, G> =
    fn(&mut Tensor<f64, DenseVec>, &Tensor<f64, F>, &Tensor<f64, G>) -> Result<(), KernelError>;
type VecOut2 = fn(
    &mut Tensor<f64, SparseVec>,
    &Tensor<f64, SparseVec>,
    &Tensor<f64, SparseVec>,
) -> Result<(), KernelError>;
type MatIn2 =
    fn(&mut Tensor<f64, DenseMat>, &Tensor<f64, Csr>, &Tensor<f64, Csr>) -> Result<(), KernelError>;

/// `y(i) = f(x(i))` with `x` sparse and dense, into a sparse `z`, and over a CSR matrix.
macro_rules! unary {
    ($name:ident, $rule:ident, [$($v:tt)*], [$($m:tt)*], $f:expr) => {
        #[allow(non_snake_case, dead_code)]
        mod $name {
            use super::*;

            tensor_kernel! { pub fn sparse_in; y(i) = $($v)*; formats<x: sparse>; }
            tensor_kernel! { pub fn dense_in; y(i) = $($v)*; }
            tensor_kernel! { pub fn sparse_out; z(i) = $($v)*; formats<x: sparse, z: sparse>; }
            tensor_kernel! { pub fn csr_in; Y(i,j) = $($m)*; formats<A: csr>; }

            #[test]
            fn agrees_with_the_elementwise_evaluation() {
                let kernels = UnaryKernels { sparse_in, dense_in, sparse_out, csr_in };
                check_unary(Rule::$rule, $f, kernels);
            }
        }
    };
}

/// `y(i) = f(a(i), b(i))` over sparse, dense and mixed operands, into a sparse `z`, and over two
/// CSR matrices.
macro_rules! binary {
    ($name:ident, $rule:ident, [$($v:tt)*], [$($m:tt)*], $f:expr) => {
        #[allow(non_snake_case, dead_code)]
        mod $name {
            use super::*;

            tensor_kernel! { pub fn both_sparse; y(i) = $($v)*; formats<a: sparse, b: sparse>; }
            tensor_kernel! { pub fn sparse_dense; y(i) = $($v)*; formats<a: sparse>; }
            tensor_kernel! { pub fn dense_sparse; y(i) = $($v)*; formats<b: sparse>; }
            tensor_kernel! { pub fn sparse_out; z(i) = $($v)*; formats<a: sparse, b: sparse, z: sparse>; }
            tensor_kernel! { pub fn csr_in; Y(i,j) = $($m)*; formats<A: csr, B: csr>; }

            #[test]
            fn agrees_with_the_elementwise_evaluation() {
                let kernels =
                    BinaryKernels { both_sparse, sparse_dense, dense_sparse, sparse_out, csr_in };
                check_binary(Rule::$rule, $f, kernels);
            }
        }
    };
}

unary!(sqrt_, Intersect, [sqrt(x(i))], [sqrt(A(i, j))], f64::sqrt);
unary!(abs_, Intersect, [abs(x(i))], [abs(A(i, j))], f64::abs);
unary!(square_, Intersect, [square(x(i))], [square(A(i, j))], |x| x
    * x);
unary!(cube_, Intersect, [cube(x(i))], [cube(A(i, j))], |x| x
    * x
    * x);
unary!(cbrt_, Intersect, [cbrt(x(i))], [cbrt(A(i, j))], f64::cbrt);
unary!(exp_, Dense, [exp(x(i))], [exp(A(i, j))], f64::exp);
unary!(log_, Dense, [log(x(i))], [log(A(i, j))], f64::ln);
unary!(log10_, Dense, [log10(x(i))], [log10(A(i, j))], f64::log10);
unary!(sin_, Intersect, [sin(x(i))], [sin(A(i, j))], f64::sin);
unary!(cos_, Dense, [cos(x(i))], [cos(A(i, j))], f64::cos);
unary!(tan_, Intersect, [tan(x(i))], [tan(A(i, j))], f64::tan);
unary!(asin_, Intersect, [asin(x(i))], [asin(A(i, j))], f64::asin);
unary!(acos_, Dense, [acos(x(i))], [acos(A(i, j))], f64::acos);
unary!(atan_, Intersect, [atan(x(i))], [atan(A(i, j))], f64::atan);
unary!(sinh_, Intersect, [sinh(x(i))], [sinh(A(i, j))], f64::sinh);
unary!(cosh_, Dense, [cosh(x(i))], [cosh(A(i, j))], f64::cosh);
unary!(tanh_, Intersect, [tanh(x(i))], [tanh(A(i, j))], f64::tanh);
unary!(
    asinh_,
    Intersect,
    [asinh(x(i))],
    [asinh(A(i, j))],
    f64::asinh
);
unary!(acosh_, Dense, [acosh(x(i))], [acosh(A(i, j))], f64::acosh);
unary!(
    atanh_,
    Intersect,
    [atanh(x(i))],
    [atanh(A(i, j))],
    f64::atanh
);
unary!(neg, Intersect, [-x(i)], [-A(i, j)], |x| -x);
unary!(not, Dense, [!x(i)], [!A(i, j)], |x| truth(x == 0.0));
unary!(
    step,
    Intersect,
    [heaviside(x(i))],
    [heaviside(A(i, j))],
    |x| step(x, 0.0)
);
unary!(
    step_one,
    Dense,
    [heaviside(x(i), 1)],
    [heaviside(A(i, j), 1)],
    |x| step(x, 1.0)
);
unary!(
    step_half,
    Dense,
    [heaviside(x(i), 0.5)],
    [heaviside(A(i, j), 0.5)],
    |x| step(x, 0.5)
);
unary!(as_f64, Intersect, [x(i) as f64], [A(i, j) as f64], |x| x);
unary!(
    as_f32,
    Intersect,
    [x(i) as f32],
    [A(i, j) as f32],
    |x| x as f32 as f64
);
unary!(
    as_i64,
    Intersect,
    [x(i) as i64],
    [A(i, j) as i64],
    |x| x as i64 as f64
);
unary!(
    as_i32,
    Intersect,
    [x(i) as i32],
    [A(i, j) as i32],
    |x| x as i32 as f64
);
unary!(as_bool, Intersect, [x(i) as bool], [A(i, j) as bool], |x| {
    truth(x != 0.0)
});
unary!(above_minus_one, Dense, [x(i) > -1], [A(i, j) > -1], |x| {
    truth(x > -1.0)
});
unary!(above_half, Intersect, [x(i) > 0.5], [A(i, j) > 0.5], |x| {
    truth(x > 0.5)
});
unary!(equals_zero, Dense, [x(i) == 0], [A(i, j) == 0], |x| truth(
    x == 0.0
));
unary!(
    max_minus_one,
    Intersect,
    [max(x(i), -1)],
    [max(A(i, j), -1)],
    |x| x.max(-1.0)
);
unary!(max_one, Dense, [max(x(i), 1)], [max(A(i, j), 1)], |x| x
    .max(1.0));
unary!(squared, Intersect, [pow(x(i), 2)], [pow(A(i, j), 2)], |x| x
    .powf(2.0));
unary!(pow_zero, Dense, [pow(x(i), 0)], [pow(A(i, j), 0)], |x| x
    .powf(0.0));
unary!(two_to_the, Dense, [pow(2, x(i))], [pow(2, A(i, j))], |x| {
    2f64.powf(x)
});
unary!(plus_one, Dense, [x(i) + 1], [A(i, j) + 1], |x| x + 1.0);
unary!(twice, Intersect, [2 * x(i)], [2 * A(i, j)], |x| 2.0 * x);
unary!(reciprocal, Quotient, [1 / x(i)], [1 / A(i, j)], |x| 1.0 / x);
unary!(
    remainder_two,
    Quotient,
    [x(i) % 0.75],
    [A(i, j) % 0.75],
    |x| x % 0.75
);
unary!(
    nested,
    Dense,
    [sqrt(abs(x(i))) + cos(x(i)) * 2],
    [sqrt(abs(A(i, j))) + cos(A(i, j)) * 2],
    |x| x.abs().sqrt() + x.cos() * 2.0
);

binary!(add, Union, [a(i) + b(i)], [A(i, j) + B(i, j)], |a, b| a + b);
binary!(sub, Union, [a(i) - b(i)], [A(i, j) - B(i, j)], |a, b| a - b);
binary!(
    mul,
    Intersect,
    [a(i) * b(i)],
    [A(i, j) * B(i, j)],
    |a, b| a * b
);
binary!(div, Quotient, [a(i) / b(i)], [A(i, j) / B(i, j)], |a, b| a
    / b);
binary!(rem, Quotient, [a(i) % b(i)], [A(i, j) % B(i, j)], |a, b| a
    % b);
binary!(lt, Union, [a(i) < b(i)], [A(i, j) < B(i, j)], |a, b| truth(
    a < b
));
binary!(le, Dense, [a(i) <= b(i)], [A(i, j) <= B(i, j)], |a, b| {
    truth(a <= b)
});
binary!(gt, Union, [a(i) > b(i)], [A(i, j) > B(i, j)], |a, b| truth(
    a > b
));
binary!(ge, Dense, [a(i) >= b(i)], [A(i, j) >= B(i, j)], |a, b| {
    truth(a >= b)
});
binary!(eq, Dense, [a(i) == b(i)], [A(i, j) == B(i, j)], |a, b| {
    truth(a == b)
});
binary!(ne, Union, [a(i) != b(i)], [A(i, j) != B(i, j)], |a, b| {
    truth(a != b)
});
binary!(
    and,
    Intersect,
    [a(i) && b(i)],
    [A(i, j) && B(i, j)],
    |a, b| truth(a != 0.0 && b != 0.0)
);
binary!(or, Union, [a(i) || b(i)], [A(i, j) || B(i, j)], |a, b| {
    truth(a != 0.0 || b != 0.0)
});
binary!(
    pow_,
    Dense,
    [pow(a(i), b(i))],
    [pow(A(i, j), B(i, j))],
    f64::powf
);
binary!(
    atan2_,
    Union,
    [atan2(a(i), b(i))],
    [atan2(A(i, j), B(i, j))],
    f64::atan2
);
binary!(
    max_,
    Union,
    [max(a(i), b(i))],
    [max(A(i, j), B(i, j))],
    |a, b| if a >= b { a } else { b }
);
binary!(
    min_,
    Union,
    [min(a(i), b(i))],
    [min(A(i, j), B(i, j))],
    |a, b| if a <= b { a } else { b }
);
binary!(
    step2,
    Union,
    [heaviside(a(i), b(i))],
    [heaviside(A(i, j), B(i, j))],
    step
);
binary!(
    mixed,
    Union,
    [(a(i) > 0) * 3 - min(b(i), 0) as i32],
    [(A(i, j) > 0) * 3 - min(B(i, j), 0) as i32],
    |a, b| truth(a > 0.0) * 3.0 - (b.min(0.0) as i32) as f64
);

fn truth(c: bool) -> f64 {
    if c { 1.0 } else { 0.0 }
}

fn step(x: f64, h: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x == 0.0 {
        h
    } else {
        0.0
    }
}

/// The operator at one coordinate: each operand's value there and whether it is stored (a dense
/// operand always is).
fn apply(rule: Rule, f: &dyn Fn(&[f64]) -> f64, values: &[f64], stored: &[bool]) -> f64 {
    if rule == Rule::Quotient && stored.contains(&false) {
        return 0.0;
    }
    f(values)
}

/// The coordinates a sparse output must store, from the operands' stored coordinates.
fn expected_coords(rule: Rule, n: usize, stored: &[BTreeSet<usize>]) -> BTreeSet<usize> {
    match rule {
        Rule::Dense => (0..n).collect(),
        Rule::Union => stored.iter().flatten().copied().collect(),
        Rule::Intersect | Rule::Quotient => (0..n)
            .filter(|c| stored.iter().all(|s| s.contains(c)))
            .collect(),
    }
}

fn coords(entries: &[([usize; 1], f64)]) -> BTreeSet<usize> {
    let d = dense(
        [entries.iter().map(|e| e.0[0] + 1).max().unwrap_or(0)],
        entries,
    );
    (0..d.len()).filter(|&k| d[k] != 0.0).collect()
}

struct UnaryKernels {
    sparse_in: VecIn<SparseVec>,
    dense_in: VecIn<DenseVec>,
    sparse_out: VecOut,
    csr_in: MatIn,
}

fn check_unary(rule: Rule, f: Unary, k: UnaryKernels) {
    let g = |v: &[f64]| f(v[0]);
    for n in [0, 1, 9, 40] {
        for x in cases([n], 3 + n as u64) {
            let dx = dense([n], &x);
            let sx = coords(&x);
            let want = |dense_x: bool| -> Vec<f64> {
                (0..n)
                    .map(|c| apply(rule, &g, &[dx[c]], &[dense_x || sx.contains(&c)]))
                    .collect()
            };
            let mut y = garbage([n]);
            (k.sparse_in)(&mut y, &tensor([n], &x)).unwrap();
            assert_same(&y.to_dense(), &want(false), "sparse x");
            let mut y = garbage([n]);
            (k.dense_in)(&mut y, &tensor([n], &x)).unwrap();
            assert_same(&y.to_dense(), &want(true), "dense x");
            let mut z = Tensor::<f64, SparseVec>::zeros([n]);
            (k.sparse_out)(&mut z, &tensor([n], &x)).unwrap();
            assert_same(&z.to_dense(), &want(false), "sparse z");
            let stored: BTreeSet<usize> = z.level(0).crd().iter().map(|&c| c as usize).collect();
            assert_eq!(
                stored,
                expected_coords(rule, n, std::slice::from_ref(&sx)),
                "z's coordinates, n = {n}"
            );
        }
    }
    for shape in [[0, 3], [4, 0], [5, 4]] {
        for a in cases(shape, 7) {
            let da = dense(shape, &a);
            // A CSR matrix stores exactly its nonzeros (duplicates summed, zeros dropped).
            let want: Vec<f64> = (0..da.len())
                .map(|c| apply(rule, &g, &[da[c]], &[da[c] != 0.0]))
                .collect();
            let mut y = garbage(shape);
            (k.csr_in)(&mut y, &tensor(shape, &a)).unwrap();
            assert_same(&y.to_dense(), &want, "CSR A");
        }
    }
}

struct BinaryKernels {
    both_sparse: VecIn2<SparseVec, SparseVec>,
    sparse_dense: VecIn2<SparseVec, DenseVec>,
    dense_sparse: VecIn2<DenseVec, SparseVec>,
    sparse_out: VecOut2,
    csr_in: MatIn2,
}

fn check_binary(rule: Rule, f: Binary, k: BinaryKernels) {
    let g = |v: &[f64]| f(v[0], v[1]);
    for n in [0, 1, 9, 40] {
        let bs = cases([n], 5 + n as u64);
        for (t, a) in cases([n], 3 + n as u64).into_iter().enumerate() {
            for b in [&bs[t % bs.len()], &bs[(t + 3) % bs.len()]] {
                let (da, db) = (dense([n], &a), dense([n], b));
                let (sa, sb) = (coords(&a), coords(b));
                let want = |dense_a: bool, dense_b: bool| -> Vec<f64> {
                    let stored =
                        |c: usize| [dense_a || sa.contains(&c), dense_b || sb.contains(&c)];
                    (0..n)
                        .map(|c| apply(rule, &g, &[da[c], db[c]], &stored(c)))
                        .collect()
                };
                let (ta, tb) = (&tensor([n], &a), &tensor([n], b));
                let mut y = garbage([n]);
                (k.both_sparse)(&mut y, ta, tb).unwrap();
                assert_same(&y.to_dense(), &want(false, false), "sparse a, sparse b");
                let mut y = garbage([n]);
                (k.sparse_dense)(&mut y, ta, &tensor([n], b)).unwrap();
                assert_same(&y.to_dense(), &want(false, true), "sparse a, dense b");
                let mut y = garbage([n]);
                (k.dense_sparse)(&mut y, &tensor([n], &a), tb).unwrap();
                assert_same(&y.to_dense(), &want(true, false), "dense a, sparse b");
                let mut z = Tensor::<f64, SparseVec>::zeros([n]);
                (k.sparse_out)(&mut z, ta, tb).unwrap();
                assert_same(&z.to_dense(), &want(false, false), "sparse z");
                let stored: BTreeSet<usize> =
                    z.level(0).crd().iter().map(|&c| c as usize).collect();
                let expected = expected_coords(rule, n, &[sa.clone(), sb.clone()]);
                // An intersection's output may take its first factor's structure instead (as
                // SDDMM's does), storing zeros where the other factor stores nothing.
                let pattern = matches!(rule, Rule::Intersect | Rule::Quotient) && stored == sa;
                assert!(
                    stored == expected || pattern,
                    "z stores {stored:?}, n = {n}"
                );
            }
        }
    }
    for shape in [[0, 3], [4, 0], [5, 4]] {
        let bs = cases(shape, 11);
        for (t, a) in cases(shape, 7).into_iter().enumerate() {
            let b = &bs[t % bs.len()];
            let (da, db) = (dense(shape, &a), dense(shape, b));
            let want: Vec<f64> = (0..da.len())
                .map(|c| apply(rule, &g, &[da[c], db[c]], &[da[c] != 0.0, db[c] != 0.0]))
                .collect();
            let mut y = garbage(shape);
            (k.csr_in)(&mut y, &tensor(shape, &a), &tensor(shape, b)).unwrap();
            assert_same(&y.to_dense(), &want, "CSR A, CSR B");
        }
    }
}

tensor_kernel! { fn root; y(i) = sqrt(x(i)); formats<x: sparse>; }
tensor_kernel! { fn logarithm; y(i) = log(x(i)); formats<x: sparse>; }
tensor_kernel! { fn quotient; y(i) = a(i) / b(i); }
tensor_kernel! { fn remainder; y(i) = a(i) % b(i); }
tensor_kernel! { fn to_i32; y(i) = x(i) as i32; }
tensor_kernel! { fn to_f32; y(i) = x(i) as f32; }

/// Where a function's domain ends, the kernel gives what `f64` gives: NaN and infinities.
#[test]
fn domains_end_in_nan_and_infinity() {
    let x = Tensor::<f64, SparseVec>::from_entries([4], [([0], -1.0), ([2], 4.0)]).unwrap();
    let mut y = garbage([4]);
    root(&mut y, &x).unwrap();
    let got = y.to_dense();
    assert!(got[0].is_nan());
    assert_eq!(&got[1..], &[0.0, 2.0, 0.0]);
    logarithm(&mut y, &x).unwrap();
    let got = y.to_dense();
    assert!(got[0].is_nan());
    assert_eq!(got[1], f64::NEG_INFINITY);
    assert_eq!(got[2], 4f64.ln());
    let a = Tensor::<f64, DenseVec>::from_dense([3], &[1.0, 0.0, -1.0]).unwrap();
    let b = Tensor::<f64, DenseVec>::from_dense([3], &[0.0, 0.0, 0.0]).unwrap();
    let mut q = garbage([3]);
    quotient(&mut q, &a, &b).unwrap();
    let q = q.to_dense();
    assert_eq!((q[0], q[2]), (f64::INFINITY, f64::NEG_INFINITY));
    assert!(q[1].is_nan());
    let mut r = garbage([3]);
    remainder(&mut r, &a, &b).unwrap();
    assert!(r.to_dense().iter().all(|v| v.is_nan()));
}

/// Integer `/` and `%` by zero give zero (`Scalar::divide`, `Scalar::remainder`); `%` keeps the
/// dividend's sign; the float functions go through `f64` and convert back as `as` does.
#[test]
fn integer_kernels_divide_by_zero_to_zero_and_convert_as_as_does() {
    let a = Tensor::<i64, DenseVec>::from_dense([4], &[7, -7, 7, i64::MIN]).unwrap();
    let b = Tensor::<i64, DenseVec>::from_dense([4], &[0, 2, -2, -1]).unwrap();
    let mut y = Tensor::<i64, DenseVec>::zeros([4]);
    quotient(&mut y, &a, &b).unwrap();
    assert_eq!(y.to_dense(), vec![0, -3, -3, i64::MIN]);
    remainder(&mut y, &a, &b).unwrap();
    assert_eq!(y.to_dense(), vec![0, -1, 1, 0]);
    let a32 = Tensor::<i32, DenseVec>::from_dense([2], &[9, -9]).unwrap();
    let b32 = Tensor::<i32, DenseVec>::from_dense([2], &[0, 4]).unwrap();
    let mut y32 = Tensor::<i32, DenseVec>::zeros([2]);
    remainder(&mut y32, &a32, &b32).unwrap();
    assert_eq!(y32.to_dense(), vec![0, -1]);
    let x =
        Tensor::<i64, SparseVec>::from_entries([4], [([0], (1 << 33) + 5), ([1], 10), ([2], -4)])
            .unwrap();
    let mut y = Tensor::<i64, DenseVec>::zeros([4]);
    root(&mut y, &x).unwrap();
    // sqrt(2^33 + 5) truncates; sqrt(10) is 3; sqrt(-4) is NaN, which converts to 0.
    assert_eq!(
        y.to_dense(),
        vec![((((1i64 << 33) + 5) as f64).sqrt()) as i64, 3, 0, 0]
    );
    logarithm(&mut y, &x).unwrap();
    assert_eq!(y.to_dense()[3], i64::MIN, "log(0) is -inf, which saturates");
    let dx = Tensor::<i64, DenseVec>::from_dense([2], &[(1 << 33) + 5, (1 << 24) + 1]).unwrap();
    let mut y = Tensor::<i64, DenseVec>::zeros([2]);
    to_i32(&mut y, &dx).unwrap();
    assert_eq!(y.to_dense(), vec![5, (1 << 24) + 1], "i64 as i32 wraps");
    to_f32(&mut y, &dx).unwrap();
    assert_eq!(
        y.to_dense(),
        vec![(((1i64 << 33) + 5) as f32) as i64, 1 << 24],
        "as f32 rounds"
    );
    let f = Tensor::<f64, DenseVec>::from_dense([3], &[2.9, -2.9, f64::NAN]).unwrap();
    let mut g = garbage([3]);
    to_i32(&mut g, &f).unwrap();
    assert_eq!(
        g.to_dense(),
        vec![2.0, -2.0, 0.0],
        "as i32 truncates, NaN becomes 0"
    );
}

tensor_kernel! { fn cos_dia; Y(i,j) = cos(A(i,j)); formats<A: dia>; }
tensor_kernel! { fn cos_ell; Y(i,j) = cos(A(i,j)); formats<A: ell>; }
tensor_kernel! { fn cos_bcsr; Y(i,j) = cos(A(i,j)); formats<A: bcsr(2, 2)>; }
tensor_kernel! { fn add_bcsr; Y(i,j) = A(i,j) + B(i,j); formats<A: bcsr(2, 2), B: csr>; }
tensor_kernel! { fn cos_dcsr; Y(i,j) = cos(A(i,j)); formats<A: dcsr>; }
tensor_kernel! { fn row_exp_sums; y(i) = exp(A(i,j)) - 1; formats<A: dcsr>; }
tensor_kernel! { fn shifted_dia; Y(i,j) = A(i,j) * 2 + (A(i,j) > -1); formats<A: dia>; }

/// An operator that is nonzero where nothing is stored visits every coordinate, also of formats
/// whose loops run over slots, diagonals or blocks (those are copied into rows over compressed
/// columns when the kernel runs) and of empty rows. An implicit sum covers the term `-` separates,
/// the whole call: `exp(A(i,j)) - 1` subtracts 1 once per row.
#[test]
fn dense_rules_cover_every_coordinate_of_every_format() {
    for shape in [[0, 3], [4, 0], [6, 5]] {
        for a in cases(shape, 19) {
            let da = dense(shape, &a);
            let want: Vec<f64> = da.iter().map(|x| x.cos()).collect();
            let mut y = garbage(shape);
            cos_dia(&mut y, &tensor(shape, &a)).unwrap();
            assert_same(&y.to_dense(), &want, "DIA");
            cos_ell(&mut y, &tensor(shape, &a)).unwrap();
            assert_same(&y.to_dense(), &want, "ELL");
            cos_bcsr(&mut y, &tensor(shape, &a)).unwrap();
            assert_same(&y.to_dense(), &want, "BCSR");
            cos_dcsr(&mut y, &tensor(shape, &a)).unwrap();
            assert_same(&y.to_dense(), &want, "DCSR");
            let want: Vec<f64> = da.iter().map(|x| 2.0 * x + truth(*x > -1.0)).collect();
            shifted_dia(&mut y, &tensor(shape, &a)).unwrap();
            assert_same(&y.to_dense(), &want, "A * 2 + (A > -1), DIA");
            let bs = cases(shape, 23);
            let b = &bs[bs.len() - 1];
            let want: Vec<f64> = (da.iter().zip(dense(shape, b)))
                .map(|(x, y)| x + y)
                .collect();
            add_bcsr(&mut y, &tensor(shape, &a), &tensor(shape, b)).unwrap();
            assert_same(&y.to_dense(), &want, "BCSR + CSR");
            let mut y = garbage([shape[0]]);
            row_exp_sums(&mut y, &tensor(shape, &a)).unwrap();
            let want: Vec<f64> = (0..shape[0])
                .map(|i| {
                    (0..shape[1])
                        .map(|j| da[i * shape[1] + j].exp())
                        .sum::<f64>()
                        - 1.0
                })
                .collect();
            assert_same(&y.to_dense(), &want, "a sum of exp over DCSR rows, minus 1");
        }
    }
}
