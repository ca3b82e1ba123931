//! Kernels built by hand in the IR, emitted and checked: they parse as a function, contain no
//! `unsafe`, match their golden files (`tests/golden/emit_*.rs`, which the root package's
//! `tests/emit_golden.rs` compiles and runs against dense references), and the emitter's own
//! rules (precedence, bindings, names) hold.

use proc_macro2::{TokenStream, TokenTree};
use syn::Visibility;

use super::{Root, emit_rust};
use crate::format::{FormatType, LevelEnv, LevelRef, LevelSpec, level_of};
use crate::ir::{
    Array, BinOp, Expr, HostStep, Kernel, Literal, Param, ShapeCheck, Stmt, TempType, Type, Var,
};

// ---- IR builders -------------------------------------------------------------------------------

mod intrinsics;
mod rows;

fn v(name: &str) -> Var {
    Var(name.to_string())
}

fn var(name: &str) -> Expr {
    Expr::Var(v(name))
}

fn idx(n: usize) -> Expr {
    Expr::Index(n)
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

fn load(array: Array, index: Expr) -> Expr {
    Expr::Load(array, Box::new(index))
}

fn pos(param: usize, level: usize) -> Array {
    Array::Pos { param, level }
}

fn crd(param: usize, level: usize) -> Array {
    Array::Crd { param, level }
}

fn vals(param: usize) -> Array {
    Array::Vals { param }
}

fn temp(name: &str) -> Array {
    Array::Temp(v(name))
}

fn dim(param: usize, dim: usize) -> Expr {
    Expr::Dim { param, dim }
}

fn let_(name: &str, ty: Type, init: Expr) -> Stmt {
    Stmt::Let {
        var: v(name),
        ty,
        init,
        mutable: false,
    }
}

fn let_mut(name: &str, ty: Type, init: Expr) -> Stmt {
    Stmt::Let {
        var: v(name),
        ty,
        init,
        mutable: true,
    }
}

fn add_to(name: &str, value: Expr) -> Stmt {
    Stmt::assign(v(name), value, true)
}

fn store(array: Array, index: Expr, value: Expr, accumulate: bool) -> Stmt {
    Stmt::store(array, index, value, accumulate)
}

fn for_(name: &str, lo: Expr, hi: Expr, body: Vec<Stmt>) -> Stmt {
    Stmt::For {
        var: v(name),
        lo,
        hi,
        body,
    }
}

/// `for p in pos[parent]..pos[parent + 1]` over level `level` of `param`.
fn for_segment(name: &str, param: usize, level: usize, parent: Expr, body: Vec<Stmt>) -> Stmt {
    let lo = load(pos(param, level), parent.clone());
    let hi = load(pos(param, level), bin(BinOp::Add, parent, idx(1)));
    for_(name, lo, hi, body)
}

fn named(type_name: &'static str, type_args: &[usize]) -> FormatType {
    FormatType::Named {
        type_name,
        type_args: type_args.to_vec(),
    }
}

fn param(name: &str, output: bool, order: usize, format: FormatType) -> Param {
    Param {
        name: name.to_string(),
        output,
        order,
        format,
        convert_to: None,
        by_value: false,
        copy_of: None,
        fill: Literal::Int(0),
    }
}

fn check(index: &str, dims: &[(usize, usize)]) -> ShapeCheck {
    ShapeCheck {
        index: index.to_string(),
        dims: dims.to_vec(),
    }
}

/// `C = op(A, B)` over three CSR matrices, with the shape checks of an element-wise kernel.
fn csr_params(c: &str, a: &str, b: &str) -> Vec<Param> {
    vec![
        param(c, true, 2, named("Csr", &[])),
        param(a, false, 2, named("Csr", &[])),
        param(b, false, 2, named("Csr", &[])),
    ]
}

// ---- the kernels of the golden files -----------------------------------------------------------

/// `y(i) = A(i,j) * x(j)`, A in CSR: one row sum per `i`, stored once.
fn spmv_csr() -> Kernel {
    let row = vec![
        let_mut("__t", Type::Value, Expr::Value(Literal::Int(0))),
        for_segment(
            "__p",
            1,
            1,
            var("__i"),
            vec![
                let_("__j", Type::Index, load(crd(1, 1), var("__p"))),
                add_to(
                    "__t",
                    bin(
                        BinOp::Mul,
                        load(vals(1), var("__p")),
                        load(vals(2), var("__j")),
                    ),
                ),
            ],
        ),
        store(vals(0), var("__i"), var("__t"), false),
    ];
    Kernel {
        combine: None,
        name: "spmv_csr".into(),
        params: vec![
            param("y", true, 1, named("Dense", &[1])),
            param("A", false, 2, named("Csr", &[])),
            param("x", false, 1, named("Dense", &[1])),
        ],
        signature: vec![0, 1, 2],
        shape_checks: vec![check("i", &[(0, 0), (1, 0)]), check("j", &[(1, 1), (2, 0)])],
        body: vec![for_("__i", idx(0), dim(0, 0), row)],
    }
}

/// `y(i) = A(i,j) * x(j)`, A in DIA: per diagonal `d` with offset `off`, the rows
/// `max(0, -off)..min(rows, cols - off)`, column `i + off`, position `d * rows + i`. The bounds
/// and the column are the range and offset levels' own level functions, so this golden file shows
/// the Rust their signed arithmetic becomes.
fn spmv_dia() -> Kernel {
    let rows = || Expr::LevelSize { param: 1, level: 1 };
    let env = |level: usize, ancestors: Vec<Expr>| LevelEnv {
        at: LevelRef { param: 1, level },
        ancestors,
        next_dim: Some(dim(1, 1)),
        parent: None,
    };
    let (lo, hi) = level_of(&LevelSpec::range(0))
        .coord_bounds(&env(1, vec![var("__d")]))
        .expect("a range level has coord_bounds");
    let column = level_of(&LevelSpec::offset(1))
        .pos_access(&env(2, vec![var("__d"), var("__i")]), &var("__p"));
    let diagonal = vec![for_(
        "__i",
        lo,
        hi,
        vec![
            let_(
                "__p",
                Type::Index,
                bin(BinOp::Add, bin(BinOp::Mul, var("__d"), rows()), var("__i")),
            ),
            let_("__j", Type::Index, column),
            store(
                vals(0),
                var("__i"),
                bin(
                    BinOp::Mul,
                    load(vals(1), var("__p")),
                    load(vals(2), var("__j")),
                ),
                true,
            ),
        ],
    )];
    Kernel {
        combine: None,
        name: "spmv_dia".into(),
        params: vec![
            param("y", true, 1, named("Dense", &[1])),
            param("A", false, 2, named("Dia", &[])),
            param("x", false, 1, named("Dense", &[1])),
        ],
        signature: vec![0, 1, 2],
        shape_checks: vec![check("i", &[(0, 0), (1, 0)]), check("j", &[(1, 1), (2, 0)])],
        body: vec![
            Stmt::Host(HostStep::ZeroOutput { parallel: false }),
            for_(
                "__d",
                idx(0),
                Expr::LevelSize { param: 1, level: 0 },
                diagonal,
            ),
        ],
    }
}

/// `C(i,j) = A(i,j) - 2.5 * B(i,j)`, all CSR: a two-finger merge of each row, appended to C.
fn sub_csr() -> Kernel {
    let a_val = || load(vals(1), var("__pa"));
    let scaled_b = || {
        bin(
            BinOp::Mul,
            Expr::Value(Literal::Float(2.5)),
            load(vals(2), var("__pb")),
        )
    };
    let step = |flag: &str| Expr::Select(Box::new(var(flag)), Box::new(idx(1)), Box::new(idx(0)));
    let both = vec![
        let_("__ja", Type::Index, load(crd(1, 1), var("__pa"))),
        let_("__jb", Type::Index, load(crd(2, 1), var("__pb"))),
        let_(
            "__j",
            Type::Index,
            bin(BinOp::Min, var("__ja"), var("__jb")),
        ),
        let_(
            "__at_a",
            Type::Bool,
            bin(BinOp::Eq, var("__ja"), var("__j")),
        ),
        let_(
            "__at_b",
            Type::Bool,
            bin(BinOp::Eq, var("__jb"), var("__j")),
        ),
        Stmt::Append {
            level: 1,
            coord: var("__j"),
        },
        Stmt::If {
            cond: bin(BinOp::And, var("__at_a"), var("__at_b")),
            then: vec![Stmt::AppendValue(bin(BinOp::Sub, a_val(), scaled_b()))],
            otherwise: vec![Stmt::If {
                cond: var("__at_a"),
                then: vec![Stmt::AppendValue(a_val())],
                otherwise: vec![Stmt::AppendValue(Expr::Neg(Box::new(scaled_b())))],
            }],
        },
        add_to("__pa", step("__at_a")),
        add_to("__pb", step("__at_b")),
    ];
    let rest = |p: &str, end: &str, param: usize, value: Expr| Stmt::While {
        cond: bin(BinOp::Lt, var(p), var(end)),
        body: vec![
            Stmt::Append {
                level: 1,
                coord: load(crd(param, 1), var(p)),
            },
            Stmt::AppendValue(value),
            add_to(p, idx(1)),
        ],
    };
    let row = vec![
        let_mut("__pa", Type::Index, load(pos(1, 1), var("__i"))),
        let_(
            "__pa_end",
            Type::Index,
            load(pos(1, 1), bin(BinOp::Add, var("__i"), idx(1))),
        ),
        let_mut("__pb", Type::Index, load(pos(2, 1), var("__i"))),
        let_(
            "__pb_end",
            Type::Index,
            load(pos(2, 1), bin(BinOp::Add, var("__i"), idx(1))),
        ),
        Stmt::While {
            cond: bin(
                BinOp::And,
                bin(BinOp::Lt, var("__pa"), var("__pa_end")),
                bin(BinOp::Lt, var("__pb"), var("__pb_end")),
            ),
            body: both,
        },
        rest("__pa", "__pa_end", 1, a_val()),
        rest("__pb", "__pb_end", 2, Expr::Neg(Box::new(scaled_b()))),
        Stmt::FinishSegment {
            level: 1,
            parent: var("__i"),
        },
    ];
    Kernel {
        combine: None,
        name: "sub_csr".into(),
        params: csr_params("C", "A", "B"),
        signature: vec![0, 1, 2],
        shape_checks: vec![
            check("i", &[(0, 0), (1, 0), (2, 0)]),
            check("j", &[(0, 1), (1, 1), (2, 1)]),
        ],
        body: vec![
            Stmt::Host(HostStep::BeginAssembly),
            for_("__i", idx(0), dim(0, 0), row),
            Stmt::Host(HostStep::EndAssembly),
        ],
    }
}

/// `C(i,j) = A(i,k) * B(k,j)`, all CSR (Gustavson): each row of C is scattered into a dense
/// workspace, its columns collected in a list, sorted, appended, and the workspace reset.
fn spgemm_csr() -> Kernel {
    let scatter = vec![
        let_("__j", Type::Index, load(crd(2, 1), var("__pb"))),
        Stmt::If {
            cond: Expr::Not(Box::new(load(temp("__seen"), var("__j")))),
            then: vec![
                store(temp("__seen"), var("__j"), Expr::Bool(true), false),
                store(temp("__list"), var("__n"), var("__j"), false),
                add_to("__n", idx(1)),
            ],
            otherwise: vec![],
        },
        store(
            temp("__w"),
            var("__j"),
            bin(
                BinOp::Mul,
                load(vals(1), var("__pa")),
                load(vals(2), var("__pb")),
            ),
            true,
        ),
    ];
    let gather = vec![
        let_("__jc", Type::Index, load(temp("__list"), var("__q"))),
        Stmt::Append {
            level: 1,
            coord: var("__jc"),
        },
        Stmt::AppendValue(load(temp("__w"), var("__jc"))),
        store(
            temp("__w"),
            var("__jc"),
            Expr::Value(Literal::Int(0)),
            false,
        ),
        store(temp("__seen"), var("__jc"), Expr::Bool(false), false),
    ];
    let row = vec![
        let_mut("__n", Type::Index, idx(0)),
        for_segment(
            "__pa",
            1,
            1,
            var("__i"),
            vec![
                let_("__k", Type::Index, load(crd(1, 1), var("__pa"))),
                for_segment("__pb", 2, 1, var("__k"), scatter),
            ],
        ),
        Stmt::SortPrefix {
            array: v("__list"),
            len: var("__n"),
        },
        for_("__q", idx(0), var("__n"), gather),
        Stmt::FinishSegment {
            level: 1,
            parent: var("__i"),
        },
    ];
    let workspace = |name: &str, ty| Stmt::workspace(v(name), ty, dim(0, 1));
    Kernel {
        combine: None,
        name: "spgemm_csr".into(),
        params: csr_params("C", "A", "B"),
        signature: vec![0, 1, 2],
        shape_checks: vec![
            check("i", &[(0, 0), (1, 0)]),
            check("k", &[(1, 1), (2, 0)]),
            check("j", &[(0, 1), (2, 1)]),
        ],
        body: vec![
            workspace("__w", TempType::Value),
            workspace("__seen", TempType::Bool),
            workspace("__list", TempType::Index),
            Stmt::Host(HostStep::BeginAssembly),
            for_("__i", idx(0), dim(0, 0), row),
            Stmt::Host(HostStep::EndAssembly),
        ],
    }
}

// ---- helpers -------------------------------------------------------------------------------------

fn emit(kernel: &Kernel) -> TokenStream {
    emit_rust(
        kernel,
        &[],
        &Visibility::Public(Default::default()),
        &Root::default(),
    )
}

fn pretty(tokens: TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens).expect("the emitted tokens parse as a file");
    prettyplease::unparse(&file)
}

fn contains_ident(tokens: TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|tt| match tt {
        TokenTree::Ident(i) => i == name,
        TokenTree::Group(g) => contains_ident(g.stream(), name),
        TokenTree::Punct(_) | TokenTree::Literal(_) => false,
    })
}

const GOLDEN_HEADER: &str = "// Emitted by sparse-compiler from a kernel built by hand in the IR \
                             (src/emit/tests.rs).\n// Regenerate with SPARSE_BLESS=1 cargo test -p \
                             sparse-compiler --lib emit.\n";

/// Compares the pretty-printed kernel with `tests/golden/emit_<name>.rs`, or rewrites the file
/// when `SPARSE_BLESS` is set.
fn check_golden(kernel: &Kernel) {
    let path = format!(
        "{}/tests/golden/emit_{}.rs",
        env!("CARGO_MANIFEST_DIR"),
        kernel.name
    );
    let doc = format!(" `{}`, emitted from a hand-built IR.", kernel.name);
    let attrs: Vec<syn::Attribute> = vec![syn::parse_quote!(#[doc = #doc])];
    let tokens = emit_rust(
        kernel,
        &attrs,
        &Visibility::Public(Default::default()),
        &Root::default(),
    );
    let actual = format!("{GOLDEN_HEADER}{}", pretty(tokens));
    if std::env::var_os("SPARSE_BLESS").is_some() {
        std::fs::write(&path, &actual).expect("writing the golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "{path} differs from the emitted code (SPARSE_BLESS=1 rewrites it):\n{actual}"
    );
}

fn golden_kernels() -> Vec<Kernel> {
    vec![spmv_csr(), spmv_dia(), sub_csr(), spgemm_csr()]
}

// ---- tests ---------------------------------------------------------------------------------------

#[test]
fn kernels_parse_as_functions_without_unsafe() {
    for kernel in golden_kernels() {
        let tokens = emit(&kernel);
        let item: syn::ItemFn = syn::parse2(tokens.clone()).expect("an fn item");
        assert_eq!(item.sig.ident, kernel.name);
        assert_eq!(item.sig.inputs.len(), kernel.params.len());
        assert!(!contains_ident(tokens, "unsafe"), "{}", kernel.name);
    }
}

#[test]
fn kernels_match_their_golden_files() {
    for kernel in golden_kernels() {
        check_golden(&kernel);
    }
}

#[test]
fn signature_names_the_formats_and_the_result() {
    let text = pretty(emit(&spmv_csr()));
    assert!(text.contains(
        "pub fn spmv_csr<T: ::sparse::Scalar>(\n    y: &mut ::sparse::Tensor<T, ::sparse::Dense<1>>,\n    A: &::sparse::Tensor<T, ::sparse::Csr>,"
    ));
    assert!(text.contains("-> ::core::result::Result<(), ::sparse::KernelError>"));
}

/// Every path into the facade goes through the root: a kernel emitted for a crate that renamed
/// the dependency to `sp` never names `sparse`.
#[test]
fn a_renamed_facade_is_the_only_root() {
    let root = Root::named("sp").expect("an identifier");
    for kernel in golden_kernels() {
        let vis = Visibility::Public(Default::default());
        let text = emit_rust(&kernel, &[], &vis, &root).to_string();
        let default = emit(&kernel).to_string();
        assert!(!text.contains("sparse"), "{}: {text}", kernel.name);
        assert_eq!(
            text.matches(":: sp ::").count(),
            default.matches(":: sparse ::").count(),
            "{}",
            kernel.name
        );
        assert!(text.contains(":: sp :: Scalar"), "{}", kernel.name);
    }
    assert!(Root::named("not a name").is_none());
}

#[test]
fn user_attributes_come_first() {
    let attrs: Vec<syn::Attribute> = vec![syn::parse_quote!(#[doc = " y = A x"])];
    let tokens = emit_rust(
        &spmv_csr(),
        &attrs,
        &Visibility::Inherited,
        &Root::default(),
    );
    let item: syn::ItemFn = syn::parse2(tokens).unwrap();
    assert!(item.attrs[0].path().is_ident("doc"));
    assert!(item.attrs[1].path().is_ident("allow"));
    assert!(matches!(item.vis, Visibility::Inherited));
}

#[test]
fn format_types_cover_const_arguments_and_custom_lists() {
    let mut kernel = spmv_csr();
    kernel.params[1].format = named("Bcsr", &[4, 2]);
    kernel.params[2].format = FormatType::Custom(vec![LevelSpec::hashed(0).non_unique()]);
    kernel.params[0].format = FormatType::Custom(vec![LevelSpec::compressed(0).unordered()]);
    let text = emit(&kernel).to_string().replace(' ', "");
    assert!(text.contains("A:&::sparse::Tensor<T,::sparse::Bcsr<4,2>>"));
    assert!(text.contains(
        "x:&::sparse::Tensor<T,::sparse::Custom<{::sparse::encode_levels(&[::sparse::LevelSpec::hashed(0).non_unique()])}>>"
    ));
    assert!(text.contains("::sparse::LevelSpec::compressed(0).unordered()"));
}

#[test]
fn parentheses_follow_rust_precedence() {
    let (a, b, c) = (var("__a"), var("__b"), var("__c"));
    let lets = [
        bin(BinOp::Mul, bin(BinOp::Add, a.clone(), b.clone()), c.clone()),
        bin(BinOp::Sub, a.clone(), bin(BinOp::Sub, b.clone(), c.clone())),
        bin(BinOp::Sub, bin(BinOp::Sub, a.clone(), b.clone()), c.clone()),
        bin(BinOp::Lt, load(crd(1, 1), a.clone()), b.clone()),
        bin(
            BinOp::Le,
            bin(BinOp::Add, a.clone(), load(pos(1, 1), b.clone())),
            c.clone(),
        ),
        bin(
            BinOp::Add,
            Expr::Select(Box::new(Expr::Bool(true)), Box::new(a.clone()), Box::new(b)),
            c,
        ),
        Expr::Neg(Box::new(bin(BinOp::Add, a.clone(), a))),
    ];
    let mut kernel = spmv_csr();
    for name in ["__a", "__b", "__c"] {
        kernel.body.push(let_(name, Type::Index, idx(1)));
    }
    for (k, init) in lets.into_iter().enumerate() {
        kernel
            .body
            .push(let_(&format!("__x{k}"), Type::Index, init));
    }
    let text = pretty(emit(&kernel));
    for expected in [
        "let __x0: usize = (__a + __b) * __c;",
        "let __x1: usize = __a - (__b - __c);",
        "let __x2: usize = __a - __b - __c;",
        "let __x3: usize = (__A_l1_crd[__a] as usize) < __b;",
        "let __x4: usize = (__a + __A_l1_pos[__b] as usize) <= __c;",
        "let __x5: usize = (if true { __a } else { __b }) + __c;",
        "let __x6: usize = -(__a + __a);",
    ] {
        assert!(text.contains(expected), "{expected} not in\n{text}");
    }
}

#[test]
fn literal_loop_bounds_fix_the_index_type() {
    let mut kernel = spmv_csr();
    kernel.body = vec![for_("__k", idx(0), idx(3), vec![])];
    assert!(pretty(emit(&kernel)).contains("for __k in 0usize..3 {}"));
}

#[test]
fn value_literals_go_through_the_scalar_trait() {
    let mut kernel = spmv_csr();
    let values = [
        Literal::Int(0),
        Literal::Int(1),
        Literal::Int(-3),
        Literal::Float(0.5),
        Literal::Float(f64::INFINITY),
    ];
    for (k, value) in values.into_iter().enumerate() {
        kernel
            .body
            .push(let_(&format!("__v{k}"), Type::Value, Expr::Value(value)));
    }
    let text = pretty(emit(&kernel));
    for expected in [
        "let __v0: T = <T as ::sparse::Scalar>::ZERO;",
        "let __v1: T = <T as ::sparse::Scalar>::ONE;",
        "let __v2: T = <T as ::sparse::Scalar>::from_i64(-3);",
        "let __v3: T = <T as ::sparse::Scalar>::from_f64(0.5);",
        "let __v4: T = <T as ::sparse::Scalar>::from_f64(::core::f64::INFINITY);",
    ] {
        assert!(text.contains(expected), "{expected} not in\n{text}");
    }
}

#[test]
fn bindings_avoid_the_names_of_ir_locals() {
    let mut kernel = spmv_csr();
    kernel.body.insert(0, let_("__A_vals", Type::Index, idx(0)));
    let text = pretty(emit(&kernel));
    assert!(text.contains("let __A_vals_: &[T] = A.values();"), "{text}");
    assert!(
        text.contains("__t += __A_vals_[__p] * __x_vals[__j];"),
        "{text}"
    );
}

#[test]
fn output_values_are_bound_after_every_read_of_the_output() {
    let text = pretty(emit(&spmv_csr()));
    let shape = text.find("let __y_shape0").unwrap();
    let values = text
        .find("let __y_vals: &mut [T] = y.values_mut();")
        .unwrap();
    let inputs = text.find("let __x_vals: &[T] = x.values();").unwrap();
    assert!(shape < inputs && inputs < values);
}

#[test]
fn reading_the_output_structure_while_writing_values_splits_one_borrow() {
    // y(i,j) = A(i,j) into an already assembled CSR y: its pos is read, its values written.
    let kernel = Kernel {
        combine: None,
        name: "copy_values".into(),
        params: vec![
            param("y", true, 2, named("Csr", &[])),
            param("A", false, 2, named("Csr", &[])),
        ],
        signature: vec![0, 1],
        shape_checks: vec![],
        body: vec![for_(
            "__p",
            idx(0),
            Expr::Len(crd(0, 1)),
            vec![store(vals(0), var("__p"), load(vals(1), var("__p")), false)],
        )],
    };
    let text = pretty(emit(&kernel));
    assert!(
        text.contains(
            "let (__y_levels, __y_vals): (&[::sparse::Level], &mut [T]) = ::sparse::__private::levels_and_values_mut(\n        &mut *y,\n    );"
        ),
        "{text}"
    );
    assert!(text.contains("let __y_l1_crd: &[::sparse::Idx] = __y_levels[1].crd();"));
}

#[test]
fn converted_inputs_are_read_through_their_copy() {
    let mut kernel = spmv_csr();
    kernel.params[1].format = named("Csc", &[]);
    kernel.params[1].convert_to = Some(named("Csr", &[]));
    kernel
        .body
        .insert(0, let_("__A_converted", Type::Index, idx(0)));
    let text = pretty(emit(&kernel));
    for expected in [
        "A: &::sparse::Tensor<T, ::sparse::Csc>,",
        "let __A_shape1: usize = A.shape()[1];",
        "let __A_converted_: ::sparse::Tensor<T, ::sparse::Csr> = A.convert()?;",
        "let __A_l1_pos: &[::sparse::Idx] = __A_converted_.level(1).pos();",
        "let __A_vals: &[T] = __A_converted_.values();",
    ] {
        assert!(text.contains(expected), "{expected} not in\n{text}");
    }
}

#[test]
fn shape_checks_compare_with_the_first_dimension() {
    let text = pretty(emit(&sub_csr()));
    assert!(text.contains("if __A_shape0 != __C_shape0 {"), "{text}");
    assert!(text.contains("if __B_shape1 != __C_shape1 {"), "{text}");
    assert!(text.contains("index: \"j\""));
    assert!(text.contains("tensor: \"B\""));
}

#[test]
fn broken_ir_is_an_internal_compile_error() {
    let mut out_of_range = spmv_csr();
    out_of_range
        .body
        .push(Stmt::AppendValue(load(vals(7), idx(0))));
    let mut store_into_input = spmv_csr();
    store_into_input
        .body
        .push(store(vals(1), idx(0), idx(0), false));
    let mut no_output = spmv_csr();
    no_output.params[0].output = false;
    let mut converted_output = spmv_csr();
    converted_output.params[0].convert_to = Some(named("Dense", &[1]));
    let mut bad_local = spmv_csr();
    bad_local.body.push(let_("i", Type::Index, idx(0)));
    for (kernel, why) in [
        (out_of_range, "parameter 7 does not exist"),
        (store_into_input, "a store into Vals"),
        (no_output, "the first parameter is not the output"),
        (bad_local, "`i` cannot name a local"),
        (
            converted_output,
            "the output is read through a converted copy",
        ),
    ] {
        let text = emit(&kernel).to_string();
        assert!(text.starts_with(":: core :: compile_error !"), "{text}");
        assert!(text.contains(why), "{text}");
    }
}
