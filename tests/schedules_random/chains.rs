// Written by `SPARSE_BLESS=1 cargo test -p sparse-compiler --test schedule_fuzz`.

random_schedules!(spmv, check_spmv, { y(i) = A(i,j) * x(j); formats<A: csr>; }, [
    spmv_0 { reorder(i, j).precompute(A(i,j) * x(j), i, v1, W).unroll(i, 2).split(v1, v2, v3, Down, 3) }
    spmv_1 { bound(i, v1, 0, MinConstraint).split(j, v2, v3, Up, 7) }
    spmv_2 { split(i, v1, v2, Down, 3).split(v2, v3, v4, Up, 1) }
    spmv_3 { pos(j, v1, A).split(v1, v2, v3, Down, 7) }
    spmv_4 { prefetch(x, 1).split(i, v1, v2, Up, 3).split(v2, v3, v4, Down, 16) }
    spmv_5 { parallelize(i, CpuVector, IgnoreRaces).parallelize(j, CpuVector, Temporary) }
    spmv_6 { bound(i, v1, 0, MinExact).precompute(A(i,j) * x(j), v1, v2, W) }
    spmv_7 { precompute(A(i,j) * x(j), i, v1, W).split(v1, v2, v3, Up, 3) }
    spmv_8 { unroll(i, 3).reorder(i, j).pos(j, v1, A) }
    spmv_9 { unroll(j, 3).collapse(i, j, v1).pos(v1, v2, A) }
    spmv_10 { unroll(j, 2).unroll(j, 16).split(i, v1, v2, Up, 1).split(v2, v3, v4, Up, 1) }
    spmv_11 { assemble(y, Insert).parallelize(j, CpuThread, Atomics).parallelize(i, CpuVector, Atomics) }
]);

random_schedules!(spmspv, check_spmspv, { y(i) = A(i,j) * x(j); formats<A: csc, x: sparse>; }, [
    spmspv_0 { split(i, v1, v2, Up, 3).split(j, v3, v4, Up, 16) }
    spmspv_1 { split(j, v1, v2, Up, 3).assemble(y, Insert).reorder(v1, v2, i) }
    spmspv_2 { pos(j, v1, x).split(v1, v2, v3, Up, 3) }
    spmspv_3 { parallelize(j, CpuVector, Temporary).parallelize(i, CpuThread, Atomics) }
    spmspv_4 { split(j, v1, v2, Up, 7).split(i, v3, v4, Down, 16) }
    spmspv_5 { pos(i, v1, A).parallelize(j, CpuThread, Temporary) }
    spmspv_6 { unroll(j, 3).split(i, v1, v2, Up, 2).split(j, v3, v4, Down, 3).parallelize(v3, CpuVector, Atomics) }
    spmspv_7 { pos(j, v1, x).split(i, v2, v3, Up, 3) }
    spmspv_8 { split(j, v1, v2, Down, 2).parallelize(v1, CpuThread, Temporary) }
    spmspv_9 { split(i, v1, v2, Up, 1).parallelize(v1, CpuVector, IgnoreRaces) }
    spmspv_10 { assemble(y, Append).split(i, v1, v2, Up, 3).split(j, v3, v4, Down, 16).assemble(y, Insert) }
    spmspv_11 { parallelize(i, CpuThread, NoRaces).parallelize(j, CpuVector, Atomics) }
]);

random_schedules!(spmm, check_spmm, { C(i,k) = A(i,j) * B(j,k); formats<A: csr>; }, [
    spmm_0 { parallelize(i, CpuThread, NoRaces).parallelize(j, CpuVector, Temporary) }
    spmm_1 { split(k, v1, v2, Down, 7).parallelize(v2, CpuThread, Atomics) }
    spmm_2 { reorder(i, j).assemble(C, Insert).unroll(j, 1).split(k, v1, v2, Down, 1) }
    spmm_3 { split(k, v1, v2, Down, 16).split(v1, v3, v4, Up, 1) }
    spmm_4 { precompute(A(i,j) * B(j,k), k, v1, W).assemble(C, Insert).pos(j, v2, A).unroll(v2, 2).parallelize(v1, CpuVector, IgnoreRaces) }
    spmm_5 { split(j, v1, v2, Up, 7).precompute(B(j,k), k, v3, W) }
    spmm_6 { collapse(i, j, v1).pos(v1, v2, A) }
    spmm_7 { reorder(i, k, j).split(k, v1, v2, Up, 2).reorder(v1, v2) }
    spmm_8 { split(j, v1, v2, Up, 2).parallelize(i, CpuVector, IgnoreRaces) }
    spmm_9 { split(i, v1, v2, Down, 7).parallelize(v2, CpuVector, IgnoreRaces) }
    spmm_10 { precompute(B(j,k), k, v1, W).split(v1, v2, v3, Up, 16) }
    spmm_11 { split(j, v1, v2, Up, 16).split(k, v3, v4, Down, 1) }
]);

random_schedules!(sddmm, check_sddmm, { A(i,k) = B(i,k) * C(i,j) * D(j,k); formats<A: csr, B: csr>; }, [
    sddmm_0 { precompute(B(i,k) * C(i,j), j, v1, W).split(k, v2, v3, Down, 3) }
    sddmm_1 { split(j, v1, v2, Down, 2).parallelize(v2, CpuVector, IgnoreRaces) }
    sddmm_2 { unroll(k, 7).split(i, v1, v2, Up, 3).collapse(v1, v2, v3) }
    sddmm_3 { split(j, v1, v2, Down, 3).split(k, v3, v4, Down, 1) }
    sddmm_4 { precompute(B(i,k) * C(i,j), j, v1, W).bound(v1, v2, 0, MinExact) }
    sddmm_5 { reorder(j, i, k).split(j, v1, v2, Up, 3).parallelize(k, CpuThread, Atomics) }
    sddmm_6 { reorder(k, j).reorder(i, j) }
    sddmm_7 { split(k, v1, v2, Down, 3).split(i, v3, v4, Down, 16) }
    sddmm_8 { split(j, v1, v2, Down, 3).reorder(i, v1) }
    sddmm_9 { unroll(j, 16).precompute(B(i,k) * C(i,j), j, v1, W).parallelize(j, CpuVector, Atomics) }
    sddmm_10 { split(i, v1, v2, Down, 16).parallelize(v1, CpuThread, Atomics) }
    sddmm_11 { split(k, v1, v2, Up, 2).reorder(i, v2) }
]);

random_schedules!(ttv, check_ttv, { A(i,j) = B(i,j,k) * c(k); formats<A: csr, B: (dense, compressed, compressed)>; }, [
    ttv_0 { reorder(i, j, k).split(j, v1, v2, Up, 7) }
    ttv_1 { parallelize(i, CpuThread, Atomics).parallelize(k, CpuVector, ParallelReduction) }
    ttv_2 { split(i, v1, v2, Down, 7).unroll(v2, 16).pos(k, v3, B) }
    ttv_3 { split(j, v1, v2, Down, 2).split(k, v3, v4, Up, 1) }
    ttv_4 { split(k, v1, v2, Down, 2).parallelize(v1, CpuThread, Atomics) }
    ttv_5 { split(j, v1, v2, Up, 16).split(i, v3, v4, Up, 16) }
    ttv_6 { pos(k, v1, B).parallelize(v1, CpuThread, IgnoreRaces) }
    ttv_7 { unroll(k, 16).pos(k, v1, B).split(v1, v2, v3, Up, 3).coord(v3, v4) }
    ttv_8 { reorder(i, k).pos(k, v1, B).split(i, v2, v3, Down, 2) }
    ttv_9 { split(i, v1, v2, Up, 2).split(v1, v3, v4, Up, 7) }
    ttv_10 { pos(j, v1, B).pos(k, v2, B).unroll(i, 16) }
    ttv_11 { pos(k, v1, B).precompute(B(i,j,k) * c(k), v1, v2, W) }
]);

random_schedules!(mttkrp, check_mttkrp, { A(i,j) = B(i,k,l) * D(l,j) * C(k,j); formats<B: (dense, compressed, compressed)>; }, [
    mttkrp_0 { split(j, v1, v2, Up, 16).split(v1, v3, v4, Up, 7) }
    mttkrp_1 { bound(i, v1, 0, MinExact).precompute(B(i,k,l) * D(l,j), j, v2, W) }
    mttkrp_2 { parallelize(j, CpuVector, IgnoreRaces).parallelize(i, CpuVector, Atomics) }
    mttkrp_3 { pos(k, v1, B).parallelize(v1, CpuVector, Atomics) }
    mttkrp_4 { split(k, v1, v2, Down, 16).precompute(B(i,k,l) * D(l,j), j, v3, W) }
    mttkrp_5 { reorder(k, j, l).split(i, v1, v2, Up, 3) }
    mttkrp_6 { split(l, v1, v2, Down, 3).reorder(v1, j) }
    mttkrp_7 { collapse(i, k, v1).reorder(v1, l).unroll(l, 3).pos(v1, v2, B).prefetch(D, 3) }
    mttkrp_8 { reorder(j, l).split(l, v1, v2, Down, 7) }
    mttkrp_9 { precompute(B(i,k,l) * D(l,j), j, v1, W).split(j, v2, v3, Down, 1) }
    mttkrp_10 { split(i, v1, v2, Down, 3).prefetch(C, 16).parallelize(l, CpuVector, Temporary) }
    mttkrp_11 { split(l, v1, v2, Down, 16).split(i, v3, v4, Up, 2) }
]);

random_schedules!(spadd, check_elementwise, { A(i,j) = B(i,j) + C(i,j); formats<A: csr, B: csr, C: csr>; }, [
    spadd_0 { unroll(j, 3).split(i, v1, v2, Up, 7).reorder(v2, j) }
    spadd_1 { reorder(i, j).split(i, v1, v2, Down, 16) }
    spadd_2 { reorder(i, j).split(i, v1, v2, Down, 1) }
    spadd_3 { split(i, v1, v2, Down, 2).split(v2, v3, v4, Up, 3) }
    spadd_4 { split(i, v1, v2, Up, 3).split(v1, v3, v4, Down, 2).unroll(v3, 2) }
    spadd_5 { assemble(A, Append).unroll(j, 16).split(i, v1, v2, Down, 7).split(v1, v3, v4, Up, 16) }
    spadd_6 { bound(i, v1, 0, MinConstraint).assemble(A, Append).split(j, v2, v3, Down, 3) }
    spadd_7 { split(j, v1, v2, Down, 3).bound(i, v3, 0, MinExact) }
    spadd_8 { reorder(i, j).split(j, v1, v2, Up, 16) }
    spadd_9 { split(j, v1, v2, Down, 7).split(i, v3, v4, Up, 2).unroll(v4, 2) }
    spadd_10 { split(i, v1, v2, Down, 2).collapse(v1, v2, v3) }
    spadd_11 { split(j, v1, v2, Up, 1).bound(i, v3, 0, MinExact) }
]);

random_schedules!(spgemm, check_spgemm, { A(i,j) = B(i,k) * C(k,j); formats<A: csr, B: csr, C: csr>; }, [
    spgemm_0 { split(j, v1, v2, Up, 16).split(i, v3, v4, Up, 2) }
    spgemm_1 { pos(j, v1, C).split(v1, v2, v3, Up, 7) }
    spgemm_2 { pos(j, v1, C).parallelize(k, CpuVector, Temporary) }
    spgemm_3 { split(i, v1, v2, Down, 7).parallelize(k, CpuVector, ParallelReduction) }
    spgemm_4 { split(k, v1, v2, Down, 3).parallelize(v1, CpuVector, IgnoreRaces) }
    spgemm_5 { split(i, v1, v2, Up, 16).split(v1, v3, v4, Up, 16) }
    spgemm_6 { unroll(k, 16).bound(i, v1, 0, MinConstraint).unroll(v1, 2).reorder(v1, k) }
    spgemm_7 { pos(j, v1, C).split(v1, v2, v3, Down, 1) }
    spgemm_8 { unroll(j, 3).unroll(j, 16).pos(k, v1, B).split(i, v2, v3, Up, 1) }
    spgemm_9 { split(i, v1, v2, Up, 3).split(v2, v3, v4, Down, 1) }
    spgemm_10 { reorder(i, j).split(k, v1, v2, Down, 1) }
    spgemm_11 { split(i, v1, v2, Down, 7).split(j, v3, v4, Up, 2) }
]);

random_schedules!(coo_spmv, check_spmv, { y(i) = A(i,j) * x(j); formats<A: coo>; }, [
    coo_spmv_0 { split(i, v1, v2, Down, 3).parallelize(v1, CpuThread, NoRaces) }
    coo_spmv_1 { split(i, v1, v2, Down, 7).split(j, v3, v4, Up, 3) }
    coo_spmv_2 { pos(j, v1, A).split(i, v2, v3, Up, 2) }
    coo_spmv_3 { parallelize(j, CpuThread, IgnoreRaces).parallelize(i, CpuThread, NoRaces) }
    coo_spmv_4 { split(j, v1, v2, Down, 3).parallelize(i, CpuVector, IgnoreRaces).parallelize(v1, CpuVector, Atomics) }
    coo_spmv_5 { unroll(i, 1).prefetch(x, 3).pos(j, v1, A).unroll(i, 1).split(v1, v2, v3, Up, 16).unroll(v3, 1) }
    coo_spmv_6 { pos(i, v1, A).unroll(v1, 3).precompute(A(i,j) * x(j), v1, v2, W) }
    coo_spmv_7 { split(i, v1, v2, Up, 7).split(j, v3, v4, Down, 1).assemble(y, Insert) }
    coo_spmv_8 { parallelize(j, CpuThread, IgnoreRaces).parallelize(i, CpuThread, IgnoreRaces) }
    coo_spmv_9 { split(i, v1, v2, Down, 1).parallelize(v1, CpuThread, Atomics) }
    coo_spmv_10 { reorder(i, j).parallelize(j, CpuThread, Atomics).prefetch(x, 16) }
    coo_spmv_11 { pos(j, v1, A).precompute(A(i,j) * x(j), v1, v2, W) }
]);

random_schedules!(dcsr_spmv_plus, check_spmv_plus, { y(i) = A(i,j) * x(j) + z(i); formats<A: dcsr>; }, [
    dcsr_spmv_plus_0 { split(j, v1, v2, Down, 1).parallelize(v1, CpuVector, Temporary) }
    dcsr_spmv_plus_1 { unroll(j, 2).unroll(i, 7).split(i, v1, v2, Down, 7).reorder(v1, v2).parallelize(j, CpuVector, Atomics) }
    dcsr_spmv_plus_2 { unroll(j, 1).split(j, v1, v2, Down, 3).split(i, v3, v4, Down, 2) }
    dcsr_spmv_plus_3 { pos(j, v1, A).parallelize(v1, CpuVector, Atomics) }
    dcsr_spmv_plus_4 { split(i, v1, v2, Up, 16).reorder(v1, v2) }
    dcsr_spmv_plus_5 { split(j, v1, v2, Up, 7).parallelize(v1, CpuVector, ParallelReduction) }
]);

random_schedules!(ell_spmv, check_spmv, { y(i) = A(i,j) * x(j); formats<A: ell>; }, [
    ell_spmv_0 { unroll(j, 16).precompute(A(i,j) * x(j), i, v1, W).split(v1, v2, v3, Down, 7) }
    ell_spmv_1 { precompute(A(i,j) * x(j), i, v1, W).split(v1, v2, v3, Up, 3).prefetch(x, 7).unroll(j, 2) }
    ell_spmv_2 { split(j, v1, v2, Up, 1).precompute(A(i,j) * x(j), i, v3, W) }
    ell_spmv_3 { pos(j, v1, A).parallelize(v1, CpuThread, IgnoreRaces).prefetch(x, 1) }
    ell_spmv_4 { assemble(y, Append).precompute(A(i,j) * x(j), i, v1, W).split(v1, v2, v3, Up, 7) }
    ell_spmv_5 { split(i, v1, v2, Down, 7).reorder(v1, v2) }
    ell_spmv_6 { split(i, v1, v2, Down, 2).parallelize(v2, CpuThread, NoRaces) }
    ell_spmv_7 { unroll(i, 1).reorder(i, j).precompute(A(i,j) * x(j), i, v1, W).unroll(i, 1) }
    ell_spmv_8 { split(i, v1, v2, Up, 3).parallelize(v2, CpuVector, Atomics) }
    ell_spmv_9 { split(i, v1, v2, Down, 2).reorder(v2, v1).split(v2, v3, v4, Down, 1) }
    ell_spmv_10 { pos(j, v1, A).parallelize(v1, CpuThread, Temporary) }
    ell_spmv_11 { pos(j, v1, A).reorder(i, v1) }
]);

random_schedules!(emul, check_elementwise, { A(i,j) = B(i,j) * C(i,j); formats<A: csr, B: csr, C: csr>; }, [
    emul_0 { split(i, v1, v2, Up, 16).split(v1, v3, v4, Down, 3) }
    emul_1 { split(i, v1, v2, Up, 1).reorder(v1, v2).split(v1, v3, v4, Up, 2) }
    emul_2 { split(j, v1, v2, Up, 3).parallelize(v1, CpuThread, IgnoreRaces) }
    emul_3 { split(j, v1, v2, Up, 16).parallelize(i, CpuThread, IgnoreRaces) }
    emul_4 { split(i, v1, v2, Down, 1).reorder(v2, v1) }
    emul_5 { split(i, v1, v2, Down, 1).split(v2, v3, v4, Up, 7) }
    emul_6 { split(i, v1, v2, Down, 1).split(v2, v3, v4, Down, 1) }
    emul_7 { split(i, v1, v2, Down, 2).split(j, v3, v4, Down, 16) }
    emul_8 { split(i, v1, v2, Up, 16).split(v2, v3, v4, Up, 16) }
    emul_9 { split(i, v1, v2, Down, 16).split(j, v3, v4, Down, 7) }
    emul_10 { bound(i, v1, 0, MinExact).split(v1, v2, v3, Down, 16) }
    emul_11 { split(j, v1, v2, Up, 1).reorder(i, v2).unroll(v1, 1) }
]);

random_schedules!(scale_dcsr, check_scale, { A(i,j) = B(i,j) * C(i,j); formats<A: dcsr, B: csr>; }, [
    scale_dcsr_0 { split(i, v1, v2, Up, 2).split(v2, v3, v4, Up, 16).prefetch(C, 1) }
    scale_dcsr_1 { split(i, v1, v2, Down, 1).reorder(v1, v2) }
    scale_dcsr_2 { split(i, v1, v2, Up, 7).split(v1, v3, v4, Down, 2) }
    scale_dcsr_3 { pos(j, v1, B).parallelize(v1, CpuVector, ParallelReduction) }
    scale_dcsr_4 { reorder(i, j).split(i, v1, v2, Down, 16) }
    scale_dcsr_5 { split(i, v1, v2, Down, 3).reorder(v1, v2) }
    scale_dcsr_6 { split(i, v1, v2, Down, 7).reorder(v1, j).split(v2, v3, v4, Up, 2).unroll(v4, 2) }
    scale_dcsr_7 { split(i, v1, v2, Up, 2).reorder(v1, j) }
    scale_dcsr_8 { split(j, v1, v2, Up, 7).split(i, v3, v4, Down, 16) }
    scale_dcsr_9 { unroll(j, 1).split(j, v1, v2, Up, 2).split(i, v3, v4, Down, 3) }
    scale_dcsr_10 { split(i, v1, v2, Up, 1).split(v1, v3, v4, Up, 3) }
    scale_dcsr_11 { pos(j, v1, B).unroll(v1, 7).precompute(B(i,j) * C(i,j), v1, v2, W) }
]);

random_schedules!(dense_to_coo, check_dense_difference, { A(i,j) = B(i,j) - C(i,j); formats<A: coo>; }, [
    dense_to_coo_0 { precompute(B(i,j) - C(i,j), j, v1, W).split(v1, v2, v3, Down, 1) }
    dense_to_coo_1 { split(j, v1, v2, Down, 7).parallelize(v1, CpuVector, IgnoreRaces) }
    dense_to_coo_2 { reorder(j, i).split(i, v1, v2, Up, 7) }
    dense_to_coo_3 { split(j, v1, v2, Up, 7).precompute(B(i,j) - C(i,j), v2, v3, W) }
    dense_to_coo_4 { precompute(C(i,j), j, v1, W).bound(j, v2, 0, MinExact) }
    dense_to_coo_5 { bound(i, v1, 0, MinExact).split(v1, v2, v3, Down, 16) }
    dense_to_coo_6 { split(j, v1, v2, Up, 1).precompute(C(i,j), v2, v3, W) }
    dense_to_coo_7 { split(j, v1, v2, Up, 16).bound(v1, v3, 0, MinConstraint) }
    dense_to_coo_8 { split(j, v1, v2, Up, 1).parallelize(v2, CpuVector, NoRaces) }
    dense_to_coo_9 { reorder(i, j).split(j, v1, v2, Up, 3) }
    dense_to_coo_10 { precompute(C(i,j), j, v1, W).split(j, v2, v3, Up, 2) }
    dense_to_coo_11 { split(j, v1, v2, Up, 7).parallelize(v2, CpuVector, Atomics) }
]);

random_schedules!(ttv_csf, check_ttv, { A(i,j) = B(i,j,k) * c(k); formats<A: csr, B: csf>; }, [
    ttv_csf_0 { reorder(i, j).pos(i, v1, B) }
    ttv_csf_1 { reorder(i, k).split(i, v1, v2, Up, 16) }
    ttv_csf_2 { pos(i, v1, B).split(k, v2, v3, Up, 1) }
    ttv_csf_3 { split(j, v1, v2, Up, 16).parallelize(k, CpuVector, Atomics) }
    ttv_csf_4 { pos(j, v1, B).split(k, v2, v3, Up, 2) }
    ttv_csf_5 { prefetch(c, 16).reorder(j, k).pos(i, v1, B) }
    ttv_csf_6 { reorder(j, k).parallelize(k, CpuVector, IgnoreRaces) }
    ttv_csf_7 { unroll(k, 3).pos(k, v1, B).precompute(B(i,j,k) * c(k), v1, v2, W).split(v2, v3, v4, Up, 7) }
    ttv_csf_8 { reorder(i, j, k).split(i, v1, v2, Up, 2) }
    ttv_csf_9 { split(i, v1, v2, Down, 2).split(k, v3, v4, Down, 2) }
    ttv_csf_10 { pos(k, v1, B).split(v1, v2, v3, Down, 1).precompute(B(i,j,k) * c(k), v2, v4, W).coord(v3, v5) }
    ttv_csf_11 { reorder(i, j, k).reorder(i, k) }
]);

random_schedules!(dcsr_add, check_dcsr_add, { A(i,j) = B(i,j) + C(i,j); formats<B: dcsr, C: dcsr>; }, [
    dcsr_add_0 { split(j, v1, v2, Down, 3).split(i, v3, v4, Up, 3) }
    dcsr_add_1 { reorder(i, j).split(j, v1, v2, Down, 7) }
    dcsr_add_2 { split(i, v1, v2, Up, 3).parallelize(v1, CpuVector, IgnoreRaces) }
    dcsr_add_3 { split(j, v1, v2, Down, 2).parallelize(v1, CpuThread, NoRaces) }
    dcsr_add_4 { split(j, v1, v2, Down, 16).split(i, v3, v4, Up, 16) }
    dcsr_add_5 { reorder(i, j).split(i, v1, v2, Down, 3) }
    dcsr_add_6 { split(j, v1, v2, Up, 7).parallelize(v1, CpuVector, IgnoreRaces) }
]);

random_schedules!(vmul_sparse, check_sparse_vector_pair, { a(i) = b(i) * c(i); formats<a: sparse, b: sparse, c: sparse>; }, [
    vmul_sparse_0 { split(i, v1, v2, Down, 16).parallelize(v1, CpuVector, IgnoreRaces) }
    vmul_sparse_1 { split(i, v1, v2, Down, 7).reorder(v1, v2) }
    vmul_sparse_2 { split(i, v1, v2, Up, 2).reorder(v1, v2) }
    vmul_sparse_3 { split(i, v1, v2, Up, 2).parallelize(v1, CpuVector, IgnoreRaces) }
    vmul_sparse_4 { split(i, v1, v2, Up, 16).reorder(v1, v2) }
]);

random_schedules!(dcsr_spmv, check_spmv, { y(i) = A(i,j) * x(j); formats<A: dcsr>; }, [
    dcsr_spmv_0 { pos(i, v1, A).split(v1, v2, v3, Down, 3) }
    dcsr_spmv_1 { split(j, v1, v2, Down, 7).assemble(y, Append).parallelize(v1, CpuVector, Temporary).prefetch(x, 3) }
    dcsr_spmv_2 { pos(i, v1, A).split(j, v2, v3, Up, 3) }
    dcsr_spmv_3 { unroll(i, 2).pos(i, v1, A).split(v1, v2, v3, Down, 3) }
    dcsr_spmv_4 { pos(i, v1, A).parallelize(j, CpuThread, Temporary) }
    dcsr_spmv_5 { parallelize(i, CpuThread, NoRaces).parallelize(j, CpuVector, IgnoreRaces) }
    dcsr_spmv_6 { reorder(i, j).pos(i, v1, A) }
    dcsr_spmv_7 { split(j, v1, v2, Down, 7).parallelize(v1, CpuThread, Temporary) }
    dcsr_spmv_8 { pos(i, v1, A).parallelize(v1, CpuThread, Temporary) }
    dcsr_spmv_9 { split(j, v1, v2, Up, 3).split(i, v3, v4, Down, 2) }
    dcsr_spmv_10 { collapse(i, j, v1).pos(v1, v2, A) }
    dcsr_spmv_11 { pos(j, v1, A).parallelize(v1, CpuVector, ParallelReduction) }
]);

random_schedules!(mttkrp_csf, check_mttkrp, { A(i,j) = B(i,k,l) * D(l,j) * C(k,j); formats<B: csf>; }, [
    mttkrp_csf_0 { bound(j, v1, 0, MinExact).unroll(l, 3).split(v1, v2, v3, Up, 2) }
    mttkrp_csf_1 { precompute(B(i,k,l) * D(l,j), j, v1, W).prefetch(C, 3).split(l, v2, v3, Up, 2) }
    mttkrp_csf_2 { split(k, v1, v2, Up, 2).pos(l, v3, B) }
    mttkrp_csf_3 { pos(i, v1, B).unroll(j, 3).bound(v1, v2, 0, MinExact) }
    mttkrp_csf_4 { precompute(B(i,k,l) * D(l,j), j, v1, W).bound(j, v2, 0, MinConstraint) }
    mttkrp_csf_5 { prefetch(C, 16).split(k, v1, v2, Up, 7).reorder(v1, l) }
    mttkrp_csf_6 { split(j, v1, v2, Up, 1).parallelize(l, CpuThread, Temporary) }
    mttkrp_csf_7 { prefetch(D, 3).split(j, v1, v2, Down, 1).parallelize(v1, CpuVector, IgnoreRaces).prefetch(C, 2) }
    mttkrp_csf_8 { reorder(k, l, j).split(i, v1, v2, Down, 7) }
    mttkrp_csf_9 { split(j, v1, v2, Up, 7).split(k, v3, v4, Up, 7) }
    mttkrp_csf_10 { precompute(B(i,k,l) * D(l,j), j, v1, W).parallelize(k, CpuVector, IgnoreRaces) }
    mttkrp_csf_11 { pos(i, v1, B).parallelize(v1, CpuVector, ParallelReduction) }
]);
