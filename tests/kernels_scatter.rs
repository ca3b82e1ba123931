//! Sparse outputs whose default loops would not follow them: AᵀA and products with a CSC operand
//! (the copy planner transposes an operand into Gustavson's row-wise order), a chain of three
//! matrices, contractions of 3-tensors whose contracted index is outermost (scatter assembly:
//! coordinate/value triples sorted and summed), `+=` into sparse outputs (the stored entries
//! merged with the new ones), and the masked product of triangle counting (one sparse dot product
//! per stored coordinate of the mask). Every kernel runs twice into the same output on different inputs
//! (stale structure must not survive) and is checked against a dense result computed by loops
//! written here, its stored entries against that result's nonzeros (positive values, so no sum
//! cancels).
mod common;

use common::*;
use sparse::prelude::*;

tensor_kernel! { fn ata_csr; G(i,j) = A(k,i) * A(k,j); formats<A: csr, G: csr>; }
tensor_kernel! { fn ata_csc; G(i,j) = A(k,i) * A(k,j); formats<A: csr, G: csc>; }
tensor_kernel! { fn ata_coo; G(i,j) = A(k,i) * A(k,j); formats<A: csr, G: coo>; }
tensor_kernel! { fn ata_dcsr; G(i,j) = A(k,i) * A(k,j); formats<A: csr, G: dcsr>; }
tensor_kernel! {
    fn ata_rows;
    G(i,j) = A(k,i) * A(k,j);
    formats<A: csr, G: csr>;
    schedule<split(i, i0, i1, Down, 4).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! { fn aat_csr; G(i,j) = A(i,k) * A(j,k); formats<A: csr, G: csr>; }
tensor_kernel! { fn spgemm_csc_csr; A(i,j) = B(i,k) * C(k,j); formats<A: csr, B: csc, C: csr>; }
tensor_kernel! { fn spgemm_csc_csc; A(i,j) = B(i,k) * C(k,j); formats<A: csc, B: csc, C: csr>; }
tensor_kernel! { fn spgemm_csc_coo; A(i,j) = B(i,k) * C(k,j); formats<A: coo, B: csc, C: csr>; }
tensor_kernel! { fn chain; X(i,j) = A(k,i) * D(k,l) * A(l,j); formats<A: csr, D: csr, X: csr>; }
tensor_kernel! { fn contract_csf; Z(j,k,l,m) = X(i,j,k) * Y(i,l,m); formats<X: csf, Y: csf, Z: csf>; }
tensor_kernel! { fn contract_coo; Z(j,k,l,m) = X(i,j,k) * Y(i,l,m); formats<X: csf, Y: csf, Z: coo>; }
tensor_kernel! { fn ttv_dcsr; A(j,k) = B(i,j,k) * c(i); formats<B: csf, A: dcsr>; }
tensor_kernel! { fn masked; C(i,j) = A(i,j) * A(i,k) * A(k,j); formats<A: csr, C: csr>; }
tensor_kernel! {
    fn masked_rows;
    C(i,j) = A(i,j) * A(i,k) * A(k,j);
    formats<A: csr, C: csr>;
    schedule<split(i, i0, i1, Down, 4).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! { fn ata_add; G(i,j) += A(k,i) * A(k,j); formats<A: csr, G: csr>; }
tensor_kernel! { fn sum_add; C(i,j) += A(i,j) + B(i,j); formats<A: csr, B: csr, C: dcsr>; }
tensor_kernel! { fn spmv_add; y(i) += A(i,j) * x(j); formats<A: csr, y: sparse>; }

type Entries<const N: usize> = Vec<([usize; N], f64)>;

/// Test inputs of `shape` with positive values (duplicates sum to positive values too): the
/// usual edge cases (empty, one entry, duplicates, empty first, last and middle slices, random
/// fills), a run of empty slices at the start and one slice holding every coordinate below it.
fn inputs<const N: usize>(shape: [usize; N], seed: u64) -> Vec<Entries<N>> {
    let positive = |e: Entries<N>| e.into_iter().map(|(c, v)| (c, v.abs() + 0.25)).collect();
    let mut out: Vec<Entries<N>> = cases(shape, seed).into_iter().map(positive).collect();
    let total: usize = shape.iter().product();
    if total > 0 && shape[0] >= 6 {
        let rest: usize = total / shape[0];
        // Slices 0..4 empty, then one entry per later slice.
        let run = (4..shape[0]).map(|i| (unflatten(shape, i * rest + (i * 7) % rest), 1.5));
        out.push(run.collect());
        // Slice shape[0] / 2 full, a few single entries elsewhere.
        let half = shape[0] / 2;
        let mut huge: Entries<N> = (0..rest)
            .map(|r| (unflatten(shape, half * rest + r), 0.5 + r as f64))
            .collect();
        huge.extend(
            (0..shape[0])
                .step_by(3)
                .map(|i| (unflatten(shape, i * rest), 2.0)),
        );
        out.push(huge);
    }
    out
}

fn unflatten<const N: usize>(shape: [usize; N], mut at: usize) -> [usize; N] {
    let mut c = [0; N];
    for d in (0..N).rev() {
        c[d] = at % shape[d];
        at /= shape[d];
    }
    c
}

/// The `m x n` product of dense row-major `a` (`m x p`) and `b` (`p x n`), by three loops.
fn matmul(m: usize, p: usize, n: usize, a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for k in 0..p {
            for j in 0..n {
                c[i * n + j] += a[i * p + k] * b[k * n + j];
            }
        }
    }
    c
}

/// The transpose of dense row-major `a` (`m x n`).
fn transpose(m: usize, n: usize, a: &[f64]) -> Vec<f64> {
    let mut t = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            t[j * m + i] = a[i * n + j];
        }
    }
    t
}

fn nonzeros(d: &[f64]) -> usize {
    d.iter().filter(|v| **v != 0.0).count()
}

/// Checks a result against the dense reference: values, and exactly one stored entry per nonzero.
#[track_caller]
fn check<T: Format>(got: &Tensor<f64, T>, want: &[f64], what: &str) {
    assert_close(&got.to_dense(), want);
    assert_eq!(got.nnz(), nonzeros(want), "{what}");
}

const SHAPES: [(usize, usize); 6] = [(0, 0), (1, 1), (3, 0), (6, 9), (11, 7), (17, 5)];

/// Runs a kernel of `A` (`m x n`) into an `n x n` output for every test matrix, twice into the
/// same output (an earlier input first).
fn check_gram<F: Format>(
    kernel: impl Fn(&mut Tensor<f64, F>, &Tensor<f64, Csr>) -> Result<(), KernelError>,
    reference: impl Fn(usize, usize, &[f64]) -> (usize, Vec<f64>),
) {
    for (m, n) in SHAPES {
        let all = inputs([m, n], 11 + m as u64);
        for (a, earlier) in all.iter().zip(all.iter().rev()) {
            let (side, want) = reference(m, n, &dense([m, n], a));
            let mut g = Tensor::<f64, F>::zeros([side, side]);
            for entries in [earlier, a] {
                kernel(&mut g, &tensor([m, n], entries)).unwrap();
            }
            check(&g, &want, &format!("{m}x{n}: {a:?}"));
        }
    }
}

fn ata(m: usize, n: usize, a: &[f64]) -> (usize, Vec<f64>) {
    (n, matmul(n, m, n, &transpose(m, n, a), a))
}

fn aat(m: usize, n: usize, a: &[f64]) -> (usize, Vec<f64>) {
    (m, matmul(m, n, m, a, &transpose(m, n, a)))
}

#[test]
fn a_transposed_times_a_into_every_sparse_format() {
    check_gram::<Csr>(ata_csr, ata);
    check_gram::<Csc>(ata_csc, ata);
    check_gram::<Coo<2>>(ata_coo, ata);
    check_gram::<Dcsr>(ata_dcsr, ata);
    check_gram::<Csr>(ata_rows, ata);
    check_gram::<Csr>(aat_csr, aat);
}

/// `A = B C` with B in CSC, into CSR, CSC and COO outputs.
#[test]
fn products_with_a_csc_operand() {
    for (m, p) in SHAPES {
        let n = (p + 3) % 8;
        let bs = inputs([m, p], 5 + m as u64);
        let cs = inputs([p, n], 6 + p as u64);
        for (b, c) in bs.iter().zip(cs.iter().cycle()) {
            let (bt, ct) = (tensor::<Csc, 2>([m, p], b), tensor::<Csr, 2>([p, n], c));
            let want = matmul(m, p, n, &dense([m, p], b), &dense([p, n], c));
            let stale = tensor::<Csc, 2>([m, p], &bs[bs.len() - 1]);
            let mut a = Tensor::<f64, Csr>::zeros([m, n]);
            spgemm_csc_csr(&mut a, &stale, &ct).unwrap();
            spgemm_csc_csr(&mut a, &bt, &ct).unwrap();
            check(&a, &want, "CSR");
            let mut a = Tensor::<f64, Csc>::zeros([m, n]);
            spgemm_csc_csc(&mut a, &stale, &ct).unwrap();
            spgemm_csc_csc(&mut a, &bt, &ct).unwrap();
            check(&a, &want, "CSC");
            let mut a = Tensor::<f64, Coo<2>>::zeros([m, n]);
            spgemm_csc_coo(&mut a, &stale, &ct).unwrap();
            spgemm_csc_coo(&mut a, &bt, &ct).unwrap();
            check(&a, &want, "COO");
        }
    }
}

/// `X = Aᵀ D A`: A read in two orders, one of them transposed for the row-wise product.
#[test]
fn a_chain_of_three_matrices() {
    for (m, n) in SHAPES {
        let all = inputs([m, n], 21 + n as u64);
        let ds = inputs([m, m], 22);
        for (a, d) in all.iter().zip(ds.iter().cycle()) {
            let (da, dd) = (dense([m, n], a), dense([m, m], d));
            let want = matmul(n, m, n, &matmul(n, m, m, &transpose(m, n, &da), &dd), &da);
            let mut x = Tensor::<f64, Csr>::zeros([n, n]);
            let stale = tensor([m, n], &all[0]);
            chain(&mut x, &stale, &tensor([m, m], d)).unwrap();
            chain(&mut x, &tensor([m, n], a), &tensor([m, m], d)).unwrap();
            check(&x, &want, &format!("{m}x{n}"));
        }
    }
}

/// `Z(j,k,l,m) = X(i,j,k) * Y(i,l,m)` into CSF and COO (scatter assembly), and TTV over the
/// first mode into a DCSR result.
#[test]
fn contractions_over_the_outermost_index() {
    for [p, q, r] in [[0, 0, 0], [1, 1, 1], [6, 3, 4], [7, 2, 5]] {
        let xs = inputs([p, q, r], 31);
        let ys = inputs([p, r, q], 32);
        for (x, y) in xs.iter().zip(ys.iter().rev().cycle()) {
            let (dx, dy) = (dense([p, q, r], x), dense([p, r, q], y));
            let mut want = vec![0.0; q * r * r * q];
            for i in 0..p {
                for jk in 0..q * r {
                    for lm in 0..r * q {
                        want[jk * r * q + lm] += dx[i * q * r + jk] * dy[i * r * q + lm];
                    }
                }
            }
            let (xt, yt) = (tensor([p, q, r], x), tensor([p, r, q], y));
            let stale = tensor([p, q, r], &xs[xs.len() - 1]);
            let mut z = Tensor::<f64, Csf<4>>::zeros([q, r, r, q]);
            contract_csf(&mut z, &stale, &yt).unwrap();
            contract_csf(&mut z, &xt, &yt).unwrap();
            check(&z, &want, "CSF");
            let mut z = Tensor::<f64, Coo<4>>::zeros([q, r, r, q]);
            contract_coo(&mut z, &stale, &yt).unwrap();
            contract_coo(&mut z, &xt, &yt).unwrap();
            check(&z, &want, "COO");

            let c: Vec<f64> = (0..p).map(|i| 1.0 + i as f64).collect();
            let ct = Tensor::from_dense([p], &c).unwrap();
            let mut want = vec![0.0; q * r];
            for i in 0..p {
                for jk in 0..q * r {
                    want[jk] += dx[i * q * r + jk] * c[i];
                }
            }
            let mut a = Tensor::<f64, Dcsr>::zeros([q, r]);
            ttv_dcsr(&mut a, &stale, &ct).unwrap();
            ttv_dcsr(&mut a, &xt, &ct).unwrap();
            check(&a, &want, "DCSR");
        }
    }
}

/// `+=` into CSR, DCSR and sparse-vector outputs: the stored entries merge with the new ones, and
/// a second call adds again.
#[test]
fn accumulating_into_sparse_outputs() {
    for (m, n) in SHAPES {
        let all = inputs([m, n], 41 + m as u64);
        for (a, b) in all.iter().zip(all.iter().rev()) {
            let (da, db) = (dense([m, n], a), dense([m, n], b));
            let (at, bt) = (tensor::<Csr, 2>([m, n], a), tensor::<Csr, 2>([m, n], b));

            let mut g = tensor::<Csr, 2>([n, n], &inputs([n, n], 3).pop().unwrap_or_default());
            let mut want = g.to_dense();
            ata_add(&mut g, &at).unwrap();
            ata_add(&mut g, &at).unwrap();
            let (_, once) = ata(m, n, &da);
            want.iter_mut().zip(&once).for_each(|(w, o)| *w += 2.0 * o);
            check(&g, &want, "AᵀA +=");

            let mut c = tensor::<Dcsr, 2>([m, n], b);
            sum_add(&mut c, &at, &bt).unwrap();
            let want: Vec<f64> = (0..m * n).map(|k| 2.0 * db[k] + da[k]).collect();
            check(&c, &want, "A + B +=");

            let xs: Vec<f64> = (0..n).map(|j| 1.0 + j as f64).collect();
            let x = Tensor::from_dense([n], &xs).unwrap();
            let mut y = tensor::<SparseVec, 1>([m], &[]);
            spmv_add(&mut y, &at, &x).unwrap();
            spmv_add(&mut y, &at, &x).unwrap();
            let want: Vec<f64> = (0..m)
                .map(|i| 2.0 * (0..n).map(|j| da[i * n + j] * xs[j]).sum::<f64>())
                .collect();
            check(&y, &want, "y += A x");
        }
    }
}

/// A larger AᵀA whose rows differ in length, serial and row-parallel, with products that cancel:
/// the values agree with the dense reference and every stored coordinate is one that stored
/// entries wrote.
#[test]
fn a_transposed_times_a_of_a_larger_matrix_with_cancellations() {
    let (m, n) = (400, 300);
    let mut rng = Rng::new(9);
    let a: Entries<2> = (0..m)
        .flat_map(|i| (0..(i % 13)).map(move |k| (i, k)))
        .map(|(i, k)| ([i, (i * 31 + k * 17 + rng.below(7)) % n], rng.value()))
        .collect();
    let da = dense([m, n], &a);
    let (_, want) = ata(m, n, &da);
    let at = tensor::<Csr, 2>([m, n], &a);
    let mut g = Tensor::<f64, Csr>::zeros([n, n]);
    ata_csr(&mut g, &at).unwrap();
    assert_close(&g.to_dense(), &want);
    // Each stored coordinate has a column shared by both of its rows of Aᵀ.
    let mut shared = vec![false; n * n];
    for k in 0..m {
        let cols: Vec<usize> = (0..n).filter(|&j| da[k * n + j] != 0.0).collect();
        for &i in &cols {
            for &j in &cols {
                shared[i * n + j] = true;
            }
        }
    }
    g.for_each_entry(|c, _| assert!(shared[c[0] * n + c[1]], "{c:?}"));
    assert_eq!(g.nnz(), shared.iter().filter(|s| **s).count());
    let mut rows = Tensor::<f64, Csr>::zeros([n, n]);
    ata_rows(&mut rows, &at).unwrap();
    assert_eq!(rows.level(1).pos(), g.level(1).pos());
    assert_eq!(rows.level(1).crd(), g.level(1).crd());
    assert_close(rows.values(), g.values());
}

/// `C = A .* (A A)` (triangle counting's masked product), serial and row-parallel: C takes A's
/// structure (a stored zero where a coordinate of A closes no triangle), its values are each
/// stored coordinate's dot product, computed here by a merge of row `i` and column `j`.
#[test]
fn masked_products_take_the_structure_of_the_mask() {
    for (n, _) in SHAPES {
        for a in inputs([n, n], 51 + n as u64) {
            let da = dense([n, n], &a);
            let at = tensor::<Csr, 2>([n, n], &a);
            let mut want = vec![0.0; n * n];
            at.for_each_entry(|c, v| {
                let (i, j) = (c[0], c[1]);
                let (cols, vals) = at.row(i).unwrap_or_default();
                let dot: f64 = (cols.iter().zip(vals))
                    .map(|(&k, &x)| x * da[k as usize * n + j])
                    .sum();
                want[i * n + j] = v * dot;
            });
            let stale = tensor::<Csr, 2>([n, n], &inputs([n, n], 3).pop().unwrap_or_default());
            for kernel in [masked, masked_rows] {
                let mut c = Tensor::<f64, Csr>::zeros([n, n]);
                kernel(&mut c, &stale).unwrap();
                kernel(&mut c, &at).unwrap();
                assert_close(&c.to_dense(), &want);
                assert_eq!(c.level(1).pos(), at.level(1).pos());
                assert_eq!(c.level(1).crd(), at.level(1).crd());
                assert_eq!(c.nnz(), at.nnz());
            }
        }
    }
}
