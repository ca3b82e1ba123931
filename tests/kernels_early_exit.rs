//! `||` and `&&` reductions that stop at the first decisive term, tested four positions at a time
//! before the positions are tested one by one (`ir/passes/exits.rs`): rows of every length up to
//! eleven with the one decisive term at each position (in each lane of a block and in the tail),
//! with none, and behind stored zeros, against loops over the entries.
mod common;

use common::*;
use sparse::prelude::*;
use sparse::{Idx, Level};

tensor_kernel! {
    fn bfs_step; nx(i) = ((A(i,j) as bool) && (f(j) as bool) && !(v(i) as bool)) as f64;
    formats< A: csr >; reduce< j: || >;
}

tensor_kernel! {
    fn any_of; y(i) = A(i,j) && x(j); formats< A: csr >; reduce< j: || >;
}

/// A CSR matrix of `n` columns from its rows' (column, value) lists, zeros stored as given.
fn csr(n: usize, rows: &[Vec<(usize, f64)>]) -> Tensor<f64, Csr> {
    let (mut pos, mut crd, mut vals): (Vec<Idx>, Vec<Idx>, Vec<f64>) = (vec![0], vec![], vec![]);
    for row in rows {
        crd.extend(row.iter().map(|&(j, _)| j as Idx));
        vals.extend(row.iter().map(|&(_, v)| v));
        pos.push(crd.len() as Idx);
    }
    let m = rows.len();
    let levels = vec![Level::Dense { size: m }, Level::Compressed { pos, crd }];
    Tensor::from_parts(vec![m, n], levels, vals).expect("a valid CSR matrix")
}

/// Rows `(len, decisive)` for every length up to 11 and every position of the decisive term in
/// it, or none; each row's columns are `0..len`.
fn rows() -> Vec<(usize, Option<usize>)> {
    (0..12)
        .flat_map(|len| (0..=len).map(move |d| (len, (d < len).then_some(d))))
        .collect()
}

#[test]
fn a_bfs_step_finds_the_one_frontier_column_wherever_it_stands() {
    let rows = rows();
    let (m, n) = (rows.len(), 12);
    let mut entries = vec![Vec::new(); m];
    let mut fv = vec![vec![0.0; n]; m];
    for (i, &(len, hit)) in rows.iter().enumerate() {
        for j in 0..len {
            // A stored zero is false: a frontier column behind it decides nothing.
            let stored = if j + 1 == len && hit != Some(j) {
                0.0
            } else {
                1.0
            };
            entries[i].push((j, stored));
        }
        if let Some(j) = hit {
            fv[i][j] = 1.0;
        }
        if len > 0 && hit != Some(len - 1) {
            fv[i][len - 1] = 1.0;
        }
    }
    let a = csr(n, &entries);
    // One row at a time, each with its own frontier; the visited mask hides every fifth row.
    for (i, &(_, hit)) in rows.iter().enumerate() {
        let f = Tensor::from_dense([n], &fv[i]).unwrap();
        let vv: Vec<f64> = (0..m).map(|r| f64::from(u8::from(r % 5 == 4))).collect();
        let v = Tensor::from_dense([m], &vv).unwrap();
        let mut nx = garbage([m]);
        bfs_step(&mut nx, &a, &f, &v).unwrap();
        let want = f64::from(u8::from(hit.is_some() && i % 5 != 4));
        assert_eq!(nx.to_dense()[i], want, "row {i}: {:?}", rows[i]);
    }
}

#[test]
fn an_any_of_over_stored_zeros_finds_the_one_true_term_wherever_it_stands() {
    let rows = rows();
    let (m, n) = (rows.len(), 12);
    let entries: Vec<Vec<(usize, f64)>> = rows
        .iter()
        .map(|&(len, hit)| {
            (0..len)
                .map(|j| (j, if hit == Some(j) { 3.0 } else { 0.0 }))
                .collect()
        })
        .collect();
    let a = csr(n, &entries);
    assert_eq!(
        a.values().iter().filter(|&&v| v == 0.0).count(),
        506,
        "stored zeros are kept"
    );
    let x = Tensor::from_dense([n], &[1.0; 12]).unwrap();
    let mut y = garbage([m]);
    any_of(&mut y, &a, &x).unwrap();
    let want: Vec<f64> = rows
        .iter()
        .map(|&(_, hit)| f64::from(u8::from(hit.is_some())))
        .collect();
    assert_eq!(y.to_dense(), want);
}
