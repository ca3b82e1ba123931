//! NVRTC without a GPU: CUDA sources compile to PTX and cubins, broken ones give the compiler's
//! log. Skipped (with a message) where NVRTC cannot be loaded, unless `SPARSE_REQUIRE_GPU` or
//! `SPARSE_REQUIRE_NVRTC` is set.

mod common;

use sparse_gpu::{GpuError, compile_cubin, compile_ptx, nvrtc_version};

#[test]
fn csr_spmv_compiles_to_ptx_for_each_value_type() {
    let test = "csr_spmv_compiles_to_ptx_for_each_value_type";
    match nvrtc_version() {
        Ok((major, minor, path)) => eprintln!("{test}: NVRTC {major}.{minor} from {path}"),
        Err(e) => {
            common::skip_nvrtc(test, &e);
            return;
        }
    }
    for (source, value_reg) in [
        (common::spmv_source::<f64>(), ".f64"),
        (common::spmv_source::<f32>(), ".f32"),
        (common::spmv_source::<i64>(), ".s64"),
        (common::spmv_source::<i32>(), ".s32"),
    ] {
        let ptx = compile_ptx(&source, "spmv_csr.cu", "sm_90").expect("the kernel compiles");
        assert!(ptx.contains(".visible .entry spmv_csr("), "{ptx}");
        assert!(ptx.contains(".target sm_90"), "{ptx}");
        assert!(ptx.contains(value_reg), "{value_reg} missing:\n{ptx}");
    }
}

#[test]
fn csr_spmv_compiles_to_a_cubin() {
    let cubin = match compile_cubin(&common::spmv_source::<f64>(), "spmv_csr.cu", "90") {
        Ok(c) => c,
        Err(e) => {
            common::skip_nvrtc("csr_spmv_compiles_to_a_cubin", &e);
            return;
        }
    };
    assert_eq!(&cubin[..4], b"\x7fELF", "a cubin is an ELF file");
}

#[test]
fn a_broken_source_returns_the_compiler_log() {
    let broken = r#"extern "C" __global__ void broken(float *y) { y[0] = undefined_name; }"#;
    match compile_ptx(broken, "broken.cu", "compute_80") {
        Err(GpuError::Nvrtc {
            program,
            status,
            log,
        }) => {
            assert_eq!(program, "broken.cu");
            assert_eq!(status, "NVRTC_ERROR_COMPILATION");
            assert!(log.contains("undefined_name"), "{log}");
            assert!(log.contains("broken.cu"), "{log}");
        }
        Err(e) => {
            common::skip_nvrtc("a_broken_source_returns_the_compiler_log", &e);
        }
        Ok(ptx) => panic!("a broken source compiled:\n{ptx}"),
    }
}

#[test]
fn a_bad_architecture_is_refused_without_nvrtc() {
    let e = compile_ptx("", "k.cu", "hopper").unwrap_err();
    assert!(matches!(e, GpuError::Invalid(_)), "{e}");
    assert!(e.to_string().contains("hopper"));
}
