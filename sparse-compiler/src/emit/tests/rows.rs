//! The bound of a loop over rows: clamped to a `pos` array's length less one where the body reads
//! a row's end, also under a branch (a masked row), and to the length where it reads only `v`.

use super::*;

/// `nx(i) = v(i) == 0 ? (some stored A(i,j) != 0) : 0`: the rows of `A` read only where `v(i)` is
/// zero, the way a masked BFS step reads them.
fn masked_rows() -> Kernel {
    let scan = for_segment(
        "__p",
        1,
        1,
        var("__i"),
        vec![Stmt::If {
            cond: bin(BinOp::Ne, load(vals(1), var("__p")), zero()),
            then: vec![Stmt::Update {
                place: crate::ir::Place::Var(v("__t")),
                op: crate::ir::UpdateOp::Set,
                value: Expr::Value(Literal::Int(1)),
                sync: crate::ir::Sync::Owned,
            }],
            otherwise: Vec::new(),
        }],
    );
    let row = vec![
        let_mut("__t", Type::Value, zero()),
        Stmt::If {
            cond: bin(BinOp::Eq, load(vals(2), var("__i")), zero()),
            then: vec![scan],
            otherwise: Vec::new(),
        },
        store(vals(0), var("__i"), var("__t"), false),
    ];
    Kernel {
        combine: None,
        name: "masked_rows".into(),
        params: vec![
            param("nx", true, 1, named("Dense", &[1])),
            param("A", false, 2, named("Csr", &[])),
            param("v", false, 1, named("Dense", &[1])),
        ],
        signature: vec![0, 1, 2],
        shape_checks: vec![check("i", &[(0, 0), (1, 0), (2, 0)])],
        body: vec![for_("__i", idx(0), dim(0, 0), row)],
    }
}

fn zero() -> Expr {
    Expr::Value(Literal::Int(0))
}

/// The emitted kernel without whitespace, as the token stream spells it.
fn squeezed(kernel: &Kernel) -> String {
    emit(kernel).to_string().replace(char::is_whitespace, "")
}

#[test]
fn a_row_end_read_under_a_mask_clamps_the_row_loop() {
    let text = squeezed(&masked_rows());
    let want = "for__iin0..__nx_shape0.min(__v_vals.len()).min(__nx_vals.len()).min(__A_l1_pos.len().saturating_sub(1))";
    assert!(text.contains(want), "{want} not in\n{text}");
}

#[test]
fn a_loop_reading_pos_only_at_its_variable_keeps_the_full_length() {
    let mut kernel = masked_rows();
    let Stmt::For { body, .. } = &mut kernel.body[0] else {
        unreachable!()
    };
    // The row's end read elsewhere: `pos[i]` alone bounds the loop by the whole array.
    body.insert(0, let_("__s", Type::Index, load(pos(1, 1), var("__i"))));
    let Stmt::If { then, .. } = &mut body[2] else {
        unreachable!()
    };
    then.clear();
    let text = squeezed(&kernel);
    assert!(!text.contains("saturating_sub"), "{text}");
    assert!(text.contains(".min(__A_l1_pos.len())"), "{text}");
}
