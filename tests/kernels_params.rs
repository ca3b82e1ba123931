//! Parameters: an explicit parameter list on the `fn` line, `scalars<...>` passed as plain values,
//! and a dense output read on the right-hand side at its own indices. Each kernel is checked
//! against hand-written loops on empty vectors, a vector of one element and longer ones, and a
//! few conjugate-gradient iterations are checked against the same iterations written out.
mod common;

use common::*;
use sparse::prelude::*;

// The updates of conjugate gradients, each scalar passed by value.
tensor_kernel! { fn cg_x(x, p, alpha); x(i) = x(i) + alpha * p(i); scalars<alpha>; }
tensor_kernel! { fn cg_r(r, q, alpha); r(i) = r(i) - alpha * q(i); scalars<alpha>; }
tensor_kernel! { fn cg_p(p, r, beta); p(i) = r(i) + beta * p(i); scalars<beta>; }
tensor_kernel! { fn dot(s, a, b); s = a(i) * b(i); }
tensor_kernel! { fn spmv; y(i) = A(i,j) * x(j); formats<A: csr>; }

// The same update under schedules that read the output inside parallel or precomputed loops.
tensor_kernel! {
    fn cg_p_blocks(p, r, beta);
    p(i) = r(i) + beta * p(i);
    scalars<beta>;
    schedule<split(i, i0, i1, Down, 4).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn cg_p_shared(p, r, beta);
    p(i) = r(i) + beta * p(i);
    schedule<split(i, i0, i1, Down, 4).parallelize(i0, CpuThread, Atomics)>;
    scalars<beta>;
}
tensor_kernel! {
    fn cg_p_precomputed(p, r, beta);
    p(i) = r(i) + beta * p(i);
    schedule<precompute(beta * p(i), i, iw, w)>;
    scalars<beta>;
}
tensor_kernel! {
    fn cg_p_auto(p, r, beta);
    p(i) = r(i) + beta * p(i);
    scalars<beta>;
    schedule<auto>;
}

// The list orders the parameters otherwise than first appearance (`y`, `alpha`, `x`).
tensor_kernel! { fn axpy(y, x, alpha); y(i) = alpha * x(i) + y(i); scalars<alpha>; }
tensor_kernel! { fn sub(z, b, a); z(i) = a(i) - b(i); }
tensor_kernel! { fn scaled_dot(s, alpha, r); s = alpha * r(i) * r(i); scalars<alpha>; }
tensor_kernel! { fn dot_onto(s, r, alpha); s = alpha * s + r(i) * r(i); scalars<alpha>; }

// The output read where a sum, a sparse operand or another mode order is involved.
tensor_kernel! { fn residual_in_place; y(i) = A(i,j) * x(j) + y(i); formats<A: csr>; }
tensor_kernel! { fn weighted_sum; y(i) = A(i,j) * x(j) * y(i); formats<A: csr>; }
tensor_kernel! { fn weighted_add; y(i) += A(i,j) * x(j) * y(i); formats<A: csr>; }
tensor_kernel! { fn add_sparse; y(i) = r(i) + y(i); formats<r: sparse>; }
tensor_kernel! { fn scale_sparse; y(i) += r(i) * y(i); formats<r: sparse>; }
tensor_kernel! { fn add_csc; C(i,j) = A(i,j) + 2 * C(i,j); formats<A: csc>; }

const LENGTHS: [usize; 4] = [0, 1, 2, 37];

fn vector(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.value()).collect()
}

fn dv(values: &[f64]) -> Tensor<f64, Dense<1>> {
    Tensor::from_dense([values.len()], values).unwrap()
}

type Update =
    fn(&mut Tensor<f64, Dense<1>>, &Tensor<f64, Dense<1>>, f64) -> Result<(), KernelError>;
/// An update written out: the output's old value, the other vector's and the scalar.
type UpdateOf = fn(f64, f64, f64) -> f64;
type MatVec = fn(
    &mut Tensor<f64, Dense<1>>,
    &Tensor<f64, Csr>,
    &Tensor<f64, Dense<1>>,
) -> Result<(), KernelError>;
/// A row's sum and the output's old value combined.
type Combine = fn(f64, f64) -> f64;

#[test]
fn cg_updates_take_their_scalars_by_value() {
    for n in LENGTHS {
        let (old, other, alpha) = (vector(n, 1), vector(n, 2), -0.75);
        let cases: [(Update, UpdateOf); 3] = [
            (cg_x, |x, p, a| x + a * p),
            (cg_r, |r, q, a| r - a * q),
            (cg_p, |p, r, b| r + b * p),
        ];
        for (kernel, update) in cases {
            let mut out = dv(&old);
            kernel(&mut out, &dv(&other), alpha).unwrap();
            let want: Vec<f64> = (0..n).map(|k| update(old[k], other[k], alpha)).collect();
            assert_close(&out.to_dense(), &want);
        }
    }
}

#[test]
fn schedules_that_read_the_output_keep_each_element_read_before_written() {
    let kernels: [Update; 4] = [cg_p_blocks, cg_p_shared, cg_p_precomputed, cg_p_auto];
    for n in LENGTHS {
        let (p, r, beta) = (vector(n, 3), vector(n, 4), 0.5);
        let want: Vec<f64> = (0..n).map(|k| r[k] + beta * p[k]).collect();
        for kernel in kernels {
            let mut out = dv(&p);
            kernel(&mut out, &dv(&r), beta).unwrap();
            assert_close(&out.to_dense(), &want);
        }
    }
}

#[test]
fn the_parameter_list_orders_the_signature() {
    for n in LENGTHS {
        let (y, x, a, b) = (vector(n, 5), vector(n, 6), vector(n, 7), vector(n, 8));
        let mut out = dv(&y);
        axpy(&mut out, &dv(&x), 2.5).unwrap();
        let want: Vec<f64> = (0..n).map(|k| 2.5 * x[k] + y[k]).collect();
        assert_close(&out.to_dense(), &want);
        let mut z = garbage([n]);
        sub(&mut z, &dv(&b), &dv(&a)).unwrap();
        let want: Vec<f64> = (0..n).map(|k| a[k] - b[k]).collect();
        assert_close(&z.to_dense(), &want);
    }
    let mut z = Tensor::zeros([2]);
    let error = sub(&mut z, &dv(&[1.0]), &dv(&[1.0, 2.0])).unwrap_err();
    assert!(
        matches!(error, KernelError::ShapeMismatch { tensor: "b", .. }),
        "{error}"
    );
}

#[test]
fn scalar_outputs_and_scalar_inputs_together() {
    for n in LENGTHS {
        let r = vector(n, 9);
        let mut s = Tensor::<f64, Dense<0>>::zeros([]);
        scaled_dot(&mut s, -2.0, &dv(&r)).unwrap();
        let want: f64 = r.iter().map(|v| -2.0 * v * v).sum();
        assert_close(&s.to_dense(), &[want]);
        let mut s = Tensor::<f64, Dense<0>>::from_dense([], &[3.0]).unwrap();
        dot_onto(&mut s, &dv(&r), 0.5).unwrap();
        let want = 1.5 + r.iter().map(|v| v * v).sum::<f64>();
        assert_close(&s.to_dense(), &[want]);
    }
}

#[test]
fn integer_kernels_take_integer_scalars() {
    let mut p = Tensor::<i64, Dense<1>>::from_dense([3], &[1, -2, 3]).unwrap();
    let r = Tensor::<i64, Dense<1>>::from_dense([3], &[10, 20, 30]).unwrap();
    cg_p(&mut p, &r, -3).unwrap();
    assert_eq!(p.to_dense(), vec![7, 26, 21]);
}

/// Conjugate gradients on a small symmetric positive definite system, with the kernels above,
/// against the same iterations written as loops.
#[test]
fn conjugate_gradients_match_hand_written_iterations() {
    let n = 6;
    let mut entries = Vec::new();
    for i in 0..n {
        entries.push(([i, i], 4.0));
        if i + 1 < n {
            entries.push(([i, i + 1], -1.0));
            entries.push(([i + 1, i], -1.0));
        }
    }
    let a_dense = dense([n, n], &entries);
    let a = tensor::<Csr, 2>([n, n], &entries);
    let b = vector(n, 10);
    let (mut x, mut r, mut p) = (dv(&vec![0.0; n]), dv(&b), dv(&b));
    let (mut xs, mut rs, mut ps) = (vec![0.0; n], b.clone(), b.clone());
    let dot_of = |u: &Tensor<f64, Dense<1>>, v: &Tensor<f64, Dense<1>>| {
        let mut s = Tensor::<f64, Dense<0>>::zeros([]);
        dot(&mut s, u, v).unwrap();
        s.to_dense()[0]
    };
    let dot_ref = |u: &[f64], v: &[f64]| u.iter().zip(v).map(|(a, b)| a * b).sum::<f64>();
    for _ in 0..4 {
        let mut q = Tensor::zeros([n]);
        spmv(&mut q, &a, &p).unwrap();
        let rho = dot_of(&r, &r);
        let alpha = rho / dot_of(&p, &q);
        cg_x(&mut x, &p, alpha).unwrap();
        cg_r(&mut r, &q, alpha).unwrap();
        let beta = dot_of(&r, &r) / rho;
        cg_p(&mut p, &r, beta).unwrap();

        let qs: Vec<f64> = (0..n)
            .map(|i| (0..n).map(|j| a_dense[i * n + j] * ps[j]).sum())
            .collect();
        let rho_s = dot_ref(&rs, &rs);
        let alpha_s = rho_s / dot_ref(&ps, &qs);
        for k in 0..n {
            xs[k] += alpha_s * ps[k];
            rs[k] -= alpha_s * qs[k];
        }
        let beta_s = dot_ref(&rs, &rs) / rho_s;
        for k in 0..n {
            ps[k] = rs[k] + beta_s * ps[k];
        }
        assert_close(&x.to_dense(), &xs);
        assert_close(&r.to_dense(), &rs);
        assert_close(&p.to_dense(), &ps);
    }
}

#[test]
fn a_sum_that_covers_the_read_of_the_output_is_summed_before_the_write() {
    for n in [0, 1, 5] {
        for entries in cases([n, n], 11 + n as u64) {
            let a = tensor::<Csr, 2>([n, n], &entries);
            let ad = dense([n, n], &entries);
            let (x, y) = (vector(n, 12), vector(n, 13));
            let row = |i: usize| (0..n).map(|j| ad[i * n + j] * x[j]).sum::<f64>();
            let cases: [(Combine, MatVec); 3] = [
                (|sum, y| sum + y, residual_in_place),
                (|sum, y| sum * y, weighted_sum),
                (|sum, y| y + sum * y, weighted_add),
            ];
            for (want_of, kernel) in cases {
                let mut out = dv(&y);
                kernel(&mut out, &a, &dv(&x)).unwrap();
                let want: Vec<f64> = (0..n).map(|i| want_of(row(i), y[i])).collect();
                assert_close(&out.to_dense(), &want);
            }
        }
    }
}

#[test]
fn sparse_operands_and_other_mode_orders_with_the_output_read() {
    for n in [0, 1, 9] {
        for entries in cases([n], 14 + n as u64) {
            let (r, rd, y) = (
                tensor::<SparseVec, 1>([n], &entries),
                dense([n], &entries),
                vector(n, 15),
            );
            let mut out = dv(&y);
            add_sparse(&mut out, &r).unwrap();
            let want: Vec<f64> = (0..n).map(|k| rd[k] + y[k]).collect();
            assert_close(&out.to_dense(), &want);
            let mut out = dv(&y);
            scale_sparse(&mut out, &r).unwrap();
            let want: Vec<f64> = (0..n).map(|k| y[k] + rd[k] * y[k]).collect();
            assert_close(&out.to_dense(), &want);
        }
        for entries in cases([n, n + 1], 16) {
            let (a, ad) = (
                tensor::<Csc, 2>([n, n + 1], &entries),
                dense([n, n + 1], &entries),
            );
            let c = vector(n * (n + 1), 17);
            let mut out = Tensor::<f64, Dense<2>>::from_dense([n, n + 1], &c).unwrap();
            add_csc(&mut out, &a).unwrap();
            let want: Vec<f64> = (0..c.len()).map(|k| ad[k] + 2.0 * c[k]).collect();
            assert_close(&out.to_dense(), &want);
        }
    }
}
