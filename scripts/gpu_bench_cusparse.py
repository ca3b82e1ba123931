#!/usr/bin/env python3
"""cuSPARSE on the matrices `gpu_bench` wrote (SpMV and SpMM through CuPy, SDDMM through
PyTorch's `sampled_addmm`, which calls cusparseSDDMM), the device's copy bandwidth, and one table
of ratios against the generated kernels' timings (OUT_DIR/sparse.jsonl).

Usage: python3 scripts/gpu_bench_cusparse.py OUT_DIR   (on the GPU machine, after gpu_bench)
Timing: CUDA events around each call, median of 50 after 5 warm-up calls, as gpu_bench does.
"""
import json
import os
import statistics
import sys

import cupy as cp
import cupyx.scipy.sparse as csp
import numpy as np

WARMUP, RUNS = 5, 50


def median_seconds(run):
    for _ in range(WARMUP):
        run()
    times = []
    for _ in range(RUNS):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
    return statistics.median(times)


def copy_bandwidth():
    """Bytes read plus written per second by a device-to-device copy of 2 GiB."""
    src = cp.ones(2**28, dtype=cp.float64)
    dst = cp.empty_like(src)
    seconds = median_seconds(lambda: dst.__setitem__(Ellipsis, src))
    return 2 * src.nbytes / seconds


def load(folder):
    m, n = map(int, open(os.path.join(folder, "shape.txt")).read().split())
    indptr = np.fromfile(os.path.join(folder, "indptr.u32"), dtype=np.uint32).astype(np.int32)
    indices = np.fromfile(os.path.join(folder, "indices.u32"), dtype=np.uint32).astype(np.int32)
    data = np.fromfile(os.path.join(folder, "data.f64"), dtype=np.float64)
    return m, n, indptr, indices, data


def sddmm_seconds(indptr, indices, data, m, n, k):
    """cusparseSDDMM through PyTorch: alpha * (C @ D) sampled at the pattern of S."""
    import torch

    dev = torch.device("cuda")
    s = torch.sparse_csr_tensor(
        torch.from_numpy(indptr.astype(np.int64)).to(dev),
        torch.from_numpy(indices.astype(np.int64)).to(dev),
        torch.from_numpy(data).to(dev),
        size=(m, n),
    )
    c = torch.rand(m, k, dtype=torch.float64, device=dev)
    d = torch.rand(k, n, dtype=torch.float64, device=dev)

    def run():
        torch.sparse.sampled_addmm(s, c, d, beta=0.0, alpha=1.0)

    for _ in range(WARMUP):
        run()
    times = []
    for _ in range(RUNS):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times)


def spmv_bytes(m, n, nnz, value_bytes):
    # Values and column indices once, row pointers once, x once (at least), y written once.
    return nnz * (value_bytes + 4) + (m + 1) * 4 + n * value_bytes + m * value_bytes


def main(out):
    bandwidth = copy_bandwidth()
    rows = [json.loads(line) for line in open(os.path.join(out, "sparse.jsonl"))]
    ours = {(r["matrix"], r["kernel"], r["type"]): r for r in rows}
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    lines = [
        f"device: {device}; CuPy {cp.__version__}, CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}",
        f"copy bandwidth (device to device, read + write): {bandwidth / 1e9:.0f} GB/s",
        "",
        "| matrix | nnz | type | kernel | ours (ms) | cuSPARSE (ms) | cuSPARSE / ours | bound (ms) | bound / ours | check |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for matrix in sorted({r["matrix"] for r in rows}):
        m, n, indptr, indices, data = load(os.path.join(out, matrix))
        nnz = len(indices)
        for dtype, name, size in [(cp.float64, "double", 8), (cp.float32, "float", 4)]:
            a = csp.csr_matrix(
                (cp.asarray(data.astype(dtype)), cp.asarray(indices), cp.asarray(indptr)),
                shape=(m, n),
            )
            kernels = sorted(k for (mm, k, t) in ours if mm == matrix and t == name)
            spmm = [k for k in kernels if k.startswith("spmm_n")]
            if any(not k.startswith(("spmm", "sddmm")) for k in kernels):
                x = cp.asarray(((np.arange(n) % 13) - 6.0) / 4.0, dtype=dtype)
                cusparse = median_seconds(lambda: a @ x)
                bound = spmv_bytes(m, n, nnz, size) / bandwidth
                lines.append(
                    f"| {matrix} | {nnz} | {name} | cuSPARSE csrmv | - | {cusparse * 1e3:.3f} | 1.00 | {bound * 1e3:.3f} | {bound / cusparse:.2f} | - |"
                )
                for k in kernels:
                    if k.startswith(("spmm", "sddmm")):
                        continue
                    r = ours[(matrix, k, name)]
                    s = r["seconds"]
                    lines.append(
                        f"| {matrix} | {nnz} | {name} | {k} | {s * 1e3:.3f} | {cusparse * 1e3:.3f} | {cusparse / s:.2f} | {bound * 1e3:.3f} | {bound / s:.2f} | {'ok' if r['ok'] else 'WRONG'} |"
                    )
            for k in [k for k in kernels if k.startswith("sddmm_k")]:
                r = ours[(matrix, k, name)]
                cusparse = sddmm_seconds(indptr, indices, data, m, n, int(k[len("sddmm_k"):]))
                s = r["seconds"]
                dense = int(k[len("sddmm_k"):])
                bound = (nnz * (2 * size + 4) + (m + 1) * 4 + (m + n) * dense * size) / bandwidth
                lines.append(
                    f"| {matrix} | {nnz} | {name} | {k} | {s * 1e3:.3f} | {cusparse * 1e3:.3f} | {cusparse / s:.2f} | {bound * 1e3:.3f} | {bound / s:.2f} | {'ok' if r['ok'] else 'WRONG'} |"
                )
            for k in spmm:
                cols = int(k[len("spmm_n"):])
                b = cp.asarray(((np.arange(n * cols) % 11) - 5.0).reshape(n, cols) / 4.0, dtype=dtype)
                cusparse = median_seconds(lambda: a @ b)
                r = ours[(matrix, k, name)]
                s = r["seconds"]
                bound = (nnz * (size + 4) + (m + 1) * 4 + (n + m) * cols * size) / bandwidth
                lines.append(
                    f"| {matrix} | {nnz} | {name} | {k} | {s * 1e3:.3f} | {cusparse * 1e3:.3f} | {cusparse / s:.2f} | {bound * 1e3:.3f} | {bound / s:.2f} | {'ok' if r['ok'] else 'WRONG'} |"
                )
            del a
            cp.get_default_memory_pool().free_all_blocks()
    text = "\n".join(lines) + "\n"
    print(text)
    open(os.path.join(out, "summary.md"), "w").write(text)


if __name__ == "__main__":
    main(sys.argv[1])
