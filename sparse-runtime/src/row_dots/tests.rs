use super::*;

#[cfg(target_arch = "x86_64")]
use super::lanes::FourLanes;
#[cfg(not(target_arch = "x86_64"))]
use crate::Scalar as FourLanes;

/// `x86::rows4` on copies of `before`, the values of `x` gathered and loaded, with no hints
/// (`hints` is `NONE`) or the streams'; none where the processor lacks AVX2 and FMA.
///
/// # Safety
/// `w` is at least as long as `crd`, and every coordinate is below `x.len() <= i32::MAX`.
#[allow(unused_variables)]
unsafe fn four_rows<T: FourLanes>(
    x: &[T],
    crd: &[Idx],
    w: &[T],
    pos: &[Idx],
    before: &[T],
    add: bool,
    hints: u8,
) -> Vec<(&'static str, Vec<T>)> {
    #[cfg(target_arch = "x86_64")]
    if crate::dot::lanes_present() {
        use x86::{GATHERED, LOADED, rows4};
        let (mut gathered, mut loaded) = (before.to_vec(), before.to_vec());
        let (g, l) = (&mut gathered, &mut loaded);
        // SAFETY: AVX2 and FMA are present; the rest is the contract.
        unsafe {
            if hints == NONE {
                rows4::<_, GATHERED, NONE>(x, crd, w, pos, g, add);
                rows4::<_, LOADED, NONE>(x, crd, w, pos, l, add);
            } else {
                rows4::<_, GATHERED, STREAMS>(x, crd, w, pos, g, add);
                rows4::<_, LOADED, STREAMS>(x, crd, w, pos, l, add);
            }
        }
        return vec![("gathered", gathered), ("loaded", loaded)];
    }
    Vec::new()
}

/// Rows of every length up to 13 (every tail length, several full chunks), empty rows
/// among them, then a row whose end is past `crd` and one whose start is past its end.
fn matrix() -> (Vec<Idx>, Vec<Idx>, Vec<i32>) {
    let mut pos = vec![0];
    let (mut crd, mut w) = (Vec::new(), Vec::new());
    for len in (0..14usize).chain([0, 1, 0, 5, 2]) {
        for p in 0..len {
            crd.push(((p * 5 + len) % 11) as Idx);
            w.push((p % 7) as i32 - 3);
        }
        pos.push(crd.len() as Idx);
    }
    let n = crd.len() as Idx;
    pos.extend([n + 9, n - 2]);
    (pos, crd, w)
}

/// The rows by the definition, in `f64` (small integers: every order of a sum is exact).
fn reference(x: &[i32], pos: &[Idx], crd: &[Idx], w: &[i32]) -> Vec<f64> {
    let end = |p: Idx| (p as usize).min(crd.len());
    (0..pos.len() - 1)
        .map(|r| {
            let (lo, hi) = (end(pos[r]), end(pos[r + 1]));
            (lo..hi.max(lo))
                .map(|p| f64::from(w[p]) * f64::from(x[crd[p] as usize]))
                .sum()
        })
        .collect()
}

#[test]
fn every_row_agrees_with_the_definition_set_or_added() {
    let (pos, crd, w) = matrix();
    let x: Vec<i32> = (0..11).map(|j| j * 3 - 14).collect();
    let want = reference(&x, &pos, &crd, &w);
    let (x64, w64): (Vec<f64>, Vec<f64>) = (
        x.iter().map(|&v| f64::from(v)).collect(),
        w.iter().map(|&v| f64::from(v)).collect(),
    );
    for add in [false, true] {
        // One output longer than the rows: its last value is not touched.
        let before: Vec<f64> = (0..pos.len()).map(|r| r as f64 * 100.0).collect();
        let expected: Vec<f64> = (0..pos.len())
            .map(|r| match want.get(r) {
                Some(v) if add => before[r] + v,
                Some(v) => *v,
                None => before[r],
            })
            .collect();
        let mut got = before.clone();
        // SAFETY: every coordinate is below 11 = x.len(); `w` is as long as `crd`.
        unsafe { f64s(&x64, &crd, &w64, &pos, &mut got, add) };
        assert_eq!(got, expected, "f64, add {add}");
        let mut got = before.clone();
        // SAFETY: as above.
        unsafe { each(&x64, &crd, &w64, &pos, &mut got, add) };
        assert_eq!(got, expected, "f64 one by one, add {add}");
        // SAFETY: as above, and below `i32::MAX`.
        for (way, got) in unsafe { four_rows(&x64, &crd, &w64, &pos, &before, add, NONE) } {
            assert_eq!(got, expected, "f64 four rows at a time, {way}, add {add}");
        }
        let (x32, w32): (Vec<f32>, Vec<f32>) = (
            x.iter().map(|&v| v as f32).collect(),
            w.iter().map(|&v| v as f32).collect(),
        );
        let mut floats: Vec<f32> = before.iter().map(|&v| v as f32).collect();
        // SAFETY: as above.
        unsafe { f32s(&x32, &crd, &w32, &pos, &mut floats, add) };
        let floats: Vec<f64> = floats.into_iter().map(f64::from).collect();
        assert_eq!(floats, expected, "f32, add {add}");
        let mut ints: Vec<i32> = before.iter().map(|&v| v as i32).collect();
        // SAFETY: as above.
        unsafe { each(&x, &crd, &w, &pos, &mut ints, add) };
        let ints: Vec<f64> = ints.into_iter().map(f64::from).collect();
        assert_eq!(ints, expected, "i32, add {add}");
    }
}

#[test]
fn rows_stop_at_the_end_of_the_output_or_of_pos() {
    let (pos, crd, w) = matrix();
    let x = vec![2.0; 11];
    let w: Vec<f64> = w.iter().map(|&v| f64::from(v)).collect();
    for len in 0..7 {
        let mut out = vec![f64::NAN; len];
        // SAFETY: every coordinate is below 11; `w` is as long as `crd`.
        unsafe { f64s(&x, &crd, &w, &pos[..4], &mut out, false) };
        let rows = len.min(3);
        assert_eq!(out[..rows], [0.0, -6.0, -10.0][..rows], "{out:?}");
        assert!(out[rows..].iter().all(|v| v.is_nan()), "{out:?}");
        let before = vec![f64::NAN; len];
        // SAFETY: as above.
        for (way, lanes) in unsafe { four_rows(&x, &crd, &w, &pos[..4], &before, false, NONE) } {
            assert_eq!(lanes[..rows], out[..rows], "four rows at a time, {way}");
            assert!(lanes[rows..].iter().all(|v| v.is_nan()), "{way}: {lanes:?}");
        }
    }
}

/// Rows of none to three positions (the fibers of a 3-tensor): empty rows first, in runs
/// and last, and a last row whose end is past `crd`.
fn short_matrix() -> (Vec<Idx>, Vec<Idx>, Vec<i32>) {
    let mut pos = vec![0];
    let (mut crd, mut w) = (Vec::new(), Vec::new());
    let lens = [0, 0, 1, 2, 3, 0, 0, 0, 2, 1, 1, 3, 2, 0, 1, 0, 0];
    for (r, &len) in lens.iter().cycle().take(5 * lens.len()).enumerate() {
        for p in 0..len {
            crd.push(((p * 5 + r) % 11) as Idx);
            w.push(((p + r) % 7) as i32 - 3);
        }
        pos.push(crd.len() as Idx);
    }
    crd.extend([4, 9]);
    w.extend([5, -2]);
    pos.push(crd.len() as Idx + 6);
    (pos, crd, w)
}

#[test]
fn short_rows_are_summed_in_one_pass_as_the_definition_says() {
    let (pos, crd, w) = short_matrix();
    assert!(short_rows(&crd, &pos, pos.len() - 1).is_some());
    assert!(short_rows(&crd, &pos, 32).is_none(), "a row split's block");
    let x: Vec<i32> = (0..11).map(|j| j * 3 - 14).collect();
    let want = reference(&x, &pos, &crd, &w);
    let (x64, w64): (Vec<f64>, Vec<f64>) = (
        x.iter().map(|&v| f64::from(v)).collect(),
        w.iter().map(|&v| f64::from(v)).collect(),
    );
    for rows in 0..pos.len() {
        let mut got = vec![f64::NAN; rows];
        // SAFETY: every coordinate is below 11 = x.len(); `w` is as long as `crd`;
        // `rows < pos.len()`.
        unsafe { one_pass(&x64, &crd, &w64, &pos, &mut got) };
        assert_eq!(got, want[..rows], "{rows} rows");
        let mut got = vec![f64::NAN; rows];
        // SAFETY: as above.
        unsafe { four_steps(&x64, &crd, &w64, &pos, &mut got) };
        assert_eq!(got, want[..rows], "{rows} rows, four steps");
    }
    let mut ints = vec![7; want.len() + 1];
    // SAFETY: as above.
    unsafe { each(&x, &crd, &w, &pos, &mut ints, false) };
    assert_eq!(ints.pop(), Some(7), "past the rows");
    assert!(
        ints.iter().zip(&want).all(|(&i, &v)| f64::from(i) == v),
        "{ints:?}"
    );
    let mut floats = vec![0f32; want.len()];
    let (x32, w32): (Vec<f32>, Vec<f32>) = (
        x.iter().map(|&v| v as f32).collect(),
        w.iter().map(|&v| v as f32).collect(),
    );
    // SAFETY: as above.
    unsafe { f32s(&x32, &crd, &w32, &pos, &mut floats, false) };
    assert!(
        floats.iter().zip(&want).all(|(&f, &v)| f64::from(f) == v),
        "{floats:?}"
    );
}

/// A `pos` that goes down or past `crd` gives wrong sums (short runs or four rows at a time),
/// but reads and writes nothing out of bounds.
#[test]
fn rows_of_a_corrupt_pos_stay_in_bounds() {
    let crd: Vec<Idx> = vec![0, 1, 2, 0, 1];
    let w = vec![1.0; 5];
    let x = vec![1.0, 2.0, 3.0];
    for pos in [
        vec![0, 5, 1, 1, 1, 2],
        vec![3, 0, 0, 9, 9, 9],
        vec![0, 0, 0, 0, 0, 90],
        vec![5, 4, 3, 2, 1, 0],
    ] {
        let mut out = vec![f64::NAN; 5];
        // SAFETY: every coordinate is below 3 = x.len(); `w` is as long as `crd`;
        // `out.len() < pos.len()`.
        unsafe { one_pass(&x, &crd, &w, &pos, &mut out) };
        assert!(out.iter().all(|v| v.is_finite()), "{pos:?}: {out:?}");
        let mut out = vec![f64::NAN; 5];
        // SAFETY: as above.
        unsafe { four_steps(&x, &crd, &w, &pos, &mut out) };
        assert!(out.iter().all(|v| v.is_finite()), "{pos:?}: {out:?}");
        // SAFETY: as above.
        for (way, out) in unsafe { four_rows(&x, &crd, &w, &pos, &[f64::NAN; 5], false, NONE) } {
            assert!(out.iter().all(|v| v.is_finite()), "{way}, {pos:?}: {out:?}");
        }
    }
}

/// Four steps read past a row's end: what they read there, an infinite weight or `x`
/// value, a NaN, must not reach the row's sum; rows longer than four and rows too close to
/// the end of `crd` for a vector agree with the definition.
#[test]
fn four_steps_keep_what_they_read_past_a_row_out_of_its_sum() {
    let x = vec![1.0, 2.0, f64::INFINITY, 4.0];
    // Rows of positions: [0], [1 2] (an infinite weight), [3] (a NaN weight, an infinite
    // `x`), [], [4..10] (six), [10 11], [12], [13].
    let crd: Vec<Idx> = vec![0, 1, 1, 2, 1, 0, 1, 3, 1, 0, 3, 1, 3, 0];
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let w = vec![
        2.0, 3.0, inf, nan, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0,
    ];
    let pos: Vec<Idx> = vec![0, 1, 3, 4, 4, 10, 12, 13, 14];
    let mut out = vec![f64::NAN; pos.len() - 1];
    // SAFETY: every coordinate is below 4 = x.len(); `w` is as long as `crd`;
    // `out.len() < pos.len()`.
    unsafe { four_steps(&x, &crd, &w, &pos, &mut out) };
    let want = [2.0, f64::INFINITY, f64::NAN, 0.0, 31.0, 38.0, 32.0, 9.0];
    assert_eq!(out[..2], want[..2], "{out:?}");
    assert!(out[2].is_nan(), "a NaN weight in the row is the row's");
    assert_eq!(out[3..], want[3..], "{out:?}");
    // The empty row alone: its vector reads the next row's positions.
    let mut one = [f64::NAN];
    // SAFETY: as above.
    unsafe { four_steps(&x, &crd, &w, &pos[3..5], &mut one) };
    assert_eq!(one, [0.0]);
    let mut first = [f64::NAN];
    // SAFETY: as above.
    unsafe { four_steps(&x, &crd, &w, &pos[..2], &mut first) };
    assert_eq!(first, [2.0], "the infinity and NaN after the row stay out");
}

/// A run of rows averaging between two and three positions (TTV's fibers) takes four steps
/// through [`f64s`]; one of rows averaging under two takes the one pass. Both agree with the
/// definition.
#[test]
fn short_runs_through_f64s_agree_with_the_definition() {
    for lens in [[1, 2, 3, 4, 2, 0, 5], [1, 1, 2, 1, 0, 1, 3]] {
        let mut pos = vec![0];
        let (mut crd, mut w) = (Vec::new(), Vec::new());
        for r in 0..100 {
            for p in 0..lens[r % lens.len()] {
                crd.push(((p * 3 + r) % 11) as Idx);
                w.push(((p + 2 * r) % 9) as i32 - 4);
            }
            pos.push(crd.len() as Idx);
        }
        let rows = pos.len() - 1;
        assert!(short_rows(&crd, &pos, rows).is_some());
        let x: Vec<i32> = (0..11).map(|j| 7 - j * 2).collect();
        let want = reference(&x, &pos, &crd, &w);
        let (x64, w64): (Vec<f64>, Vec<f64>) = (
            x.iter().map(|&v| f64::from(v)).collect(),
            w.iter().map(|&v| f64::from(v)).collect(),
        );
        let mut got = vec![f64::NAN; rows];
        // SAFETY: every coordinate is below 11 = x.len(); `w` is as long as `crd`.
        unsafe { f64s(&x64, &crd, &w64, &pos, &mut got, false) };
        assert_eq!(got, want, "{lens:?}");
    }
}

/// Arrays past the prefetch threshold take the hinted copy of the row loop (and the four
/// rows at a time give hints): the rows must not change.
#[test]
fn rows_of_arrays_larger_than_the_caches_agree_with_the_definition() {
    let n = crate::prefetch::PREFETCH_MIN_BYTES / size_of::<Idx>() + 7;
    let crd: Vec<Idx> = (0..n).map(|p| ((p * 7) % 101) as Idx).collect();
    let w: Vec<i32> = (0..n).map(|p| (p % 5) as i32 - 2).collect();
    // Rows of 0 to 12 entries, cycling, up to the end.
    let mut pos = vec![0 as Idx];
    while (*pos.last().unwrap() as usize) < n {
        let next = (*pos.last().unwrap() as usize + pos.len() % 13).min(n);
        pos.push(next as Idx);
    }
    let x: Vec<i32> = (0..101).map(|j| j % 9 - 4).collect();
    let want = reference(&x, &pos, &crd, &w);
    let (x64, w64): (Vec<f64>, Vec<f64>) = (
        x.iter().map(|&v| f64::from(v)).collect(),
        w.iter().map(|&v| f64::from(v)).collect(),
    );
    let mut got = vec![0.0; want.len()];
    // SAFETY: every coordinate is below 101 = x.len(); `w` is as long as `crd`.
    unsafe { f64s(&x64, &crd, &w64, &pos, &mut got, false) };
    assert_eq!(got, want, "f64");
    let mut ints = vec![0; want.len()];
    // SAFETY: as above.
    unsafe { each(&x, &crd, &w, &pos, &mut ints, false) };
    assert!(
        ints.iter().zip(&want).all(|(&i, &v)| f64::from(i) == v),
        "i32"
    );
    let before = vec![0.0; want.len()];
    // SAFETY: as above.
    for (way, lanes) in unsafe { four_rows(&x64, &crd, &w64, &pos, &before, false, STREAMS) } {
        assert_eq!(lanes, want, "four rows at a time, {way}");
    }
}

/// Where gathers do not pay everywhere (AMD), the `f64` lanes gather only for rows that read a
/// large `x` at scattered places and are not short; where they pay (Intel), always.
#[cfg(target_arch = "x86_64")]
#[test]
fn lanes_gather_scattered_rows_of_a_large_x() {
    let n = GATHERED_X_MIN_BYTES / size_of::<f64>();
    let (large, small) = (vec![0.0; n], vec![0.0; n - 1]);
    let rows = |len: usize, at: &dyn Fn(usize, usize) -> usize| {
        let pos: Vec<Idx> = (0..=100).map(|r| (r * len) as Idx).collect();
        let crd: Vec<Idx> = (0..100 * len)
            .map(|p| at(p / len, p % len) as Idx)
            .collect();
        (pos, crd)
    };
    // Ten columns spread over all of `x`, different in every row; ten within a band.
    let (pos, spread) = rows(10, &|r, k| k * (n / 10) + r * 7919 % (n / 10));
    let (_, band) = rows(10, &|r, k| r * 50 + k * 200);
    let pays = crate::dot::gathers_pay();
    assert!(gathered_rows(&large, &spread, &pos, 100, false));
    assert_eq!(
        gathered_rows(&small, &spread, &pos, 100, false),
        pays,
        "x too small"
    );
    assert_eq!(
        gathered_rows(&large, &band, &pos, 100, false),
        pays,
        "a band"
    );
    assert_eq!(
        gathered_rows(&large, &spread, &pos, 100, true),
        pays,
        "short rows"
    );
}

/// Rows scattered over an `x` past the gathers' hint threshold take the copy of the row loop
/// that hints them: the rows must not change.
#[test]
fn rows_whose_gathers_are_hinted_agree_with_the_definition() {
    use crate::prefetch::{PREFETCH_MIN_BYTES, ROW_GATHER_HINT_MIN_BYTES, row_gathers_wanted};
    let n = ROW_GATHER_HINT_MIN_BYTES / size_of::<i32>();
    let positions = PREFETCH_MIN_BYTES / size_of::<Idx>() + 5;
    // Rows of 3 to 17 entries, the last one shorter, at columns spread over all of `x`.
    let mut pos = vec![0 as Idx];
    while (*pos.last().unwrap() as usize) < positions {
        let next = (*pos.last().unwrap() as usize + 3 + pos.len() % 15).min(positions);
        pos.push(next as Idx);
    }
    let crd: Vec<Idx> = (0..positions)
        .map(|p| ((p * 2_654_435) % n) as Idx)
        .collect();
    let w: Vec<i32> = (0..positions).map(|p| (p % 5) as i32 - 2).collect();
    let x: Vec<i32> = (0..n).map(|j| (j % 9) as i32 - 4).collect();
    let rows = pos.len() - 1;
    assert!(row_gathers_wanted(&x, &crd, &pos, rows), "the hinted copy");
    let want = reference(&x, &pos, &crd, &w);
    let mut ints = vec![0; rows];
    // SAFETY: every coordinate is below `n` = x.len(); `w` is as long as `crd`.
    unsafe { each(&x, &crd, &w, &pos, &mut ints, false) };
    assert!(ints.iter().zip(&want).all(|(&i, &v)| f64::from(i) == v));
    let (x64, w64): (Vec<f64>, Vec<f64>) = (
        x.iter().map(|&v| f64::from(v)).collect(),
        w.iter().map(|&v| f64::from(v)).collect(),
    );
    assert!(row_gathers_wanted(&x64, &crd, &pos, rows));
    let mut got = vec![1.0; rows];
    // SAFETY: as above.
    unsafe { f64s(&x64, &crd, &w64, &pos, &mut got, true) };
    let added: Vec<f64> = want.iter().map(|v| v + 1.0).collect();
    assert_eq!(got, added, "added to");
    let (x32, w32): (Vec<f32>, Vec<f32>) = (
        x.iter().map(|&v| v as f32).collect(),
        w.iter().map(|&v| v as f32).collect(),
    );
    let mut floats = vec![0.0f32; rows];
    // SAFETY: as above.
    unsafe { f32s(&x32, &crd, &w32, &pos, &mut floats, false) };
    assert!(
        floats.iter().zip(&want).all(|(&f, &v)| f64::from(f) == v),
        "f32"
    );
}

/// Loaded lanes read a row's last vector whole, past the row's end: what they read there (an
/// infinite weight, a NaN, a coordinate of an infinite `x`) must not reach the row's sum, and
/// rows ending fewer than four positions before the end of `crd` are read one by one; `f64`
/// and `f32`.
#[test]
fn lanes_keep_what_they_read_past_a_row_out_of_its_sum() {
    lanes_keep_out::<f64>();
    lanes_keep_out::<f32>();
}

fn lanes_keep_out<T: FourLanes>() {
    let x: Vec<T> = [1.0, 2.0, f64::INFINITY, 4.0].map(T::from_f64).to_vec();
    let (mut pos, mut crd, mut w) = (vec![0 as Idx], Vec::new(), Vec::new());
    let mut finite = Vec::new();
    // Rows of one to nine finite entries, each followed by a row of one poisoned entry; then
    // rows of three, two and one at the very end of `crd`.
    for len in (1..10).flat_map(|len| [len, 0]).chain([3, 2, 1]) {
        if len == 0 {
            crd.push(2);
            w.push(T::from_f64(f64::NAN));
        }
        for p in 0..len {
            crd.push([0, 1, 3][(p + len) % 3]);
            w.push(T::from_f64((p % 5) as f64 - 2.0));
        }
        finite.push(len > 0);
        pos.push(crd.len() as Idx);
    }
    let want: Vec<T> = (0..pos.len() - 1)
        .map(|r| {
            let (lo, hi) = (pos[r] as usize, pos[r + 1] as usize);
            (lo..hi).fold(T::ZERO, |t, p| t + w[p] * x[crd[p] as usize])
        })
        .collect();
    let before = vec![T::from_f64(f64::NAN); want.len()];
    // Without hints the lanes past a row read `x` past it; with them, at the row's first.
    for hints in [NONE, STREAMS] {
        // SAFETY: every coordinate is below 4 = x.len(); `w` is as long as `crd`.
        for (way, got) in unsafe { four_rows(&x, &crd, &w, &pos, &before, false, hints) } {
            for (r, keep) in finite.iter().enumerate() {
                match keep {
                    true => assert_eq!(got[r], want[r], "{way}, row {r}: {got:?}"),
                    false => assert!(got[r].to_f64().is_nan(), "{way}, row {r}: its own NaN"),
                }
            }
        }
    }
}

/// Rows of every length up to five, empty ones among them, in every place near the end of
/// `crd`, where a whole vector past a row's positions would read past `crd`; `f64` and `f32`.
#[test]
fn rows_near_the_end_of_crd_read_nothing_past_it() {
    rows_near_the_end::<f64>();
    rows_near_the_end::<f32>();
}

fn rows_near_the_end<T: FourLanes>() {
    let x: Vec<T> = (0..5).map(|j| T::from_f64(f64::from(j) - 1.5)).collect();
    for n in 0..10usize {
        let crd: Vec<Idx> = (0..n).map(|p| ((p * 3) % 5) as Idx).collect();
        let w: Vec<T> = (0..n).map(|p| T::from_f64((p % 4) as f64 + 0.5)).collect();
        for lens in [[0, 1, 2, 3, 4, 5], [5, 0, 0, 1, 2, 0], [2, 2, 0, 3, 1, 0]] {
            // The rows up to the end of `crd`, the last ones empty or cut short by it.
            let mut pos = vec![0 as Idx];
            for len in lens.iter().cycle().take(9) {
                pos.push((pos[pos.len() - 1] as usize + len).min(n) as Idx);
            }
            let want: Vec<T> = pos
                .windows(2)
                .map(|s| {
                    let products =
                        (s[0] as usize..s[1] as usize).map(|p| w[p] * x[crd[p] as usize]);
                    products.fold(T::ZERO, |t, v| t + v)
                })
                .collect();
            for (rows, hints) in (0..pos.len()).flat_map(|r| [(r, NONE), (r, STREAMS)]) {
                let (pos, want) = (&pos[..rows + 1], &want[..rows]);
                let doubled: Vec<T> = want.iter().map(|&v| v + v).collect();
                // SAFETY: every coordinate is below 5 = x.len(); `w` is as long as `crd`.
                for (way, got) in unsafe { four_rows(&x, &crd, &w, pos, want, true, hints) } {
                    assert_eq!(got, doubled, "{way}, {n} positions, rows {pos:?}");
                }
            }
        }
    }
}
