#!/usr/bin/env bash
# Builds the GPU test binaries of sparse-gpu (release, `cuda` feature) on a machine without CUDA,
# against the stub libcuda of .ci/install-cuda-stub.sh, and gathers them with scripts/gpu-check.sh
# in target/gpu-carry: carry that folder to a machine with a GPU (CUDA driver, no Rust needed) and
# run `bash target/gpu-carry/gpu-check.sh` there.
#
# The binaries need only libc, libgcc_s, libm and libcuda.so.1 (checked below with ldd); NVRTC is
# opened at run time (see sparse-gpu's nvrtc module for where it is looked for).
set -euo pipefail
cd "$(dirname "$0")/.."

cuda_env=$(.ci/install-cuda-stub.sh)
eval "$cuda_env"

out=target/gpu-carry
rm -rf "$out"
mkdir -p "$out"
# The runtime's tests, and the root package's GPU kernel tests (the tensor_kernel! GPU schedules
# against dense references, and the CUDA printer's intrinsics).
{
    cargo test -p sparse-gpu --features cuda --release --no-run --message-format=json
    cargo test -p sparse --features cuda --release --no-run --message-format=json \
        --test gpu_kernels --test gpu_intrinsics
} 2>/dev/null |
    python3 -c '
import json, shutil, subprocess, sys
out = sys.argv[1]
for line in sys.stdin:
    msg = json.loads(line)
    artifact = msg.get("reason") == "compiler-artifact" and msg.get("profile", {}).get("test")
    exe = msg.get("executable") if artifact else None
    if exe:
        kind = msg["target"]["kind"][0]
        name = "sparse-gpu-" + ("unit" if kind == "lib" else msg["target"]["name"])
        shutil.copy(exe, out + "/" + name)
        # Without debug information: what is carried to the GPU machine has a size limit.
        subprocess.run(["strip", out + "/" + name], check=False)
        print("built", name, "from", exe)
' "$out"
# The example, and the matrix it reads when it runs there.
cargo build --release --features cuda --example gpu_spmv
cp target/release/examples/gpu_spmv "$out/" && strip "$out/gpu_spmv"
mkdir -p "$out/data" && cp data/lund_a.mtx "$out/data/"
cp scripts/gpu-check.sh "$out/"

for bin in "$out"/sparse-gpu-* "$out"/gpu_spmv; do
    echo "== $bin: $(du -h "$bin" | cut -f1)"
    # Everything but the C runtime and libcuda.so.1 would be a surprise on the GPU machine.
    if ldd "$bin" | grep -v -E 'linux-vdso|ld-linux|libc\.so|libm\.so|libgcc_s|libcuda\.so\.1'; then
        echo "unexpected dynamic dependency in $bin" >&2
        exit 1
    fi
done
du -sh "$out"
