//! Whole-pipeline checks on the kernels of the test suite:
//! - every `tensor_kernel!` in the root package's `tests/kernels_*.rs` compiles, and its expansion
//!   contains no `unsafe` token;
//! - golden snapshots of the Rust that seven kernels expand to (SpMV CSR, CSR + CSR -> CSR, SpGEMM,
//!   `A Aᵀ` into CSR, position-split SpMV, an axpy with a parameter list and a scalar, SDDMM),
//!   so reviewers see codegen changes. `SPARSE_BLESS=1 cargo test -p sparse-compiler --test
//!   expansion` rewrites them.

use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The body of every `tensor_kernel! { ... }` in the kernel test files, with its file name.
fn suite_kernels() -> Vec<(String, TokenStream)> {
    let mut kernels = Vec::new();
    let dir = root().join("tests");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("kernels_"))
        })
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable test file");
        let tokens: TokenStream = text.parse().expect("test file tokenizes");
        collect_invocations(tokens, &file.display().to_string(), &mut kernels);
    }
    kernels
}

fn collect_invocations(tokens: TokenStream, file: &str, out: &mut Vec<(String, TokenStream)>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (k, t) in tokens.iter().enumerate() {
        let is_macro = matches!(t, TokenTree::Ident(i) if i == "tensor_kernel")
            && matches!(tokens.get(k + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!');
        if let (true, Some(TokenTree::Group(body))) = (is_macro, tokens.get(k + 2)) {
            out.push((file.to_string(), body.stream()));
        }
    }
}

fn has_unsafe(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == "unsafe",
        TokenTree::Group(g) => has_unsafe(g.stream()),
        _ => false,
    })
}

#[test]
fn every_suite_kernel_expands_to_safe_rust() {
    let kernels = suite_kernels();
    assert!(kernels.len() >= 39, "found only {} kernels", kernels.len());
    for (file, body) in kernels {
        let expanded = sparse_compiler::compile(body.clone())
            .unwrap_or_else(|e| panic!("{file}: `{body}` failed: {}", e[0].message()));
        assert!(
            !has_unsafe(expanded),
            "{file}: `{body}` expands to unsafe code"
        );
    }
}

#[test]
fn the_unsafe_check_can_fail() {
    assert!(has_unsafe("fn f() { { unsafe { g() } } }".parse().unwrap()));
    assert!(!has_unsafe("fn f() { safe(); }".parse().unwrap()));
}

fn golden(name: &str, kernel: &str) {
    let tokens = sparse_compiler::compile(kernel.parse().unwrap())
        .map_err(|e| e[0].message())
        .unwrap();
    let file: syn::File = syn::parse2(tokens).expect("the expansion parses as a file");
    let text = format!(
        "// Expansion of: {kernel}\n{}",
        prettyplease::unparse(&file)
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/expanded")
        .join(format!("{name}.rs"));
    if std::env::var_os("SPARSE_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        want == text,
        "{name}: expansion changed; rerun with SPARSE_BLESS=1 and review the diff\n{text}"
    );
}

#[test]
fn golden_spmv_csr() {
    golden(
        "spmv_csr",
        "fn spmv; y(i) = A(i,j) * x(j); formats<A: csr>;",
    );
}

#[test]
fn golden_add_csr() {
    golden(
        "add_csr",
        "fn add; A(i,j) = B(i,j) + C(i,j); formats<A: csr, B: csr, C: csr>;",
    );
}

#[test]
fn golden_spgemm_csr() {
    golden(
        "spgemm_csr",
        "fn spgemm; A(i,j) = B(i,k) * C(k,j); formats<A: csr, B: csr, C: csr>;",
    );
}

/// A factor that a sum does not change multiplies the sum once, after it, where `*` distributes
/// over the reduction: over `+`, not over `max` (`d * max(a, b)` is not `max(d*a, d*b)` for a
/// negative `d`), and not from a sum whose loop is outside the output's (`reorder`).
#[test]
fn only_sums_apply_a_factor_after_them() {
    let sum = ir("fn k; y(i) = d(i) * A(i,j) * x(j) * 2; formats<A: csr>;");
    assert!(
        sum.contains("__t += dot(A.vals, x.vals[A.l1.crd], __pA1_start..A.l1.pos[__i + 1]);"),
        "{sum}"
    );
    assert!(
        sum.contains("y.vals[__i] = d.vals[__i] * T(2) * __t;"),
        "{sum}"
    );
    let max = ir("fn k; y(i) = d(i) * A(i,j) * x(j); formats<A: csr>; reduce<j: max>;");
    assert!(
        max.contains("d.vals[__i] * A.vals[__pA1] * x.vals[__j]"),
        "{max}"
    );
    let reordered = ir("fn k; y(i) = d(i) * A(i,j) * x(j); formats<A: csc>;");
    assert!(
        reordered.contains("d.vals[A.l1.crd[__pA1]] * A.vals["),
        "{reordered}"
    );
}

/// SDDMM: `B(i,j)` does not change in the sum over `k`, so it multiplies the sum once per entry
/// (and a stored zero of `B` skips the sum).
#[test]
fn golden_sddmm_csr() {
    golden(
        "sddmm_csr",
        "fn sddmm; A(i,j) = B(i,j) * C(i,k) * D(j,k); formats<A: csr, B: csr, C: dense, D: dense>;",
    );
}

/// `A Aᵀ` into CSR: the loop over `j` is dense and the one over `k` intersects two rows, so the
/// scalar sum carries a flag set where a lattice point writes it, and `j` is appended only where
/// the flag is set (the coordinates stored entries produce, not every pair the loops visit).
#[test]
fn golden_aat_csr() {
    golden(
        "aat_csr",
        "fn aat; G(i,j) = A(i,k) * A(j,k); formats<A: csr, G: csr>;",
    );
}

/// The load-balanced SpMV of Senanayake et al.: which writes are atomic adds and which are stores is only
/// observable under a race, so the expansion is kept for review.
#[test]
fn golden_spmv_position_split() {
    golden(
        "spmv_position_split",
        "fn spmv_positions; y(i) = A(i,j) * x(j); formats<A: csr>; \
         schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 2048).parallelize(p0, CpuThread, Atomics)>;",
    );
}

/// The signature follows the parameter list (not first appearance, `y, alpha, x`), the scalar is
/// a plain `T` bound as a one-element values array, and the output is read where it is written.
#[test]
fn golden_axpy_with_parameters() {
    golden(
        "axpy_params",
        "fn axpy(y, x, alpha); y(i) = alpha * x(i) + y(i); scalars<alpha>;",
    );
}

/// The kernel's IR, printed.
fn ir(kernel: &str) -> String {
    let kernel = sparse_compiler::lower_to_ir(kernel.parse().unwrap())
        .map_err(|e| e[0].message())
        .unwrap();
    sparse_compiler::ir::print_kernel(&kernel)
}

/// A prefetch precedes a loop over a compressed level's positions when the rows it reads follow
/// each other from one run of the enclosing loop to the next (a row loop, a `Down` split of it,
/// a position loop of the level above), and not when they do not: rows of `C(k,j)` found
/// through `B`'s coordinates, an `Up` split's rows, a row re-read under an inner dense loop.
#[test]
fn prefetches_precede_rows_read_in_order() {
    let row = "prefetch(A.l1.crd, __pA1_start);\n";
    let row_vals = "prefetch(A.vals, __pA1_start);";
    // Scaled, so that the rows stay loops (a run of plain SpMV rows is hinted by the runtime).
    let spmv = "fn k; y(i) = A(i,j) * x(j) * 2; formats<A: csr>;";
    let text = ir(spmv);
    assert!(text.contains(row) && text.contains(row_vals), "{text}");
    let down = ir(&format!(
        "{spmv} schedule<split(i, i0, i1, Down, 64).split(i1, i2, i3, Down, 8)>;"
    ));
    assert!(down.contains(row) && down.contains(row_vals), "{down}");
    let up = ir(&format!("{spmv} schedule<split(i, i0, i1, Up, 64)>;"));
    assert!(!up.contains("prefetch"), "{up}");

    let spgemm = ir("fn k; A(i,j) = B(i,k) * C(k,j); formats<A: csr, B: csr, C: csr>;");
    assert!(
        spgemm.contains("prefetch(B.l1.crd, __pB1_start);"),
        "{spgemm}"
    );
    assert!(!spgemm.contains("prefetch(C."), "{spgemm}");

    let mttkrp = "fn k; A(i,j) = B(i,k,l) * C(k,j) * D(l,j); formats<B: csf>;";
    let under_j = ir(&format!("{mttkrp} schedule<reorder(i, j, k, l)>;"));
    assert!(!under_j.contains("prefetch(B.l1"), "{under_j}");
    assert!(
        under_j.contains("prefetch(B.l2.crd, __pB2_start);"),
        "{under_j}"
    );
    let ordered = ir(&format!("{mttkrp} schedule<reorder(i, k, l, j)>;"));
    assert!(
        ordered.contains("prefetch(B.l1.crd, __pB1_start);"),
        "{ordered}"
    );
    assert!(
        ordered.contains("prefetch(B.vals, __pB2_start);"),
        "{ordered}"
    );
}

#[test]
fn only_thread_parallel_kernels_zero_their_output_on_threads() {
    let spmspv = "fn k; y(i) = A(i,j) * x(j); formats<A: csc, x: sparse>;";
    let serial = ir(spmspv);
    assert!(serial.contains("zero(y.vals);"), "{serial}");
    let threads = ir(&format!(
        "{spmspv} schedule<pos(j, jp, x).split(jp, j0, j1, Down, 64).parallelize(j0, CpuThread, Atomics)>;"
    ));
    assert!(threads.contains("zero_in_parallel(y.vals);"), "{threads}");
    let lanes = ir(&format!(
        "{spmspv} schedule<pos(i, ip, A(i,j)).parallelize(ip, CpuVector, Atomics)>;"
    ));
    assert!(!lanes.contains("zero_in_parallel"), "{lanes}");
}

fn expand(kernel: &str) -> String {
    let tokens = sparse_compiler::compile(kernel.parse().unwrap())
        .map_err(|e| e[0].message())
        .unwrap();
    tokens.to_string()
}

/// `prefetch(x, d)` puts a hint after each coordinate read from a compressed level that `x` is
/// gathered at, in row and position splits; for a matrix, at the element the gather reads given
/// the coordinates known there (`C(k,j)` at the current `j` in loop order i, j, k); lanes drop it
/// and still gather in lanes.
#[test]
fn prefetch_command_hints_gathers() {
    let spmv = "fn k; y(i) = A(i,j) * x(j); formats<A: csr>;";
    assert!(!ir(spmv).contains("prefetch_gather"));
    let hint = "prefetch_gather(x.vals, A.l1.crd[__pA1 + 64] * 1);";
    let rows = ir(&format!(
        "{spmv} schedule<split(i, i0, i1, Down, 64).prefetch(x, 64)>;"
    ));
    assert!(rows.contains(hint), "{rows}");
    let positions = ir(&format!(
        "{spmv} schedule<collapse(i, j, f).pos(f, p, A).split(p, p0, p1, Down, 64)\
         .parallelize(p0, CpuThread, Atomics).prefetch(x, 16)>;"
    ));
    assert!(
        positions.contains("prefetch_gather(x.vals, A.l1.crd[__p + 16] * 1);"),
        "{positions}"
    );
    let spmm = ir(
        "fn k; A(i,j) = B(i,k) * C(k,j); formats<B: csr>; schedule<reorder(j, k).prefetch(C, 4)>;",
    );
    assert!(
        spmm.contains("prefetch_gather(C.vals, __j + B.l1.crd[__pB1 + 4] * C.l1.size);"),
        "{spmm}"
    );
    // A dense matrix read at (row, gathered column): the offset is the row's position, in row
    // and in column order.
    let times = "fn k; A(i,j) = B(i,j) * C(i,j); formats<B: csr";
    let by_rows = ir(&format!("{times}>; schedule<prefetch(C, 4)>;"));
    assert!(
        by_rows.contains("prefetch_gather(C.vals, __i * C.l1.size + 0 + B.l1.crd[__pB1 + 4] * 1);"),
        "{by_rows}"
    );
    let by_columns = ir(&format!(
        "{times}, C: (dense, dense) order(1,0)>; schedule<prefetch(C, 4)>;"
    ));
    assert!(
        by_columns.contains("prefetch_gather(C.vals, __i + B.l1.crd[__pB1 + 4] * C.l1.size);"),
        "{by_columns}"
    );
    let lanes = format!(
        "{spmv} schedule<pos(j, jpos, A(i,j)).parallelize(jpos, CpuVector, ParallelReduction)"
    );
    let plain = expand(&format!("{lanes}>;"));
    let hinted = expand(&format!("{lanes}.prefetch(x, 8)>;"));
    // Lowering places the hint; the lanes pass drops it (a hint per lane would cost what it
    // saves), so the lane code is the same with and without it.
    assert!(!ir(&format!("{lanes}.prefetch(x, 8)>;")).contains("prefetch_gather"));
    assert!(ir(&format!("{lanes}.prefetch(x, 8)>;")).contains("parallel(lanes, reduce +"));
    assert_eq!(hinted, plain);
}

/// The IR lists the parameters in the signature's order, a scalar as `T`; a kernel that reads its
/// output never zeroes it first, and a sum that covers the read is summed into a temporary
/// before the one write.
#[test]
fn the_ir_shows_the_signature_and_reads_of_the_output() {
    let axpy = ir("fn axpy(y, x, alpha); y(i) = alpha * x(i) + y(i); scalars<alpha>;");
    assert!(
        axpy.starts_with("kernel axpy(out y: Dense<1>, x: Dense<1>, alpha: T) {"),
        "{axpy}"
    );
    let union = ir("fn k; y(i) = r(i) + y(i); formats<r: sparse>;");
    assert!(!union.contains("zero(y.vals)"), "{union}");
    let reordered = "fn k; y(i) = A(i,j) * x(j) * y(i); formats<A: csr>; schedule<reorder(j, i)>;";
    let refused = sparse_compiler::lower_to_ir(reordered.parse().unwrap()).unwrap_err();
    assert!(
        refused[0].message().contains("across a `where`"),
        "{}",
        refused[0].message()
    );
    let weighted = ir("fn k; y(i) = A(i,j) * x(j) * y(i); formats<A: csr>;");
    // `y(i)` is a factor the sum over `j` does not change: it is applied once, after the sum.
    assert!(
        weighted.contains("y.vals[__i] = y.vals[__i] * __t;"),
        "{weighted}"
    );
    assert!(!weighted.contains("y.vals[__i] +="), "{weighted}");
}

/// The count phase of a row-parallel `A Bᵀ` (B in DCSR, so the inner products stay: the loop
/// over `j` visits B's stored rows) counts exactly the entries its fill phase writes: both are
/// guarded by the same write flag. Kernels whose sums are written in every run (a dense product
/// into a sparse output) or whose output is dense get no flag.
#[test]
fn write_flags_guard_count_and_fill_alike() {
    let rows = ir(
        "fn k; G(i,j) = A(i,k) * B(j,k); formats<A: csr, B: dcsr, G: csr>; \
                   schedule<split(i, i0, i1, Down, 16).parallelize(i0, CpuThread, NoRaces)>;",
    );
    let count = "if __t_written {\n                    count_entry;";
    let fill = "if __t_written {\n                    fill_coord(__j);\n                    fill_value(__t);";
    assert!(rows.contains(count) && rows.contains(fill), "{rows}");
    assert_eq!(rows.matches("__t_written = true;").count(), 2, "{rows}");

    let dense_sum = ir("fn k; y(i) = A(i,j) * x(j); formats<y: sparse>;");
    assert!(!dense_sum.contains("written"), "{dense_sum}");
    let dense_output = ir("fn k; y(i) = A(i,j) * x(j); formats<A: csr>;");
    assert!(!dense_output.contains("written"), "{dense_output}");
    let union = ir("fn k; y(i) = b(i) + A(i,j) * x(j); formats<A: csr, b: sparse, y: sparse>;");
    assert_eq!(union.matches("if __t_written").count(), 1, "{union}");
}
