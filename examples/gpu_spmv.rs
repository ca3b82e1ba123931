//! SpMV on a GPU: the warp-per-row schedule of Senanayake et al. compiled by `tensor_kernel!` into
//! a CUDA kernel and a launcher, run on the matrix shipped in `data/`, checked against the same
//! kernel on the CPU.
//!
//! ```sh
//! cargo run --release --features cuda --example gpu_spmv   # on a machine with a CUDA driver
//! cargo run --release --example gpu_spmv                   # anywhere: the CPU simulator
//! cargo run --release --example gpu_spmv -- path/to/matrix.mtx
//! ```
//!
//! Without a device (or without the `cuda` feature) it says so and runs the same CUDA source on
//! the host simulator of `sparse::gpu`, which needs a C++ compiler.

use std::error::Error;
use std::path::Path;

use sparse::gpu::{DeviceTensor, Gpu};
use sparse::io::load_matrix_market;
use sparse::prelude::*;

tensor_kernel! {
    /// y = A x on the GPU, one warp per row, the lanes' partial sums combined by shuffles.
    pub fn spmv_warp;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, block, block_row, Down, 256).split(block_row, warp_row, warp, Down, 8)
              .pos(j, jpos, A(i,j)).split(jpos, thread_nz, thread, Down, 32)
              .reorder(block, warp, warp_row, thread, thread_nz)
              .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
              .parallelize(thread, GpuThread, Temporary) >;
}

tensor_kernel! {
    /// The same product on the CPU, for the check.
    pub fn spmv_cpu;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
}

fn main() -> Result<(), Box<dyn Error>> {
    let gpu = match Gpu::new(0) {
        Ok(gpu) => {
            let (major, minor) = gpu.compute_capability();
            println!("device: {} (sm_{major}{minor})", gpu.name());
            gpu
        }
        Err(e) => {
            println!("no GPU ({e}); running the CUDA source on the CPU simulator instead");
            Gpu::simulator()?
        }
    };
    // A path given, else the shipped matrix (where the binary was built, or under the current
    // folder when it was carried to another machine).
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/data/lund_a.mtx");
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| match Path::new(shipped).exists() {
            true => shipped.to_string(),
            false => "data/lund_a.mtx".to_string(),
        });
    let a: Tensor<f64, Csr> = load_matrix_market(&path)?;
    let (m, n) = (a.shape()[0], a.shape()[1]);
    let x = Tensor::from_dense(
        [n],
        &(0..n).map(|j| (j % 7) as f64 - 3.0).collect::<Vec<_>>(),
    )?;

    let (da, dx): (DeviceTensor<f64, Csr>, _) = (gpu.upload(&a)?, gpu.upload(&x)?);
    let mut dy = gpu.zeros([m])?;
    spmv_warp(&mut dy, &da, &dx)?;
    let y = dy.download()?.to_dense();

    let mut expected = Tensor::zeros([m]);
    spmv_cpu(&mut expected, &a, &x)?;
    let worst = (y.iter().zip(expected.to_dense()))
        .map(|(g, c)| (g - c).abs() / (1.0 + c.abs()))
        .fold(0.0, f64::max);
    println!(
        "{path}: {m} x {n}, {} nonzeros; largest relative difference from the CPU: {worst:e}",
        a.nnz()
    );
    if worst > 1e-12 {
        return Err(format!("the GPU result differs from the CPU's by {worst:e}").into());
    }
    println!("ok");
    Ok(())
}
