// Written by `SPARSE_BLESS=1 cargo test -p sparse-compiler --test schedule_fuzz`.

random_schedules!(spmv, check_spmv, { y(i) = A(i,j) * x(j); formats<A: csr>; }, [
    spmv_0 { reorder(i, j).precompute(A(i,j) * x(j), i, v1, W).unroll(i, 2).split(v1, v2, v3, Down, 3) }
    spmv_1 { split(i, v1, v2, Down, 3).split(v2, v3, v4, Up, 1) }
    spmv_2 { pos(j, v1, A).split(v1, v2, v3, Down, 7) }
    spmv_3 { prefetch(x, 1).split(i, v1, v2, Up, 3).split(v2, v3, v4, Down, 16) }
    spmv_4 { parallelize(i, CpuVector, IgnoreRaces).parallelize(j, CpuVector, Temporary) }
    spmv_5 { bound(i, v1, 0, MinExact).precompute(A(i,j) * x(j), v1, v2, W) }
    spmv_6 { precompute(A(i,j) * x(j), i, v1, W).split(v1, v2, v3, Up, 3) }
    spmv_7 { unroll(i, 3).reorder(i, j).pos(j, v1, A) }
    spmv_8 { unroll(j, 3).collapse(i, j, v1).pos(v1, v2, A) }
    spmv_9 { unroll(j, 2).unroll(j, 16).split(i, v1, v2, Up, 1).split(v2, v3, v4, Up, 1) }
    spmv_10 { assemble(y, Insert).parallelize(j, CpuThread, Atomics).parallelize(i, CpuVector, Atomics) }
    spmv_11 { reorder(i, j).pos(j, v1, A) }
]);

random_schedules!(spmspv, check_spmspv, { y(i) = A(i,j) * x(j); formats<A: csc, x: sparse>; }, [
    spmspv_0 { pos(j, v1, x).split(v1, v2, v3, Up, 3) }
    spmspv_1 { parallelize(j, CpuVector, Temporary).parallelize(i, CpuThread, Atomics) }
    spmspv_2 { pos(i, v1, A).parallelize(j, CpuThread, Temporary) }
    spmspv_3 { parallelize(i, CpuThread, NoRaces).parallelize(j, CpuVector, Atomics) }
    spmspv_4 { pos(j, v1, x).parallelize(i, CpuVector, IgnoreRaces) }
    spmspv_5 { parallelize(j, CpuVector, Atomics).parallelize(i, CpuVector, NoRaces) }
    spmspv_6 { pos(i, v1, A).parallelize(v1, CpuVector, IgnoreRaces) }
    spmspv_7 { pos(j, v1, x).reorder(v1, i) }
]);

random_schedules!(spmm, check_spmm, { C(i,k) = A(i,j) * B(j,k); formats<A: csr>; }, [
    spmm_0 { split(k, v1, v2, Down, 3).assemble(C, Append).split(v2, v3, v4, Up, 2) }
    spmm_1 { precompute(B(j,k), k, v1, W).parallelize(k, CpuThread, NoRaces) }
    spmm_2 { precompute(A(i,j) * B(j,k), k, v1, W).parallelize(k, CpuVector, Atomics) }
    spmm_3 { split(k, v1, v2, Down, 2).parallelize(v1, CpuThread, Atomics) }
    spmm_4 { split(k, v1, v2, Up, 16).split(v2, v3, v4, Up, 3) }
    spmm_5 { precompute(B(j,k), k, v1, W).bound(v1, v2, 0, MinConstraint) }
    spmm_6 { precompute(A(i,j) * B(j,k), k, v1, W).split(k, v2, v3, Up, 3) }
    spmm_7 { unroll(i, 7).precompute(A(i,j) * B(j,k), k, v1, W).prefetch(B, 16).split(k, v2, v3, Down, 16) }
    spmm_8 { reorder(k, j).split(i, v1, v2, Down, 3).split(v2, v3, v4, Up, 7) }
    spmm_9 { prefetch(B, 1).bound(k, v1, 0, MinExact).split(v1, v2, v3, Up, 7).parallelize(v2, CpuThread, Atomics) }
    spmm_10 { split(i, v1, v2, Up, 2).split(v1, v3, v4, Up, 7) }
    spmm_11 { split(i, v1, v2, Up, 16).split(v1, v3, v4, Down, 2) }
]);

random_schedules!(sddmm, check_sddmm, { A(i,k) = B(i,k) * C(i,j) * D(j,k); formats<A: csr, B: csr>; }, [
    sddmm_0 { split(i, v1, v2, Down, 3).reorder(v2, v1) }
    sddmm_1 { split(j, v1, v2, Up, 16).parallelize(v2, CpuThread, IgnoreRaces) }
    sddmm_2 { parallelize(k, CpuVector, IgnoreRaces).parallelize(j, CpuVector, Atomics) }
    sddmm_3 { pos(k, v1, B).parallelize(v1, CpuVector, Atomics) }
    sddmm_4 { pos(k, v1, B).split(v1, v2, v3, Down, 7) }
    sddmm_5 { split(j, v1, v2, Up, 1).parallelize(k, CpuThread, Atomics) }
    sddmm_6 { precompute(B(i,k) * C(i,j), j, v1, W).pos(k, v2, B) }
    sddmm_7 { split(i, v1, v2, Up, 3).parallelize(v2, CpuVector, IgnoreRaces) }
    sddmm_8 { split(i, v1, v2, Up, 1).split(v2, v3, v4, Up, 16) }
    sddmm_9 { precompute(B(i,k) * C(i,j), j, v1, W).split(v1, v2, v3, Up, 16) }
    sddmm_10 { precompute(B(i,k) * C(i,j), j, v1, W).split(v1, v2, v3, Down, 2) }
    sddmm_11 { bound(i, v1, 0, MinExact).pos(k, v2, B) }
]);

random_schedules!(ttv, check_ttv, { A(i,j) = B(i,j,k) * c(k); formats<A: csr, B: (dense, compressed, compressed)>; }, [
    ttv_0 { split(i, v1, v2, Down, 16).reorder(v2, k) }
    ttv_1 { split(i, v1, v2, Up, 1).reorder(v1, j) }
    ttv_2 { unroll(j, 2).pos(k, v1, B).precompute(B(i,j,k) * c(k), v1, v2, W) }
    ttv_3 { parallelize(i, CpuThread, IgnoreRaces).parallelize(k, CpuVector, Temporary) }
    ttv_4 { reorder(i, j).reorder(j, k) }
    ttv_5 { reorder(i, k).parallelize(j, CpuVector, Atomics) }
    ttv_6 { split(i, v1, v2, Down, 7).split(v1, v3, v4, Up, 2).unroll(v4, 2) }
    ttv_7 { collapse(i, j, v1).reorder(v1, k).pos(v1, v2, B).bound(v2, v3, 0, MinConstraint) }
    ttv_8 { split(i, v1, v2, Down, 3).split(v1, v3, v4, Up, 1) }
    ttv_9 { split(i, v1, v2, Up, 1).parallelize(v1, CpuThread, IgnoreRaces) }
    ttv_10 { pos(k, v1, B).precompute(B(i,j,k) * c(k), v1, v2, W) }
    ttv_11 { split(i, v1, v2, Down, 7).split(v2, v3, v4, Down, 3) }
]);

random_schedules!(mttkrp, check_mttkrp, { A(i,j) = B(i,k,l) * D(l,j) * C(k,j); formats<B: (dense, compressed, compressed)>; }, [
    mttkrp_0 { split(i, v1, v2, Up, 16).split(v2, v3, v4, Up, 2) }
    mttkrp_1 { prefetch(C, 2).prefetch(D, 1).parallelize(l, CpuVector, Temporary).parallelize(j, CpuThread, NoRaces) }
    mttkrp_2 { split(j, v1, v2, Up, 3).prefetch(C, 1).collapse(v1, v2, v3) }
    mttkrp_3 { reorder(k, j).prefetch(C, 3).pos(l, v1, B) }
    mttkrp_4 { split(i, v1, v2, Up, 16).split(v1, v3, v4, Up, 16) }
    mttkrp_5 { split(j, v1, v2, Down, 16).parallelize(i, CpuThread, NoRaces) }
    mttkrp_6 { reorder(k, j).prefetch(D, 3).reorder(l, j) }
    mttkrp_7 { pos(k, v1, B).reorder(l, j) }
    mttkrp_8 { reorder(i, l, j).split(i, v1, v2, Down, 7).assemble(A, Append) }
    mttkrp_9 { pos(k, v1, B).split(v1, v2, v3, Down, 3) }
    mttkrp_10 { bound(j, v1, 0, MinConstraint).precompute(B(i,k,l) * D(l,j), v1, v2, W).split(v2, v3, v4, Down, 16) }
    mttkrp_11 { unroll(j, 16).unroll(k, 3).unroll(i, 7).split(j, v1, v2, Up, 7).parallelize(v2, CpuVector, IgnoreRaces) }
]);

random_schedules!(spadd, check_elementwise, { A(i,j) = B(i,j) + C(i,j); formats<A: csr, B: csr, C: csr>; }, [
    spadd_0 { split(i, v1, v2, Down, 3).parallelize(v1, CpuThread, NoRaces) }
    spadd_1 { split(i, v1, v2, Down, 3).unroll(v2, 3).collapse(v1, v2, v3) }
    spadd_2 { split(i, v1, v2, Down, 1).parallelize(v1, CpuThread, Atomics) }
    spadd_3 { unroll(j, 16).split(i, v1, v2, Up, 1).split(v2, v3, v4, Up, 3) }
    spadd_4 { split(i, v1, v2, Down, 7).split(v1, v3, v4, Down, 3).unroll(v3, 7) }
    spadd_5 { split(i, v1, v2, Down, 7).split(v2, v3, v4, Down, 7) }
]);

random_schedules!(spgemm, check_spgemm, { A(i,j) = B(i,k) * C(k,j); formats<A: csr, B: csr, C: csr>; }, [
    spgemm_0 { split(i, v1, v2, Down, 2).unroll(v2, 3).parallelize(v1, CpuThread, IgnoreRaces) }
    spgemm_1 { split(i, v1, v2, Down, 3).reorder(v1, v2).split(v1, v3, v4, Down, 2) }
    spgemm_2 { pos(k, v1, B).split(i, v2, v3, Up, 1) }
    spgemm_3 { split(i, v1, v2, Down, 7).split(v2, v3, v4, Down, 3) }
    spgemm_4 { pos(k, v1, B).reorder(i, v1) }
    spgemm_5 { pos(k, v1, B).parallelize(v1, CpuVector, ParallelReduction) }
    spgemm_6 { split(i, v1, v2, Up, 16).split(v1, v3, v4, Up, 2) }
    spgemm_7 { unroll(j, 2).unroll(j, 7).split(i, v1, v2, Down, 1).split(v2, v3, v4, Up, 16) }
    spgemm_8 { reorder(k, j).pos(k, v1, B) }
    spgemm_9 { parallelize(k, CpuVector, Atomics).parallelize(j, CpuVector, NoRaces) }
    spgemm_10 { split(i, v1, v2, Down, 7).pos(k, v3, B) }
    spgemm_11 { reorder(i, j).unroll(i, 2).reorder(i, j) }
]);

random_schedules!(coo_spmv, check_spmv, { y(i) = A(i,j) * x(j); formats<A: coo>; }, [
    coo_spmv_0 { reorder(i, j).pos(i, v1, A) }
    coo_spmv_1 { pos(j, v1, A).precompute(A(i,j) * x(j), v1, v2, W) }
    coo_spmv_2 { pos(i, v1, A).precompute(A(i,j) * x(j), v1, v2, W) }
    coo_spmv_3 { pos(j, v1, A).parallelize(v1, CpuThread, Temporary) }
    coo_spmv_4 { pos(j, v1, A).reorder(i, v1) }
    coo_spmv_5 { reorder(i, j).pos(j, v1, A) }
    coo_spmv_6 { pos(j, v1, A).pos(i, v2, A).parallelize(v1, CpuVector, Temporary) }
    coo_spmv_7 { pos(i, v1, A).reorder(v1, j).unroll(v1, 16) }
    coo_spmv_8 { pos(i, v1, A).parallelize(j, CpuThread, ParallelReduction) }
    coo_spmv_9 { pos(j, v1, A).unroll(v1, 16).precompute(A(i,j) * x(j), v1, v2, W) }
    coo_spmv_10 { reorder(i, j).parallelize(j, CpuVector, IgnoreRaces) }
    coo_spmv_11 { pos(i, v1, A).unroll(j, 3).precompute(A(i,j) * x(j), v1, v2, W) }
]);

random_schedules!(dcsr_spmv_plus, check_spmv_plus, { y(i) = A(i,j) * x(j) + z(i); formats<A: dcsr>; }, [
]);

random_schedules!(ell_spmv, check_spmv, { y(i) = A(i,j) * x(j); formats<A: ell>; }, [
    ell_spmv_0 { split(i, v1, v2, Down, 3).assemble(y, Insert).parallelize(v1, CpuVector, Atomics) }
    ell_spmv_1 { precompute(A(i,j) * x(j), i, v1, W).unroll(j, 7).split(v1, v2, v3, Up, 16).assemble(y, Insert) }
    ell_spmv_2 { split(i, v1, v2, Up, 16).parallelize(v1, CpuVector, Atomics) }
    ell_spmv_3 { precompute(A(i,j) * x(j), i, v1, W).parallelize(j, CpuVector, ParallelReduction) }
    ell_spmv_4 { precompute(A(i,j) * x(j), i, v1, W).split(i, v2, v3, Down, 3) }
    ell_spmv_5 { unroll(j, 2).precompute(A(i,j) * x(j), i, v1, W).prefetch(x, 1).unroll(v1, 1).split(v1, v2, v3, Down, 16) }
    ell_spmv_6 { split(i, v1, v2, Down, 2).parallelize(j, CpuThread, ParallelReduction) }
    ell_spmv_7 { unroll(i, 3).split(i, v1, v2, Up, 7).parallelize(v1, CpuVector, Atomics) }
    ell_spmv_8 { split(i, v1, v2, Up, 2).collapse(v1, v2, v3) }
    ell_spmv_9 { precompute(A(i,j) * x(j), i, v1, W).pos(j, v2, A) }
    ell_spmv_10 { split(i, v1, v2, Up, 1).parallelize(v1, CpuThread, NoRaces) }
    ell_spmv_11 { assemble(y, Insert).bound(i, v1, 0, MinConstraint).precompute(A(i,j) * x(j), v1, v2, W) }
]);

random_schedules!(emul, check_elementwise, { A(i,j) = B(i,j) * C(i,j); formats<A: csr, B: csr, C: csr>; }, [
    emul_0 { split(i, v1, v2, Down, 3).unroll(v2, 16).bound(v2, v3, 0, MinConstraint) }
    emul_1 { split(i, v1, v2, Up, 1).reorder(v2, v1) }
    emul_2 { split(i, v1, v2, Down, 1).split(v1, v3, v4, Up, 1) }
    emul_3 { split(i, v1, v2, Down, 3).split(v1, v3, v4, Up, 7) }
    emul_4 { split(i, v1, v2, Down, 7).parallelize(v2, CpuVector, NoRaces) }
    emul_5 { split(i, v1, v2, Down, 16).split(v2, v3, v4, Down, 3) }
    emul_6 { split(i, v1, v2, Up, 2).parallelize(v2, CpuThread, Atomics) }
    emul_7 { split(i, v1, v2, Up, 3).parallelize(v1, CpuVector, IgnoreRaces) }
    emul_8 { split(i, v1, v2, Down, 2).parallelize(v2, CpuThread, Atomics) }
    emul_9 { reorder(i, j).split(i, v1, v2, Down, 3) }
    emul_10 { split(i, v1, v2, Up, 2).reorder(v2, j).unroll(v2, 7) }
    emul_11 { split(i, v1, v2, Up, 1).collapse(v1, v2, v3) }
]);

random_schedules!(scale_dcsr, check_scale, { A(i,j) = B(i,j) * C(i,j); formats<A: dcsr, B: csr>; }, [
    scale_dcsr_0 { pos(j, v1, B).precompute(B(i,j) * C(i,j), v1, v2, W) }
    scale_dcsr_1 { split(i, v1, v2, Up, 7).split(v1, v3, v4, Down, 2).unroll(v4, 3) }
    scale_dcsr_2 { pos(j, v1, B).precompute(C(i,j), v1, v2, W).unroll(v1, 7) }
    scale_dcsr_3 { unroll(j, 16).split(i, v1, v2, Down, 16).split(v1, v3, v4, Up, 16).split(v3, v5, v6, Up, 2) }
    scale_dcsr_4 { split(i, v1, v2, Up, 3).parallelize(v2, CpuVector, IgnoreRaces) }
    scale_dcsr_5 { pos(j, v1, B).precompute(C(i,j), v1, v2, W) }
    scale_dcsr_6 { split(i, v1, v2, Up, 2).split(v1, v3, v4, Up, 16) }
    scale_dcsr_7 { split(i, v1, v2, Up, 2).pos(j, v3, B) }
    scale_dcsr_8 { split(i, v1, v2, Down, 16).split(v2, v3, v4, Up, 3) }
    scale_dcsr_9 { split(i, v1, v2, Up, 3).parallelize(v1, CpuVector, IgnoreRaces).prefetch(C, 2) }
    scale_dcsr_10 { split(i, v1, v2, Down, 3).parallelize(v2, CpuVector, NoRaces) }
    scale_dcsr_11 { pos(j, v1, B).split(i, v2, v3, Down, 7) }
]);

random_schedules!(dense_to_coo, check_dense_difference, { A(i,j) = B(i,j) - C(i,j); formats<A: coo>; }, [
    dense_to_coo_0 { precompute(B(i,j) - C(i,j), j, v1, W).split(i, v2, v3, Down, 1) }
    dense_to_coo_1 { reorder(j, i).unroll(j, 1).split(j, v1, v2, Down, 3).split(i, v3, v4, Up, 2) }
    dense_to_coo_2 { split(i, v1, v2, Down, 16).parallelize(v1, CpuVector, IgnoreRaces) }
    dense_to_coo_3 { split(j, v1, v2, Up, 7).parallelize(v2, CpuVector, NoRaces) }
    dense_to_coo_4 { split(i, v1, v2, Up, 3).unroll(j, 2).bound(v1, v3, 0, MinConstraint) }
    dense_to_coo_5 { split(i, v1, v2, Down, 16).collapse(v2, j, v3) }
    dense_to_coo_6 { reorder(j, i).unroll(i, 7).precompute(B(i,j) - C(i,j), i, v1, W) }
    dense_to_coo_7 { precompute(C(i,j), j, v1, W).split(i, v2, v3, Down, 2) }
    dense_to_coo_8 { split(i, v1, v2, Down, 7).split(v2, v3, v4, Up, 16) }
    dense_to_coo_9 { precompute(C(i,j), j, v1, W).split(v1, v2, v3, Up, 7) }
    dense_to_coo_10 { reorder(i, j).precompute(B(i,j) - C(i,j), j, v1, W) }
    dense_to_coo_11 { precompute(C(i,j), j, v1, W).split(v1, v2, v3, Up, 16) }
]);

random_schedules!(ttv_csf, check_ttv, { A(i,j) = B(i,j,k) * c(k); formats<A: csr, B: csf>; }, [
    ttv_csf_0 { pos(k, v1, B).reorder(i, v1) }
    ttv_csf_1 { pos(k, v1, B).pos(i, v2, B) }
    ttv_csf_2 { pos(k, v1, B).pos(j, v2, B) }
    ttv_csf_3 { pos(j, v1, B).pos(k, v2, B) }
    ttv_csf_4 { pos(j, v1, B).split(v1, v2, v3, Down, 3) }
    ttv_csf_5 { unroll(i, 2).pos(i, v1, B).split(v1, v2, v3, Down, 3) }
    ttv_csf_6 { parallelize(i, CpuThread, NoRaces).parallelize(k, CpuVector, IgnoreRaces) }
    ttv_csf_7 { reorder(i, j).pos(j, v1, B) }
]);
