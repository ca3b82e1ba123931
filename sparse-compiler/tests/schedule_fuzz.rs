//! Random schedules on the kernels of Senanayake et al. never make the compiler panic.
//!
//! A panic in a procedural macro reaches the user as "proc macro panicked" with no span, the
//! opposite of the spanned error every illegal schedule must give. proptest draws chains of one to
//! six commands from the whole command language, with arguments taken from the kernel's own index
//! variables, fresh names, its tensors, its subexpressions and factors including 0 and 1; most
//! chains are illegal, some are not. Each must compile to tokens that parse as Rust items, or fail
//! with user errors: an internal error (a compiler bug reported as one) fails the test too. A
//! failure prints the kernel, shrunk.

mod chains;

use std::path::{Path, PathBuf};

use chains::{Kernel, chain_of, compile, compile_without_panic, transforms};
use proptest::prelude::*;

const KERNELS: &[Kernel] = &[
    Kernel {
        head: "fn k; y(i) = A(i,j) * x(j); formats<A: csr>;",
        family: Some(("spmv", "check_spmv")),
        vars: &["i", "j"],
        tensors: &["y", "A", "x"],
        exprs: &["A(i,j) * x(j)", "x(j)"],
    },
    Kernel {
        head: "fn k; y(i) = A(i,j) * x(j); formats<A: csc, x: sparse>;",
        family: Some(("spmspv", "check_spmspv")),
        vars: &["i", "j"],
        tensors: &["y", "A", "x"],
        exprs: &["A(i,j) * x(j)"],
    },
    Kernel {
        head: "fn k; C(i,k) = A(i,j) * B(j,k); formats<A: csr>;",
        family: Some(("spmm", "check_spmm")),
        vars: &["i", "j", "k"],
        tensors: &["C", "A", "B"],
        exprs: &["A(i,j) * B(j,k)", "B(j,k)"],
    },
    Kernel {
        head: "fn k; A(i,k) = B(i,k) * C(i,j) * D(j,k); formats<A: csr, B: csr>;",
        family: Some(("sddmm", "check_sddmm")),
        vars: &["i", "j", "k"],
        tensors: &["A", "B", "C", "D"],
        exprs: &["C(i,j) * D(j,k)", "B(i,k) * C(i,j)"],
    },
    Kernel {
        head: "fn k; A(i,j) = B(i,j,k) * c(k); formats<A: csr, B: (dense, compressed, compressed)>;",
        family: Some(("ttv", "check_ttv")),
        vars: &["i", "j", "k"],
        tensors: &["A", "B", "c"],
        exprs: &["B(i,j,k) * c(k)"],
    },
    Kernel {
        head: "fn k; A(i,j) = B(i,k,l) * D(l,j) * C(k,j); \
               formats<B: (dense, compressed, compressed)>;",
        family: Some(("mttkrp", "check_mttkrp")),
        vars: &["i", "j", "k", "l"],
        tensors: &["A", "B", "C", "D"],
        exprs: &["B(i,k,l) * D(l,j)", "D(l,j) * C(k,j)"],
    },
    Kernel {
        head: "fn k; A(i,j) = B(i,j) + C(i,j); formats<A: csr, B: csr, C: csr>;",
        family: Some(("spadd", "check_elementwise")),
        vars: &["i", "j"],
        tensors: &["A", "B", "C"],
        exprs: &["B(i,j) + C(i,j)", "C(i,j)"],
    },
    Kernel {
        head: "fn k; A(i,j) = B(i,k) * C(k,j); formats<A: csr, B: csr, C: csr>;",
        family: Some(("spgemm", "check_spgemm")),
        vars: &["i", "j", "k"],
        tensors: &["A", "B", "C"],
        exprs: &["B(i,k) * C(k,j)"],
    },
    Kernel {
        head: "fn k; A(i,j) = B(i,j) * C(i,j); formats<A: csr, B: csr>;",
        family: None,
        vars: &["i", "j"],
        tensors: &["A", "B", "C"],
        exprs: &["B(i,j) * C(i,j)"],
    },
    Kernel {
        head: "fn k; y(i) = A(i,j) * x(j); formats<A: coo>;",
        family: Some(("coo_spmv", "check_spmv")),
        vars: &["i", "j"],
        tensors: &["y", "A", "x"],
        exprs: &["A(i,j) * x(j)"],
    },
    Kernel {
        head: "fn k; y(i) = A(i,j) * x(j) + z(i); formats<A: dcsr>;",
        family: Some(("dcsr_spmv_plus", "check_spmv_plus")),
        vars: &["i", "j"],
        tensors: &["y", "A", "x", "z"],
        exprs: &["A(i,j) * x(j)", "z(i)"],
    },
    Kernel {
        head: "fn k; y(i) = A(i,j) * x(j); formats<A: ell>;",
        family: Some(("ell_spmv", "check_spmv")),
        vars: &["i", "j"],
        tensors: &["y", "A", "x"],
        exprs: &["A(i,j) * x(j)"],
    },
    Kernel {
        head: "fn k; A(i,j) = B(i,j) * C(i,j); formats<A: csr, B: csr, C: csr>;",
        family: Some(("emul", "check_elementwise")),
        vars: &["i", "j"],
        tensors: &["A", "B", "C"],
        exprs: &["B(i,j) * C(i,j)"],
    },
    Kernel {
        head: "fn k; A(i,j) = B(i,j) + C(i,j); formats<A: hash, B: csr, C: dcsr>;",
        family: None,
        vars: &["i", "j"],
        tensors: &["A", "B", "C"],
        exprs: &["B(i,j) + C(i,j)"],
    },
    Kernel {
        head: "fn k; a = B(i,j) * C(i,j); formats<B: csr, C: csc>;",
        family: None,
        vars: &["i", "j"],
        tensors: &["a", "B", "C"],
        exprs: &["B(i,j) * C(i,j)"],
    },
    Kernel {
        head: "fn k; a = B(i,j) * C(i,j); formats<B: dia, C: coo>;",
        family: None,
        vars: &["i", "j"],
        tensors: &["a", "B", "C"],
        exprs: &["B(i,j) * C(i,j)"],
    },
    Kernel {
        head: "fn k; A(i,j) = B(i,j) * C(i,j) + C(i,j); formats<A: hash, B: csc, C: hash>;",
        family: None,
        vars: &["i", "j"],
        tensors: &["A", "B", "C"],
        exprs: &["B(i,j) * C(i,j)", "C(i,j)"],
    },
    Kernel {
        head: "fn k; A(i,j,k) = B(i,j,k) * C(i,j,k); \
               formats<A: csf, B: coo, C: (dense, compressed, compressed)>;",
        family: None,
        vars: &["i", "j", "k"],
        tensors: &["A", "B", "C"],
        exprs: &["B(i,j,k) * C(i,j,k)", "C(i,j,k)"],
    },
    Kernel {
        head: "fn k; a(i) = b(i) * c(i) + d(i); formats<a: sparse, b: hash, c: sparse>;",
        family: None,
        vars: &["i"],
        tensors: &["a", "b", "c", "d"],
        exprs: &["b(i) * c(i)", "d(i)"],
    },
    Kernel {
        head: "fn k; A(i,j) = B(i,j) * C(i,j) - D(i,j); formats<A: csc, B: dcsr, C: dia, D: ell>;",
        family: None,
        vars: &["i", "j"],
        tensors: &["A", "B", "C", "D"],
        exprs: &["B(i,j) * C(i,j)", "D(i,j)"],
    },
    Kernel {
        head: "fn k; A(i,j) = B(i,j) * C(i,j); formats<A: dcsr, B: csr>;",
        family: Some(("scale_dcsr", "check_scale")),
        vars: &["i", "j"],
        tensors: &["A", "B", "C"],
        exprs: &["B(i,j) * C(i,j)", "C(i,j)"],
    },
    Kernel {
        head: "fn k; A(i,j) = B(i,j) - C(i,j); formats<A: coo>;",
        family: Some(("dense_to_coo", "check_dense_difference")),
        vars: &["i", "j"],
        tensors: &["A", "B", "C"],
        exprs: &["B(i,j) - C(i,j)", "C(i,j)"],
    },
    Kernel {
        head: "fn k; A(i,j) = B(i,j,k) * c(k); formats<A: csr, B: csf>;",
        family: Some(("ttv_csf", "check_ttv")),
        vars: &["i", "j", "k"],
        tensors: &["A", "B", "c"],
        exprs: &["B(i,j,k) * c(k)"],
    },
    Kernel {
        head: "fn k; a += (B(i,j) - C(j) * D(k,j,i)) + 2; formats<B: csc, D: csf>;",
        family: None,
        vars: &["i", "j", "k"],
        tensors: &["a", "B", "C", "D"],
        exprs: &["C(j) * D(k,j,i)", "B(i,j)"],
    },
    Kernel {
        head: "fn k; A(j) = (B(i,k) + C(k,j)) - D(k) * E(i,k) + 2; \
               formats<A: sparse, B: dcsr, C: csr, D: hash, E: ell>;",
        family: None,
        vars: &["i", "j", "k"],
        tensors: &["A", "B", "C", "D", "E"],
        exprs: &["D(k) * E(i,k)", "C(k,j)"],
    },
    Kernel {
        head: "fn k; A(i,j) = C(i,j) * B(j,k) + D(i,j,k) - 2; formats<C: coo>;",
        family: None,
        vars: &["i", "j", "k"],
        tensors: &["A", "B", "C", "D"],
        exprs: &["C(i,j) * B(j,k)"],
    },
    // Kernels whose loops iterate sparse levels that coordinate splits tile (each tile searches
    // its start): unions of DCSR matrices into a dense result, an intersection of sparse vectors,
    // SpMV over DCSR, MTTKRP over CSF.
    Kernel {
        head: "fn k; A(i,j) = B(i,j) + C(i,j); formats<B: dcsr, C: dcsr>;",
        family: Some(("dcsr_add", "check_dcsr_add")),
        vars: &["i", "j"],
        tensors: &["A", "B", "C"],
        exprs: &["B(i,j)", "C(i,j)"],
    },
    Kernel {
        head: "fn k; a(i) = b(i) * c(i); formats<a: sparse, b: sparse, c: sparse>;",
        family: Some(("vmul_sparse", "check_sparse_vector_pair")),
        vars: &["i"],
        tensors: &["a", "b", "c"],
        exprs: &["b(i) * c(i)"],
    },
    Kernel {
        head: "fn k; y(i) = A(i,j) * x(j); formats<A: dcsr>;",
        family: Some(("dcsr_spmv", "check_spmv")),
        vars: &["i", "j"],
        tensors: &["y", "A", "x"],
        exprs: &["A(i,j) * x(j)", "x(j)"],
    },
    Kernel {
        head: "fn k; A(i,j) = B(i,k,l) * D(l,j) * C(k,j); formats<B: csf>;",
        family: Some(("mttkrp_csf", "check_mttkrp")),
        vars: &["i", "j", "k", "l"],
        tensors: &["A", "B", "C", "D"],
        exprs: &["B(i,k,l) * D(l,j)", "D(l,j) * C(k,j)"],
    },
];

/// A kernel with a chain of one to six commands.
fn scheduled_kernel() -> impl Strategy<Value = String> {
    let draws = prop::collection::vec((any::<u8>(), any::<[u8; 5]>()), 1..7);
    (0..KERNELS.len(), draws).prop_map(|(k, draws)| {
        let kernel = &KERNELS[k];
        format!("{} schedule<{}>;", kernel.head, chain_of(kernel, draws))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn random_schedules_compile_or_fail_with_an_error(source in scheduled_kernel()) {
        let outcome = compile_without_panic(&source);
        prop_assert!(outcome.is_ok(), "{source}\n{}", outcome.unwrap_err());
    }
}

/// A split binds its variable only in its inner loop. `reorder` that moves the inner loop (or
/// the whole split) below a loop whose level of a tensor needs the variable first is refused
/// with the mode-order error: the fuzzer found MTTKRP's `split(k, ..).reorder(j, v1, v2)`, which
/// puts `l` above `k`'s inner loop, lowering to an internal error. Orders that keep both pieces
/// above `l` still compile.
#[test]
fn a_split_moved_below_a_level_it_must_precede_is_refused() {
    let head = "fn k; A(i,j) = B(i,k,l) * D(l,j) * C(k,j); formats<B: csf>;";
    for chain in [
        "split(k, v1, v2, Down, 1).reorder(j, v1, v2)",
        "split(k, v1, v2, Down, 2).reorder(v1, j, v2)",
        "split(k, v1, v2, Down, 4).reorder(v1, l, v2)",
    ] {
        let source = format!("{head} schedule<{chain}>;");
        let error = compile(&source).expect_err(&source);
        assert!(
            error.contains("iterates `B` against its storage order"),
            "{source}: {error}"
        );
    }
    for chain in [
        "split(k, v1, v2, Down, 2).reorder(v2, j, l)",
        "split(k, v1, v2, Down, 2).reorder(v1, v2, j)",
        "split(l, v1, v2, Down, 2).reorder(j, v1, v2)",
        "reorder(i, j, k, l)",
    ] {
        let source = format!("{head} schedule<{chain}>;");
        assert_eq!(compile(&source), Ok(()), "{source}");
    }
}

/// `schedule<auto>` never turns a kernel that compiles into one that does not.
#[test]
fn auto_schedules_compile_on_every_kernel() {
    for kernel in KERNELS {
        let source = format!("{} schedule<auto>;", kernel.head);
        match (compile(kernel.head), compile(&source)) {
            (Ok(_), Err(e)) => panic!("{source}\n{e}"),
            (Err(_), Ok(_)) => panic!("{source} compiles, but not without a schedule"),
            _ => {}
        }
    }
}

/// Where the random schedules that the root package compiles and runs are listed.
fn chains_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/schedules_random/chains.rs")
}

/// Chains kept per kernel family in `tests/schedules_random/chains.rs`.
const CHAINS_PER_FAMILY: usize = 12;

/// `tests/schedules_random.rs` runs, for each kernel with a family, schedules drawn here: chains
/// that compile, without upper bounds (whose promise the test inputs would break). Unless
/// `SPARSE_BLESS` is set (which draws them again, from a fixed seed), every listed chain must
/// still compile, so a change that makes one illegal fails here with its message rather than in
/// the root package's build.
#[test]
fn random_schedules_of_the_root_tests_compile() {
    if std::env::var_os("SPARSE_BLESS").is_some() {
        std::fs::write(chains_file(), draw_chains()).expect("writable chains file");
    }
    let text = std::fs::read_to_string(chains_file()).expect("the chains file exists");
    let mut listed = 0;
    for kernel in KERNELS {
        let Some((family, _)) = kernel.family else {
            continue;
        };
        let section = text
            .split("random_schedules!(")
            .find(|s| s.starts_with(&format!("{family},")))
            .unwrap_or_else(|| panic!("no chains for `{family}`"));
        let entry = format!("{family}_");
        for line in section
            .lines()
            .filter(|l| l.trim_start().starts_with(&entry))
        {
            let chain = line
                .split_once('{')
                .and_then(|(_, rest)| rest.rsplit_once('}'));
            let chain = chain.expect("`name { chain }`").0.trim();
            let source = format!("{} schedule<{chain}>;", kernel.head);
            if let Err(e) = compile(&source) {
                panic!("{source}\n{e}");
            }
            listed += 1;
        }
    }
    assert!(listed >= CHAINS_PER_FAMILY, "only {listed} chains listed");
}

/// The chains file: for each family, up to [`CHAINS_PER_FAMILY`] distinct compiling chains.
fn draw_chains() -> String {
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut byte = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng >> 24) as u8
    };
    let mut text = String::from(
        "// Written by `SPARSE_BLESS=1 cargo test -p sparse-compiler --test schedule_fuzz`.\n",
    );
    for kernel in KERNELS {
        let Some((family, check)) = kernel.family else {
            continue;
        };
        let mut kept: Vec<String> = Vec::new();
        for _ in 0..20_000 {
            if kept.len() == CHAINS_PER_FAMILY {
                break;
            }
            let len = 2 + usize::from(byte()) % 5;
            let draws: Vec<(u8, [u8; 5])> = (0..len)
                .map(|_| (byte(), std::array::from_fn(|_| byte())))
                .collect();
            let chain = chain_of(kernel, draws);
            let source = format!("{} schedule<{chain}>;", kernel.head);
            // The root test runs host tensors, which a GPU kernel does not take.
            if compile(&source).is_ok()
                && !chain.contains("Max")
                && !chain.contains("Gpu")
                && transforms(&chain) >= 2
                && !kept.contains(&chain)
            {
                kept.push(chain);
            }
        }
        let head = kernel.head.trim_start_matches("fn k;");
        let head: String = head.split_whitespace().collect::<Vec<_>>().join(" ");
        text += &format!("\nrandom_schedules!({family}, {check}, {{ {head} }}, [\n");
        for (n, chain) in kept.iter().enumerate() {
            text += &format!("    {family}_{n} {{ {chain} }}\n");
        }
        text += "]);\n";
    }
    text
}
