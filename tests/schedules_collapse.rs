//! Position loops over a collapse of three levels (Senanayake et al. 2020, the TTV and MTTKRP
//! schedules of its evaluation): one loop over the nonzeros of a 3-tensor, the coordinates of the
//! two levels above recovered by walking their segments. Each against a dense reference, serial
//! and with the nonzeros split across threads.
mod common;

use common::*;
use sparse::prelude::*;

tensor_kernel! {
    fn ttv_fused;
    A(i,j) = B(i,j,k) * c(k);
    formats<A: (dense, compressed), B: (dense, compressed, compressed)>;
    schedule<fuse(j, k, jk).fuse(i, jk, f).pos(f, fpos, B(i,j,k))>;
}
tensor_kernel! {
    fn ttv_fused_threads;
    A(i,j) = B(i,j,k) * c(k);
    formats<A: (dense, compressed), B: (dense, compressed, compressed)>;
    schedule<fuse(j, k, jk).fuse(i, jk, f).pos(f, fpos, B(i,j,k))
        .split(fpos, chunk, fpos2, Down, 8).parallelize(chunk, CpuThread, Atomics)>;
}
tensor_kernel! {
    /// The evaluation's GPU TTV schedule on the CPU: products of a tile precomputed, unrolled.
    fn ttv_fused_precompute;
    A(i,j) = B(i,j,k) * c(k);
    formats<A: (dense, compressed), B: (dense, compressed, compressed)>;
    schedule<fuse(j, k, jk).fuse(i, jk, f).pos(f, fpos, B(i,j,k))
        .split(fpos, block, fpos1, Down, 16).split(fpos1, thread, thread_nz, Down, 4)
        .precompute(B(i,j,k) * c(k), thread_nz, thread_nz_pre, precomputed)
        .unroll(thread_nz_pre, 4).parallelize(block, CpuThread, Atomics)>;
}
tensor_kernel! {
    fn ttv_fused_csf;
    A(i,j) = B(i,j,k) * c(k);
    formats<A: dcsr, B: csf>;
    schedule<fuse(j, k, jk).fuse(i, jk, f).pos(f, fpos, B(i,j,k))
        .split(fpos, chunk, fpos2, Down, 8).parallelize(chunk, CpuThread, Atomics)>;
}
tensor_kernel! {
    fn mttkrp_fused;
    A(i,j) = B(i,k,l) * C(k,j) * D(l,j);
    formats<B: csf>;
    schedule<reorder(i, k, l, j).fuse(k, l, kl).fuse(i, kl, f).pos(f, fpos, B(i,k,l))>;
}
tensor_kernel! {
    fn mttkrp_fused_threads;
    A(i,j) = B(i,k,l) * C(k,j) * D(l,j);
    formats<B: csf>;
    schedule<reorder(i, k, l, j).fuse(k, l, kl).fuse(i, kl, f).pos(f, fpos, B(i,k,l))
        .split(fpos, chunk, fpos2, Down, 8).parallelize(chunk, CpuThread, Atomics)>;
}
tensor_kernel! {
    fn mttkrp_fused_dcc;
    A(i,j) = B(i,k,l) * C(k,j) * D(l,j);
    formats<B: (dense, compressed, compressed)>;
    schedule<reorder(i, k, l, j).fuse(k, l, kl).fuse(i, kl, f).pos(f, fpos, B(i,k,l))
        .split(fpos, chunk, fpos2, Down, 8).parallelize(chunk, CpuThread, Atomics)>;
}

type Dcc = sparse::Custom<
    {
        sparse::encode_levels(&[
            sparse::LevelSpec::dense(0),
            sparse::LevelSpec::compressed(1),
            sparse::LevelSpec::compressed(2),
        ])
    },
>;

/// The test cases, plus one with every nonzero in one slice of the first dimension.
fn inputs(shape: [usize; 3]) -> Vec<Vec<([usize; 3], f64)>> {
    let mut all = cases(shape, 31);
    let mut rng = Rng::new(32);
    let one_slice = (0..shape.iter().product::<usize>() / 3)
        .map(|_| {
            (
                [shape[0] / 2, rng.below(shape[1]), rng.below(shape[2])],
                rng.value(),
            )
        })
        .collect();
    all.push(one_slice);
    all
}

fn matrix(m: usize, n: usize, seed: u64) -> (Vec<f64>, Tensor<f64, Dense<2>>) {
    let mut rng = Rng::new(seed);
    let v: Vec<f64> = (0..m * n).map(|_| rng.value()).collect();
    (v.clone(), Tensor::from_dense([m, n], &v).unwrap())
}

/// Within 1e-12 relative: atomics add a sum's terms in any order.
fn close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-12 * w.abs().max(1.0),
            "element {k}: got {g}, want {w}"
        );
    }
}

#[test]
fn ttv_over_the_nonzeros_of_three_levels() {
    for shape in [[0, 0, 0], [1, 1, 1], [9, 4, 7], [40, 6, 5]] {
        let [m, p, q] = shape;
        let (cv, c) = matrix(1, q, 5);
        let c = Tensor::<f64, DenseVec>::from_dense([q], c.values()).unwrap();
        for b in inputs(shape) {
            let db = dense(shape, &b);
            let want: Vec<f64> = (0..m * p)
                .map(|ij| (0..q).map(|k| db[ij * q + k] * cv[k]).sum())
                .collect();
            let bt = tensor::<Dcc, 3>(shape, &b);
            let bcsf = tensor::<Csf<3>, 3>(shape, &b);
            // Twice into the same output, so a structure or value left from the first call shows.
            for _ in 0..2 {
                let mut a = Tensor::zeros([m, p]);
                ttv_fused(&mut a, &bt, &c).unwrap();
                close(&a.to_dense(), &want);
                let mut a2 = Tensor::zeros([m, p]);
                ttv_fused_threads(&mut a2, &bt, &c).unwrap();
                close(&a2.to_dense(), &want);
                ttv_fused_precompute(&mut a2, &bt, &c).unwrap();
                close(&a2.to_dense(), &want);
                let mut a3 = Tensor::<f64, Dcsr>::zeros([m, p]);
                ttv_fused_csf(&mut a3, &bcsf, &c).unwrap();
                close(&a3.to_dense(), &want);
            }
        }
    }
}

#[test]
fn mttkrp_over_the_nonzeros_of_three_levels() {
    for (shape, r) in [
        ([0, 0, 0], 0),
        ([1, 1, 1], 1),
        ([9, 4, 7], 3),
        ([40, 6, 5], 5),
    ] {
        let [m, p, q] = shape;
        let (dc, c) = matrix(p, r, 6);
        let (dd, d) = matrix(q, r, 7);
        for b in inputs(shape) {
            let db = dense(shape, &b);
            let mut want = vec![0.0; m * r];
            for i in 0..m {
                for j in 0..r {
                    for k in 0..p {
                        for l in 0..q {
                            want[i * r + j] +=
                                db[(i * p + k) * q + l] * dc[k * r + j] * dd[l * r + j];
                        }
                    }
                }
            }
            let bcsf = tensor::<Csf<3>, 3>(shape, &b);
            let bdcc = tensor::<Dcc, 3>(shape, &b);
            let mut a = garbage([m, r]);
            mttkrp_fused(&mut a, &bcsf, &c, &d).unwrap();
            close(a.values(), &want);
            let mut a = garbage([m, r]);
            mttkrp_fused_threads(&mut a, &bcsf, &c, &d).unwrap();
            close(a.values(), &want);
            let mut a = garbage([m, r]);
            mttkrp_fused_dcc(&mut a, &bdcc, &c, &d).unwrap();
            close(a.values(), &want);
        }
    }
}
