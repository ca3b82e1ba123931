//! Coordinate splits of loops that iterate sparse levels (Senanayake et al. 2020): each tile
//! `[i0 * s, min((i0 + 1) * s, n))` finds where it starts in every sparse operand by a binary
//! search over that level's coordinates, then co-iterates as the unscheduled loop does. Each
//! schedule is checked against the unscheduled kernel and a hand-written dense reference, on
//! empty tensors, empty rows and runs of them, single entries, duplicates, one huge row, tiles
//! with no entries, and sizes that 64 and 7 do not divide; serial and on threads (above the work
//! threshold, so the tiles really run on rayon's pool).
mod common;

use common::*;
use sparse::__private::PARALLEL_MIN_WORK;
use sparse::prelude::*;

// Sparse vector add: a union, each operand searching its own start.
tensor_kernel! { fn add; a(i) = b(i) + c(i); formats<b: sparse, c: sparse>; }
tensor_kernel! {
    fn add_tiles; a(i) = b(i) + c(i); formats<b: sparse, c: sparse>;
    schedule<split(i, i0, i1, Down, 64)>;
}
tensor_kernel! {
    fn add_tiles_7; a(i) = b(i) + c(i); formats<b: sparse, c: sparse>;
    schedule<split(i, i0, i1, Down, 7)>;
}
tensor_kernel! {
    fn add_up; a(i) = b(i) + c(i); formats<b: sparse, c: sparse>;
    schedule<split(i, i0, i1, Up, 7)>;
}
tensor_kernel! {
    fn add_threads; a(i) = b(i) + c(i); formats<b: sparse, c: sparse>;
    schedule<split(i, i0, i1, Down, 64).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn add_threads_7; a(i) = b(i) + c(i); formats<b: sparse, c: sparse>;
    schedule<split(i, i0, i1, Down, 7).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! { fn add_sparse; a(i) = b(i) + c(i); formats<a: sparse, b: sparse, c: sparse>; }
tensor_kernel! {
    fn add_sparse_tiles; a(i) = b(i) + c(i); formats<a: sparse, b: sparse, c: sparse>;
    schedule<split(i, i0, i1, Down, 64)>;
}
tensor_kernel! {
    fn add_sparse_tiles_7; a(i) = b(i) + c(i); formats<a: sparse, b: sparse, c: sparse>;
    schedule<split(i, i0, i1, Down, 7)>;
}

// Sparse vector multiply: an intersection.
tensor_kernel! { fn mul; a(i) = b(i) * c(i); formats<b: sparse, c: sparse>; }
tensor_kernel! {
    fn mul_tiles; a(i) = b(i) * c(i); formats<b: sparse, c: sparse>;
    schedule<split(i, i0, i1, Down, 7)>;
}
tensor_kernel! {
    fn mul_threads; a(i) = b(i) * c(i); formats<b: sparse, c: sparse>;
    schedule<split(i, i0, i1, Down, 64).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! { fn mul_sparse; a(i) = b(i) * c(i); formats<a: sparse, b: sparse, c: sparse>; }
tensor_kernel! {
    fn mul_sparse_tiles; a(i) = b(i) * c(i); formats<a: sparse, b: sparse, c: sparse>;
    schedule<split(i, i0, i1, Down, 64)>;
}
tensor_kernel! {
    fn mul_sparse_tiles_7; a(i) = b(i) * c(i); formats<a: sparse, b: sparse, c: sparse>;
    schedule<split(i, i0, i1, Up, 7)>;
}

// A union with a dense operand (the tile's coordinates are all visited), and a bitmap operand
// (positions found from coordinates, no search).
tensor_kernel! { fn add_dense; a(i) = b(i) + d(i); formats<b: sparse>; }
tensor_kernel! {
    fn add_dense_threads; a(i) = b(i) + d(i); formats<b: sparse>;
    schedule<split(i, i0, i1, Down, 7).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! { fn mul_bitmap; a(i) = b(i) * c(i); formats<b: bitvec, c: sparse>; }
tensor_kernel! {
    fn mul_bitmap_tiles; a(i) = b(i) * c(i); formats<b: bitvec, c: sparse>;
    schedule<split(i, i0, i1, Down, 7)>;
}

// SpMV over DCSR, split on its compressed rows; over CSR, split on the columns of each row (a
// search inside each row's segment, under a sum); over COO, whose rows repeat.
tensor_kernel! { fn spmv; y(i) = A(i,j) * x(j); formats<A: dcsr>; }
tensor_kernel! {
    fn spmv_tiles; y(i) = A(i,j) * x(j); formats<A: dcsr>;
    schedule<split(i, i0, i1, Down, 7)>;
}
tensor_kernel! {
    fn spmv_threads; y(i) = A(i,j) * x(j); formats<A: dcsr>;
    schedule<split(i, i0, i1, Down, 64).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! { fn spmv_csr; y(i) = A(i,j) * x(j); formats<A: csr>; }
tensor_kernel! {
    fn spmv_csr_columns; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<split(j, j0, j1, Down, 7)>;
}
tensor_kernel! {
    fn spmv_csr_columns_up; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<split(j, j0, j1, Up, 3)>;
}
tensor_kernel! { fn spmv_coo; y(i) = A(i,j) * x(j); formats<A: coo>; }
tensor_kernel! {
    fn spmv_coo_rows; y(i) = A(i,j) * x(j); formats<A: coo>;
    schedule<split(i, i0, i1, Down, 7)>;
}
tensor_kernel! {
    fn spmv_coo_columns; y(i) = A(i,j) * x(j); formats<A: coo>;
    schedule<split(j, j0, j1, Down, 7)>;
}

// A CSR output from a union of DCSR matrices, its rows assembled in parallel by tiles.
tensor_kernel! { fn madd; A(i,j) = B(i,j) + C(i,j); formats<A: csr, B: dcsr, C: dcsr>; }
tensor_kernel! {
    fn madd_threads; A(i,j) = B(i,j) + C(i,j); formats<A: csr, B: dcsr, C: dcsr>;
    schedule<split(i, i0, i1, Down, 7).parallelize(i0, CpuThread, NoRaces)>;
}

// Sparse outputs appended in order by the tiles: a CSR result split on its compressed columns
// (each row's segment closed once, after the loop over tiles), a DCSR result split on its
// compressed rows.
tensor_kernel! { fn madd_csr; A(i,j) = B(i,j) + C(i,j); formats<A: csr, B: csr, C: csr>; }
tensor_kernel! {
    fn madd_csr_columns; A(i,j) = B(i,j) + C(i,j); formats<A: csr, B: csr, C: csr>;
    schedule<split(j, j0, j1, Down, 4)>;
}
tensor_kernel! { fn madd_dcsr; A(i,j) = B(i,j) + C(i,j); formats<A: dcsr, B: dcsr, C: dcsr>; }
tensor_kernel! {
    fn madd_dcsr_rows; A(i,j) = B(i,j) + C(i,j); formats<A: dcsr, B: dcsr, C: dcsr>;
    schedule<split(i, i0, i1, Down, 7)>;
}
tensor_kernel! {
    fn madd_dcsr_columns; A(i,j) = B(i,j) + C(i,j); formats<A: dcsr, B: dcsr, C: dcsr>;
    schedule<split(j, j0, j1, Up, 3)>;
}
tensor_kernel! {
    fn madd_dense_columns; A(i,j) = B(i,j) + C(i,j); formats<B: dcsr, C: dcsr>;
    schedule<split(i, i0, i1, Down, 7).split(j, j0, j1, Down, 4)
        .parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn mmul_dcsr_rows; A(i,j) = B(i,j) * C(i,j); formats<A: dcsr, B: dcsr, C: csr>;
    schedule<split(i, i0, i1, Up, 3)>;
}

// MTTKRP with B in CSF, split on `i`.
tensor_kernel! {
    fn mttkrp; A(i,j) = B(i,k,l) * C(k,j) * D(l,j); formats<B: csf>;
}
tensor_kernel! {
    fn mttkrp_tiles; A(i,j) = B(i,k,l) * C(k,j) * D(l,j); formats<B: csf>;
    schedule<split(i, i0, i1, Down, 7)>;
}
tensor_kernel! {
    fn mttkrp_threads; A(i,j) = B(i,k,l) * C(k,j) * D(l,j); formats<B: csf>;
    schedule<split(i, i0, i1, Down, 64).parallelize(i0, CpuThread, NoRaces)>;
}

type Entries<const N: usize> = Vec<([usize; N], f64)>;

/// Vector lengths: empty, one, and lengths 64 and 7 do not divide (or do, exactly once).
const LENGTHS: [usize; 8] = [0, 1, 7, 63, 64, 65, 449, 1000];

/// The vectors of `common::cases` plus the ones coordinate tiles care about: a single entry at
/// the start, the end and a tile boundary, entries clustered in one place (every other tile
/// empty), one entry every 100 coordinates (runs of empty tiles), and a full vector.
fn vectors(n: usize, seed: u64) -> Vec<Entries<1>> {
    let mut out = cases([n], seed);
    if n == 0 {
        return out;
    }
    let mut rng = Rng::new(seed ^ 0xABCD);
    for i in [0, n - 1, 64.min(n - 1), 7.min(n - 1)] {
        out.push(vec![([i], 0.5 + rng.below(4) as f64)]);
    }
    let at = n / 3;
    out.push(
        (at..(at + 10).min(n))
            .map(|i| ([i], rng.value() + 3.0))
            .collect(),
    );
    out.push(
        (0..n)
            .step_by(100)
            .map(|i| ([i], rng.value() + 3.0))
            .collect(),
    );
    out.push((0..n).map(|i| ([i], rng.value())).collect());
    out
}

/// `op` of two dense vectors, element by element.
fn zip(b: &[f64], c: &[f64], op: fn(f64, f64) -> f64) -> Vec<f64> {
    b.iter().zip(c).map(|(x, y)| op(*x, *y)).collect()
}

type DenseOut = Tensor<f64, Dense<1>>;
type VecPair = fn(&mut DenseOut, &Tensor<f64, SparseVec>, &Tensor<f64, SparseVec>) -> KResult;
type SparsePair =
    fn(&mut Tensor<f64, SparseVec>, &Tensor<f64, SparseVec>, &Tensor<f64, SparseVec>) -> KResult;
type KResult = Result<(), KernelError>;

/// Runs `base` and every scheduled kernel on pairs of vectors of every length, into outputs full
/// of garbage, and compares each with the dense reference.
fn check_vector_pair(base: VecPair, kernels: &[(&str, VecPair)], op: fn(f64, f64) -> f64) {
    for n in LENGTHS {
        let (bs, cs) = (vectors(n, 3 + n as u64), vectors(n, 5 + n as u64));
        for (k, b) in bs.iter().enumerate() {
            for c in [&cs[k % cs.len()], &cs[(k * 7 + 3) % cs.len()], &Vec::new()] {
                let (tb, tc) = (tensor([n], b), tensor([n], c));
                let want = zip(&dense([n], b), &dense([n], c), op);
                let mut unscheduled = garbage([n]);
                base(&mut unscheduled, &tb, &tc).unwrap();
                assert_close(unscheduled.values(), &want);
                for (name, kernel) in kernels {
                    let mut got = garbage([n]);
                    kernel(&mut got, &tb, &tc).unwrap();
                    assert_eq!(got.values(), unscheduled.values(), "{name}, n = {n}");
                }
            }
        }
    }
}

/// As [`check_vector_pair`], into sparse outputs that start full (so stale structure shows), run
/// twice into the same output; `nnz` must be that of the reference (no sum cancels here only
/// where the values do).
fn check_sparse_pair(base: SparsePair, kernels: &[(&str, SparsePair)], op: fn(f64, f64) -> f64) {
    for n in LENGTHS {
        let (bs, cs) = (vectors(n, 7 + n as u64), vectors(n, 9 + n as u64));
        for (k, b) in bs.iter().enumerate() {
            for c in [&cs[k % cs.len()], &cs[(k * 5 + 1) % cs.len()], &Vec::new()] {
                let (tb, tc) = (tensor([n], b), tensor([n], c));
                let want = zip(&dense([n], b), &dense([n], c), op);
                let mut unscheduled = Tensor::<f64, SparseVec>::zeros([n]);
                base(&mut unscheduled, &tb, &tc).unwrap();
                assert_close(&unscheduled.to_dense(), &want);
                for (name, kernel) in kernels {
                    let mut got = Tensor::from_dense([n], &vec![-777.25; n]).unwrap();
                    for _ in 0..2 {
                        kernel(&mut got, &tb, &tc).unwrap();
                        assert_eq!(got.to_dense(), unscheduled.to_dense(), "{name}, n = {n}");
                        assert_eq!(got.nnz(), unscheduled.nnz(), "{name}, n = {n}");
                    }
                }
            }
        }
    }
}

#[test]
fn sparse_vector_add_split_into_tiles_agrees_with_the_reference() {
    let kernels: [(&str, VecPair); 5] = [
        ("add_tiles", add_tiles),
        ("add_tiles_7", add_tiles_7),
        ("add_up", add_up),
        ("add_threads", add_threads),
        ("add_threads_7", add_threads_7),
    ];
    check_vector_pair(add, &kernels, |x, y| x + y);
}

#[test]
fn sparse_vector_add_into_a_sparse_output_split_into_tiles() {
    let kernels: [(&str, SparsePair); 2] = [
        ("add_sparse_tiles", add_sparse_tiles),
        ("add_sparse_tiles_7", add_sparse_tiles_7),
    ];
    check_sparse_pair(add_sparse, &kernels, |x, y| x + y);
}

#[test]
fn sparse_vector_multiply_split_into_tiles_agrees_with_the_reference() {
    let kernels: [(&str, VecPair); 2] = [("mul_tiles", mul_tiles), ("mul_threads", mul_threads)];
    check_vector_pair(mul, &kernels, |x, y| x * y);
    let kernels: [(&str, SparsePair); 2] = [
        ("mul_sparse_tiles", mul_sparse_tiles),
        ("mul_sparse_tiles_7", mul_sparse_tiles_7),
    ];
    check_sparse_pair(mul_sparse, &kernels, |x, y| x * y);
}

#[test]
fn a_union_with_a_dense_operand_and_a_bitmap_operand_split_into_tiles() {
    for n in LENGTHS {
        for (k, b) in vectors(n, 31).iter().enumerate() {
            let d: Vec<f64> = (0..n).map(|i| (i % 5) as f64 - 2.0).collect();
            let td = Tensor::from_dense([n], &d).unwrap();
            let tb = tensor::<SparseVec, 1>([n], b);
            let want = zip(&dense([n], b), &d, |x, y| x + y);
            for kernel in [add_dense, add_dense_threads] {
                let mut got = garbage([n]);
                kernel(&mut got, &tb, &td).unwrap();
                assert_close(got.values(), &want);
            }
            let cs = vectors(n, 37);
            let c = &cs[k % cs.len()];
            let (bits, tc) = (tensor::<BitVec, 1>([n], b), tensor::<SparseVec, 1>([n], c));
            let want = zip(&dense([n], b), &dense([n], c), |x, y| x * y);
            for kernel in [mul_bitmap, mul_bitmap_tiles] {
                let mut got = garbage([n]);
                kernel(&mut got, &bits, &tc).unwrap();
                assert_close(got.values(), &want);
            }
        }
    }
}

/// Matrix shapes: empty, one, and row counts 64 and 7 do not divide.
const SHAPES: [[usize; 2]; 6] = [[0, 0], [1, 1], [7, 5], [65, 9], [130, 70], [449, 3]];

fn spmv_reference(m: usize, a: &[([usize; 2], f64)], x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; m];
    for &([i, j], v) in a {
        y[i] += v * x[j];
    }
    y
}

fn dense_vector(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.value()).collect()
}

#[test]
fn spmv_split_on_compressed_rows_and_columns_agrees_with_the_reference() {
    for [m, n] in SHAPES {
        for a in cases_with_huge_row([m, n], 41 + m as u64) {
            let x = dense_vector(n, 43);
            let tx = Tensor::from_dense([n], &x).unwrap();
            let want = spmv_reference(m, &a, &x);
            let dcsr = tensor::<Dcsr, 2>([m, n], &a);
            let mut unscheduled = garbage([m]);
            spmv(&mut unscheduled, &dcsr, &tx).unwrap();
            assert_close(unscheduled.values(), &want);
            for kernel in [spmv_tiles, spmv_threads] {
                let mut got = garbage([m]);
                kernel(&mut got, &dcsr, &tx).unwrap();
                assert_close(got.values(), unscheduled.values());
            }
            let csr = tensor::<Csr, 2>([m, n], &a);
            let mut unscheduled = garbage([m]);
            spmv_csr(&mut unscheduled, &csr, &tx).unwrap();
            for kernel in [spmv_csr_columns, spmv_csr_columns_up] {
                let mut got = garbage([m]);
                kernel(&mut got, &csr, &tx).unwrap();
                assert_close(got.values(), unscheduled.values());
            }
            let coo = tensor::<Coo<2>, 2>([m, n], &a);
            let mut unscheduled = garbage([m]);
            spmv_coo(&mut unscheduled, &coo, &tx).unwrap();
            assert_close(unscheduled.values(), &want);
            for kernel in [spmv_coo_rows, spmv_coo_columns] {
                let mut got = garbage([m]);
                kernel(&mut got, &coo, &tx).unwrap();
                assert_close(got.values(), unscheduled.values());
            }
        }
    }
}

#[test]
fn a_csr_output_from_dcsr_operands_assembled_by_parallel_tiles() {
    for [m, n] in SHAPES {
        let (bs, cs) = (
            cases_with_huge_row([m, n], 51),
            cases_with_huge_row([m, n], 53),
        );
        for (k, b) in bs.iter().enumerate() {
            let c = &cs[(k + 2) % cs.len()];
            let (tb, tc) = (tensor::<Dcsr, 2>([m, n], b), tensor::<Dcsr, 2>([m, n], c));
            let want = zip(&dense([m, n], b), &dense([m, n], c), |x, y| x + y);
            let mut unscheduled = Tensor::<f64, Csr>::zeros([m, n]);
            madd(&mut unscheduled, &tb, &tc).unwrap();
            assert_close(&unscheduled.to_dense(), &want);
            let mut got = Tensor::<f64, Csr>::from_dense([m, n], &vec![-777.25; m * n]).unwrap();
            for _ in 0..2 {
                madd_threads(&mut got, &tb, &tc).unwrap();
                assert_eq!(got.to_dense(), unscheduled.to_dense());
                assert_eq!(got.nnz(), unscheduled.nnz());
            }
        }
    }
}

#[test]
fn sparse_matrix_outputs_appended_by_tiles_in_order() {
    for [m, n] in SHAPES {
        let (bs, cs) = (
            cases_with_huge_row([m, n], 81),
            cases_with_huge_row([m, n], 83),
        );
        for (k, b) in bs.iter().enumerate() {
            let c = &cs[(k + 3) % cs.len()];
            let (db, dc) = (dense([m, n], b), dense([m, n], c));
            let sum = zip(&db, &dc, |x, y| x + y);
            let product = zip(&db, &dc, |x, y| x * y);
            let (b_csr, c_csr) = (tensor::<Csr, 2>([m, n], b), tensor::<Csr, 2>([m, n], c));
            let (b_dcsr, c_dcsr) = (tensor::<Dcsr, 2>([m, n], b), tensor::<Dcsr, 2>([m, n], c));
            let mut want = Tensor::<f64, Csr>::zeros([m, n]);
            madd_csr(&mut want, &b_csr, &c_csr).unwrap();
            assert_close(&want.to_dense(), &sum);
            let mut got = Tensor::<f64, Csr>::from_dense([m, n], &vec![-777.25; m * n]).unwrap();
            for _ in 0..2 {
                madd_csr_columns(&mut got, &b_csr, &c_csr).unwrap();
                assert_eq!(got.to_dense(), want.to_dense());
                assert_eq!(got.nnz(), want.nnz());
            }
            let mut want = Tensor::<f64, Dcsr>::zeros([m, n]);
            madd_dcsr(&mut want, &b_dcsr, &c_dcsr).unwrap();
            assert_close(&want.to_dense(), &sum);
            let mut got = Tensor::<f64, Dcsr>::from_dense([m, n], &vec![-777.25; m * n]).unwrap();
            for _ in 0..2 {
                madd_dcsr_rows(&mut got, &b_dcsr, &c_dcsr).unwrap();
                assert_eq!(got.to_dense(), want.to_dense());
                assert_eq!(got.nnz(), want.nnz());
                madd_dcsr_columns(&mut got, &b_dcsr, &c_dcsr).unwrap();
                assert_eq!(got.to_dense(), want.to_dense());
                assert_eq!(got.nnz(), want.nnz());
                mmul_dcsr_rows(&mut got, &b_dcsr, &c_csr).unwrap();
                assert_close(&got.to_dense(), &product);
            }
            let mut dense_sum = garbage([m, n]);
            madd_dense_columns(&mut dense_sum, &b_dcsr, &c_dcsr).unwrap();
            assert_close(dense_sum.values(), &sum);
        }
    }
}

type Mttkrp = fn(
    &mut Tensor<f64, Dense<2>>,
    &Tensor<f64, Csf<3>>,
    &Tensor<f64, Dense<2>>,
    &Tensor<f64, Dense<2>>,
) -> KResult;

fn mttkrp_reference(
    [p, q, r]: [usize; 3],
    rank: usize,
    b: &[([usize; 3], f64)],
    c: &[f64],
    d: &[f64],
) -> Vec<f64> {
    let mut a = vec![0.0; p * rank];
    for &([i, k, l], v) in b {
        for j in 0..rank {
            a[i * rank + j] += v * c[k * rank + j] * d[l * rank + j];
        }
    }
    let _ = (q, r);
    a
}

#[test]
fn mttkrp_over_csf_split_on_i_agrees_with_the_reference() {
    let shapes: [[usize; 3]; 5] = [[0, 0, 0], [1, 1, 1], [7, 5, 6], [65, 4, 3], [130, 3, 5]];
    let rank = 3;
    for [p, q, r] in shapes {
        let mut inputs = cases([p, q, r], 61 + p as u64);
        if p * q * r > 0 {
            // One huge slice: every (k, l) of one `i`.
            let slice = (0..q * r).map(|kl| ([p / 2, kl / r, kl % r], 1.0 + (kl % 3) as f64));
            inputs.push(slice.collect());
        }
        let (c, d) = (dense_vector(q * rank, 62), dense_vector(r * rank, 63));
        let tc = Tensor::from_dense([q, rank], &c).unwrap();
        let td = Tensor::from_dense([r, rank], &d).unwrap();
        for b in &inputs {
            let tb = tensor::<Csf<3>, 3>([p, q, r], b);
            let want = mttkrp_reference([p, q, r], rank, b, &c, &d);
            let mut unscheduled = garbage([p, rank]);
            mttkrp(&mut unscheduled, &tb, &tc, &td).unwrap();
            assert_close(unscheduled.values(), &want);
            for kernel in [mttkrp_tiles as Mttkrp, mttkrp_threads] {
                let mut got = garbage([p, rank]);
                kernel(&mut got, &tb, &tc, &td).unwrap();
                assert_close(got.values(), &want);
            }
        }
    }
}

/// Inputs above the work threshold, so the parallel tiles run on rayon's pool (below it, the
/// kernels run the unsplit loop, which the other tests check): two vectors of 400,000
/// coordinates with about 40,000 entries each, clustered so that most tiles are empty or hold
/// one operand only; a DCSR matrix, a CSF tensor, and two DCSR matrices into a CSR output, with
/// as many values.
#[test]
fn tiles_on_threads_above_the_work_threshold() {
    let n = 400_000;
    let mut rng = Rng::new(71);
    let mut b: Entries<1> = Vec::new();
    let mut c: Entries<1> = Vec::new();
    while b.len() < PARALLEL_MIN_WORK + 7000 {
        let at = rng.below(n - 300);
        for i in at..at + rng.below(300) {
            b.push(([i], rng.value()));
        }
        let at = rng.below(n);
        c.push(([at], rng.value()));
    }
    let (tb, tc) = (
        tensor::<SparseVec, 1>([n], &b),
        tensor::<SparseVec, 1>([n], &c),
    );
    let (db, dc) = (dense([n], &b), dense([n], &c));
    for (kernel, op) in [
        (
            add_threads as VecPair,
            (|x, y| x + y) as fn(f64, f64) -> f64,
        ),
        (add_threads_7, |x, y| x + y),
        (mul_threads, |x, y| x * y),
    ] {
        let mut got = garbage([n]);
        kernel(&mut got, &tb, &tc).unwrap();
        assert_close(got.values(), &zip(&db, &dc, op));
    }
    let m = 20_000;
    let a: Entries<2> = (0..PARALLEL_MIN_WORK + 5000)
        .map(|_| ([rng.below(m / 2) * 2, rng.below(m)], rng.value()))
        .collect();
    let x = dense_vector(m, 72);
    let mut got = garbage([m]);
    spmv_threads(
        &mut got,
        &tensor([m, m], &a),
        &Tensor::from_dense([m], &x).unwrap(),
    )
    .unwrap();
    assert_close(got.values(), &spmv_reference(m, &a, &x));
    let (p, q, r, rank) = (3000, 40, 40, 3);
    let bt: Entries<3> = (0..PARALLEL_MIN_WORK + 5000)
        .map(|_| ([rng.below(p), rng.below(q), rng.below(r)], rng.value()))
        .collect();
    let (cm, dm) = (dense_vector(q * rank, 73), dense_vector(r * rank, 74));
    let mut got = garbage([p, rank]);
    let (tcm, tdm) = (
        Tensor::from_dense([q, rank], &cm).unwrap(),
        Tensor::from_dense([r, rank], &dm).unwrap(),
    );
    mttkrp_threads(&mut got, &tensor([p, q, r], &bt), &tcm, &tdm).unwrap();
    assert_close(
        got.values(),
        &mttkrp_reference([p, q, r], rank, &bt, &cm, &dm),
    );
    // A CSR output assembled by the tiles of rows in parallel (count, scan, fill), and a union
    // with a dense operand.
    let (rows, cols) = (5000, 300);
    let entries = |rng: &mut Rng| -> Entries<2> {
        (0..PARALLEL_MIN_WORK / 2 + 3000)
            .map(|_| ([rng.below(rows / 3) * 3, rng.below(cols)], rng.value()))
            .collect()
    };
    let (eb, ec) = (entries(&mut rng), entries(&mut rng));
    let (tb, tc) = (
        tensor::<Dcsr, 2>([rows, cols], &eb),
        tensor([rows, cols], &ec),
    );
    let mut got = Tensor::<f64, Csr>::zeros([rows, cols]);
    madd_threads(&mut got, &tb, &tc).unwrap();
    let want = zip(
        &dense([rows, cols], &eb),
        &dense([rows, cols], &ec),
        |x, y| x + y,
    );
    assert_close(&got.to_dense(), &want);
    let d: Vec<f64> = (0..n).map(|i| (i % 5) as f64).collect();
    let mut got = garbage([n]);
    add_dense_threads(
        &mut got,
        &tensor([n], &b),
        &Tensor::from_dense([n], &d).unwrap(),
    )
    .unwrap();
    assert_close(got.values(), &zip(&db, &d, |x, y| x + y));
}
