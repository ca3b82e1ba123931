// Written by `SPARSE_BLESS=1 cargo test -p sparse-compiler --test schedule_fuzz`.

random_schedules!(spmv, check_spmv, { y(i) = A(i,j) * x(j); formats<A: csr>; }, [
    spmv_0 { pos(j, v1, A).precompute(A(i,j) * x(j), i, v2, W) }
    spmv_1 { reorder(i, j).precompute(A(i,j) * x(j), i, v1, W).unroll(i, 2).split(v1, v2, v3, Down, 3) }
    spmv_2 { split(i, v1, v2, Up, 1).assemble(y, Append).unroll(v2, 7).parallelize(j, CpuVector, ParallelReduction) }
    spmv_3 { bound(i, v1, 0, MinConstraint).split(v1, v2, v3, Up, 7) }
    spmv_4 { split(i, v1, v2, Down, 3).split(v2, v3, v4, Up, 1) }
    spmv_5 { prefetch(x, 1).split(i, v1, v2, Up, 3).split(v2, v3, v4, Down, 16) }
    spmv_6 { parallelize(i, CpuVector, IgnoreRaces).parallelize(j, CpuVector, Temporary) }
    spmv_7 { bound(i, v1, 0, MinExact).precompute(A(i,j) * x(j), v1, v2, W) }
    spmv_8 { precompute(A(i,j) * x(j), i, v1, W).split(v1, v2, v3, Up, 3) }
    spmv_9 { unroll(i, 3).reorder(i, j).pos(j, v1, A) }
    spmv_10 { unroll(j, 3).collapse(i, j, v1).pos(v1, v2, A) }
    spmv_11 { unroll(j, 2).unroll(j, 16).split(i, v1, v2, Up, 1).split(v2, v3, v4, Up, 1) }
]);

random_schedules!(spmspv, check_spmspv, { y(i) = A(i,j) * x(j); formats<A: csc, x: sparse>; }, [
    spmspv_0 { assemble(y, Insert).parallelize(j, CpuThread, Atomics).parallelize(i, CpuVector, Atomics) }
    spmspv_1 { pos(j, v1, x).split(v1, v2, v3, Up, 3) }
    spmspv_2 { parallelize(j, CpuVector, Temporary).parallelize(i, CpuThread, Atomics) }
    spmspv_3 { parallelize(i, CpuThread, NoRaces).parallelize(j, CpuVector, Atomics) }
    spmspv_4 { pos(j, v1, x).parallelize(i, CpuVector, IgnoreRaces) }
    spmspv_5 { parallelize(j, CpuVector, Atomics).parallelize(i, CpuVector, NoRaces) }
    spmspv_6 { pos(i, v1, A).parallelize(j, CpuVector, IgnoreRaces) }
    spmspv_7 { pos(j, v1, x).reorder(v1, i) }
]);

random_schedules!(spmm, check_spmm, { C(i,k) = A(i,j) * B(j,k); formats<A: csr>; }, [
    spmm_0 { precompute(A(i,j) * B(j,k), k, v1, W).parallelize(k, CpuVector, Atomics) }
    spmm_1 { split(k, v1, v2, Down, 2).parallelize(v1, CpuThread, Atomics) }
    spmm_2 { split(k, v1, v2, Up, 16).split(i, v3, v4, Up, 3) }
    spmm_3 { precompute(A(i,j) * B(j,k), k, v1, W).split(k, v2, v3, Up, 3) }
    spmm_4 { reorder(k, i).parallelize(j, CpuThread, Temporary) }
    spmm_5 { unroll(i, 7).precompute(A(i,j) * B(j,k), k, v1, W).prefetch(B, 16).split(k, v2, v3, Down, 16) }
    spmm_6 { reorder(k, j).split(i, v1, v2, Down, 3).split(v2, v3, v4, Up, 7) }
    spmm_7 { split(k, v1, v2, Up, 16).split(v2, v3, v4, Up, 7) }
    spmm_8 { split(i, v1, v2, Up, 16).split(k, v3, v4, Up, 7) }
    spmm_9 { parallelize(k, CpuVector, IgnoreRaces).parallelize(j, CpuVector, Atomics) }
    spmm_10 { split(k, v1, v2, Down, 16).split(i, v3, v4, Up, 16) }
    spmm_11 { pos(j, v1, A).parallelize(i, CpuThread, NoRaces) }
]);

random_schedules!(sddmm, check_sddmm, { A(i,k) = B(i,k) * C(i,j) * D(j,k); formats<A: csr, B: csr>; }, [
    sddmm_0 { split(j, v1, v2, Up, 1).parallelize(k, CpuThread, Atomics) }
    sddmm_1 { split(i, v1, v2, Up, 3).pos(k, v3, B) }
    sddmm_2 { precompute(B(i,k) * C(i,j), j, v1, W).pos(k, v2, B) }
    sddmm_3 { split(i, v1, v2, Up, 3).parallelize(v1, CpuVector, IgnoreRaces) }
    sddmm_4 { split(i, v1, v2, Up, 1).split(v1, v3, v4, Up, 16) }
    sddmm_5 { precompute(B(i,k) * C(i,j), j, v1, W).split(v1, v2, v3, Up, 16) }
    sddmm_6 { precompute(B(i,k) * C(i,j), j, v1, W).split(v1, v2, v3, Down, 2) }
    sddmm_7 { bound(i, v1, 0, MinExact).pos(k, v2, B) }
    sddmm_8 { pos(k, v1, B).split(i, v2, v3, Up, 1) }
    sddmm_9 { split(i, v1, v2, Down, 16).reorder(v2, k) }
    sddmm_10 { pos(k, v1, B).parallelize(j, CpuThread, Atomics) }
    sddmm_11 { assemble(A, Append).parallelize(j, CpuVector, IgnoreRaces).parallelize(i, CpuVector, Atomics) }
]);

random_schedules!(ttv, check_ttv, { A(i,j) = B(i,j,k) * c(k); formats<A: csr, B: (dense, compressed, compressed)>; }, [
    ttv_0 { split(i, v1, v2, Up, 1).reorder(v1, j) }
    ttv_1 { unroll(j, 2).pos(k, v1, B).precompute(B(i,j,k) * c(k), v1, v2, W) }
    ttv_2 { parallelize(i, CpuThread, IgnoreRaces).parallelize(k, CpuVector, Temporary) }
    ttv_3 { reorder(i, j).reorder(j, k) }
    ttv_4 { reorder(i, k).parallelize(j, CpuVector, Atomics) }
    ttv_5 { split(i, v1, v2, Down, 7).split(v1, v3, v4, Up, 2).unroll(v2, 2) }
    ttv_6 { collapse(i, j, v1).reorder(v1, k).pos(v1, v2, B).bound(v2, v3, 0, MinConstraint) }
    ttv_7 { split(i, v1, v2, Up, 1).parallelize(v1, CpuThread, IgnoreRaces) }
    ttv_8 { pos(k, v1, B).precompute(B(i,j,k) * c(k), v1, v2, W) }
    ttv_9 { split(i, v1, v2, Up, 3).pos(k, v3, B).precompute(B(i,j,k) * c(k), v3, v4, W) }
    ttv_10 { split(i, v1, v2, Down, 7).parallelize(k, CpuVector, ParallelReduction) }
    ttv_11 { split(i, v1, v2, Up, 7).pos(k, v3, B) }
]);

random_schedules!(mttkrp, check_mttkrp, { A(i,j) = B(i,k,l) * D(l,j) * C(k,j); formats<B: (dense, compressed, compressed)>; }, [
    mttkrp_0 { unroll(j, 16).unroll(k, 3).unroll(i, 7).split(j, v1, v2, Up, 7).parallelize(v2, CpuVector, IgnoreRaces) }
    mttkrp_1 { reorder(k, j).split(j, v1, v2, Up, 1) }
    mttkrp_2 { parallelize(k, CpuVector, ParallelReduction).parallelize(i, CpuThread, Atomics) }
    mttkrp_3 { split(i, v1, v2, Up, 2).split(v1, v3, v4, Down, 3) }
    mttkrp_4 { reorder(j, k).reorder(j, l) }
    mttkrp_5 { unroll(i, 3).reorder(i, j).parallelize(k, CpuThread, ParallelReduction) }
    mttkrp_6 { prefetch(D, 16).pos(l, v1, B).split(i, v2, v3, Down, 3) }
    mttkrp_7 { reorder(i, k, l).reorder(j, i) }
    mttkrp_8 { split(j, v1, v2, Down, 3).parallelize(i, CpuVector, IgnoreRaces).parallelize(v1, CpuVector, Atomics) }
    mttkrp_9 { reorder(j, i).parallelize(k, CpuVector, Atomics) }
    mttkrp_10 { split(i, v1, v2, Down, 3).unroll(v2, 1).pos(l, v3, B) }
    mttkrp_11 { split(j, v1, v2, Up, 3).collapse(v1, v2, v3) }
]);

random_schedules!(spadd, check_elementwise, { A(i,j) = B(i,j) + C(i,j); formats<A: csr, B: csr, C: csr>; }, [
    spadd_0 { split(i, v1, v2, Down, 1).parallelize(v1, CpuThread, Atomics) }
    spadd_1 { split(i, v1, v2, Down, 7).split(v1, v3, v4, Down, 3).unroll(v3, 7) }
    spadd_2 { split(i, v1, v2, Down, 7).split(v2, v3, v4, Down, 7) }
    spadd_3 { split(i, v1, v2, Up, 16).collapse(v1, v2, v3) }
    spadd_4 { split(i, v1, v2, Down, 7).split(v1, v3, v4, Down, 3) }
    spadd_5 { split(i, v1, v2, Up, 16).reorder(v1, v2) }
]);

random_schedules!(spgemm, check_spgemm, { A(i,j) = B(i,k) * C(k,j); formats<A: csr, B: csr, C: csr>; }, [
    spgemm_0 { reorder(k, j).pos(k, v1, B) }
    spgemm_1 { parallelize(k, CpuVector, Atomics).parallelize(j, CpuVector, NoRaces) }
    spgemm_2 { split(i, v1, v2, Down, 7).pos(k, v3, B) }
    spgemm_3 { reorder(i, j).unroll(i, 2).reorder(i, j) }
    spgemm_4 { split(i, v1, v2, Up, 3).unroll(j, 1).reorder(v2, j) }
    spgemm_5 { split(i, v1, v2, Up, 3).parallelize(j, CpuVector, Atomics) }
    spgemm_6 { reorder(k, j).split(i, v1, v2, Up, 3) }
    spgemm_7 { split(i, v1, v2, Up, 16).split(v1, v3, v4, Down, 3) }
    spgemm_8 { reorder(i, j).parallelize(k, CpuVector, Temporary) }
    spgemm_9 { reorder(i, j).reorder(i, k, j) }
    spgemm_10 { split(i, v1, v2, Up, 16).split(v2, v3, v4, Up, 16) }
    spgemm_11 { bound(i, v1, 0, MinExact).split(v1, v2, v3, Down, 16) }
]);

random_schedules!(coo_spmv, check_spmv, { y(i) = A(i,j) * x(j); formats<A: coo>; }, [
    coo_spmv_0 { pos(i, v1, A).parallelize(v1, CpuThread, ParallelReduction).prefetch(x, 1) }
    coo_spmv_1 { pos(i, v1, A).parallelize(j, CpuThread, ParallelReduction) }
    coo_spmv_2 { pos(j, v1, A).parallelize(v1, CpuVector, ParallelReduction) }
    coo_spmv_3 { pos(i, v1, A).parallelize(j, CpuVector, Atomics) }
    coo_spmv_4 { pos(i, v1, A).pos(j, v2, A) }
    coo_spmv_5 { parallelize(j, CpuVector, Temporary).parallelize(i, CpuVector, Atomics) }
    coo_spmv_6 { pos(j, v1, A).unroll(i, 2).parallelize(i, CpuThread, Atomics) }
    coo_spmv_7 { pos(j, v1, A).unroll(v1, 7).precompute(A(i,j) * x(j), v1, v2, W) }
    coo_spmv_8 { pos(i, v1, A).split(v1, v2, v3, Up, 1) }
    coo_spmv_9 { pos(i, v1, A).parallelize(j, CpuVector, Temporary) }
    coo_spmv_10 { parallelize(i, CpuThread, Atomics).parallelize(j, CpuVector, ParallelReduction) }
    coo_spmv_11 { pos(i, v1, A).split(v1, v2, v3, Up, 3) }
]);

random_schedules!(dcsr_spmv_plus, check_spmv_plus, { y(i) = A(i,j) * x(j) + z(i); formats<A: dcsr>; }, [
    dcsr_spmv_plus_0 { pos(j, v1, A).split(v1, v2, v3, Up, 7) }
]);

random_schedules!(ell_spmv, check_spmv, { y(i) = A(i,j) * x(j); formats<A: ell>; }, [
    ell_spmv_0 { precompute(A(i,j) * x(j), i, v1, W).split(i, v2, v3, Up, 16) }
    ell_spmv_1 { reorder(i, j).split(i, v1, v2, Down, 3) }
    ell_spmv_2 { reorder(i, j).precompute(A(i,j) * x(j), i, v1, W) }
    ell_spmv_3 { unroll(i, 3).precompute(A(i,j) * x(j), i, v1, W).parallelize(i, CpuVector, IgnoreRaces) }
    ell_spmv_4 { reorder(i, j).parallelize(j, CpuVector, Temporary) }
    ell_spmv_5 { pos(j, v1, A).precompute(A(i,j) * x(j), i, v2, W) }
    ell_spmv_6 { split(i, v1, v2, Up, 2).reorder(v2, j).unroll(j, 7) }
    ell_spmv_7 { split(i, v1, v2, Up, 1).collapse(v1, v2, v3) }
    ell_spmv_8 { precompute(A(i,j) * x(j), i, v1, W).pos(j, v2, A) }
    ell_spmv_9 { precompute(A(i,j) * x(j), i, v1, W).split(i, v2, v3, Down, 3) }
    ell_spmv_10 { split(i, v1, v2, Up, 16).unroll(v1, 2).unroll(v1, 7).assemble(y, Insert).precompute(A(i,j) * x(j), v2, v3, W) }
    ell_spmv_11 { reorder(i, j).assemble(y, Append).parallelize(i, CpuThread, NoRaces) }
]);

random_schedules!(emul, check_elementwise, { A(i,j) = B(i,j) * C(i,j); formats<A: csr, B: csr, C: csr>; }, [
    emul_0 { split(i, v1, v2, Up, 7).split(v1, v3, v4, Down, 2).unroll(v4, 3) }
    emul_1 { split(i, v1, v2, Up, 3).parallelize(v2, CpuVector, IgnoreRaces) }
    emul_2 { split(i, v1, v2, Up, 1).parallelize(v2, CpuThread, Atomics) }
    emul_3 { split(i, v1, v2, Up, 2).split(v1, v3, v4, Up, 16) }
    emul_4 { split(i, v1, v2, Down, 16).split(v2, v3, v4, Up, 3) }
    emul_5 { split(i, v1, v2, Down, 3).parallelize(v2, CpuVector, NoRaces) }
    emul_6 { split(i, v1, v2, Down, 16).parallelize(v1, CpuVector, IgnoreRaces) }
    emul_7 { split(i, v1, v2, Up, 3).unroll(j, 2).bound(v1, v3, 0, MinConstraint) }
    emul_8 { split(i, v1, v2, Down, 7).split(v2, v3, v4, Up, 16) }
    emul_9 { split(i, v1, v2, Down, 7).collapse(v1, v2, v3) }
    emul_10 { split(i, v1, v2, Down, 2).split(v1, v3, v4, Up, 16) }
    emul_11 { split(i, v1, v2, Up, 3).parallelize(v2, CpuThread, Atomics) }
]);
