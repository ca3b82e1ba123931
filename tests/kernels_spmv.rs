//! SpMV `y(i) = A(i,j) * x(j)` with A in every matrix format, against a dense reference.
mod common;

use common::*;
use sparse::prelude::*;

tensor_kernel! { fn spmv_csr; y(i) = A(i,j) * x(j); formats<A: csr>; }
tensor_kernel! { fn spmv_csc; y(i) = A(i,j) * x(j); formats<A: csc>; }
tensor_kernel! { fn spmv_coo; y(i) = A(i,j) * x(j); formats<A: coo>; }
tensor_kernel! { fn spmv_dcsr; y(i) = A(i,j) * x(j); formats<A: dcsr>; }
tensor_kernel! { fn spmv_dense; y(i) = A(i,j) * x(j); }

fn reference(m: usize, n: usize, a: &[f64], x: &[f64]) -> Vec<f64> {
    (0..m)
        .map(|i| (0..n).map(|j| a[i * n + j] * x[j]).sum())
        .collect()
}

type Spmv<F> = fn(
    &mut Tensor<f64, Dense<1>>,
    &Tensor<f64, F>,
    &Tensor<f64, Dense<1>>,
) -> Result<(), KernelError>;

fn check<F: Format>(kernel: Spmv<F>) {
    for (m, n) in [(0, 0), (1, 1), (7, 5), (5, 9), (13, 13)] {
        for (case, entries) in cases([m, n], (m * 31 + n) as u64).into_iter().enumerate() {
            let a = tensor::<F, 2>([m, n], &entries);
            let xs: Vec<f64> = (0..n).map(|j| 0.5 + j as f64).collect();
            let x = Tensor::from_dense([n], &xs).unwrap();
            let mut y = Tensor::<f64, Dense<1>>::from_dense([m], &vec![9.0; m]).unwrap();
            kernel(&mut y, &a, &x).unwrap();
            let want = reference(m, n, &dense([m, n], &entries), &xs);
            assert_close(y.values(), &want);
            let _ = case;
        }
    }
}

#[test]
fn csr() {
    check::<Csr>(spmv_csr);
}

#[test]
fn csc() {
    check::<Csc>(spmv_csc);
}

#[test]
fn coo() {
    check::<Coo<2>>(spmv_coo);
}

#[test]
fn dcsr() {
    check::<Dcsr>(spmv_dcsr);
}

#[test]
fn dense_matrix() {
    check::<Dense<2>>(spmv_dense);
}

#[test]
fn shape_mismatch_is_an_error() {
    let a = Tensor::<f64, Csr>::from_entries([2, 3], [([0, 1], 1.0)]).unwrap();
    let x = Tensor::<f64, Dense<1>>::zeros([4]);
    let mut y = Tensor::<f64, Dense<1>>::zeros([2]);
    assert!(matches!(
        spmv_csr(&mut y, &a, &x),
        Err(KernelError::ShapeMismatch { .. })
    ));
}

tensor_kernel! { fn spmv_ell; y(i) = A(i,j) * x(j); formats<A: ell>; }
tensor_kernel! { fn spmv_dia; y(i) = A(i,j) * x(j); formats<A: dia>; }
tensor_kernel! { fn spmv_bcsr; y(i) = A(i,j) * x(j); formats<A: bcsr(2, 3)>; }
tensor_kernel! { fn spmv_hash; y(i) = A(i,j) * x(j); formats<A: hash>; }
tensor_kernel! { fn spmv_custom; y(i) = A(i,j) * x(j); formats<A: (dense, compressed(unordered))>; }

#[test]
fn ell() {
    check::<Ell>(spmv_ell);
}

#[test]
fn dia() {
    check::<Dia>(spmv_dia);
}

#[test]
fn bcsr() {
    check::<Bcsr<2, 3>>(spmv_bcsr);
}

#[test]
fn hash() {
    check::<HashMat>(spmv_hash);
}

type RowsUnordered = sparse::Custom<
    {
        sparse::encode_levels(&[
            sparse::LevelSpec::dense(0),
            sparse::LevelSpec::compressed(1).unordered(),
        ])
    },
>;

#[test]
fn custom_unordered_rows() {
    check::<RowsUnordered>(spmv_custom);
}
