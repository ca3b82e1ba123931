//! NVRTC that cannot be loaded is `GpuError::Unavailable`, never a panic: this binary runs itself
//! again with `SPARSE_NVRTC_PATH` pointing nowhere (the library is opened once per process, so the
//! check needs a process of its own).

use std::process::Command;

use sparse_gpu::{GpuError, compile_ptx, nvrtc_version};

const CHILD: &str = "SPARSE_GPU_TEST_NVRTC_CHILD";

#[test]
fn a_missing_nvrtc_is_unavailable() {
    if std::env::var_os(CHILD).is_none() {
        let exe = std::env::current_exe().expect("the test binary's path");
        let output = Command::new(exe)
            .args(["--exact", "a_missing_nvrtc_is_unavailable", "--nocapture"])
            .env(CHILD, "1")
            .env("SPARSE_NVRTC_PATH", "/nonexistent/libnvrtc.so.13")
            .output()
            .expect("the test binary runs");
        let log = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "the child failed:\n{log}");
        assert!(
            log.contains("child checked"),
            "the child did not run:\n{log}"
        );
        return;
    }
    let e = compile_ptx("extern \"C\" __global__ void k() {}", "k.cu", "sm_90").unwrap_err();
    let GpuError::Unavailable(why) = &e else {
        panic!("expected Unavailable, got {e}");
    };
    assert!(why.contains("/nonexistent/libnvrtc.so.13"), "{why}");
    assert!(nvrtc_version().unwrap_err().is_unavailable());
    eprintln!("child checked: {e}");
}
