//! Random schedules the compiler accepts, each checked against the unscheduled kernel on the
//! edge-case inputs of `common::cases` (empty, a single entry, empty first, last and middle rows,
//! duplicates, dense) and sizes no split factor divides.
//!
//! The chains of commands in `schedules_random/chains.rs` are drawn at random for each kernel
//! below, and kept when they compile, by
//! `SPARSE_BLESS=1 cargo test -p sparse-compiler --test schedule_fuzz`. A compiler change that
//! makes one of them illegal fails this file's build; blessing again draws a new set. Comparing
//! such schedules with the unscheduled kernels found schedules that compiled to wrong results
//! (a position loop over COO rows, a collapsed split, a bounded kernel's output structure) and
//! to Rust that did not compile (nested thread loops, shared sums), all since fixed.
mod common;

use common::*;
use sparse::prelude::*;

/// For each kernel family: the unscheduled kernel `base`, one kernel per chain, and a test that
/// runs all of them with `$check`.
macro_rules! random_schedules {
    ($family:ident, $check:ident, $head:tt, [ $($name:ident { $($chain:tt)* })* ]) => {
        // Kernels into sparse outputs come with a `_compute` twin, which this test leaves alone.
        #[allow(dead_code)]
        mod $family {
            use super::*;
            random_schedules!(@kernel base, $head, {});
            $( random_schedules!(@kernel $name, $head, { schedule<$($chain)*>; }); )*

            #[test]
            fn random_schedules_agree_with_the_unscheduled_kernel() {
                $check(base, &[$((stringify!($name), $name as _, stringify!($($chain)*))),*]);
            }
        }
    };
    (@kernel $name:ident, { $($head:tt)* }, { $($schedule:tt)* }) => {
        tensor_kernel! { pub fn $name; $($head)* $($schedule)* }
    };
}

include!("schedules_random/chains.rs");

/// A kernel under test: its name, the kernel, and its schedule (for the failure message).
type Named<K> = (&'static str, K, &'static str);

/// Runs `kernel` into an output from `fresh` and compares it with `want`.
fn agree<F: Format>(
    (name, schedule): (&str, &str),
    want: &[f64],
    mut out: Tensor<f64, F>,
    run: impl FnOnce(&mut Tensor<f64, F>) -> Result<(), KernelError>,
) {
    if let Err(e) = run(&mut out) {
        panic!("{name} (schedule<{schedule}>) failed: {e}");
    }
    let got = out.to_dense();
    assert_eq!(got.len(), want.len(), "{name}");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-12 * g.abs().max(w.abs()).max(1.0),
            "{name} (schedule<{schedule}>), element {k}: got {g}, want {w}"
        );
    }
}

/// Matrix shapes: empty, one entry, and sizes that 2, 3, 4, 7 and 16 do not divide.
const SHAPES: [[usize; 2]; 4] = [[0, 0], [1, 1], [7, 5], [13, 17]];

fn vector(n: usize, seed: u64) -> Tensor<f64, Dense<1>> {
    let mut rng = Rng::new(seed);
    Tensor::from_dense([n], &(0..n).map(|_| rng.value()).collect::<Vec<_>>()).unwrap()
}

fn matrix(shape: [usize; 2], seed: u64) -> Tensor<f64, Dense<2>> {
    let mut rng = Rng::new(seed);
    let len = shape[0] * shape[1];
    Tensor::from_dense(shape, &(0..len).map(|_| rng.value()).collect::<Vec<_>>()).unwrap()
}

/// A sparse output that starts full, so a kernel that keeps any of it fails.
fn full<F: Format>(shape: [usize; 2]) -> Tensor<f64, F> {
    Tensor::from_dense(shape, &vec![-777.25; shape[0] * shape[1]]).unwrap()
}

type Out1 = Tensor<f64, Dense<1>>;
type Out2 = Tensor<f64, Dense<2>>;
type Kernel<O, A, B> = fn(&mut O, &A, &B) -> Result<(), KernelError>;
type Kernel3<O, A, B, C> = fn(&mut O, &A, &B, &C) -> Result<(), KernelError>;

type Spmv<F> = Kernel<Out1, Tensor<f64, F>, Out1>;
type Spmspv = Kernel<Out1, Tensor<f64, Csc>, Tensor<f64, SparseVec>>;
type Spmm = Kernel<Out2, Tensor<f64, Csr>, Out2>;
type Sddmm = Kernel3<Tensor<f64, Csr>, Tensor<f64, Csr>, Out2, Out2>;
type Ttv<F> = Kernel<Tensor<f64, Csr>, Tensor<f64, F>, Out1>;
type Mttkrp<F> = Kernel3<Out2, Tensor<f64, F>, Out2, Out2>;
type CsrPair = Kernel<Tensor<f64, Csr>, Tensor<f64, Csr>, Tensor<f64, Csr>>;
type SpmvPlus = Kernel3<Out1, Tensor<f64, Dcsr>, Out1, Out1>;
type Scale = Kernel<Tensor<f64, Dcsr>, Tensor<f64, Csr>, Out2>;
type DenseDifference = Kernel<Tensor<f64, Coo<2>>, Out2, Out2>;
type DcsrAdd = Kernel<Out2, Tensor<f64, Dcsr>, Tensor<f64, Dcsr>>;
type SparseVectorPair =
    Kernel<Tensor<f64, SparseVec>, Tensor<f64, SparseVec>, Tensor<f64, SparseVec>>;

/// `y = A x` for any format of `A`.
fn check_spmv<F: Format>(base: Spmv<F>, kernels: &[Named<Spmv<F>>]) {
    for [m, n] in SHAPES {
        for entries in cases([m, n], 11) {
            let (a, x) = (tensor::<F, 2>([m, n], &entries), vector(n, 12));
            let mut want = garbage([m]);
            base(&mut want, &a, &x).unwrap();
            for &(name, kernel, schedule) in kernels {
                agree((name, schedule), want.values(), garbage([m]), |y| {
                    kernel(y, &a, &x)
                });
            }
        }
    }
}

/// `y = A x` with `x` sparse.
fn check_spmspv(base: Spmspv, kernels: &[Named<Spmspv>]) {
    for [m, n] in SHAPES {
        for entries in cases([m, n], 21) {
            let a = tensor::<Csc, 2>([m, n], &entries);
            let x = tensor::<SparseVec, 1>([n], &cases([n], 22).pop().unwrap_or_default());
            let mut want = garbage([m]);
            base(&mut want, &a, &x).unwrap();
            for &(name, kernel, schedule) in kernels {
                agree((name, schedule), want.values(), garbage([m]), |y| {
                    kernel(y, &a, &x)
                });
            }
        }
    }
}

/// `C = A B` with `B` dense, 4 columns.
fn check_spmm(base: Spmm, kernels: &[Named<Spmm>]) {
    for [m, n] in SHAPES {
        for entries in cases([m, n], 31) {
            let (a, b) = (tensor::<Csr, 2>([m, n], &entries), matrix([n, 4], 32));
            let mut want = garbage([m, 4]);
            base(&mut want, &a, &b).unwrap();
            for &(name, kernel, schedule) in kernels {
                agree((name, schedule), want.values(), garbage([m, 4]), |c| {
                    kernel(c, &a, &b)
                });
            }
        }
    }
}

/// `A = B .* (C D)` over `B`'s pattern, inner dimension 3.
fn check_sddmm(base: Sddmm, kernels: &[Named<Sddmm>]) {
    for [m, n] in SHAPES {
        for entries in cases([m, n], 41) {
            let b = tensor::<Csr, 2>([m, n], &entries);
            let (c, d) = (matrix([m, 3], 42), matrix([3, n], 43));
            let mut want = full([m, n]);
            base(&mut want, &b, &c, &d).unwrap();
            let want = want.to_dense();
            for &(name, kernel, schedule) in kernels {
                agree((name, schedule), &want, full([m, n]), |a| {
                    kernel(a, &b, &c, &d)
                });
            }
        }
    }
}

/// Order-3 shapes: empty, one entry, and sizes no split factor divides.
const SHAPES3: [[usize; 3]; 3] = [[0, 0, 0], [1, 1, 1], [7, 5, 6]];

/// `A(i,j) = B(i,j,k) c(k)`, `B` in any format.
fn check_ttv<F: Format>(base: Ttv<F>, kernels: &[Named<Ttv<F>>]) {
    for [p, q, r] in SHAPES3 {
        for entries in cases([p, q, r], 51) {
            let (b, c) = (tensor::<F, 3>([p, q, r], &entries), vector(r, 52));
            let mut want = full([p, q]);
            base(&mut want, &b, &c).unwrap();
            let want = want.to_dense();
            for &(name, kernel, schedule) in kernels {
                agree((name, schedule), &want, full([p, q]), |a| kernel(a, &b, &c));
            }
        }
    }
}

/// `A(i,j) = B(i,k,l) D(l,j) C(k,j)`, rank 3, `B` in any format.
fn check_mttkrp<F: Format>(base: Mttkrp<F>, kernels: &[Named<Mttkrp<F>>]) {
    for [p, q, r] in SHAPES3 {
        for entries in cases([p, q, r], 61) {
            let b = tensor::<F, 3>([p, q, r], &entries);
            let (d, c) = (matrix([r, 3], 62), matrix([q, 3], 63));
            let mut want = garbage([p, 3]);
            base(&mut want, &b, &d, &c).unwrap();
            for &(name, kernel, schedule) in kernels {
                agree((name, schedule), want.values(), garbage([p, 3]), |a| {
                    kernel(a, &b, &d, &c)
                });
            }
        }
    }
}

/// `A = B op C` for CSR matrices of the same shape.
fn check_elementwise(base: CsrPair, kernels: &[Named<CsrPair>]) {
    for [m, n] in SHAPES {
        for entries in cases([m, n], 71) {
            let b = tensor::<Csr, 2>([m, n], &entries);
            let c = tensor::<Csr, 2>([m, n], &cases([m, n], 72).pop().unwrap_or_default());
            let mut want = full([m, n]);
            base(&mut want, &b, &c).unwrap();
            let want = want.to_dense();
            for &(name, kernel, schedule) in kernels {
                agree((name, schedule), &want, full([m, n]), |a| kernel(a, &b, &c));
            }
        }
    }
}

/// `A = B C` for CSR matrices, `C` with 6 columns.
fn check_spgemm(base: CsrPair, kernels: &[Named<CsrPair>]) {
    for [m, n] in SHAPES {
        for entries in cases([m, n], 81) {
            let b = tensor::<Csr, 2>([m, n], &entries);
            let c = tensor::<Csr, 2>([n, 6], &cases([n, 6], 82).pop().unwrap_or_default());
            let mut want = full([m, 6]);
            base(&mut want, &b, &c).unwrap();
            let want = want.to_dense();
            for &(name, kernel, schedule) in kernels {
                agree((name, schedule), &want, full([m, 6]), |a| kernel(a, &b, &c));
            }
        }
    }
}

/// `A = B .* C` into DCSR, `B` CSR and `C` dense.
fn check_scale(base: Scale, kernels: &[Named<Scale>]) {
    for [m, n] in SHAPES {
        for entries in cases([m, n], 101) {
            let (b, c) = (tensor::<Csr, 2>([m, n], &entries), matrix([m, n], 102));
            let mut want = full([m, n]);
            base(&mut want, &b, &c).unwrap();
            let want = want.to_dense();
            for &(name, kernel, schedule) in kernels {
                agree((name, schedule), &want, full([m, n]), |a| kernel(a, &b, &c));
            }
        }
    }
}

/// `A = B - C` into COO from dense matrices (the edge cases' dense forms, so with zeros).
fn check_dense_difference(base: DenseDifference, kernels: &[Named<DenseDifference>]) {
    for [m, n] in SHAPES {
        for entries in cases([m, n], 111) {
            let b = Tensor::from_dense([m, n], &dense([m, n], &entries)).unwrap();
            let c = matrix([m, n], 112);
            let mut want = full([m, n]);
            base(&mut want, &b, &c).unwrap();
            let want = want.to_dense();
            for &(name, kernel, schedule) in kernels {
                agree((name, schedule), &want, full([m, n]), |a| kernel(a, &b, &c));
            }
        }
    }
}

/// `y = A x + z` with `A` in DCSR.
fn check_spmv_plus(base: SpmvPlus, kernels: &[Named<SpmvPlus>]) {
    for [m, n] in SHAPES {
        for entries in cases([m, n], 91) {
            let a = tensor::<Dcsr, 2>([m, n], &entries);
            let (x, z) = (vector(n, 92), vector(m, 93));
            let mut want = garbage([m]);
            base(&mut want, &a, &x, &z).unwrap();
            for &(name, kernel, schedule) in kernels {
                agree((name, schedule), want.values(), garbage([m]), |y| {
                    kernel(y, &a, &x, &z)
                });
            }
        }
    }
}

/// `A = B + C` into a dense matrix, `B` and `C` in DCSR (a union at both levels).
fn check_dcsr_add(base: DcsrAdd, kernels: &[Named<DcsrAdd>]) {
    for [m, n] in SHAPES {
        for entries in cases([m, n], 121) {
            let b = tensor::<Dcsr, 2>([m, n], &entries);
            let c = tensor::<Dcsr, 2>([m, n], &cases([m, n], 122).pop().unwrap_or_default());
            let mut want = garbage([m, n]);
            base(&mut want, &b, &c).unwrap();
            for &(name, kernel, schedule) in kernels {
                agree((name, schedule), want.values(), garbage([m, n]), |a| {
                    kernel(a, &b, &c)
                });
            }
        }
    }
}

/// `a = b op c` for sparse vectors into a sparse vector, lengths no split factor divides.
fn check_sparse_vector_pair(base: SparseVectorPair, kernels: &[Named<SparseVectorPair>]) {
    for n in [0, 1, 7, 17, 65] {
        for entries in cases([n], 131) {
            let b = tensor::<SparseVec, 1>([n], &entries);
            let c = tensor::<SparseVec, 1>([n], &cases([n], 132).pop().unwrap_or_default());
            let mut want = Tensor::<f64, SparseVec>::zeros([n]);
            base(&mut want, &b, &c).unwrap();
            let want = want.to_dense();
            for &(name, kernel, schedule) in kernels {
                let full = Tensor::from_dense([n], &vec![-777.25; n]).unwrap();
                agree((name, schedule), &want, full, |a| kernel(a, &b, &c));
            }
        }
    }
}
