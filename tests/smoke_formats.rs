//! The thesis 9x12 example matrix (Chou et al. 2018) in every named format.
use sparse::Level;
use sparse::prelude::*;

fn thesis_entries() -> Vec<([usize; 2], f64)> {
    let rows: [&[usize]; 9] = [
        &[0, 3, 6],
        &[0, 1, 4],
        &[1, 2],
        &[2, 3, 6, 9],
        &[],
        &[4, 5, 8, 11],
        &[5, 6, 9],
        &[],
        &[8, 11],
    ];
    let mut out = Vec::new();
    let mut v = 1.0;
    for (i, cols) in rows.iter().enumerate() {
        for &j in cols.iter() {
            out.push(([i, j], v));
            v += 1.0;
        }
    }
    out
}

fn dense_of(entries: &[([usize; 2], f64)]) -> Vec<f64> {
    let mut d = vec![0.0; 9 * 12];
    for (c, v) in entries {
        d[c[0] * 12 + c[1]] += v;
    }
    d
}

fn round_trip<F: Format>() -> Tensor<f64, F> {
    let e = thesis_entries();
    let t = Tensor::<f64, F>::from_entries([9, 12], e.iter().rev().copied()).unwrap();
    assert_eq!(t.to_dense(), dense_of(&e), "format {}", F::NAME);
    let stored = if F::LEVELS.iter().all(|l| l.kind == sparse::LevelKind::Dense) {
        108
    } else {
        21
    };
    assert_eq!(t.nnz(), stored, "format {}", F::NAME);
    assert_eq!(t.entries().len(), stored, "format {}", F::NAME);
    t
}

#[test]
fn thesis_matrix_in_every_format() {
    let csr = round_trip::<Csr>();
    assert_eq!(csr.level(1).pos(), &[0, 3, 6, 8, 12, 12, 16, 19, 19, 21]);
    let csc = round_trip::<Csc>();
    assert_eq!(
        csc.level(1).pos(),
        &[0, 2, 4, 6, 8, 10, 12, 15, 15, 17, 19, 19, 21]
    );
    let coo = round_trip::<Coo<2>>();
    assert_eq!(coo.level(0).pos(), &[0, 21]);
    round_trip::<Dcsr>();
    round_trip::<Dcsc>();
    round_trip::<Dense<2>>();
    let ell = round_trip::<Ell>();
    assert_eq!(ell.stored_len(), 4 * 9);
    let dia = round_trip::<Dia>();
    match dia.level(1) {
        Level::Range { offsets, .. } => assert_eq!(offsets, &[-1, 0, 3, 6]),
        other => panic!("{other:?}"),
    }
    round_trip::<Bcsr<2, 3>>();
    round_trip::<Bcsr<4, 4>>();
    round_trip::<HashMat>();
    round_trip::<Csf<2>>();
}
