//! Golden snapshots of the CUDA source that GPU schedules expand to (the warp-per-row SpMV and the
//! position split of Senanayake et al.'s evaluation, their SpMM, a CG update with a scalar input,
//! and a warp per row whose lanes split its columns by coordinate), so reviewers see changes to the CUDA printer, together with the launchers of two.
//! `SPARSE_BLESS=1 cargo test -p sparse-compiler --test cuda_golden` rewrites them.

use std::path::Path;

fn check(path: &str, text: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(path);
    if std::env::var_os("SPARSE_BLESS").is_some() {
        std::fs::write(&path, text).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        want == text,
        "{}: output changed; rerun with SPARSE_BLESS=1 and review the diff\n{text}",
        path.display()
    );
}

fn cuda(name: &str, kernel: &str) {
    let source = sparse_compiler::cuda_source(kernel.parse().unwrap())
        .map_err(|e| e[0].message())
        .unwrap();
    check(&format!("{name}.cu"), &format!("// {kernel}\n{source}"));
}

const WARP: &str = "fn spmv_warp; y(i) = A(i,j) * x(j); formats<A: csr>; \
    schedule<split(i, block, block_row, Down, 256).split(block_row, warp_row, warp, Down, 8) \
    .pos(j, jpos, A(i,j)).split(jpos, thread_nz, thread, Down, 32) \
    .reorder(block, warp, warp_row, thread, thread_nz) \
    .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces) \
    .parallelize(thread, GpuThread, Temporary)>;";

#[test]
fn golden_cuda_spmv_warp_per_row() {
    cuda("cuda_spmv_warp", WARP);
}

#[test]
fn golden_cuda_spmv_position_split() {
    cuda(
        "cuda_spmv_pos",
        "fn spmv_pos; y(i) = A(i,j) * x(j); formats<A: csr>; \
         schedule<collapse(i, j, f).pos(f, fpos, A(i,j)) \
         .split(fpos, block, fpos1, Down, 3584).split(fpos1, warp, fpos2, Down, 224) \
         .split(fpos2, thread, thread_nz, Down, 7).reorder(block, warp, thread, thread_nz) \
         .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces) \
         .parallelize(thread, GpuThread, Atomics)>;",
    );
}

#[test]
fn golden_cuda_spmm() {
    cuda(
        "cuda_spmm",
        "fn spmm; C(i,k) = A(i,j) * B(j,k); formats<A: csr, C: (dense, dense) order(1,0)>; \
         schedule<reorder(i, j, k).collapse(i, j, f).pos(f, fpos, A(i,j)) \
         .split(fpos, block, fpos1, Down, 256).split(fpos1, warp, nnz, Down, 16) \
         .split(k, dense_val, thread, Down, 32).reorder(block, warp, thread, dense_val, nnz) \
         .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces) \
         .parallelize(thread, GpuThread, Atomics)>;",
    );
}

/// A coordinate split of a compressed level on the GPU: each lane of a row's warp searches where
/// its tile of columns starts.
#[test]
fn golden_cuda_spmv_coordinate_tiles() {
    cuda(
        "cuda_spmv_tiles",
        "fn spmv_warp_tiles; y(i) = A(i,j) * x(j); formats<A: csr>; \
         schedule<split(i, block, warp, Down, 8).split(j, lane, tile, Up, 32) \
         .parallelize(block, GpuBlock, NoRaces).parallelize(warp, GpuWarp, NoRaces) \
         .parallelize(lane, GpuThread, ParallelReduction)>;",
    );
}

const CG_P: &str = "fn cg_p(p, r, beta); p(i) = r(i) + beta * p(i); scalars<beta>; \
    schedule<split(i, block, thread, Down, 256) \
    .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces)>;";

/// A scalar input is a by-value `T` parameter, and the output is read where it is written.
#[test]
fn golden_cuda_scalar_input() {
    cuda("cuda_cg_p", CG_P);
}

/// Its launcher takes the scalar as a plain `T` and passes it by value.
#[test]
fn golden_launcher_scalar_input() {
    launcher("launcher_cg_p.rs", CG_P);
}

/// The launcher: shape checks, zeroing, the grid, the index width and the arguments.
#[test]
fn golden_launcher_spmv_warp_per_row() {
    launcher("launcher_spmv_warp.rs", WARP);
}

fn launcher(path: &str, kernel: &str) {
    let tokens = sparse_compiler::compile(kernel.parse().unwrap())
        .map_err(|e| e[0].message())
        .unwrap();
    let file: syn::File = syn::parse2(tokens).expect("the expansion parses as a file");
    let text = prettyplease::unparse(&file);
    assert!(!text.contains("unsafe"), "{text}");
    check(path, &format!("// Expansion of: {kernel}\n{text}"));
}
