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

export SPARSE_REQUIRE_GPU=1
status=0
for bin in "$dir"/sparse-gpu-*; do
    echo "==== $(basename "$bin")"
    ldd "$bin" | grep -E 'libcuda|not found'
    if ! "$bin" --test-threads 1 --nocapture; then
        status=1
    fi
done
if [[ $status -eq 0 ]]; then echo "gpu-check: all passed"; else echo "gpu-check: FAILED"; fi
exit $status
