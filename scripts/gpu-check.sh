#!/usr/bin/env bash
# Runs the GPU test binaries that scripts/gpu-build.sh gathered (in this script's folder, or the
# folder given as $1) on a machine with a GPU, with SPARSE_REQUIRE_GPU=1 so that a missing device
# or NVRTC fails instead of skipping. Needs the CUDA driver (libcuda.so.1) and NVRTC 13.x: found by
# name (LD_LIBRARY_PATH, ldconfig), in /usr/local/cuda*/lib64, in a pip wheel
# (nvidia/cu13/lib under site-packages), or wherever SPARSE_NVRTC_PATH points.
set -uo pipefail
dir=${1:-$(dirname "$0")}

echo "==== device"
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader ||
    echo "nvidia-smi failed"

echo "==== NVRTC"
# The binaries search for NVRTC themselves; this only helps where Python knows of a wheel in a
# folder they do not search (a virtual environment that is not on PATH, say).
if [[ -z "${SPARSE_NVRTC_PATH:-}" ]] && ! ldconfig -p 2>/dev/null | grep -q 'libnvrtc\.so' &&
    ! ls /usr/local/cuda*/lib64/libnvrtc.so* >/dev/null 2>&1; then
    wheel=$(python3 - <<'PY' 2>/dev/null
import glob, site, sys
dirs = site.getsitepackages() + [site.getusersitepackages()] + sys.path
for d in dirs:
    for pattern in ("nvidia/cu13/lib/libnvrtc.so.13", "nvidia/cuda_nvrtc/lib/libnvrtc.so.1*"):
        hits = sorted(glob.glob(d + "/" + pattern))
        if hits:
            print(hits[-1]); sys.exit()
PY
)
    if [[ -n "$wheel" ]]; then export SPARSE_NVRTC_PATH="$wheel"; fi
fi
echo "SPARSE_NVRTC_PATH=${SPARSE_NVRTC_PATH:-(unset: the binaries search; the nvrtc test prints what they found)}"

export SPARSE_REQUIRE_GPU=1
status=0
for bin in "$dir"/sparse-gpu-*; do
    echo "==== $(basename "$bin")"
    ldd "$bin" | grep -E 'libcuda|not found'
    if ! "$bin" --test-threads 1 --nocapture; then
        status=1
    fi
done
if [[ -x "$dir/gpu_spmv" ]]; then
    echo "==== gpu_spmv (example)"
    (cd "$dir" && ./gpu_spmv) || status=1
fi
if [[ $status -eq 0 ]]; then echo "gpu-check: all passed"; else echo "gpu-check: FAILED"; fi
exit $status
