//! A crate that depends on the `sparse` facade as `sp`: every kernel it declares must compile
//! and run, so generated code may name the facade only by the name this manifest gives it.
//! The kernels cover the paths generated code takes into the facade: a dense output, threads,
//! atomic adds, an assembled sparse output, an explicit level list and a GPU launcher.

use sp::prelude::*;

tensor_kernel! {
    /// y = A x.
    pub fn spmv;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
}

tensor_kernel! {
    /// y = A x, rows split across threads.
    pub fn spmv_threads;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i,i0,i1,Down,2).parallelize(i0,CpuThread,NoRaces) >;
}

tensor_kernel! {
    /// y = A x, balanced over the nonzeros, rows shared through atomic adds.
    pub fn spmv_atomics;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< collapse(i,j,f).pos(f,p,A).split(p,p0,p1,Down,2).parallelize(p0,CpuThread,Atomics) >;
}

tensor_kernel! {
    /// C = A + B, assembled.
    pub fn add;
    C(i,j) = A(i,j) + B(i,j);
    formats< C: csr, A: csr, B: csr >;
}

tensor_kernel! {
    /// y = A x with A's rows dense over unordered compressed columns.
    pub fn spmv_levels;
    y(i) = A(i,j) * x(j);
    formats< A: (dense, compressed(unordered)) >;
}

tensor_kernel! {
    /// y = A x, one GPU thread per row.
    pub fn spmv_gpu;
    y(i) = A(i,j) * x(j);
    formats< A: csr >;
    schedule< split(i, block, thread, Down, 32)
              .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces) >;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix() -> Tensor<f64, Csr> {
        Tensor::from_entries([3, 4], [([0, 1], 2.0), ([2, 3], 1.5), ([2, 0], -1.0)]).unwrap()
    }

    #[test]
    fn kernels_run_under_the_renamed_facade() {
        let a = matrix();
        let x = Tensor::from_dense([4], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        let expected = vec![4.0, 0.0, 5.0];
        let mut y = Tensor::zeros([3]);
        spmv(&mut y, &a, &x).unwrap();
        assert_eq!(y.to_dense(), expected);
        let mut y = Tensor::zeros([3]);
        spmv_threads(&mut y, &a, &x).unwrap();
        assert_eq!(y.to_dense(), expected);
        let mut y = Tensor::zeros([3]);
        spmv_atomics(&mut y, &a, &x).unwrap();
        assert_eq!(y.to_dense(), expected);
        let mut y = Tensor::zeros([3]);
        spmv_levels(&mut y, &a.convert().unwrap(), &x).unwrap();
        assert_eq!(y.to_dense(), expected);
    }

    #[test]
    fn an_assembled_output_under_the_renamed_facade() {
        let a = matrix();
        let b = Tensor::from_entries([3, 4], [([0, 1], 1.0), ([1, 2], 5.0)]).unwrap();
        let mut c = Tensor::zeros([3, 4]);
        add(&mut c, &a, &b).unwrap();
        let mut expected = vec![0.0; 12];
        (expected[1], expected[6], expected[8], expected[11]) = (3.0, 5.0, -1.0, 1.5);
        assert_eq!(c.to_dense(), expected);
    }

    type Device<F> = sp::gpu::DeviceTensor<f64, F>;
    type Launcher = fn(&mut Device<DenseVec>, &Device<Csr>, &Device<DenseVec>) -> GpuResult;
    type GpuResult = Result<(), sp::gpu::GpuError>;

    /// The launcher compiles (the crate builds) with the signature the README gives it.
    #[test]
    fn the_gpu_launcher_names_the_renamed_facade() {
        assert!(SPMV_GPU_CUDA.contains("__global__"));
        let launcher: Launcher = spmv_gpu;
        let _ = launcher;
    }
}
