//! Sparse outputs assembled by parallel loops: DCSR, COO and CSF outputs appended by row tiles
//! on threads (each piece of tiles into its own part, the parts joined in order), hashed outputs
//! and outputs with a sum outside them (per-task lists of triples), and the evaluation's TTV
//! schedule into a CSR output that takes the structure of the CSF input's first two levels. Each
//! schedule is checked against the unscheduled kernel and a hand-written dense reference, twice
//! into an output that starts full (so stale structure shows), on empty tensors, empty rows at
//! the start, the end and in runs, duplicates, one huge row, and sizes 7 and 64 do not divide;
//! small inputs run the parallel code in one piece on the calling thread, the large ones at the
//! end on rayon's pool.
mod common;

use common::*;
use sparse::__private::PARALLEL_MIN_WORK;
use sparse::prelude::*;

// DCSR, COO and CSF outputs of a union, appended by parallel coordinate tiles of rows.
tensor_kernel! { fn add_dcsr; A(i,j) = B(i,j) + C(i,j); formats<A: dcsr, B: dcsr, C: dcsr>; }
tensor_kernel! {
    fn add_dcsr_tiles; A(i,j) = B(i,j) + C(i,j); formats<A: dcsr, B: dcsr, C: dcsr>;
    schedule<split(i, i0, i1, Down, 7).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! {
    fn add_dcsr_tiles_64; A(i,j) = B(i,j) + C(i,j); formats<A: dcsr, B: dcsr, C: dcsr>;
    schedule<split(i, i0, i1, Down, 64).parallelize(i0, CpuThread, NoRaces)>;
}
tensor_kernel! { fn add_coo; A(i,j) = B(i,j) + C(i,j); formats<A: coo, B: dcsr, C: dcsr>; }
tensor_kernel! {
    fn add_coo_tiles; A(i,j) = B(i,j) + C(i,j); formats<A: coo, B: dcsr, C: dcsr>;
    schedule<split(i, i0, i1, Down, 7).parallelize(i0, CpuThread, NoRaces)>;
}
// Dense rows of CSR inputs, one row per iteration, into DCSR and COO outputs.
tensor_kernel! {
    fn mul_dcsr_rows; A(i,j) = B(i,j) * C(i,j); formats<A: dcsr, B: csr, C: csr>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! { fn mul_dcsr; A(i,j) = B(i,j) * C(i,j); formats<A: dcsr, B: csr, C: csr>; }
tensor_kernel! {
    fn mul_coo_rows; A(i,j) = B(i,j) * C(i,j); formats<A: coo, B: csr, C: csr>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}
// A hashed output: its entries are triples, one list per task.
tensor_kernel! { fn add_hash; A(i,j) = B(i,j) + C(i,j); formats<A: hash, B: csr, C: csr>; }
tensor_kernel! {
    fn add_hash_rows; A(i,j) = B(i,j) + C(i,j); formats<A: hash, B: csr, C: csr>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}
// Sums outside the output's loops: triples pushed by parallel iterations of the sum.
tensor_kernel! { fn ata; G(i,j) = A(k,i) * A(k,j); formats<A: csr, G: csr>; }
tensor_kernel! {
    fn ata_threads; G(i,j) = A(k,i) * A(k,j); formats<A: csr, G: csr>;
    schedule<parallelize(k, CpuThread, Atomics)>;
}
tensor_kernel! {
    fn ata_dcsr_threads; G(i,j) = A(k,i) * A(k,j); formats<A: csr, G: dcsr>;
    schedule<parallelize(k, CpuThread, Atomics)>;
}
// `+=` into a DCSR output (the stored entries merged with the new triples), and a CSC result of
// row-major loops (its entries collected), on threads.
tensor_kernel! { fn add_into; C(i,j) += A(i,j) + B(i,j); formats<A: csr, B: csr, C: dcsr>; }
tensor_kernel! {
    fn add_into_rows; C(i,j) += A(i,j) + B(i,j); formats<A: csr, B: csr, C: dcsr>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}
tensor_kernel! { fn to_csc; A(i,j) = B(i,j) + C(i,j); formats<A: csc, B: csr, C: csr>; }
tensor_kernel! {
    fn to_csc_rows; A(i,j) = B(i,j) + C(i,j); formats<A: csc, B: csr, C: csr>;
    schedule<parallelize(i, CpuThread, NoRaces)>;
}
// A CSF output of three levels, appended by parallel tiles.
tensor_kernel! { fn add3; A(i,j,k) = B(i,j,k) + C(i,j,k); formats<A: csf, B: csf, C: csf>; }
tensor_kernel! {
    fn add3_tiles; A(i,j,k) = B(i,j,k) + C(i,j,k); formats<A: csf, B: csf, C: csf>;
    schedule<split(i, i0, i1, Down, 7).parallelize(i0, CpuThread, NoRaces)>;
}
// TTV with B in CSF into a CSR output: unscheduled, and the evaluation's parallel schedule.
tensor_kernel! { fn ttv; A(i,j) = B(i,j,k) * c(k); formats<A: csr, B: csf>; }
tensor_kernel! {
    fn ttv_threads; A(i,j) = B(i,j,k) * c(k); formats<A: csr, B: csf>;
    schedule<collapse(i,j,f).pos(f,fpos,B).split(fpos,chunk,fpos2,Down,32)
        .reorder(chunk,fpos2,k).parallelize(chunk,CpuThread,NoRaces)>;
}
tensor_kernel! {
    fn ttv_threads_7; A(i,j) = B(i,j,k) * c(k); formats<A: csr, B: csf>;
    schedule<collapse(i,j,f).pos(f,fpos,B).split(fpos,chunk,fpos2,Down,7)
        .reorder(chunk,fpos2,k).parallelize(chunk,CpuThread,NoRaces)>;
}

type Entries<const N: usize> = Vec<([usize; N], f64)>;
type Pair<F, G> = fn(&mut Tensor<f64, F>, &Tensor<f64, G>, &Tensor<f64, G>) -> KResult;
type KResult = Result<(), KernelError>;

/// Matrix shapes: empty, one, and row counts 64 and 7 do not divide.
const SHAPES: [[usize; 2]; 6] = [[0, 0], [1, 1], [7, 5], [65, 9], [130, 70], [449, 3]];

fn zip(b: &[f64], c: &[f64], op: fn(f64, f64) -> f64) -> Vec<f64> {
    b.iter().zip(c).map(|(x, y)| op(*x, *y)).collect()
}

fn nonzeros(d: &[f64]) -> usize {
    d.iter().filter(|&&x| x != 0.0).count()
}

/// An output that starts with every coordinate stored, so a kernel that leaves stale structure
/// behind fails.
fn full<F: Format>(shape: [usize; 2]) -> Tensor<f64, F> {
    Tensor::from_dense(shape, &vec![-777.25; shape[0] * shape[1]]).unwrap()
}

/// Runs `base` and each scheduled kernel on pairs of inputs of every shape, each scheduled one
/// twice into the same output, and compares them with the dense reference and with `base`:
/// the same values, the same structure, and as many stored entries as the reference has
/// nonzeros where no stored values cancel (`exact`).
fn check_pair<F: Format, G: Format>(
    base: Pair<F, G>,
    kernels: &[(&str, Pair<F, G>)],
    op: fn(f64, f64) -> f64,
    exact: bool,
) {
    for [m, n] in SHAPES {
        let (bs, cs) = (
            cases_with_huge_row([m, n], 11 + m as u64),
            cases_with_huge_row([m, n], 13 + n as u64),
        );
        for (k, b) in bs.iter().enumerate() {
            for c in [&cs[(k + 2) % cs.len()], &Vec::new()] {
                let (tb, tc) = (tensor::<G, 2>([m, n], b), tensor::<G, 2>([m, n], c));
                let want = zip(&dense([m, n], b), &dense([m, n], c), op);
                let mut unscheduled = full::<F>([m, n]);
                base(&mut unscheduled, &tb, &tc).unwrap();
                assert_close(&unscheduled.to_dense(), &want);
                if exact {
                    assert_eq!(unscheduled.nnz(), nonzeros(&want), "{m}x{n}");
                }
                for (name, kernel) in kernels {
                    let mut got = full::<F>([m, n]);
                    for run in 0..2 {
                        kernel(&mut got, &tb, &tc).unwrap();
                        let what = format!("{name}, {m}x{n}, case {k}, run {run}");
                        assert_eq!(got.to_dense(), unscheduled.to_dense(), "{what}");
                        assert_eq!(got.nnz(), unscheduled.nnz(), "{what}");
                        assert_eq!(got.entries(), unscheduled.entries(), "{what}");
                    }
                }
            }
        }
    }
}

#[test]
fn dcsr_outputs_appended_by_parallel_row_tiles() {
    let kernels: [(&str, Pair<Dcsr, Dcsr>); 2] = [
        ("add_dcsr_tiles", add_dcsr_tiles),
        ("add_dcsr_tiles_64", add_dcsr_tiles_64),
    ];
    // A sum of the inputs' values can cancel: `nnz` is then checked against the serial kernel.
    check_pair(add_dcsr, &kernels, |x, y| x + y, false);
    let kernels: [(&str, Pair<Dcsr, Csr>); 1] = [("mul_dcsr_rows", mul_dcsr_rows)];
    check_pair(mul_dcsr, &kernels, |x, y| x * y, true);
}

#[test]
fn coo_outputs_appended_by_parallel_rows() {
    let kernels: [(&str, Pair<Coo<2>, Dcsr>); 1] = [("add_coo_tiles", add_coo_tiles)];
    check_pair(add_coo, &kernels, |x, y| x + y, false);
    let kernels: [(&str, Pair<Coo<2>, Csr>); 1] = [("mul_coo_rows", mul_coo_rows)];
    let base: Pair<Coo<2>, Csr> = |a, b, c| {
        let mut d = Tensor::<f64, Dcsr>::zeros(b.shape());
        mul_dcsr(&mut d, b, c)?;
        *a = Tensor::from_entry_list(&d.entries(), ExplicitZeros::Keep)?;
        Ok(())
    };
    check_pair(base, &kernels, |x, y| x * y, true);
}

#[test]
fn hashed_outputs_from_per_task_lists_of_triples() {
    let kernels: [(&str, Pair<HashMat, Csr>); 1] = [("add_hash_rows", add_hash_rows)];
    check_pair(add_hash, &kernels, |x, y| x + y, false);
}

#[test]
fn accumulating_and_collected_outputs_on_threads() {
    let kernels: [(&str, Pair<Csc, Csr>); 1] = [("to_csc_rows", to_csc_rows)];
    check_pair(to_csc, &kernels, |x, y| x + y, false);
    for [m, n] in SHAPES {
        let (bs, cs) = (
            cases_with_huge_row([m, n], 41),
            cases_with_huge_row([m, n], 43),
        );
        for (k, b) in bs.iter().enumerate() {
            let c = &cs[(k + 1) % cs.len()];
            let (tb, tc) = (tensor::<Csr, 2>([m, n], b), tensor::<Csr, 2>([m, n], c));
            let stored = &bs[(k + 3) % bs.len()];
            let start = tensor::<Dcsr, 2>([m, n], stored);
            let once = zip(&dense([m, n], b), &dense([m, n], c), |x, y| x + y);
            let mut want = dense([m, n], stored);
            let (mut serial, mut got) = (start.clone(), start.clone());
            for run in 0..2 {
                want = zip(&want, &once, |x, y| x + y);
                add_into(&mut serial, &tb, &tc).unwrap();
                add_into_rows(&mut got, &tb, &tc).unwrap();
                assert_close(&serial.to_dense(), &want);
                assert_eq!(
                    got.entries(),
                    serial.entries(),
                    "{m}x{n}, case {k}, run {run}"
                );
            }
        }
    }
}

/// AᵀA with the rows of A outermost and parallel: each task pushes its triples into its own
/// list, summed when the output is packed.
#[test]
fn sums_outside_the_output_pushed_by_parallel_tasks() {
    for [m, n] in SHAPES {
        for a in cases_with_huge_row([m, n], 21 + m as u64) {
            let ta = tensor::<Csr, 2>([m, n], &a);
            let d = dense([m, n], &a);
            let mut want = vec![0.0; n * n];
            for k in 0..m {
                for i in 0..n {
                    for j in 0..n {
                        want[i * n + j] += d[k * n + i] * d[k * n + j];
                    }
                }
            }
            let mut serial = full::<Csr>([n, n]);
            ata(&mut serial, &ta).unwrap();
            assert_close(&serial.to_dense(), &want);
            let mut got = full::<Csr>([n, n]);
            let mut got_dcsr = full::<Dcsr>([n, n]);
            for _ in 0..2 {
                ata_threads(&mut got, &ta).unwrap();
                assert_eq!(got.to_dense(), serial.to_dense());
                assert_eq!(got.nnz(), serial.nnz());
                ata_dcsr_threads(&mut got_dcsr, &ta).unwrap();
                assert_eq!(got_dcsr.to_dense(), serial.to_dense());
                assert_eq!(got_dcsr.nnz(), serial.nnz());
            }
        }
    }
}

#[test]
fn a_csf_output_appended_by_parallel_tiles() {
    let shapes: [[usize; 3]; 4] = [[0, 0, 0], [1, 1, 1], [9, 4, 3], [65, 3, 5]];
    for [p, q, r] in shapes {
        let (bs, cs) = (cases([p, q, r], 31), cases([p, q, r], 33));
        for (k, b) in bs.iter().enumerate() {
            let c = &cs[(k + 1) % cs.len()];
            let (tb, tc) = (tensor::<Csf<3>, 3>([p, q, r], b), tensor([p, q, r], c));
            let want = zip(&dense([p, q, r], b), &dense([p, q, r], c), |x, y| x + y);
            let mut serial = Tensor::<f64, Csf<3>>::zeros([p, q, r]);
            add3(&mut serial, &tb, &tc).unwrap();
            assert_close(&serial.to_dense(), &want);
            let start = vec![-777.25; p * q * r];
            let mut got = Tensor::<f64, Csf<3>>::from_dense([p, q, r], &start).unwrap();
            for _ in 0..2 {
                add3_tiles(&mut got, &tb, &tc).unwrap();
                assert_eq!(got.to_dense(), serial.to_dense());
                assert_eq!(got.nnz(), serial.nnz());
            }
        }
    }
}

/// A(i,j) = Σk B(i,j,k) c(k), densely.
fn ttv_reference([p, q, r]: [usize; 3], b: &[([usize; 3], f64)], c: &[f64]) -> Vec<f64> {
    let mut a = vec![0.0; p * q];
    for &([i, j, k], v) in b {
        a[i * q + j] += v * c[k];
    }
    let _ = r;
    a
}

/// The distinct (i, j) of B's stored entries: the CSR output's structure.
fn pattern_size(b: &[([usize; 3], f64)]) -> usize {
    let mut ij: Vec<[usize; 2]> = b.iter().map(|&([i, j, _], _)| [i, j]).collect();
    ij.sort_unstable();
    ij.dedup();
    ij.len()
}

type Ttv = fn(&mut Tensor<f64, Csr>, &Tensor<f64, Csf<3>>, &Tensor<f64, DenseVec>) -> KResult;

/// TTV's entries sum positive values, so none cancels and the output stores exactly the dense
/// result's nonzeros, which are B's (i, j).
fn check_ttv(shape: [usize; 3], b: &[([usize; 3], f64)], seed: u64) {
    let [p, q, r] = shape;
    let positive: Entries<3> = b.iter().map(|&(at, v)| (at, v.abs() + 0.5)).collect();
    let mut rng = Rng::new(seed);
    let c: Vec<f64> = (0..r).map(|_| rng.value().abs() + 0.25).collect();
    let (tb, tc) = (
        tensor::<Csf<3>, 3>(shape, &positive),
        Tensor::from_dense([r], &c).unwrap(),
    );
    let want = ttv_reference(shape, &positive, &c);
    let mut serial = full::<Csr>([p, q]);
    ttv(&mut serial, &tb, &tc).unwrap();
    assert_close(&serial.to_dense(), &want);
    assert_eq!(serial.nnz(), nonzeros(&want));
    assert_eq!(serial.nnz(), pattern_size(&positive));
    for kernel in [ttv_threads as Ttv, ttv_threads_7] {
        let mut got = full::<Csr>([p, q]);
        for _ in 0..2 {
            kernel(&mut got, &tb, &tc).unwrap();
            assert_close(&got.to_dense(), &want);
            assert_eq!(got.nnz(), serial.nnz());
            assert_eq!(got.level(1).pos(), serial.level(1).pos());
            assert_eq!(got.level(1).crd(), serial.level(1).crd());
        }
    }
}

#[test]
fn ttv_over_csf_into_csr_with_the_evaluation_schedule() {
    let shapes: [[usize; 3]; 6] = [
        [0, 0, 0],
        [1, 1, 1],
        [7, 5, 6],
        [65, 4, 3],
        [130, 3, 5],
        [3, 70, 2],
    ];
    for shape in shapes {
        let [p, q, r] = shape;
        let mut inputs = cases(shape, 61 + p as u64);
        if p * q * r > 0 {
            // One huge slice: every (j, k) of one `i`.
            let slice = (0..q * r).map(|jk| ([p / 2, jk / r, jk % r], 1.0 + (jk % 3) as f64));
            inputs.push(slice.collect());
        }
        for (k, b) in inputs.iter().enumerate() {
            check_ttv(shape, b, 70 + k as u64);
        }
    }
}

/// Inputs above the work threshold, so the parts are filled on rayon's pool: DCSR and COO
/// outputs of row tiles, a hashed output, `+=` into DCSR, AᵀA, and TTV with the evaluation's
/// schedule.
#[test]
fn parallel_assembly_on_threads_above_the_work_threshold() {
    let mut rng = Rng::new(91);
    let (rows, cols) = (6000, 400);
    let entries = |rng: &mut Rng| -> Entries<2> {
        let mut e: Entries<2> = (0..PARALLEL_MIN_WORK / 2 + 3000)
            .map(|_| ([rng.below(rows / 3) * 3 + 1, rng.below(cols)], rng.value()))
            .collect();
        // One huge row.
        e.extend((0..cols).map(|j| ([rows / 2, j], 1.0)));
        e
    };
    let (eb, ec) = (entries(&mut rng), entries(&mut rng));
    let want = zip(
        &dense([rows, cols], &eb),
        &dense([rows, cols], &ec),
        |x, y| x + y,
    );
    let (b, c) = (
        tensor::<Dcsr, 2>([rows, cols], &eb),
        tensor([rows, cols], &ec),
    );
    let mut serial = Tensor::<f64, Dcsr>::zeros([rows, cols]);
    add_dcsr(&mut serial, &b, &c).unwrap();
    assert_close(&serial.to_dense(), &want);
    for kernel in [add_dcsr_tiles as Pair<Dcsr, Dcsr>, add_dcsr_tiles_64] {
        let mut got = Tensor::zeros([rows, cols]);
        for _ in 0..2 {
            kernel(&mut got, &b, &c).unwrap();
            assert_eq!(got.entries(), serial.entries());
        }
    }
    let mut got = Tensor::<f64, Coo<2>>::zeros([rows, cols]);
    add_coo_tiles(&mut got, &b, &c).unwrap();
    assert_eq!(got.entries(), serial.entries());
    let (b, c) = (
        tensor::<Csr, 2>([rows, cols], &eb),
        tensor([rows, cols], &ec),
    );
    let mut got = Tensor::<f64, HashMat>::zeros([rows, cols]);
    add_hash_rows(&mut got, &b, &c).unwrap();
    assert_close(&got.to_dense(), &want);
    let start = tensor::<Dcsr, 2>([rows, cols], &eb);
    let (mut serial, mut got) = (start.clone(), start);
    add_into(&mut serial, &b, &c).unwrap();
    add_into_rows(&mut got, &b, &c).unwrap();
    assert_eq!(got.entries(), serial.entries());
    let mut serial = Tensor::<f64, Dcsr>::zeros([rows, cols]);
    mul_dcsr(&mut serial, &b, &c).unwrap();
    let mut got = Tensor::<f64, Dcsr>::zeros([rows, cols]);
    mul_dcsr_rows(&mut got, &b, &c).unwrap();
    assert_eq!(got.entries(), serial.entries());
    let (m, n) = (PARALLEL_MIN_WORK / 4, 300);
    let ea: Entries<2> = (0..PARALLEL_MIN_WORK + 5000)
        .map(|_| ([rng.below(m), rng.below(n)], rng.value()))
        .collect();
    let a = tensor::<Csr, 2>([m, n], &ea);
    let mut serial = Tensor::<f64, Csr>::zeros([n, n]);
    ata(&mut serial, &a).unwrap();
    let mut got = Tensor::<f64, Csr>::zeros([n, n]);
    ata_threads(&mut got, &a).unwrap();
    assert_close(&got.to_dense(), &serial.to_dense());
    assert_eq!(got.nnz(), serial.nnz());
    let shape = [3000, 40, 40];
    let bt: Entries<3> = (0..PARALLEL_MIN_WORK + 5000)
        .map(|_| {
            (
                [rng.below(3000) / 2 * 2, rng.below(40), rng.below(40)],
                rng.value(),
            )
        })
        .collect();
    check_ttv(shape, &bt, 93);
}
