//! The printer on hand-built kernels.

use super::*;
use crate::ir::{Param, Var};

fn var(name: &str) -> Expr {
    Expr::Var(Var(name.to_string()))
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

fn load(array: Array, index: Expr) -> Expr {
    Expr::Load(array, Box::new(index))
}

fn kernel(body: Vec<Stmt>) -> Kernel {
    let param = |name: &str, output, order, type_name, type_args: &[usize]| Param {
        name: name.to_string(),
        output,
        order,
        format: FormatType::Named {
            type_name,
            type_args: type_args.to_vec(),
        },
        convert_to: None,
        by_value: false,
        copy_of: None,
        fill: Literal::Int(0),
    };
    Kernel {
        combine: None,
        name: "spmv".into(),
        params: vec![
            param("y", true, 1, "Dense", &[1]),
            param("A", false, 2, "Csr", &[]),
            param("x", false, 1, "Dense", &[1]),
        ],
        signature: vec![0, 1, 2],
        shape_checks: vec![
            ShapeCheck {
                index: "i".into(),
                dims: vec![(0, 0), (1, 0)],
            },
            ShapeCheck {
                index: "j".into(),
                dims: vec![(1, 1), (2, 0)],
            },
        ],
        body,
    }
}

#[test]
fn spmv_prints_as_in_the_module_docs() {
    let pos = || Array::Pos { param: 1, level: 1 };
    let body = vec![Stmt::For {
        var: Var("__i".into()),
        lo: Expr::Index(0),
        hi: Expr::Dim { param: 0, dim: 0 },
        body: vec![
            Stmt::Let {
                var: Var("__t".into()),
                ty: Type::Value,
                init: Expr::Value(Literal::Int(0)),
                mutable: true,
            },
            Stmt::For {
                var: Var("__p".into()),
                lo: load(pos(), var("__i")),
                hi: load(pos(), bin(BinOp::Add, var("__i"), Expr::Index(1))),
                body: vec![Stmt::assign(
                    Var("__t".into()),
                    bin(
                        BinOp::Mul,
                        load(Array::Vals { param: 1 }, var("__p")),
                        load(
                            Array::Vals { param: 2 },
                            load(Array::Crd { param: 1, level: 1 }, var("__p")),
                        ),
                    ),
                    true,
                )],
            },
            Stmt::store(Array::Vals { param: 0 }, var("__i"), var("__t"), false),
        ],
    }];
    let expected = "\
kernel spmv(out y: Dense<1>, A: Csr, x: Dense<1>) {
    extent i: y.shape[0] == A.shape[0];
    extent j: A.shape[1] == x.shape[0];
    for __i in 0..y.shape[0] {
        let mut __t: value = T(0);
        for __p in A.l1.pos[__i]..A.l1.pos[__i + 1] {
            __t += A.vals[__p] * x.vals[A.l1.crd[__p]];
        }
        y.vals[__i] = __t;
    }
}
";
    assert_eq!(print_kernel(&kernel(body)), expected);
}

#[test]
fn every_statement_form_prints_on_its_own_line() {
    let w = Var("__w".into());
    let body = vec![
        Stmt::workspace(
            w.clone(),
            TempType::Index,
            Expr::Len(Array::Crd { param: 1, level: 1 }),
        ),
        Stmt::SortPrefix {
            array: w.clone(),
            len: Expr::Index(3),
        },
        Stmt::Host(HostStep::ZeroOutput { parallel: false }),
        Stmt::Host(HostStep::BeginAssembly),
        Stmt::While {
            cond: Expr::Not(Box::new(Expr::Bool(false))),
            body: vec![
                Stmt::Append {
                    level: 1,
                    coord: load(Array::Temp(w), Expr::Index(0)),
                },
                Stmt::AppendValue(Expr::Neg(Box::new(Expr::Value(Literal::Float(2.5))))),
                Stmt::assign(Var("__n".into()), Expr::AppendedLen { level: 1 }, false),
            ],
        },
        Stmt::If {
            cond: var("__a"),
            then: vec![Stmt::FinishSegment {
                level: 1,
                parent: Expr::LevelSize { param: 1, level: 0 },
            }],
            otherwise: vec![Stmt::If {
                cond: var("__b"),
                then: vec![],
                otherwise: vec![Stmt::Host(HostStep::EndAssembly)],
            }],
        },
    ];
    let text = print_kernel(&kernel(body));
    let expected = "
    workspace __w: index[len(A.l1.crd)] = 0;
    sort(__w[0..3]);
    zero(y.vals);
    begin_assembly(y);
    while !false {
        append(y.l1, __w[0]);
        append_value(y, -T(2.5));
        __n = appended_len(y.l1);
    }
    if __a {
        finish_segment(y.l1, A.l0.size);
    } else if __b {
    } else {
        end_assembly(y);
    }
}
";
    assert!(text.ends_with(expected), "{text}");
}

#[test]
fn parentheses_follow_precedence() {
    let (a, b, c) = (var("a"), var("b"), var("c"));
    let offset = || {
        let offsets = Array::Level {
            param: 1,
            level: 1,
            name: "offsets",
            elem: Type::Signed,
        };
        load(offsets, var("d"))
    };
    let signed = |e: Expr| Expr::Cast(Type::Signed, Box::new(e));
    let cases = [
        (
            bin(BinOp::Mul, bin(BinOp::Add, a.clone(), b.clone()), c.clone()),
            "(a + b) * c",
        ),
        (
            bin(BinOp::Sub, a.clone(), bin(BinOp::Sub, b.clone(), c.clone())),
            "a - (b - c)",
        ),
        (
            bin(BinOp::Sub, bin(BinOp::Sub, a.clone(), b.clone()), c.clone()),
            "a - b - c",
        ),
        (
            bin(BinOp::Eq, bin(BinOp::Lt, a.clone(), b.clone()), c.clone()),
            "(a < b) == c",
        ),
        (
            bin(
                BinOp::Or,
                bin(BinOp::And, a.clone(), b.clone()),
                bin(BinOp::Min, a.clone(), c.clone()),
            ),
            "a && b || min(a, c)",
        ),
        (
            Expr::Select(
                Box::new(a.clone()),
                Box::new(b.clone()),
                Box::new(Expr::Select(Box::new(c.clone()), Box::new(a), Box::new(b))),
            ),
            "a ? b : c ? a : b",
        ),
        (
            Expr::Cast(
                Type::Index,
                Box::new(bin(BinOp::Add, signed(c.clone()), offset())),
            ),
            "(c as signed + A.l1.offsets[d]) as index",
        ),
        (
            bin(
                BinOp::Min,
                bin(BinOp::Sub, signed(Expr::Dim { param: 9, dim: 1 }), offset()),
                bin(BinOp::Max, Expr::Neg(Box::new(c)), Expr::Signed(-1)),
            ),
            "min(#9.shape[1] as signed - A.l1.offsets[d], max(-c, -1i))",
        ),
    ];
    let printer = Printer {
        kernel: &kernel(vec![]),
        out: String::new(),
        depth: 0,
    };
    for (expr, expected) in cases {
        assert_eq!(printer.expr(&expr), expected);
    }
}

#[test]
fn scheduled_loops_and_searches_are_marked() {
    let lo = || Expr::Index(0);
    let hi = || Expr::Dim { param: 0, dim: 0 };
    let search = Expr::CountUpTo {
        array: Array::Pos { param: 1, level: 1 },
        target: Box::new(var("__p")),
    };
    let region = |var: &str, hi: Expr, unit, output| {
        Stmt::Parallel(Region {
            unit,
            var: Var(var.into()),
            lo: lo(),
            hi,
            body: vec![],
            output,
            reductions: vec![],
            units: None,
            work: None,
        })
    };
    let body = vec![
        region("__i", hi(), Unit::CpuThread, OutputAccess::Scattered),
        region(
            "__k",
            search,
            Unit::CpuThread,
            OutputAccess::Blocks {
                chunk: lo(),
                balance: None,
            },
        ),
        region("__j", hi(), Unit::CpuVector, OutputAccess::Untouched),
        Stmt::Update {
            place: Place::Elem(Array::Vals { param: 0 }, lo()),
            op: UpdateOp::Reduce(ReduceOp::Add),
            value: var("__t"),
            sync: Sync::Atomic,
        },
    ];
    let text = print_kernel(&kernel(body));
    let expected = "
    parallel(threads, shared) for __i in 0..y.shape[0] {
    }
    parallel(threads, owns blocks of 0) for __k in 0..count_up_to(A.l1.pos, __p) {
    }
    parallel(lanes) for __j in 0..y.shape[0] {
    }
    atomic y.vals[0] += __t;
}
";
    assert!(text.ends_with(expected), "{text}");
}

#[test]
fn a_coordinate_tile_prints_its_search_and_its_threshold() {
    let search = Expr::BinarySearchAfter {
        array: Array::Crd { param: 1, level: 0 },
        lo: Box::new(var("__lo")),
        hi: Box::new(var("__hi")),
        target: Box::new(var("__i_tile_lo")),
    };
    let printer = Printer {
        kernel: &kernel(vec![]),
        out: String::new(),
        depth: 0,
    };
    assert_eq!(
        printer.expr(&search),
        "binary_search_after(A.l0.crd, __lo, __hi, __i_tile_lo)"
    );
    let below = bin(BinOp::Lt, var("__work"), Expr::ParallelMinWork);
    assert_eq!(printer.expr(&below), "__work < parallel_min_work");
}

#[test]
fn converted_inputs_show_both_formats() {
    let mut k = kernel(vec![]);
    k.params[1].convert_to = Some(FormatType::Named {
        type_name: "Csc",
        type_args: vec![],
    });
    assert!(print_kernel(&k).starts_with("kernel spmv(out y: Dense<1>, A: Csr as Csc, x: "));
}

#[test]
fn custom_formats_list_their_levels() {
    let format = FormatType::Custom(vec![
        LevelSpec::dense(1),
        LevelSpec::compressed(0).unordered().non_unique(),
        LevelSpec::hashed(2),
    ]);
    assert_eq!(
        format_type(&format),
        "custom[dense(d1), compressed(d0, unordered, nonunique), hashed(d2)]"
    );
}
