//! Device tensors and launches. Without a device (or without the `cuda` feature) `Gpu::new` is
//! `Unavailable` and the tests that need a device print why and skip, unless `SPARSE_REQUIRE_GPU`
//! is set, which turns a skip into a failure.

mod common;

use sparse_gpu::{DeviceTensor, Gpu, GpuError, GpuScalar, KernelArg, LaunchShape};
use sparse_runtime::{
    Bcsr, Coo, Csc, Csf, Csr, Dcsr, DenseMat, DenseVec, Dia, Ell, Format, HashMat, Scalar,
    SparseVec, Tensor,
};

#[test]
fn without_the_cuda_feature_there_is_no_gpu() {
    let result = Gpu::new(0);
    if !sparse_gpu::CUDA_ENABLED {
        let e = result.unwrap_err();
        assert!(e.is_unavailable(), "{e}");
        assert!(e.to_string().contains("`cuda` feature"), "{e}");
    } else if let Err(e) = result {
        // With the feature, only "no device" may stop it here.
        common::skip("without_the_cuda_feature_there_is_no_gpu", &e);
    }
}

#[test]
fn handles_can_cross_threads() {
    fn check<T: Send + Sync>() {}
    check::<Gpu>();
    check::<DeviceTensor<f64, Csr>>();
    check::<DeviceTensor<i32, Csf<3>>>();
    check::<GpuError>();
}

#[test]
fn a_device_that_does_not_exist_is_unavailable() {
    let e = Gpu::new(4096).unwrap_err();
    assert!(e.is_unavailable(), "{e}");
}

/// A matrix with an empty first row, an empty last column and a full row.
fn matrix() -> Vec<([usize; 2], f64)> {
    vec![
        ([1, 0], 1.0),
        ([1, 3], -2.0),
        ([2, 0], 3.0),
        ([2, 1], 4.5),
        ([2, 2], 5.0),
        ([2, 3], 6.0),
        ([2, 4], 7.0),
        ([4, 2], 8.25),
    ]
}

fn round_trip<F: Format>(gpu: &Gpu) {
    let host = Tensor::<f64, F>::from_entries([5, 6], matrix()).unwrap();
    let device = gpu.upload(&host).unwrap();
    assert_eq!(device.shape(), &[5, 6]);
    assert_eq!(device.stored_len(), host.stored_len());
    let back = device.download().unwrap();
    assert_eq!(back.levels(), host.levels(), "{}", F::NAME);
    assert_eq!(back.values(), host.values(), "{}", F::NAME);
    assert_eq!(back.to_dense(), host.to_dense(), "{}", F::NAME);
}

#[test]
fn every_format_survives_a_round_trip() {
    let Some(gpu) = common::gpu("every_format_survives_a_round_trip") else {
        return;
    };
    round_trip::<Csr>(&gpu);
    round_trip::<Csc>(&gpu);
    round_trip::<Dcsr>(&gpu);
    round_trip::<Coo<2>>(&gpu);
    round_trip::<DenseMat>(&gpu);
    round_trip::<Ell>(&gpu);
    round_trip::<Dia>(&gpu);
    round_trip::<HashMat>(&gpu);
    round_trip::<Bcsr<2, 2>>(&gpu);
    let t =
        Tensor::<i32, Csf<3>>::from_entries([2, 3, 4], [([0, 1, 2], 5), ([1, 2, 3], -1)]).unwrap();
    assert_eq!(
        gpu.upload(&t).unwrap().download().unwrap().to_dense(),
        t.to_dense()
    );
    let v = Tensor::<f32, SparseVec>::from_entries([7], [([6], 1.5f32)]).unwrap();
    assert_eq!(
        gpu.upload(&v).unwrap().download().unwrap().to_dense(),
        v.to_dense()
    );
    let empty = Tensor::<i64, Csr>::from_entries([0, 0], []).unwrap();
    assert_eq!(gpu.upload(&empty).unwrap().download().unwrap().nnz(), 0);
}

#[test]
fn zeros_and_structure_copies() {
    let Some(gpu) = common::gpu("zeros_and_structure_copies") else {
        return;
    };
    let y: DeviceTensor<f32, DenseVec> = gpu.zeros([5]).unwrap();
    assert_eq!(y.download().unwrap().to_dense(), vec![0.0; 5]);
    let a = gpu
        .upload(&Tensor::<f64, Csr>::from_entries([5, 6], matrix()).unwrap())
        .unwrap();
    let mut out: DeviceTensor<f64, Csr> = gpu.zeros([5, 6]).unwrap();
    assert_eq!(out.download().unwrap().nnz(), 0);
    out.copy_structure_from(&a).unwrap();
    let host = out.download().unwrap();
    assert_eq!(host.levels(), a.download().unwrap().levels());
    assert!(host.values().iter().all(|&v| v == 0.0));
    let like: DeviceTensor<f32, Csr> = gpu.zeros_like(&a).unwrap();
    assert_eq!(like.stored_len(), a.stored_len());
    let mut wrong: DeviceTensor<f64, Csr> = gpu.zeros([6, 5]).unwrap();
    assert!(matches!(
        wrong.copy_structure_from(&a),
        Err(GpuError::Invalid(_))
    ));
    let mut a2 = gpu.upload(&a.download().unwrap()).unwrap();
    a2.zero_values().unwrap();
    assert!(a2.download().unwrap().to_dense().iter().all(|&v| v == 0.0));
}

/// Runs the hand-written CSR SpMV on the device and compares it with a dense product on the host.
fn spmv_matches_the_dense_reference<T: GpuScalar>(gpu: &Gpu, rows: usize, cols: usize) {
    // A pattern with empty rows, one long row and values that are exact in every value type.
    let mut entries = Vec::new();
    for i in 0..rows {
        let count = if i == rows / 2 { cols } else { (i * 7) % 5 };
        for k in 0..count {
            let j = (i * 31 + k * 17) % cols;
            entries.push(([i, j], T::ONE + T::ONE * cast::<T>((i + j) % 3)));
        }
    }
    let a = Tensor::<T, Csr>::from_entries([rows, cols], entries).unwrap();
    let x_host: Vec<T> = (0..cols).map(|j| cast::<T>(j % 4) - T::ONE).collect();
    let x = Tensor::<T, DenseVec>::from_dense([cols], &x_host).unwrap();

    let dense = a.to_dense();
    let expected: Vec<T> = (0..rows)
        .map(|i| (0..cols).fold(T::ZERO, |s, j| s + dense[i * cols + j] * x_host[j]))
        .collect();

    let (da, dx) = (gpu.upload(&a).unwrap(), gpu.upload(&x).unwrap());
    let mut dy: DeviceTensor<T, DenseVec> = gpu.zeros([rows]).unwrap();
    let m = i32::try_from(rows).unwrap();
    let args = [
        KernelArg::from(m),
        da.pos_array(1).into(),
        da.crd_array(1).into(),
        da.values_array().into(),
        dx.values_array().into(),
        dy.values_array_mut().into(),
    ];
    let shape = LaunchShape::linear(LaunchShape::blocks_for(rows, 128), 128);
    let source = common::spmv_source::<T>();
    match gpu.launch(&source, "spmv_csr", shape, &args) {
        Ok(()) => {}
        Err(e) => {
            common::skip("spmv (compiling the kernel)", &e);
            return;
        }
    }
    // A second launch reuses the cached module.
    gpu.launch(&source, "spmv_csr", shape, &args).unwrap();
    let y = dy.download().unwrap();
    assert_eq!(y.to_dense(), expected, "{}", T::CUDA_TYPE);
}

fn cast<T: Scalar>(n: usize) -> T {
    (0..n).fold(T::ZERO, |s, _| s + T::ONE)
}

#[test]
fn csr_spmv_on_the_device_matches_the_host() {
    let Some(gpu) = common::gpu("csr_spmv_on_the_device_matches_the_host") else {
        return;
    };
    spmv_matches_the_dense_reference::<f64>(&gpu, 1000, 777);
    spmv_matches_the_dense_reference::<f32>(&gpu, 257, 64);
    spmv_matches_the_dense_reference::<i32>(&gpu, 3, 5);
    spmv_matches_the_dense_reference::<i64>(&gpu, 1, 1);
}

#[test]
fn launch_failures_are_errors() {
    let Some(gpu) = common::gpu("launch_failures_are_errors") else {
        return;
    };
    let source = common::spmv_source::<f64>();
    match gpu.launch(&source, "no_such_kernel", LaunchShape::linear(1, 32), &[]) {
        Err(GpuError::Driver { during, .. }) => assert!(during.contains("no_such_kernel")),
        Err(e) => {
            common::skip("launch_failures_are_errors", &e);
            return;
        }
        Ok(()) => panic!("a missing kernel launched"),
    }
    // Too many threads per block: refused at launch, not a panic.
    let y: DeviceTensor<f64, DenseVec> = gpu.zeros([1]).unwrap();
    let args = [
        KernelArg::from(1i32),
        y.values_array().into(),
        y.values_array().into(),
        y.values_array().into(),
        y.values_array().into(),
        y.values_array().into(),
    ];
    let e = gpu
        .launch(&source, "spmv_csr", LaunchShape::linear(1, 4096), &args)
        .unwrap_err();
    assert!(matches!(e, GpuError::Driver { .. }), "{e}");
    // Arguments that do not match the kernel's parameters are refused before the launch.
    let e = gpu
        .launch(&source, "spmv_csr", LaunchShape::linear(1, 32), &args[1..])
        .unwrap_err();
    assert!(matches!(e, GpuError::Invalid(_)), "{e}");
    let mut swapped = args;
    swapped[0] = KernelArg::from(1.0f32);
    let e = gpu
        .launch(&source, "spmv_csr", LaunchShape::linear(1, 32), &swapped)
        .unwrap_err();
    assert!(e.to_string().contains("parameter 0"), "{e}");
    // An empty launch does nothing.
    gpu.launch(&source, "spmv_csr", LaunchShape::linear(0, 128), &args)
        .unwrap();
    gpu.synchronize().unwrap();
}

#[test]
fn a_broken_kernel_fails_with_the_compiler_log() {
    let Some(gpu) = common::gpu("a_broken_kernel_fails_with_the_compiler_log") else {
        return;
    };
    let broken = r#"extern "C" __global__ void k(float *y) { y[0] = nope; }"#;
    match gpu.launch(broken, "k", LaunchShape::linear(1, 1), &[]) {
        Err(GpuError::Nvrtc { log, .. }) => assert!(log.contains("nope"), "{log}"),
        Err(e) => {
            common::skip("a_broken_kernel_fails_with_the_compiler_log", &e);
        }
        Ok(()) => panic!("a broken kernel launched"),
    }
}
