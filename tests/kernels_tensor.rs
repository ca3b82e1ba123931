//! Higher-order kernels on CSF and COO tensors: TTV, TTM, MTTKRP (orders 3 and 4) and the inner
//! product into a scalar, against dense references.
mod common;

use common::*;
use sparse::prelude::*;

tensor_kernel! { fn ttv_csf; A(i,j) = B(i,j,k) * c(k); formats<B: csf>; }
tensor_kernel! { fn ttv_csf_sparse_out; A(i,j) = B(i,j,k) * c(k); formats<A: csr, B: csf>; }
tensor_kernel! { fn ttv_coo; A(i,j) = B(i,j,k) * c(k); formats<B: coo>; }
tensor_kernel! { fn ttm_csf; A(i,j,k) = B(i,j,l) * C(k,l); formats<B: csf>; }
tensor_kernel! { fn ttm_coo; A(i,j,k) = B(i,j,l) * C(k,l); formats<B: coo>; }
tensor_kernel! { fn mttkrp3_csf; A(i,j) = B(i,k,l) * C(k,j) * D(l,j); formats<B: csf>; }
tensor_kernel! { fn mttkrp3_coo; A(i,j) = B(i,k,l) * C(k,j) * D(l,j); formats<B: coo>; }
tensor_kernel! { fn mttkrp4_csf; A(i,j) = B(i,k,l,m) * C(k,j) * D(l,j) * E(m,j); formats<B: csf>; }
tensor_kernel! { fn mttkrp4_coo; A(i,j) = B(i,k,l,m) * C(k,j) * D(l,j) * E(m,j); formats<B: coo>; }
tensor_kernel! { fn inner; s = B(i,j,k) * C(i,j,k); formats<B: csf, C: csf>; }

fn dense_tensor<const N: usize>(shape: [usize; N], seed: u64) -> (Vec<f64>, Tensor<f64, Dense<N>>) {
    let mut rng = Rng::new(seed);
    let values: Vec<f64> = (0..shape.iter().product()).map(|_| rng.value()).collect();
    let t = Tensor::from_dense(shape, &values).unwrap();
    (values, t)
}

#[test]
fn tensor_times_vector() {
    for [m, n, p] in [[0, 0, 0], [1, 1, 1], [4, 5, 6], [7, 3, 2]] {
        let (c, ct) = dense_tensor([p], 3);
        for b in cases([m, n, p], 5) {
            let db = dense([m, n, p], &b);
            let want: Vec<f64> = (0..m * n)
                .map(|ij| (0..p).map(|k| db[ij * p + k] * c[k]).sum())
                .collect();
            let mut a = garbage([m, n]);
            ttv_csf(&mut a, &tensor([m, n, p], &b), &ct).unwrap();
            assert_close(a.values(), &want);
            let mut a = Tensor::<f64, Csr>::zeros([m, n]);
            ttv_csf_sparse_out(&mut a, &tensor([m, n, p], &b), &ct).unwrap();
            assert_close(&a.to_dense(), &want);
            let mut a = garbage([m, n]);
            ttv_coo(&mut a, &tensor([m, n, p], &b), &ct).unwrap();
            assert_close(a.values(), &want);
        }
    }
}

#[test]
fn tensor_times_matrix() {
    for [m, n, p, q] in [[0, 0, 0, 0], [1, 1, 1, 1], [3, 4, 5, 2]] {
        let (c, ct) = dense_tensor([q, p], 7);
        for b in cases([m, n, p], 11) {
            let db = dense([m, n, p], &b);
            let mut want = vec![0.0; m * n * q];
            for ij in 0..m * n {
                for k in 0..q {
                    want[ij * q + k] = (0..p).map(|l| db[ij * p + l] * c[k * p + l]).sum();
                }
            }
            let mut a = garbage([m, n, q]);
            ttm_csf(&mut a, &tensor([m, n, p], &b), &ct).unwrap();
            assert_close(a.values(), &want);
            let mut a = garbage([m, n, q]);
            ttm_coo(&mut a, &tensor([m, n, p], &b), &ct).unwrap();
            assert_close(a.values(), &want);
        }
    }
}

#[test]
fn mttkrp_order_3() {
    for [m, r, p, q] in [[0, 0, 0, 0], [1, 1, 1, 1], [4, 3, 5, 6]] {
        let (c, ct) = dense_tensor([p, r], 13);
        let (d, dt) = dense_tensor([q, r], 17);
        for b in cases([m, p, q], 19) {
            let db = dense([m, p, q], &b);
            let mut want = vec![0.0; m * r];
            for i in 0..m {
                for j in 0..r {
                    for k in 0..p {
                        for l in 0..q {
                            want[i * r + j] +=
                                db[(i * p + k) * q + l] * c[k * r + j] * d[l * r + j];
                        }
                    }
                }
            }
            let mut a = garbage([m, r]);
            mttkrp3_csf(&mut a, &tensor([m, p, q], &b), &ct, &dt).unwrap();
            assert_close(a.values(), &want);
            let mut a = garbage([m, r]);
            mttkrp3_coo(&mut a, &tensor([m, p, q], &b), &ct, &dt).unwrap();
            assert_close(a.values(), &want);
        }
    }
}

#[test]
fn mttkrp_order_4() {
    for [m, r, p, q, s] in [[1, 1, 1, 1, 1], [3, 2, 4, 3, 2]] {
        let (c, ct) = dense_tensor([p, r], 23);
        let (d, dt) = dense_tensor([q, r], 29);
        let (e, et) = dense_tensor([s, r], 31);
        for b in cases([m, p, q, s], 37) {
            let db = dense([m, p, q, s], &b);
            let mut want = vec![0.0; m * r];
            for i in 0..m {
                for j in 0..r {
                    for k in 0..p {
                        for l in 0..q {
                            for n in 0..s {
                                let bv = db[((i * p + k) * q + l) * s + n];
                                want[i * r + j] += bv * c[k * r + j] * d[l * r + j] * e[n * r + j];
                            }
                        }
                    }
                }
            }
            let mut a = garbage([m, r]);
            mttkrp4_csf(&mut a, &tensor([m, p, q, s], &b), &ct, &dt, &et).unwrap();
            assert_close(a.values(), &want);
            let mut a = garbage([m, r]);
            mttkrp4_coo(&mut a, &tensor([m, p, q, s], &b), &ct, &dt, &et).unwrap();
            assert_close(a.values(), &want);
        }
    }
}

#[test]
fn inner_product_into_a_scalar() {
    for shape in [[0, 0, 0], [1, 1, 1], [3, 4, 5]] {
        for b in cases(shape, 41) {
            for c in cases(shape, 43) {
                let want: f64 = dense(shape, &b)
                    .iter()
                    .zip(dense(shape, &c))
                    .map(|(x, y)| x * y)
                    .sum();
                let mut s = garbage([]);
                inner(&mut s, &tensor(shape, &b), &tensor(shape, &c)).unwrap();
                assert_close(s.values(), &[want]);
            }
        }
    }
}
