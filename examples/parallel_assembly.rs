//! Sparse outputs assembled on rayon's threads against the same statements run serially: a DCSR
//! sum and its COO twin appended by coordinate tiles of rows (each piece of tiles into its own
//! part, the parts joined in order), and TTV over a CSF tensor into a CSR output with the
//! evaluation's schedule of Senanayake et al. (the collapsed `(i, j)` positions of B cut into
//! chunks of 32 on threads) against the default loops. The sides alternate, and each prints its
//! best and worst of the runs; every parallel result is checked against the serial one (the same
//! structure, the same values).
//!
//! ```sh
//! cargo run --release --example parallel_assembly                 # 2,000,000 rows, 4 entries a row
//! cargo run --release --example parallel_assembly -- 100000 4 3   # rows, entries a row, runs
//! ```

mod common;

use std::error::Error;
use std::time::{Duration, Instant};

use common::{Rng, arg, ms};
use sparse::prelude::*;

tensor_kernel! {
    /// A = B + C, all DCSR, serially.
    pub fn add_dcsr;
    A(i,j) = B(i,j) + C(i,j);
    formats< A: dcsr, B: dcsr, C: dcsr >;
}

tensor_kernel! {
    /// The same, tiles of 256 rows on threads, each piece of tiles appending into its own part.
    pub fn add_dcsr_threads;
    A(i,j) = B(i,j) + C(i,j);
    formats< A: dcsr, B: dcsr, C: dcsr >;
    schedule< split(i, i0, i1, Down, 256).parallelize(i0, CpuThread, NoRaces) >;
}

tensor_kernel! {
    /// A = B + C into COO, serially.
    pub fn add_coo;
    A(i,j) = B(i,j) + C(i,j);
    formats< A: coo, B: dcsr, C: dcsr >;
}

tensor_kernel! {
    /// The same on threads.
    pub fn add_coo_threads;
    A(i,j) = B(i,j) + C(i,j);
    formats< A: coo, B: dcsr, C: dcsr >;
    schedule< split(i, i0, i1, Down, 256).parallelize(i0, CpuThread, NoRaces) >;
}

tensor_kernel! {
    /// A(i,j) = Σk B(i,j,k) c(k), the default loops: i, j, k over B's levels.
    pub fn ttv;
    A(i,j) = B(i,j,k) * c(k);
    formats< A: csr, B: csf >;
}

tensor_kernel! {
    /// The evaluation's parallel TTV: chunks of 32 of B's (i, j) positions on threads.
    pub fn ttv_threads;
    A(i,j) = B(i,j,k) * c(k);
    formats< A: csr, B: csf >;
    schedule< collapse(i,j,f).pos(f,fpos,B).split(fpos,chunk,fpos2,Down,32)
              .reorder(chunk,fpos2,k).parallelize(chunk,CpuThread,NoRaces) >;
}

fn main() -> Result<(), Box<dyn Error>> {
    let rows = arg(1, 2_000_000)?;
    let per_row = arg(2, 4)?;
    let runs = arg(3, 5)?;
    let cols = rows.max(1);
    let mut rng = Rng::new(7);
    let matrix = |rng: &mut Rng| -> Result<Tensor<f64, Dcsr>, FormatError> {
        // Every third row empty, the others `per_row` entries on average.
        let entries = (0..rows * per_row).map(|_| {
            let i = rng.below(rows.div_ceil(3)) * 3;
            ([i.min(rows - 1), rng.below(cols)], rng.unit() + 0.5)
        });
        Tensor::from_entries([rows, cols], entries.collect::<Vec<_>>())
    };
    let (b, c) = (matrix(&mut rng)?, matrix(&mut rng)?);
    let (p, q, r) = (rows / 10, 100, 100);
    let nnz3 = rows * per_row;
    let b3 = Tensor::<f64, Csf<3>>::from_entries(
        [p, q, r],
        (0..nnz3)
            .map(|_| ([rng.below(p), rng.below(q), rng.below(r)], rng.unit()))
            .collect::<Vec<_>>(),
    )?;
    let c3 = Tensor::from_dense([r], &(0..r).map(|_| rng.unit()).collect::<Vec<_>>())?;
    println!(
        "B, C: {rows} x {cols} DCSR, {} and {} entries; TTV: B {p} x {q} x {r} CSF, {} entries; {} threads",
        b.nnz(),
        c.nnz(),
        b3.nnz(),
        rayon::current_num_threads(),
    );
    let mut serial = Tensor::<f64, Dcsr>::zeros([rows, cols]);
    let mut parallel = Tensor::<f64, Dcsr>::zeros([rows, cols]);
    let mut coo_serial = Tensor::<f64, Coo<2>>::zeros([rows, cols]);
    let mut coo_parallel = Tensor::<f64, Coo<2>>::zeros([rows, cols]);
    let mut ttv_serial = Tensor::<f64, Csr>::zeros([p, q]);
    let mut ttv_parallel = Tensor::<f64, Csr>::zeros([p, q]);
    let names = [
        "DCSR add serial",
        "DCSR add threads",
        "COO add serial",
        "COO add threads",
    ];
    let names = names
        .into_iter()
        .chain(["TTV default", "TTV evaluation schedule"]);
    let mut times: Vec<(&str, Vec<Duration>)> = names.map(|n| (n, Vec::new())).collect();
    for _ in 0..runs {
        times[0].1.push(timed(|| add_dcsr(&mut serial, &b, &c))?);
        times[1]
            .1
            .push(timed(|| add_dcsr_threads(&mut parallel, &b, &c))?);
        same(&parallel, &serial, "DCSR")?;
        times[2].1.push(timed(|| add_coo(&mut coo_serial, &b, &c))?);
        times[3]
            .1
            .push(timed(|| add_coo_threads(&mut coo_parallel, &b, &c))?);
        same(&coo_parallel, &coo_serial, "COO")?;
        times[4].1.push(timed(|| ttv(&mut ttv_serial, &b3, &c3))?);
        times[5]
            .1
            .push(timed(|| ttv_threads(&mut ttv_parallel, &b3, &c3))?);
        same(&ttv_parallel, &ttv_serial, "TTV")?;
    }
    println!("\n{:<26} {:>10} {:>10}", "kernel", "best ms", "worst ms");
    for (name, t) in &times {
        let best = t.iter().min().copied().unwrap_or_default();
        let worst = t.iter().max().copied().unwrap_or_default();
        println!("{name:<26} {:>10.1} {:>10.1}", ms(best), ms(worst));
    }
    println!(
        "\nA nonzeros: add {}, TTV {}",
        serial.nnz(),
        ttv_serial.nnz()
    );
    Ok(())
}

fn timed(f: impl FnOnce() -> Result<(), KernelError>) -> Result<Duration, KernelError> {
    let start = Instant::now();
    f()?;
    Ok(start.elapsed())
}

/// The parallel result has the serial one's entries, in the same order, with the same values up
/// to rounding: the serial TTV sums a fiber of four entries or more as a dot product in SIMD
/// lanes, the parallel one in order, so a sum can differ in its last bits.
fn same<F: Format>(got: &Tensor<f64, F>, want: &Tensor<f64, F>, what: &str) -> Result<(), String> {
    let (got, want) = (got.entries(), want.entries());
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0);
    let agree = got.shape() == want.shape()
        && got.len() == want.len()
        && (got.iter().zip(want.iter())).all(|((gc, gv), (wc, wv))| gc == wc && close(gv, wv));
    match agree {
        true => Ok(()),
        false => Err(format!(
            "{what}: the parallel result differs from the serial one"
        )),
    }
}
