//! Tests of the grammar: what each clause parses to, and the message of every way it fails to.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Ident, Visibility};

use super::ast::{
    Access, AssignOp, Command, CommandKind, Expr, FormatExpr, Literal, LiteralValue, Schedule,
};
use super::parse_kernel;
use crate::algebra::Op;

/// A fully parenthesized print of an expression, written independently of the parser.
fn show(e: &Expr) -> String {
    match e {
        Expr::Access(a) => show_access(a),
        Expr::Literal(Literal {
            value: LiteralValue::Int(n),
            ..
        }) => n.to_string(),
        Expr::Literal(Literal {
            value: LiteralValue::Float(x),
            ..
        }) => format!("{x:?}"),
        Expr::Op { op, args, .. } => match &args[..] {
            [a] if op.is_function() => format!("{}({})", op.symbol(), show(a)),
            [a] if matches!(op, Op::Cast(_)) => format!("({} {})", show(a), op.symbol()),
            [a] => format!("({}{})", op.symbol(), show(a)),
            [a, b] if op.is_function() => format!("{}({}, {})", op.symbol(), show(a), show(b)),
            [a, b] => format!("({} {} {})", show(a), op.symbol(), show(b)),
            _ => "?".to_string(),
        },
        Expr::Call { name, args, .. } => {
            let args: Vec<String> = args.iter().map(show).collect();
            format!("{name}!({})", args.join(", "))
        }
    }
}

fn show_access(a: &Access) -> String {
    if a.indices.is_empty() {
        return a.tensor.to_string();
    }
    let indices: Vec<String> = a.indices.iter().map(Ident::to_string).collect();
    format!("{}({})", a.tensor, indices.join(","))
}

/// A typed command written back in the surface syntax (the kinds these tests use).
fn show_command(c: &Command) -> String {
    match &c.kind {
        CommandKind::Pos { var, pos, tensor } => format!("pos({var}, {pos}, {tensor})"),
        CommandKind::Collapse {
            outer,
            inner,
            fused,
        } => format!("collapse({outer}, {inner}, {fused})"),
        CommandKind::Split {
            var,
            outer,
            inner,
            direction,
            factor,
        } => format!(
            "split({var}, {outer}, {inner}, {direction:?}, {})",
            factor.0
        ),
        CommandKind::Precompute {
            expr,
            var,
            workspace_var,
            workspace,
        } => format!(
            "precompute({}, {var}, {workspace_var}, {workspace})",
            show(expr)
        ),
        CommandKind::Unroll { var, factor } => format!("unroll({var}, {})", factor.0),
        CommandKind::Parallelize { var, unit, race } => {
            format!("parallelize({var}, {unit:?}, {race:?})")
        }
        CommandKind::Assemble { tensor, insert } => {
            let how = if *insert { "Insert" } else { "Append" };
            format!("assemble({tensor}, {how})")
        }
        kind => kind.name().to_owned(),
    }
}

fn rhs(tokens: TokenStream) -> String {
    let kernel = parse_kernel(tokens).expect("parses");
    show(&kernel.assignment.rhs)
}

fn error(tokens: TokenStream) -> String {
    match parse_kernel(tokens) {
        Ok(_) => panic!("parsed, but an error was expected"),
        Err(e) => e.message(),
    }
}

#[test]
fn the_design_example_parses_clause_by_clause() {
    let kernel = parse_kernel(quote! {
        /// y = A x.
        #[inline]
        pub fn spmv;
        y(i) = A(i,j) * x(j);
        formats< y: dense, A: csr, x: dense >;
        schedule< collapse(i,j,f).pos(f,p,A).split(p,p0,p1,Down,16).parallelize(p0,CpuThread,Atomics) >;
    })
    .expect("parses");
    assert_eq!(kernel.attrs.len(), 2);
    assert!(matches!(kernel.vis, Visibility::Public(_)));
    assert_eq!(kernel.name, "spmv");
    assert_eq!(show_access(&kernel.assignment.lhs), "y(i)");
    assert_eq!(kernel.assignment.op, AssignOp::Assign);
    assert_eq!(show(&kernel.assignment.rhs), "(A(i,j) * x(j))");
    let formats: Vec<String> = kernel
        .formats
        .iter()
        .map(|d| match &d.format {
            FormatExpr::Named { name, args, .. } => format!("{}:{name}{args:?}", d.tensor)
                .replace(", Span", "")
                .replace("[]", ""),
            FormatExpr::Levels { .. } => "levels".to_owned(),
        })
        .collect();
    assert_eq!(formats, ["y:dense", "A:csr", "x:dense"]);
    let Some(Schedule::Commands(commands)) = &kernel.schedule else {
        panic!("expected commands");
    };
    let commands: Vec<String> = commands.iter().map(show_command).collect();
    assert_eq!(
        commands,
        [
            "collapse(i, j, f)",
            "pos(f, p, A)",
            "split(p, p0, p1, Down, 16)",
            "parallelize(p0, CpuThread, Atomics)"
        ]
    );
}

#[test]
fn binary_operators_follow_precedence_and_associate_left() {
    let e = rhs(quote! { fn k; y(i) = a(i) - b(i) - c(i) * d(i) / e(i) + f(i); });
    assert_eq!(e, "(((a(i) - b(i)) - ((c(i) * d(i)) / e(i))) + f(i))");
    let e = rhs(quote! { fn k; y(i) = a(i) / b(i) / c(i); });
    assert_eq!(e, "((a(i) / b(i)) / c(i))");
}

#[test]
fn operators_follow_rust_precedence() {
    let e = rhs(quote! { fn k; y(i) = a(i) || b(i) && c(i) < d(i) + e(i) % f(i); });
    assert_eq!(e, "(a(i) || (b(i) && (c(i) < (d(i) + (e(i) % f(i))))))");
    let e = rhs(quote! { fn k; y(i) = -a(i) as i32 * b(i) as bool; });
    assert_eq!(e, "(((-a(i)) as i32) * (b(i) as bool))");
    let e = rhs(quote! { fn k; y(i) = !a(i) == (b(i) >= c(i)) && a(i) != 0.5; });
    assert_eq!(e, "(((!a(i)) == (b(i) >= c(i))) && (a(i) != 0.5))");
}

#[test]
fn calls_take_expressions_and_heaviside_defaults_to_zero() {
    let e = rhs(quote! { fn k; y(i) = max(sqrt(a(i)), pow(b(i), 2)) * heaviside(c(i)); });
    assert_eq!(e, "(max(sqrt(a(i)), pow(b(i), 2)) * heaviside(c(i), 0))");
    let e = rhs(quote! { fn k; y(i) = atan2(a(i) - b(i), 1.5) + cos(x) + log10(A(i,j)); });
    assert_eq!(e, "((atan2((a(i) - b(i)), 1.5) + cos(x)) + log10(A(i,j)))");
}

#[test]
fn call_and_cast_errors_name_the_functions_and_types() {
    assert_eq!(
        error(quote! { fn k; y(i) = sqr(x(i)); }),
        "unknown function `sqr`; the functions are sqrt, abs, square, cube, cbrt, exp, log, \
         log10, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, pow, \
         atan2, max, min, heaviside"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = pow(x(i)); }),
        "`pow` takes 2 arguments, found 1"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = sqrt(x(i), 2); }),
        "`sqrt` takes 1 argument, found 2"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = heaviside(); }),
        "`heaviside` takes 1 or 2 arguments, found 0"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = x(i) as u8; }),
        "cannot cast to `u8`: a cast is `as f64`, `as f32`, `as i64`, `as i32` or `as bool`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i) < b(i) < c(i); }),
        "comparisons do not chain; add parentheses, as in `(a < b) == c`"
    );
}

#[test]
fn unary_minus_parentheses_literals_and_scalars() {
    let e = rhs(quote! { fn k; y(i) = -(a(i) + b(i)) * -2 + 1.5 * alpha; });
    assert_eq!(e, "(((-(a(i) + b(i))) * (-2)) + (1.5 * alpha))");
    let e = rhs(quote! { fn k; y(i) = a(i) - -b(i); });
    assert_eq!(e, "(a(i) - (-b(i)))");
    let e = rhs(quote! { fn k; y(i) = ((a(i))); });
    assert_eq!(e, "a(i)");
}

#[test]
fn accumulation_into_a_scalar_output() {
    let kernel = parse_kernel(quote! { fn dot; s += B(i,j,k) * C(i,j,k); }).expect("parses");
    assert_eq!(kernel.assignment.op, AssignOp::AddAssign);
    assert!(kernel.assignment.lhs.indices.is_empty());
    assert_eq!(kernel.assignment.lhs.tensor, "s");
    assert!(matches!(kernel.vis, Visibility::Inherited));
    assert!(kernel.formats.is_empty() && kernel.schedule.is_none());
}

#[test]
fn level_lists_keep_properties_and_the_mode_order() {
    let kernel = parse_kernel(quote! {
        fn k; y(i) = B(i,j) * x(j);
        formats< B: (dense, compressed(unordered, nonunique)) order(1, 0), x: bcsr(4, 2) >;
    })
    .expect("parses");
    let FormatExpr::Levels { levels, order, .. } = &kernel.formats[0].format else {
        panic!("expected a level list");
    };
    let kinds: Vec<String> = levels.iter().map(|l| l.kind.to_string()).collect();
    assert_eq!(kinds, ["dense", "compressed"]);
    let props: Vec<String> = levels[1].properties.iter().map(Ident::to_string).collect();
    assert_eq!(props, ["unordered", "nonunique"]);
    assert!(levels[0].properties.is_empty());
    let dims: Vec<usize> = order
        .as_ref()
        .expect("order")
        .0
        .iter()
        .map(|d| d.0)
        .collect();
    assert_eq!(dims, [1, 0]);
    let FormatExpr::Named { name, args, .. } = &kernel.formats[1].format else {
        panic!("expected a named format");
    };
    assert_eq!(name, "bcsr");
    assert_eq!(args.iter().map(|a| a.0).collect::<Vec<_>>(), [4, 2]);
}

#[test]
fn schedule_auto_and_expression_arguments() {
    let kernel =
        parse_kernel(quote! { fn k; y(i) = A(i,j) * x(j); schedule<auto>; }).expect("parses");
    assert!(matches!(kernel.schedule, Some(Schedule::Auto(_))));
    let kernel = parse_kernel(quote! {
        fn k; y(i) = A(i,j) * x(j);
        schedule< precompute(A(i,j) * x(j), i, iw, W).assemble(y, Append).divide(i, i0, i1, 4)
            .pos(i, p, A(i,j)) >;
    })
    .expect("parses");
    let Some(Schedule::Commands(commands)) = &kernel.schedule else {
        panic!("expected commands");
    };
    let commands: Vec<String> = commands.iter().map(show_command).collect();
    assert_eq!(
        commands,
        [
            "precompute((A(i,j) * x(j)), i, iw, W)",
            "assemble(y, Append)",
            "split(i, i0, i1, Up, 4)",
            "pos(i, p, A)",
        ]
    );
}

#[test]
fn a_missing_final_semicolon_is_accepted() {
    assert!(parse_kernel(quote! { fn k; y(i) = x(i) }).is_ok());
    assert!(parse_kernel(quote! { fn k; y(i) = x(i); formats<x: sparse> }).is_ok());
    assert!(parse_kernel(quote! { fn k; y(i) = x(i); schedule<auto> }).is_ok());
    assert!(parse_kernel(quote! { fn k; y(i) = x(i); formats<x: sparse,>; }).is_ok());
}

#[test]
fn statement_errors_say_what_was_expected() {
    assert_eq!(
        error(quote! { fn k; y(i) = A(i,j) * x(j) formats<A: csr>; }),
        "expected `;` after the statement, found `formats`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i) & b(i); }),
        "unsupported operator `&`; index notation has `+ - * / %`, the comparisons, `&& || !` \
         and `as`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = (a(i) ^ b(i)); }),
        "unsupported operator `^`; index notation has `+ - * / %`, the comparisons, `&& || !` \
         and `as`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) -= a(i); }),
        "expected `=` or `+=` after the output access, found `-=`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i) * ; }),
        "expected a tensor access, a number or `(`, found `;`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i + 1); }),
        "expected `,` or `)` after an index variable (indices are plain variables), found `+`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(); }),
        "a scalar tensor is written without parentheses: `a`, not `a()`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = 2.0f32 * a(i); }),
        "literal suffix `f32` is not allowed: a literal takes the kernel's value type; write \
         `2` or `2.0`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); z(i) = b(i); }),
        "expected `formats<...>`, `scalars<...>`, `fills<...>`, `reduce<...>`, `ops<...>` or `schedule<...>` after the statement (a \
         kernel has one statement), found `z`"
    );
}

#[test]
fn names_must_be_plain_identifiers() {
    assert_eq!(
        error(quote! { fn k; y(i) = match(i); }),
        "expected a tensor name, found keyword `match`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i, in); }),
        "expected an index variable, found keyword `in`"
    );
    assert_eq!(
        error(quote! { fn k; y(__i) = a(__i); }),
        "`__i`: names starting with `__` are reserved for the code the kernel generates"
    );
    assert_eq!(
        error(quote! { fn k; __y(i) = a(i); }),
        "`__y`: names starting with `__` are reserved for the code the kernel generates"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); formats<type: csr>; }),
        "expected a tensor name, found keyword `type`"
    );
    assert_eq!(
        error(quote! { fn k; y(_) = a(_); }),
        "expected an index variable, found keyword `_`"
    );
}

#[test]
fn header_errors_say_what_was_expected() {
    assert_eq!(
        error(quote! { spmv; y(i) = a(i); }),
        "expected `fn NAME;` naming the kernel, found `spmv`"
    );
    assert_eq!(
        error(quote! { fn spmv y(i) = a(i); }),
        "expected `;` after `fn spmv`, found `y`"
    );
    assert_eq!(
        error(quote! { pub fn spmv; }),
        "kernel `spmv` has no statement; expected one such as `y(i) = A(i,j) * x(j);` after \
         `fn spmv;`"
    );
    assert_eq!(
        error(quote! {}),
        "unexpected end of input, expected `fn NAME;` naming the kernel"
    );
}

#[test]
fn clause_errors_say_what_was_expected() {
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); formats<a: sparse>; formats<y: sparse>; }),
        "`formats<...>` is written twice; give every format in one clause"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); formats<a: sparse> schedule<auto>; }),
        "expected `;` after `formats<...>`, found `schedule`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); schedule<auto>; extra }),
        "expected `formats<...>`, `scalars<...>`, `fills<...>`, `reduce<...>`, `ops<...>` or `schedule<...>` after the statement (a \
         kernel has one statement), found `extra`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); formats(a: sparse); }),
        "expected `<` after `formats`, found `(`"
    );
}

#[test]
fn format_errors_say_what_was_expected() {
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); formats<a sparse>; }),
        "expected `:` after `a`, as in `a: csr`, found `sparse`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); formats<a: sparse b: dense>; }),
        "expected `,` or `>` after a format, found `b`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = A(i,j); formats<A: csr order(1, 0)>; }),
        "a mode order applies to a level list, as in `(dense, compressed) order(1, 0)`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = A(i,j); formats<A: (dense compressed)>; }),
        "expected `,` or `)` after a level, found `compressed`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = A(i,j); formats<A: (dense, compressed) order(x)>; }),
        "expected a dimension number, found `x`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = A(i,j); formats<A: bcsr(4, -4)>; }),
        "expected an integer argument, found `-4`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = A(i,j); formats<A: bcsr(4, 99999999999999999999999)>; }),
        "expected an integer argument, found `99999999999999999999999`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = A(i,j); formats<A: 3>; }),
        "expected a format such as `csr`, or a level list such as `(dense, compressed)`, \
         found `3`"
    );
}

#[test]
fn schedule_errors_say_what_was_expected() {
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); schedule<>; }),
        "expected `auto` or a scheduling command such as `split(i, i0, i1, Down, 16)`, found \
         `>`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); schedule<auto.split(i, i0, i1, Down, 4)>; }),
        "expected `>` after `auto`, which stands alone, found `.`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); schedule<reorder>; }),
        "expected `(` after `reorder`, found `>`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); schedule<split(i, i0 i1)>; }),
        "expected an operator such as `+` or `,` or `)` after an argument, found `i1`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); schedule<reorder(i) reorder(i)>; }),
        "expected `.` and another command, or `>` to end the schedule, found `reorder`"
    );
}

#[test]
fn command_arguments_are_typed() {
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); schedule<split(i, i0, i1, 4)>; }),
        "`split` takes a variable, two new variables, `Down` or `Up`, and a factor: \
         `split(i, i0, i1, Down, 16)`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); schedule<unroll(i, 0)>; }),
        "`unroll` needs a factor of at least 1"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); schedule<parallelize(i, CpuThread, Maybe)>; }),
        "`parallelize` takes a variable, a unit (`CpuThread`, `CpuVector`, `GpuBlock`, \
         `GpuWarp`, `GpuThread`) and a race strategy (`NoRaces`, `IgnoreRaces`, `Atomics`, \
         `Temporary`, `ParallelReduction`)"
    );
    // The grammar of the whole invocation comes first: a misplaced token after the schedule is
    // the error, not the command before it.
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); schedule<tile(i)>; extra }),
        "expected `formats<...>`, `scalars<...>`, `fills<...>`, `reduce<...>`, `ops<...>` or `schedule<...>` after the statement (a \
         kernel has one statement), found `extra`"
    );
    assert!(
        error(quote! { fn k; y(i) = a(i); schedule<tile(i)>; })
            .starts_with("unknown scheduling command `tile`")
    );
}

#[test]
fn the_parameter_list_and_scalars_parse_and_clauses_come_in_any_order() {
    let kernel = parse_kernel(quote! {
        pub fn axpy(y, alpha, x);
        y(i) = alpha * x(i) + y(i);
        schedule<auto>;
        scalars<alpha>;
        formats<x: dense>;
    })
    .unwrap();
    let names = |list: &[Ident]| list.iter().map(Ident::to_string).collect::<Vec<_>>();
    assert_eq!(names(&kernel.params.unwrap().names), ["y", "alpha", "x"]);
    assert_eq!(names(&kernel.scalars), ["alpha"]);
    assert_eq!(kernel.formats.len(), 1);
    assert!(matches!(kernel.schedule, Some(Schedule::Auto(_))));
    let plain = parse_kernel(quote! { fn k; y(i) = x(i); }).unwrap();
    assert!(plain.params.is_none() && plain.scalars.is_empty());
    let empty = parse_kernel(quote! { fn k(); y(i) = x(i); scalars<>; }).unwrap();
    assert!(empty.params.unwrap().names.is_empty() && empty.scalars.is_empty());
}

#[test]
fn parameter_and_scalar_errors_say_what_was_expected() {
    assert_eq!(
        error(quote! { fn k(y x); y(i) = x(i); }),
        "expected `,` or `)` after a parameter, found `x`"
    );
    assert_eq!(
        error(quote! { fn k(y, 2); y(i) = x(i); }),
        "expected a tensor name, found `2`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a * x(i); scalars<a b>; }),
        "expected `,` or `>` after a scalar's name, found `b`"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a * x(i); scalars<a>; scalars<a>; }),
        "`scalars<...>` is written twice; list every scalar in one clause"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a * x(i); scalars<a> formats<x: dense>; }),
        "expected `;` after `scalars<...>`, found `formats`"
    );
}

/// A region written back with every operator parenthesized.
fn show_region(r: &super::ast::Region, params: &[Ident]) -> String {
    use super::ast::Region;
    match r {
        Region::Param(k) => params[*k].to_string(),
        Region::And(a, b) => format!("({} & {})", show_region(a, params), show_region(b, params)),
        Region::Or(a, b) => format!("({} | {})", show_region(a, params), show_region(b, params)),
        Region::Not(a) => format!("!{}", show_region(a, params)),
    }
}

#[test]
fn user_operators_parse_with_their_regions_and_values() {
    let kernel = parse_kernel(quote! {
        fn k; y(i) = f(a(i), b(i)) + g(s, t);
        ops< f(x, y) = x > y over x & !y | (y & x) when !x => 2 * y identity 0 annihilator -inf;
             g(u, v) = f(u, v) - 1; >;
    })
    .expect("parses");
    assert_eq!(show(&kernel.assignment.rhs), "(f!(a(i), b(i)) + g!(s, t))");
    let f = &kernel.ops[0];
    assert_eq!(show(&f.body), "(x > y)");
    let over = f.over.as_ref().expect("over");
    assert_eq!(show_region(over, &f.params), "((x & !y) | (y & x))");
    assert_eq!(f.whens.len(), 1);
    assert_eq!(show_region(&f.whens[0].0, &f.params), "!x");
    assert_eq!(f.identity.map(|v| v.0), Some(LiteralValue::Int(0)));
    assert_eq!(
        f.annihilator.map(|v| v.0),
        Some(LiteralValue::Float(f64::NEG_INFINITY))
    );
    assert_eq!(show(&kernel.ops[1].body), "(f!(u, v) - 1)");
}

#[test]
fn user_operator_errors_name_what_is_wrong() {
    assert_eq!(
        error(quote! { fn k; y(i) = f(a(i)); ops< f(x, y) = x + y; >; }),
        "`f` takes 2 operands, found 1"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = f(a(i), b(i)); ops< f(x, y) = x + z; >; }),
        "`z` is not an operand of this operator; its body reads only its operands (`x`, `y`)"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = f(a(i), b(i)); ops< f(x, y) = x over x & b; >; }),
        "`b` is not an operand of this operator; a region names its operands (`x`, `y`)"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); ops< f(x) = x; f(y) = y; >; }),
        "the operator `f` is defined twice"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); ops< min(x, y) = x; >; }),
        "`min` is a built-in function; give the operator another name"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); ops< f(x, x) = x; >; }),
        "the parameter `x` is listed twice"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = a(i); ops< f(x) = g(x); g(x) = x; >; }),
        "unknown function `g`; the functions are sqrt, abs, square, cube, cbrt, exp, log, \
         log10, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, pow, \
         atan2, max, min, heaviside (a body calls only the operators defined before it)"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = A(i,j); reduce< j: f >; ops< f(x, y) = x + y; >; }),
        "`f` cannot reduce: a reduction needs an operator of two operands with an identity to \
         start from; add `identity v` to its definition"
    );
    assert_eq!(
        error(quote! { fn k; y(i) = A(i,j); reduce< j: f >; }),
        "unknown reduction operator `f`; expected one of `+`, `*`, `min`, `max`, `||`, `&&`"
    );
}

#[test]
fn a_user_operator_with_an_identity_reduces() {
    let kernel = parse_kernel(quote! {
        fn k; y(i) = A(i,j); reduce< j: f >; ops< g(x) = x; f(x, y) = x * y identity 1; >;
    })
    .expect("parses");
    let identity = 1f64.to_bits();
    assert_eq!(kernel.reduce.len(), 1);
    assert_eq!(kernel.reduce[0].var, "j");
    assert_eq!(kernel.reduce[0].op, Op::User { index: 1, identity });
}
