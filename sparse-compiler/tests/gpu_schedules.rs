//! The schedule stage of GPU kernels (the README): every GPU schedule of the evaluation of
//! Senanayake et al. 2020 (with the parameters of its evaluation) passes it with
//! the launch shape lowering needs, and each GPU precondition fails with its message. Lowering and
//! emitting GPU kernels are tested where they are written.

use proc_macro2::TokenStream;
use sparse_compiler::error::GpuPrecondition;
use sparse_compiler::schedule::{GpuLaunch, Scheduled};
use sparse_compiler::{ErrorKind, notation::Program};

fn schedule(source: &str) -> Result<(Program, Scheduled), String> {
    let tokens: TokenStream = source.parse().expect("valid tokens");
    sparse_compiler::scheduled(tokens).map_err(|errors| {
        let messages: Vec<String> = errors.iter().map(|e| e.message()).collect();
        messages.join("\n")
    })
}

/// The launch shape of a schedule that must pass, with the loops named.
fn launch(source: &str) -> (String, Option<String>, Option<String>, usize) {
    let (program, scheduled) = schedule(source).unwrap_or_else(|e| panic!("{source}\n{e}"));
    let GpuLaunch {
        block,
        warp,
        thread,
        threads_per_block,
    } = scheduled
        .gpu
        .unwrap_or_else(|| panic!("no GPU launch: {source}"));
    let name = |v: usize| program.vars[v].clone();
    (
        name(block),
        warp.map(name),
        thread.map(name),
        threads_per_block,
    )
}

fn some(s: &str) -> Option<String> {
    Some(s.to_string())
}

/// SpMV with NNZ_PER_THREAD = 7 and BLOCK_SIZE = 512: NNZ_PER_WARP = 224, NNZ_PER_TB = 3584.
const SPMV_POS_SPLIT: &str = "fn k; y(i) = A(i,j) * x(j); formats<A: csr>;
    schedule<fuse(i, j, f).pos(f, fpos, A(i,j))
        .split(fpos, block, fpos1, Down, 3584).split(fpos1, warp, fpos2, Down, 224)
        .split(fpos2, thread, thread_nz, Down, 7).reorder(block, warp, thread, thread_nz)";
const GPU_UNITS_ATOMICS: &str = ".parallelize(block, GpuBlock, IgnoreRaces)
        .parallelize(warp, GpuWarp, IgnoreRaces).parallelize(thread, GpuThread, Atomics)>;";

#[test]
fn spmv_position_split_with_and_without_precompute() {
    let plain = format!("{SPMV_POS_SPLIT}{GPU_UNITS_ATOMICS}");
    let precomputed = format!(
        "{SPMV_POS_SPLIT}.precompute(A(i,j) * x(j), thread_nz, thread_nz_pre, precomputed)
            .unroll(thread_nz_pre, 7){GPU_UNITS_ATOMICS}"
    );
    for source in [plain, precomputed] {
        let want = ("block".into(), some("warp"), some("thread"), 512);
        assert_eq!(launch(&source), want, "{source}");
    }
}

#[test]
fn spmv_warp_per_row_and_thread_per_row() {
    let warp_per_row = "fn k; y(i) = A(i,j) * x(j); formats<A: csr>;
        schedule<split(i, block, block_row, Down, 256).split(block_row, warp_row, warp, Down, 8)
            .pos(j, jpos, A(i,j)).split(jpos, thread_nz, thread, Down, 32)
            .reorder(block, warp, warp_row, thread, thread_nz)
            .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
            .parallelize(thread, GpuThread, Temporary)>;";
    let want = ("block".into(), some("warp"), some("thread"), 256);
    assert_eq!(launch(warp_per_row), want);
    let thread_per_row = "fn k; y(i) = A(i,j) * x(j); formats<A: csr>;
        schedule<split(i, block, thread, Down, 256)
            .parallelize(block, GpuBlock, NoRaces).parallelize(thread, GpuThread, NoRaces)>;";
    assert_eq!(
        launch(thread_per_row),
        ("block".into(), None, some("thread"), 256)
    );
}

/// A coordinate split of the compressed columns: each lane of a row's warp is a tile of
/// `ceil(n / 32)` columns (its start found by a binary search, so the lane loop's extent is the
/// constant 32 while the tile's positions depend on the row).
#[test]
fn spmv_warp_per_row_with_coordinate_tiles_of_columns() {
    let source = "fn k; y(i) = A(i,j) * x(j); formats<A: csr>;
        schedule<split(i, block, warp, Down, 8).split(j, lane, tile, Up, 32)
            .parallelize(block, GpuBlock, NoRaces).parallelize(warp, GpuWarp, NoRaces)
            .parallelize(lane, GpuThread, ParallelReduction)>;";
    assert_eq!(
        launch(source),
        ("block".into(), some("warp"), some("lane"), 256)
    );
}

#[test]
fn spmspv() {
    let source = "fn k; y(i) = A(i,j) * x(j); formats<A: dcsc, x: sparse>;
        schedule<reorder(j, i).pos(j, jpos, x(j)).bound(jpos, jpos_bound, 0, MinExact)
            .split(jpos_bound, block, thread, Down, 512).reorder(block, thread, i)
            .parallelize(block, GpuBlock, IgnoreRaces).parallelize(thread, GpuThread, Atomics)>;";
    assert_eq!(launch(source), ("block".into(), None, some("thread"), 512));
}

/// SpMM with NNZ_PER_WARP = 16 and BLOCK_SIZE = 512 (NNZ_PER_TB = 256), K = 128: the outer part
/// of the split dense loop is bounded to 4.
#[test]
fn spmm() {
    let source = "fn k; C(i,k) = A(i,j) * B(j,k); formats<A: csr, C: (dense, dense) order(1,0)>;
        schedule<reorder(i, j, k).fuse(i, j, f).pos(f, fpos, A(i,j))
            .split(fpos, block, fpos1, Down, 256).split(fpos1, warp, nnz, Down, 16)
            .split(k, dense_val_unbounded, thread, Down, 32)
            .reorder(block, warp, thread, dense_val_unbounded, nnz)
            .bound(dense_val_unbounded, dense_val, 4, MaxExact)
            .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
            .parallelize(thread, GpuThread, Atomics)>;";
    assert_eq!(
        launch(source),
        ("block".into(), some("warp"), some("thread"), 512)
    );
    let (program, scheduled) = schedule(source).unwrap();
    let var = |name: &str| program.vars.iter().position(|v| v == name).unwrap();
    assert_eq!(scheduled.constant_extent(var("dense_val")), Some(4));
    assert_eq!(scheduled.constant_extent(var("dense_val_unbounded")), None);
    assert_eq!(scheduled.constant_extent(var("warp")), Some(16));
    assert_eq!(scheduled.constant_extent(var("nnz")), Some(16));
    assert_eq!(scheduled.constant_extent(var("block")), None);
}

/// SDDMM with NNZ_PER_WARP = 128, BLOCK_SIZE = 512 (NNZ_PER_TB = 2048), CO_FACTOR = 4, J = 128:
/// the output takes `B`'s structure.
#[test]
fn sddmm() {
    let source = "fn k; A(i,k) = B(i,k) * C(i,j) * D(j,k);
        formats<A: csr, B: csr, D: (dense, dense) order(1,0)>;
        schedule<reorder(i, k, j).fuse(i, k, f).pos(f, fpos, B(i,k))
            .split(fpos, block, fpos1, Down, 2048).split(fpos1, warp, nnz, Down, 128)
            .split(j, dense_val_unbounded, thread, Down, 32)
            .bound(dense_val_unbounded, dense_val, 4, MaxExact)
            .reorder(block, warp, nnz, thread, dense_val).unroll(dense_val, 4)
            .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, Atomics)
            .parallelize(thread, GpuThread, ParallelReduction)>;";
    assert_eq!(
        launch(source),
        ("block".into(), some("warp"), some("thread"), 512)
    );
}

/// TTV (NNZ_PER_WARP = 128, BLOCK_SIZE = 512) into a sparse output with `B`'s structure.
#[test]
fn ttv() {
    let source = "fn k; A(i,j) = B(i,j,k) * c(k);
        formats<A: (dense, compressed), B: (dense, compressed, compressed)>;
        schedule<fuse(j, k, jk).fuse(i, jk, f).pos(f, fpos, B(i,j,k))
            .split(fpos, block, fpos1, Down, 2048).split(fpos1, warp, fpos2, Down, 128)
            .split(fpos2, thread, thread_nz, Down, 4).reorder(block, warp, thread, thread_nz)
            .precompute(B(i,j,k) * c(k), thread_nz, thread_nz_pre, precomputed)
            .unroll(thread_nz_pre, 4)
            .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
            .parallelize(thread, GpuThread, Atomics)>;";
    assert_eq!(
        launch(source),
        ("block".into(), some("warp"), some("thread"), 512)
    );
}

/// MTTKRP with NNZ_PER_WARP = 4, BLOCK_SIZE = 512 (NNZ_PER_TB = 64), J = 32.
#[test]
fn mttkrp() {
    let source = "fn k; A(i,j) = B(i,k,l) * C(k,j) * D(l,j);
        formats<B: (compressed, compressed, compressed)>;
        schedule<reorder(i, k, l, j).fuse(k, l, kl).fuse(i, kl, f).pos(f, fpos, B(i,k,l))
            .split(fpos, block, fpos1, Down, 64).split(fpos1, warp, nnz, Down, 4)
            .split(j, dense_val_unbounded, thread, Down, 32)
            .bound(dense_val_unbounded, dense_val, 1, MaxExact)
            .reorder(block, warp, dense_val, thread, nnz)
            .parallelize(block, GpuBlock, IgnoreRaces).parallelize(warp, GpuWarp, IgnoreRaces)
            .parallelize(thread, GpuThread, Atomics)>;";
    assert_eq!(
        launch(source),
        ("block".into(), some("warp"), some("thread"), 512)
    );
}

#[test]
fn cpu_kernels_have_no_launch() {
    let source = "fn k; y(i) = A(i,j) * x(j); formats<A: csr>;
        schedule<split(i, i0, i1, Down, 32).parallelize(i0, CpuThread, NoRaces)>;";
    assert_eq!(schedule(source).unwrap().1.gpu, None);
}

/// The error of a schedule that must fail at the schedule stage with a GPU precondition.
fn precondition(source: &str) -> GpuPrecondition {
    let tokens: TokenStream = source.parse().expect("valid tokens");
    let errors = match sparse_compiler::scheduled(tokens) {
        Ok(_) => panic!("scheduled: {source}"),
        Err(errors) => errors,
    };
    match &errors[0].kind {
        ErrorKind::Gpu(p) => p.clone(),
        other => panic!("{source}\n{other:?}"),
    }
}

const SPMV: &str = "fn k; y(i) = A(i,j) * x(j); formats<A: csr>;";

#[test]
fn each_precondition_fails_with_its_message() {
    let cases: &[(&str, &str)] = &[
        (
            "split(i, block, thread, Down, 256).parallelize(thread, GpuThread, NoRaces)",
            "`thread` runs on `GpuThread` but no enclosing loop runs on `GpuBlock`",
        ),
        (
            "split(i, block, warp, Down, 8).parallelize(warp, GpuWarp, NoRaces)",
            "`warp` runs on `GpuWarp` but no enclosing loop runs on `GpuBlock`",
        ),
        (
            "split(i, i0, block, Down, 8).parallelize(block, GpuBlock, NoRaces)",
            "`block` runs on `GpuBlock` but is not the kernel's outermost loop",
        ),
        (
            "split(i, thread, block, Down, 8).parallelize(block, GpuBlock, NoRaces)
                .parallelize(thread, GpuThread, NoRaces)",
            "`block` (`GpuBlock`) is nested inside `thread` (`GpuThread`)",
        ),
        (
            "split(i, block, thread, Down, 256).parallelize(block, GpuBlock, NoRaces)
                .parallelize(j, GpuThread, Atomics)",
            "the extent of `j` (`GpuThread`) must be a compile-time constant",
        ),
        (
            "split(i, block, thread, Down, 2048).parallelize(block, GpuBlock, NoRaces)
                .parallelize(thread, GpuThread, NoRaces)",
            "`thread` makes 2048 threads per GPU block, over CUDA's limit of 1024",
        ),
        (
            "split(i, block, warp, Down, 64).parallelize(block, GpuBlock, NoRaces)
                .parallelize(warp, GpuWarp, NoRaces)",
            "`warp` makes 2048 threads per GPU block",
        ),
        (
            "split(i, block, warp, Down, 8).pos(j, jpos, A(i,j)).split(jpos, jo, thread, Down, 16)
                .parallelize(block, GpuBlock, NoRaces).parallelize(warp, GpuWarp, NoRaces)
                .parallelize(thread, GpuThread, Temporary)",
            "the `GpuThread` loop `thread` must have extent 32",
        ),
        (
            "split(i, block, thread, Down, 256).parallelize(block, GpuBlock, NoRaces)
                .parallelize(thread, CpuThread, NoRaces)",
            "`thread` runs on `CpuThread` in a kernel with GPU units",
        ),
        (
            "split(i, block, thread, Down, 256).parallelize(block, GpuBlock, NoRaces)
                .parallelize(j, CpuVector, IgnoreRaces)",
            "`j` runs on `CpuVector` in a kernel with GPU units",
        ),
    ];
    for (chain, want) in cases {
        let source = format!("{SPMV} schedule<{chain}>;");
        let message = precondition(&source).message();
        assert!(message.contains(want), "{source}\n{message}");
    }
}

/// A block or a warp has no private partial of its own: a sum over it takes `Atomics`.
#[test]
fn blocks_and_warps_take_no_temporary() {
    let dot = "fn k; a = b(i) * c(i);";
    let block = format!("{dot} schedule<parallelize(i, GpuBlock, Temporary)>;");
    let message = precondition(&block).message();
    assert!(
        message.contains("`GpuBlock` cannot implement `Temporary` for `i`"),
        "{message}"
    );
    let warp = format!(
        "{dot} schedule<split(i, block, warp, Down, 8).parallelize(block, GpuBlock, Atomics)
            .parallelize(warp, GpuWarp, ParallelReduction)>;"
    );
    let message = precondition(&warp).message();
    assert!(
        message.contains("`GpuWarp` cannot implement `ParallelReduction` for `warp`"),
        "{message}"
    );
}

#[test]
fn atomics_need_a_sum_and_sparse_outputs_an_input_structure() {
    let add = "fn k; C(i,j) = A(i,j) + B(i,j); formats<A: csr, B: csr>;
        schedule<parallelize(i, GpuBlock, Atomics)>;";
    let message = precondition(add).message();
    assert!(
        message.contains("`Atomics` on `i`, but nothing is summed"),
        "{message}"
    );
    let assembled = "fn k; C(i,j) = A(i,j) + B(i,j); formats<A: csr, B: csr, C: csr>;
        schedule<parallelize(i, GpuBlock, IgnoreRaces)>;";
    let message = precondition(assembled).message();
    assert!(
        message.contains("GPU kernels write dense outputs or sparse outputs with an input's"),
        "{message}"
    );
}

/// The Temporary and ParallelReduction condition of the CPU applies to GPU threads: the thread's
/// iterations must reduce into a value the enclosing loop writes.
#[test]
fn thread_temporary_needs_a_reduction_over_the_thread() {
    let source = format!(
        "{SPMV} schedule<split(i, block, thread, Down, 256).parallelize(block, GpuBlock, NoRaces)
            .parallelize(thread, GpuThread, Temporary)>;"
    );
    let tokens: TokenStream = source.parse().unwrap();
    let errors = sparse_compiler::scheduled(tokens).expect_err("refused");
    assert!(matches!(errors[0].kind, ErrorKind::ParallelRaceNotOver(_)));
}

/// An upper bound of the outer part of a `Down` split (whose extent its parent's decides) is
/// accepted, on the CPU too; the inner part's extent is the factor already, and a position loop
/// has no extent to promise about.
#[test]
fn upper_bounds_of_split_parts() {
    let outer = format!(
        "{SPMV} schedule<split(i, i0, i1, Down, 4).bound(i0, ib, 8, MaxExact)
            .parallelize(ib, CpuThread, NoRaces)>;"
    );
    let (program, scheduled) = schedule(&outer).unwrap_or_else(|e| panic!("{e}"));
    let ib = program.vars.iter().position(|v| v == "ib").unwrap();
    assert_eq!(scheduled.constant_extent(ib), Some(8));
    for refused in [
        "split(i, i0, i1, Down, 4).bound(i1, ib, 4, MaxExact)",
        "split(i, i0, i1, Up, 4).bound(i0, ib, 4, MaxConstraint)",
        "pos(j, jpos, A(i,j)).bound(jpos, jb, 4, MaxExact)",
    ] {
        let source = format!("{SPMV} schedule<{refused}>;");
        let message = schedule(&source).expect_err("refused");
        assert!(
            message.contains("which another command derived"),
            "{message}"
        );
    }
}
