//! Two products with one matrix, `y = A x` and `z = A w`, as one `multi(..)` kernel, against the
//! two kernels called one after the other and a hand-written loop that computes both in one pass
//! over `A`. A `multi` runs each output's loops on their own, so it reads `A` twice, as the two
//! kernels do; the fused loop shows what one pass would save.
//!
//! ```sh
//! cargo run --release --example multi_spmv -- 1000000 9   # rows, rounds
//! ```
//!
//! Each round times every variant once, in turn (each round starting with the next one), so that
//! the load of a shared machine and the state of the caches fall on all of them alike; the table gives the fastest, median and slowest round. Every result is
//! checked against the fused loop.

mod common;

use std::error::Error;
use std::time::Instant;

use common::{Rng, arg, relative_error};
use sparse::prelude::*;
use sparse::{Idx, Level};

/// A dense vector.
type Vector = Tensor<f64, DenseVec>;

tensor_kernel! {
    /// Both products, each with its row sum in a scalar temporary.
    fn pair;
    forall(i, multi(
        where(y(i) = t, forall(j, t += A(i,j) * x(j))),
        where(z(i) = u, forall(j, u += A(i,j) * w(j)))
    ));
    formats< A: csr >;
    temporaries< t, u >;
}

tensor_kernel! {
    /// One product.
    fn spmv; y(i) = A(i,j) * x(j); formats< A: csr >;
}

/// A CSR matrix's arrays: `degree` random columns a row, random values.
struct Arrays {
    pos: Vec<Idx>,
    crd: Vec<Idx>,
    vals: Vec<f64>,
}

fn arrays(n: usize, degree: usize, rng: &mut Rng) -> Arrays {
    let mut pos: Vec<Idx> = vec![0];
    let mut crd: Vec<Idx> = Vec::new();
    for _ in 0..n {
        let mut row: Vec<usize> = (0..degree).map(|_| rng.below(n)).collect();
        row.sort_unstable();
        row.dedup();
        crd.extend(row.into_iter().map(|j| j as Idx));
        pos.push(crd.len() as Idx);
    }
    let vals = (0..crd.len()).map(|_| rng.unit() - 0.5).collect();
    Arrays { pos, crd, vals }
}

/// Both products in one pass over the matrix.
fn fused(a: &Arrays, x: &[f64], w: &[f64], y: &mut [f64], z: &mut [f64]) {
    for (i, (yi, zi)) in y.iter_mut().zip(z.iter_mut()).enumerate() {
        let (start, end) = (a.pos[i] as usize, a.pos[i + 1] as usize);
        let (mut s, mut t) = (0.0, 0.0);
        for (&j, &v) in a.crd[start..end].iter().zip(&a.vals[start..end]) {
            s += v * x[j as usize];
            t += v * w[j as usize];
        }
        (*yi, *zi) = (s, t);
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let n = arg(1, 1_000_000)?;
    let rounds = arg(2, 9)?;
    let mut rng = Rng::new(11);
    let raw = arrays(n, 16, &mut rng);
    let levels = vec![
        Level::Dense { size: n },
        Level::Compressed {
            pos: raw.pos.clone(),
            crd: raw.crd.clone(),
        },
    ];
    let a: Tensor<f64, Csr> = Tensor::from_parts(vec![n, n], levels, raw.vals.clone())?;
    let xs: Vec<f64> = (0..n).map(|_| rng.unit()).collect();
    let ws: Vec<f64> = (0..n).map(|_| rng.unit()).collect();
    let (x, w) = (
        Vector::from_vec([n], xs.clone())?,
        Vector::from_vec([n], ws.clone())?,
    );
    let (mut y_want, mut z_want) = (vec![0.0; n], vec![0.0; n]);
    fused(&raw, &xs, &ws, &mut y_want, &mut z_want);
    let labels = ["multi", "two kernels", "fused loop"];
    let mut times = vec![Vec::new(); labels.len()];
    for round in 0..rounds {
        for turn in 0..labels.len() {
            let k = (round + turn) % labels.len();
            let label = labels[k];
            let (mut y, mut z) = (Vector::zeros([n]), Vector::zeros([n]));
            let start = Instant::now();
            match k {
                0 => pair(&mut y, &mut z, &a, &x, &w)?,
                1 => {
                    spmv(&mut y, &a, &x)?;
                    spmv(&mut z, &a, &w)?;
                }
                _ => fused(&raw, &xs, &ws, y.values_mut(), z.values_mut()),
            }
            times[k].push(start.elapsed().as_secs_f64() * 1e3);
            let error =
                relative_error(y.values(), &y_want).max(relative_error(z.values(), &z_want));
            if error > 1e-10 {
                return Err(format!("{label}: relative error {error}").into());
            }
        }
    }
    println!(
        "{n} rows, {} nonzeros, {rounds} rounds; ms as fastest / median / slowest",
        raw.vals.len()
    );
    for (label, t) in labels.iter().zip(&mut times) {
        t.sort_by(f64::total_cmp);
        let (fast, median, slow) = (t[0], t[t.len() / 2], t[t.len() - 1]);
        println!("  {label:12} {fast:8.2} {median:8.2} {slow:8.2}");
    }
    Ok(())
}
