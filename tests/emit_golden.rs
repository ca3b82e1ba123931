//! The emitter's golden files, compiled and run: each is the Rust that `sparse-compiler` emits for
//! a kernel built by hand in the IR (`sparse-compiler/src/emit/tests.rs` checks that the emitter
//! still produces exactly these files). Compiling them here proves the emitted code type-checks
//! against the real runtime for several scalar types; running them against dense references
//! computed from the entry lists proves it is correct, output assembly included. Any warning in
//! the emitted code (with the workspace's lints) fails the build: generated code must not make
//! its user's crate noisy.
#![deny(warnings)]

use sparse::{Csr, Dense, Dia, KernelError, Scalar, Tensor};

include!("../sparse-compiler/tests/golden/emit_spmv_csr.rs");
include!("../sparse-compiler/tests/golden/emit_spmv_dia.rs");
include!("../sparse-compiler/tests/golden/emit_sub_csr.rs");
include!("../sparse-compiler/tests/golden/emit_spgemm_csr.rs");

/// A deterministic generator (xorshift64), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }

    /// A small integer value, exact in every scalar type, never zero.
    fn value(&mut self) -> i64 {
        (self.below(9) as i64 - 4) | 1
    }
}

type Entries = Vec<([usize; 2], i64)>;

/// Matrices of `m x n` covering the edge cases: no entries, one entry, the first, middle and last
/// rows empty, duplicates (summed by packing), and random fills of several densities.
fn matrices(m: usize, n: usize, seed: u64) -> Vec<Entries> {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut out = vec![Vec::new()];
    if m * n == 0 {
        return out;
    }
    out.push(vec![([m - 1, n - 1], 3)]);
    for fill in [m * n / 10 + 1, m * n / 2, 2 * m * n] {
        out.push(
            (0..fill)
                .map(|_| ([rng.below(m), rng.below(n)], rng.value()))
                .collect(),
        );
    }
    let skip = |i: usize| i == 0 || i == m / 2 || i == m - 1;
    out.push(
        (0..m * n)
            .map(|_| ([rng.below(m), rng.below(n)], rng.value()))
            .filter(|(c, _)| !skip(c[0]))
            .collect(),
    );
    out
}

/// The dense row-major form of an entry list, duplicates summed.
fn dense(m: usize, n: usize, entries: &Entries) -> Vec<i64> {
    let mut d = vec![0; m * n];
    for ([i, j], v) in entries {
        d[i * n + j] += v;
    }
    d
}

fn tensor<T: Scalar, F: sparse::Format>(m: usize, n: usize, entries: &Entries) -> Tensor<T, F> {
    let list = entries.iter().map(|&(c, v)| (c, T::from_i64(v)));
    Tensor::from_entries([m, n], list).unwrap()
}

fn as_t<T: Scalar>(values: &[i64]) -> Vec<T> {
    values.iter().map(|&v| T::from_i64(v)).collect()
}

const SHAPES: [(usize, usize); 6] = [(0, 0), (1, 1), (3, 0), (7, 5), (5, 9), (12, 12)];

/// The signature of the SpMV kernels: `y = A x`, A in format `F`.
type Spmv<T, F> =
    fn(&mut Tensor<T, Dense<1>>, &Tensor<T, F>, &Tensor<T, Dense<1>>) -> Result<(), KernelError>;

fn check_spmv<T: Scalar, F: sparse::Format>(kernel: Spmv<T, F>) {
    for (m, n) in SHAPES {
        for entries in matrices(m, n, (m * 31 + n) as u64) {
            let a = tensor::<T, F>(m, n, &entries);
            let xs: Vec<i64> = (0..n as i64).map(|j| 2 * j - 3).collect();
            let x = Tensor::from_dense([n], &as_t::<T>(&xs)).unwrap();
            // y starts with junk: `=` overwrites it.
            let mut y = Tensor::from_dense([m], &vec![T::from_i64(9); m]).unwrap();
            kernel(&mut y, &a, &x).unwrap();
            let d = dense(m, n, &entries);
            let want: Vec<i64> = (0..m)
                .map(|i| (0..n).map(|j| d[i * n + j] * xs[j]).sum())
                .collect();
            assert_eq!(y.to_dense(), as_t::<T>(&want), "{m}x{n} {entries:?}");
        }
    }
}

#[test]
fn spmv_csr_matches_dense_for_every_scalar_type() {
    check_spmv::<f64, Csr>(spmv_csr);
    check_spmv::<f32, Csr>(spmv_csr);
    check_spmv::<i32, Csr>(spmv_csr);
    check_spmv::<i64, Csr>(spmv_csr);
}

#[test]
fn spmv_dia_matches_dense() {
    check_spmv::<f64, Dia>(spmv_dia);
    check_spmv::<i64, Dia>(spmv_dia);
}

#[test]
fn shape_mismatch_is_an_error_and_leaves_the_output_alone() {
    let a = tensor::<f64, Csr>(3, 4, &vec![([0, 1], 2)]);
    let x = Tensor::<f64, Dense<1>>::from_dense([5], &[1.0; 5]).unwrap();
    let mut y = Tensor::<f64, Dense<1>>::from_dense([3], &[7.0; 3]).unwrap();
    let err = spmv_csr(&mut y, &a, &x).unwrap_err();
    assert_eq!(
        err,
        KernelError::ShapeMismatch {
            index: "j",
            tensor: "x",
            dim: 0,
            expected: 4,
            found: 5
        }
    );
    assert_eq!(y.to_dense(), vec![7.0; 3]);
    let mut short = Tensor::<f64, Dense<1>>::zeros([2]);
    let x = Tensor::<f64, Dense<1>>::zeros([4]);
    assert!(matches!(
        spmv_csr(&mut short, &a, &x),
        Err(KernelError::ShapeMismatch {
            index: "i",
            tensor: "A",
            ..
        })
    ));
}

#[test]
fn sub_csr_assembles_the_union_of_both_patterns() {
    for (m, n) in SHAPES {
        let cases = matrices(m, n, 7 + m as u64);
        for (a_entries, b_entries) in cases.iter().zip(cases.iter().rev()) {
            let a = tensor::<f64, Csr>(m, n, a_entries);
            let b = tensor::<f64, Csr>(m, n, b_entries);
            // C starts with another pattern: assembly replaces it.
            let mut c = tensor::<f64, Csr>(m, n, b_entries);
            sub_csr(&mut c, &a, &b).unwrap();
            let (da, db) = (dense(m, n, a_entries), dense(m, n, b_entries));
            let want: Vec<f64> = da
                .iter()
                .zip(&db)
                .map(|(&x, &y)| x as f64 - 2.5 * y as f64)
                .collect();
            assert_eq!(c.to_dense(), want);
            // One stored entry per coordinate that A or B stores (packing drops sums of zero).
            let union = (0..m * n).filter(|&k| da[k] != 0 || db[k] != 0).count();
            assert_eq!(c.nnz(), union);
        }
    }
}

#[test]
fn spgemm_csr_matches_dense_and_reuses_its_output() {
    for (m, n) in SHAPES {
        let cases = matrices(m, n, 3 + n as u64);
        let b_cases = matrices(n, m, 5 + m as u64);
        let mut c = Tensor::<i64, Csr>::zeros([m, m]);
        let mut c64 = Tensor::<f64, Csr>::zeros([m, m]);
        for (a_entries, b_entries) in cases.iter().zip(b_cases.iter().cycle()) {
            let (da, db) = (dense(m, n, a_entries), dense(n, m, b_entries));
            let want: Vec<i64> = (0..m * m)
                .map(|k| (0..n).map(|l| da[k / m * n + l] * db[l * m + k % m]).sum())
                .collect();
            let (a, b) = (tensor::<i64, Csr>(m, n, a_entries), tensor(n, m, b_entries));
            spgemm_csr(&mut c, &a, &b).unwrap();
            assert_eq!(c.to_dense(), want);
            let (a, b) = (tensor::<f64, Csr>(m, n, a_entries), tensor(n, m, b_entries));
            spgemm_csr(&mut c64, &a, &b).unwrap();
            assert_eq!(c64.to_dense(), as_t::<f64>(&want));
        }
    }
}
