//! Intrinsic calls as the Rust emitter prints them, and an intrinsic with the wrong arity.

use super::*;

/// `y(i) = f(x(i))` for an intrinsic call `f` of `x(i)` (and of 2 for two-argument ones).
fn intrinsic_kernel(f: crate::ir::Intrinsic) -> Kernel {
    let x = load(vals(1), var("__i"));
    let args = match f.arity() {
        1 => vec![x],
        _ => vec![x, Expr::Value(Literal::Int(2))],
    };
    let body = vec![store(vals(0), var("__i"), Expr::Call(f, args), false)];
    Kernel {
        combine: None,
        name: "apply".into(),
        params: vec![
            param("y", true, 1, named("Dense", &[1])),
            param("x", false, 1, named("Dense", &[1])),
        ],
        signature: vec![0, 1],
        shape_checks: vec![check("i", &[(0, 0), (1, 0)])],
        body: vec![for_("__i", idx(0), dim(0, 0), body)],
    }
}

#[test]
fn intrinsics_compute_through_f64_or_compare_in_t() {
    use crate::ir::Intrinsic;
    // Compared without whitespace, as the token stream spells it.
    let squeeze = |s: &str| s.replace(char::is_whitespace, "");
    let text = |f| squeeze(&emit(&intrinsic_kernel(f)).to_string());
    let has = |f, want: &str| {
        let text = text(f);
        assert!(text.contains(&squeeze(want)), "{want} not in\n{text}");
    };
    let scalar = "<T as ::sparse::Scalar>";
    has(
        Intrinsic::Sqrt,
        &format!("{scalar}::from_f64({scalar}::to_f64(__x_vals[__i]).sqrt())"),
    );
    has(
        Intrinsic::Pow,
        &format!(".powf({scalar}::to_f64({scalar}::from_i64(2)))"),
    );
    has(
        Intrinsic::Abs,
        &format!("if __x < {scalar}::ZERO {{ {scalar}::ZERO - __x }}"),
    );
    has(Intrinsic::Min, "if __x <= __y { __x } else { __y }");
    has(Intrinsic::Max, "if __x >= __y { __x } else { __y }");
}

#[test]
fn an_intrinsic_with_the_wrong_arity_is_an_internal_error() {
    let mut kernel = intrinsic_kernel(crate::ir::Intrinsic::Sqrt);
    let Stmt::For { body, .. } = &mut kernel.body[0] else {
        unreachable!()
    };
    body[0] = store(
        vals(0),
        var("__i"),
        Expr::Call(crate::ir::Intrinsic::Sqrt, vec![]),
        false,
    );
    let text = emit(&kernel).to_string();
    assert!(text.contains("takes 1 arguments"), "{text}");
}
