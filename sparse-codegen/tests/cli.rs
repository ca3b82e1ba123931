//! The `sparse-codegen` binary, run as a user runs it: from a file or standard input, with each
//! view (one per stage of the compiler), and with kernels that have errors (positions counted by hand in the inputs below).

use std::io::Write;
use std::process::{Command, Output, Stdio};

const SPMV: &str = "pub fn spmv; y(i) = A(i,j) * x(j); formats<A: csr>;";

fn codegen(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sparse-codegen"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(stdin.as_bytes())
        .expect("writing stdin");
    child.wait_with_output().expect("the binary finishes")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A file under the target's temporary directory, unique to this test.
fn temp_file(name: &str, contents: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join(format!("sparse-codegen-{}-{name}", std::process::id()));
    std::fs::write(&path, contents).expect("writing a temporary file");
    path
}

#[test]
fn stdin_kernel_prints_a_safe_generic_function() {
    let out = codegen(&[], SPMV);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rust = text(&out.stdout);
    assert!(rust.contains("pub fn spmv<T: ::sparse::Scalar>("), "{rust}");
    assert!(rust.contains("A: &::sparse::Tensor<T, ::sparse::Csr>"));
    assert!(!rust.contains("unsafe"));
    assert!(out.stderr.is_empty());
}

#[test]
fn ir_view_prints_the_kernel_header_and_body() {
    let out = codegen(&["--ir", "-"], SPMV);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let ir = text(&out.stdout);
    assert!(
        ir.starts_with("kernel spmv(out y: Dense<1>, A: Csr, x: Dense<1>) {\n"),
        "{ir}"
    );
    assert!(ir.contains("extent j: A.shape[1] == x.shape[0];"));
    // The rows of a CSR SpMV are one run (the `dots` pass).
    let rows = "y.vals[0..y.shape[0]] = dots(A.vals, x.vals[A.l1.crd], A.l1.pos);";
    assert!(ir.contains(rows), "{ir}");
}

/// CSR `.*` CSC: no loop order follows both, so `C` is copied into rows.
const MUL_CSR_CSC: &str = "fn mul; A(i,j) = B(i,j) * C(i,j); formats<A: csr, B: csr, C: csc>;";

/// The stdout of a run that must succeed.
fn view(args: &[&str], stdin: &str) -> String {
    let out = codegen(args, stdin);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn cin_view_prints_the_foralls_and_the_where_producers() {
    assert_eq!(
        view(&["--cin"], SPMV),
        "// spmv: concrete index notation\n∀i ∀j y(i) += A(i,j) * x(j)\n"
    );
    let residual = "fn r; r(i) = b(i) - A(i,j) * x(j);";
    let cin = view(&["--cin"], residual);
    assert!(
        cin.contains("∀i (r(i) = b(i) - t0 where ∀j t0 += A(i,j) * x(j))"),
        "{cin}"
    );
}

#[test]
fn plan_view_lists_each_copy_with_both_formats_and_its_rule() {
    assert_eq!(
        view(&["--plan"], SPMV),
        "// spmv: copies planned\nno copies planned\n"
    );
    let plan = view(&["--plan"], MUL_CSR_CSC);
    assert!(
        plan.contains("copy C: Csc -> custom[dense(d0), compressed(d1)] by concordant ("),
        "{plan}"
    );
    assert!(!plan.contains("copy B"), "{plan}");
    // The nested rule copies the hashed matrix into the loops' order, then the sorted rule sorts
    // the copy's level that meets DIA's rows, which the range rule copies.
    let plan = view(
        &["--plan"],
        "fn f; A(j) = B(i,k) * C(i,j) + 2; formats<B: dia, C: hash>;",
    );
    let lines: Vec<&str> = plan.lines().collect();
    assert_eq!(lines.len(), 3, "{plan}");
    assert!(
        lines[1].starts_with("copy B: Dia -> custom[dense(d0), compressed(d1)] by range ("),
        "{plan}"
    );
    assert!(
        lines[2].starts_with("copy C: HashMat -> custom[dense(d1), compressed(d0)] by nested ("),
        "{plan}"
    );
    assert!(lines[2].contains("), then sorted ("), "{plan}");
}

#[test]
fn ir_view_iterates_the_planned_copy() {
    let ir = view(&["--ir"], MUL_CSR_CSC);
    assert!(
        ir.starts_with(
            "kernel mul(out A: Csr, B: Csr, C: Csc as custom[dense(d0), compressed(d1)]) {\n"
        ),
        "{ir}"
    );
}

/// A tensor read in two index orders: the plan names the reads that get a copy of their own and
/// the rules that shaped it, and the IR declares that copy as a tensor local to the kernel.
#[test]
fn a_read_in_another_order_gets_a_local_copy() {
    let kernel = "fn sym; C(i,j) = A(i,j) + A(j,i); formats<A: csr, C: csr>;";
    let plan = view(&["--plan"], kernel);
    assert!(
        plan.contains(
            "copy A_j_i for A(j,i): Csr -> custom[dense(d1), compressed(d0)] by reread ("
        ) && plan.contains("), then concordant ("),
        "{plan}"
    );
    assert!(!plan.contains("copy A:"), "{plan}");
    let ir = view(&["--ir"], kernel);
    assert!(
        ir.starts_with(
            "kernel sym(out C: Csr, A: Csr) {\n    local A_j_i: copy of A as custom[dense(d1), \
             compressed(d0)];\n"
        ),
        "{ir}"
    );
    let rust = view(&["--rust"], kernel);
    assert!(rust.contains("A.convert()?"), "{rust}");
}

#[test]
fn schedule_view_prints_what_auto_chose_and_the_tagged_loops() {
    let auto = format!("{SPMV} schedule<auto>;");
    let scheduled = view(&["--schedule"], &auto);
    let lines: Vec<&str> = scheduled.lines().collect();
    assert_eq!(
        lines,
        [
            "// spmv: scheduled concrete index notation",
            "// schedule<auto> chose: split(i, i_task, i_row, Down, 64)\
             .parallelize(i_task, CpuThread, NoRaces)",
            "∀i_task ∀i_row (y(i) = t0 where ∀j t0 += A(i,j) * x(j))",
            "parallel i_task: CpuThread, NoRaces",
        ]
    );
    // Without `schedule<auto>` nothing was chosen; scalar promotion still happened.
    let scheduled = view(&["--schedule"], SPMV);
    assert!(!scheduled.contains("chose"), "{scheduled}");
    assert!(
        scheduled.ends_with("\n∀i (y(i) = t0 where ∀j t0 += A(i,j) * x(j))\n"),
        "{scheduled}"
    );
}

#[test]
fn errors_give_file_line_and_column_and_exit_1() {
    // Line 3: `formats<A: crs>;` -- `crs` starts in column 16 after four spaces of indent.
    let path = temp_file(
        "errors.txt",
        "fn f;\ny(i) = A(i,j) * x(j);\n    formats<A: crs>;\n",
    );
    let path_text = path.display().to_string();
    let out = codegen(&[&path_text], "");
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!("{path_text}:3:16: unknown format `crs`")),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn every_error_is_reported_on_its_own_line() {
    let out = codegen(
        &[],
        "fn f;\ny(i) = A(i,j);\nformats<A: (dense, foo), B: csr>;",
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("<stdin>:3:20: unknown level format `foo`"))
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("<stdin>:3:26: unknown tensor `B`"))
    );
}

#[test]
fn rust_source_with_several_invocations_expands_each() {
    let source = format!(
        "use sparse::prelude::*;\n\ntensor_kernel! {{ {SPMV} }}\n\nmod inner {{\n    \
         sparse::tensor_kernel!(fn scale; b(i) = A(i,j) * x(j););\n}}\n"
    );
    let path = temp_file("kernels.rs", &source);
    let out = codegen(&[&path.display().to_string()], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rust = text(&out.stdout);
    let first = rust.find("pub fn spmv<").expect("the first kernel");
    let second = rust.find("fn scale<").expect("the second kernel");
    assert!(first < second);
}

#[test]
fn unbalanced_input_is_a_located_error() {
    let out = codegen(&[], "fn f;\ny(i) = (A(i,j);\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with("<stdin>:2:"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn help_and_usage_errors() {
    let out = codegen(&["--help"], "");
    assert!(out.status.success());
    let help = text(&out.stdout);
    assert!(help.starts_with("usage: sparse-codegen"));
    for flag in ["--rust", "--ir", "--cin", "--plan", "--schedule"] {
        assert!(help.contains(&format!("  {flag} ")), "{help}");
    }
    let out = codegen(&["--bogus"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("sparse-codegen: unknown option `--bogus`"));
    let out = codegen(&["/nonexistent/kernel.txt"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read `/nonexistent/kernel.txt`"));
}
