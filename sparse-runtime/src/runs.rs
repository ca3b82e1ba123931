//! The dense output of a nonzero split's tasks, cut where the tasks' positions start.
//!
//! A task of a nonzero split (Senanayake et al. 2020) walks a range of a compressed level's
//! positions. The rows that start after its first position and end at or before its last one
//! are its alone; only the row its first position falls in (shared with the tasks before) and
//! the row the next task starts in (shared with the tasks after) may be written by others.
//! Merrill and Garland ("Merge-based parallel sparse matrix-vector multiplication") give each
//! thread its own rows and carry the shared ones over; here the output is cut into one exclusive
//! slice of rows per task and one atomic cell per shared row, so a task stores its own rows
//! with plain moves (and a run of them with [`Gather::dot_rows`], as a row split's block does)
//! and adds into the shared rows atomically.
//!
//! Viewing the whole output as atomic cells instead cost the nonzero split 5-10% against the
//! row split on two threads (BENCHMARKS.md, "The nonzero split's own rows"): its rows were
//! summed into a buffer and copied into the cells.

use std::ops::Range;
use std::sync::{Mutex, PoisonError};

use crate::atomic::{AtomicCell, as_atomic};
use crate::gather::Gather;
use crate::team::for_each_task;
use crate::{Idx, Scalar};

/// A shared row: its index and its cell.
type Shared<'a, T> = Option<(usize, &'a <T as Scalar>::Atomic)>;

/// What one task of a nonzero split may write of a dense output: its own rows
/// (`whole_from..whole_from + whole.len()`), and the shared rows it starts in and may end in.
pub struct Run<'a, T: Scalar> {
    first: Shared<'a, T>,
    whole_from: usize,
    whole: &'a mut [T],
    last: Shared<'a, T>,
}

impl<'a, T: Scalar> Run<'a, T> {
    /// The shared cell of `row`.
    ///
    /// # Panics
    /// If `row` is not one of the task's shared rows: the task's positions do not reach it
    /// (a generated kernel writes only rows its positions reach; its tensors' `pos` ascend).
    fn cell(&self, row: usize) -> &'a T::Atomic {
        let mut shared = [self.first, self.last].into_iter().flatten();
        match shared.find(|&(r, _)| r == row) {
            Some((_, cell)) => cell,
            None => {
                panic!("a nonzero split's task wrote row {row}, which its positions do not reach")
            }
        }
    }

    /// The task's own value of `row`, if the row is its own.
    fn own(&mut self, row: usize) -> Option<&mut T> {
        let at = row.checked_sub(self.whole_from)?;
        self.whole.get_mut(at)
    }

    /// Sets `row` to `value`: a plain store into the task's own rows, a relaxed atomic store
    /// into a shared one.
    ///
    /// # Panics
    /// As [`Run::cell`], for a row neither the task's own nor shared with it.
    #[inline]
    pub fn set(&mut self, row: usize, value: T) {
        match self.own(row) {
            Some(y) => *y = value,
            None => self.cell(row).set(value),
        }
    }

    /// Adds `value` to `row`: plainly to the task's own rows, atomically to a shared one.
    ///
    /// # Panics
    /// As [`Run::set`].
    #[inline]
    pub fn add(&mut self, row: usize, value: T) {
        match self.own(row) {
            Some(y) => *y += value,
            None => self.cell(row).add(value),
        }
    }

    /// The value of `row`.
    ///
    /// # Panics
    /// As [`Run::set`].
    #[inline]
    pub fn get(&mut self, row: usize) -> T {
        match self.own(row) {
            Some(y) => *y,
            None => self.cell(row).get(),
        }
    }

    /// [`Gather::dot_rows`] (or, when `add`, [`Gather::dot_rows_add`]) of the rows `rows`: the
    /// task's own rows among them as one run, any other one by one ([`Run::set`], [`Run::add`]).
    ///
    /// # Panics
    /// As [`Gather::dot`], and as [`Run::set`] for a row outside the task's.
    #[allow(clippy::too_many_arguments)]
    pub fn dot_rows(
        &mut self,
        gather: &Gather<'_, T>,
        crd: &[Idx],
        weights: &[T],
        pos: &[Idx],
        rows: Range<usize>,
        add: bool,
    ) {
        let rows = rows.start..rows.end.min(pos.len().saturating_sub(1));
        let own = self.whole_from..self.whole_from + self.whole.len();
        let inside = rows.start.max(own.start)..rows.end.min(own.end);
        if !inside.is_empty() {
            match add {
                true => {
                    gather.dot_rows_add(crd, weights, pos, inside.clone(), self.whole, own.start)
                }
                false => gather.dot_rows(crd, weights, pos, inside.clone(), self.whole, own.start),
            }
        }
        for row in rows.filter(|r| !inside.contains(r)) {
            let sum = gather.dot(crd, weights, pos[row] as usize, pos[row + 1] as usize);
            match add {
                true => self.add(row, sum),
                false => self.set(row, sum),
            }
        }
    }
}

/// `f(k, run)` for each task `k` of `tasks`, on the team's threads as [`for_each_task`] runs
/// them, where `run` is what task `k` may write of `out`: task `k` walks the positions of the
/// compressed level `pos` from `start(k)` (ascending in `k`) to the next task's start, or to the
/// end for the last task.
///
/// The rows before the first task's start row are no task's: rows with no positions, which the
/// caller sets.
pub fn for_each_run<T, S, F>(
    out: &mut [T],
    pos: &[Idx],
    tasks: Range<usize>,
    work: usize,
    start: S,
    f: F,
) where
    T: Scalar,
    S: Fn(usize) -> usize,
    F: Fn(usize, &mut Run<'_, T>) + Sync,
{
    let first_rows: Vec<usize> = tasks.clone().map(|k| start_row(pos, start(k))).collect();
    let runs: Vec<Mutex<Option<Run<'_, T>>>> = cut(out, &first_rows)
        .into_iter()
        .map(|run| Mutex::new(Some(run)))
        .collect();
    for_each_task(tasks.clone(), work, |k| {
        let taken = runs[k - tasks.start]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(mut run) = taken {
            f(k, &mut run);
        }
    });
}

/// The row position `p` falls in: the last row that starts at or before it (rows with no
/// positions before it are skipped), as the walk of a task finds it.
fn start_row(pos: &[Idx], p: usize) -> usize {
    crate::search::count_up_to(pos, p).saturating_sub(1)
}

/// `out` cut into the runs of tasks starting in rows `first_rows`: each task's start row is a
/// shared cell, the rows after it up to the next task's start row are the task's own, and the
/// last task owns every row after its start row. A start row before the one of the task before
/// (a `pos` that does not ascend) counts as that one.
fn cut<'a, T: Scalar>(out: &'a mut [T], first_rows: &[usize]) -> Vec<Run<'a, T>> {
    let rows = out.len();
    let Some(&first) = first_rows.first() else {
        return Vec::new();
    };
    // The shared row the task at hand starts in; `rest` holds the rows after it.
    let mut row = first.min(rows);
    let mut rest = &mut out[row..];
    let mut shared = take_cell::<T>(&mut rest, row);
    let mut runs = Vec::with_capacity(first_rows.len());
    for next in first_rows.iter().skip(1).map(Some).chain([None]) {
        let next_row = next.map_or(rows, |&next| next.clamp(row, rows));
        let first = shared;
        let mut whole: &mut [T] = &mut [];
        if next_row > row {
            whole = take_rows(&mut rest, next_row - row - 1);
            if next.is_some() {
                shared = take_cell::<T>(&mut rest, next_row);
            }
        }
        let last = next.and(shared);
        runs.push(Run {
            first,
            whole_from: row + 1,
            whole,
            last,
        });
        row = next_row;
    }
    runs
}

/// The first `n` values of `rest` (fewer where it is shorter), which `rest` no longer holds.
fn take_rows<'a, T>(rest: &mut &'a mut [T], n: usize) -> &'a mut [T] {
    let n = n.min(rest.len());
    let (head, tail) = std::mem::take(rest).split_at_mut(n);
    *rest = tail;
    head
}

/// The first value of `rest`, row `row`, as a shared cell (none where `rest` is empty).
fn take_cell<'a, T: Scalar>(rest: &mut &'a mut [T], row: usize) -> Shared<'a, T> {
    let head = take_rows(rest, 1);
    let cells: &'a [T::Atomic] = as_atomic(head);
    cells.first().map(|cell| (row, cell))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Csr, Tensor};

    /// A matrix of `rows` rows whose row `r` holds `len(r)` entries, in columns `0..9`, with
    /// small integer values (every sum exact in any order).
    fn matrix(rows: usize, len: impl Fn(usize) -> usize) -> Tensor<f64, Csr> {
        let entries: Vec<([usize; 2], f64)> = (0..rows)
            .flat_map(|r| (0..len(r)).map(move |k| ([r, k % 9], ((r + 2 * k) % 7) as f64 - 3.0)))
            .collect();
        Tensor::from_entries([rows, 9], entries).unwrap()
    }

    /// Each row's sum, from the definition.
    fn row_sums(a: &Tensor<f64, Csr>, x: &[f64]) -> Vec<f64> {
        let (pos, crd, w) = (a.level(1).pos(), a.level(1).crd(), a.values());
        (0..pos.len() - 1)
            .map(|r| {
                (pos[r] as usize..pos[r + 1] as usize)
                    .map(|p| w[p] * x[crd[p] as usize])
                    .sum()
            })
            .collect()
    }

    /// SpMV split into tasks of `task` positions, each walking its positions as a generated
    /// nonzero split does: its first row and a row it ends inside added to, the rows between
    /// set, those rows as one run of dot products when `runs`. The output starts as NaN and
    /// only the rows at the tasks' starts are zeroed first, so a row no task writes stays NaN.
    fn split_spmv(a: &Tensor<f64, Csr>, x: &[f64], task: usize, runs: bool) -> Vec<f64> {
        let (pos, crd, w) = (a.level(1).pos(), a.level(1).crd(), a.values());
        let g = Gather::new(a, 1, crd, x);
        let (rows, nnz) = (pos.len() - 1, crd.len());
        let tasks = nnz.div_ceil(task.max(1)).max(1);
        let start = |k: usize| (k * task).min(nnz);
        let mut y = vec![f64::NAN; rows];
        for k in 0..=tasks {
            let bound = start(k);
            let below = pos
                .partition_point(|&q| (q as usize) < bound)
                .saturating_sub(1);
            let (lo, hi) = (below.min(start_row(pos, bound)), start_row(pos, bound) + 1);
            y[lo.min(rows)..hi.min(rows)].fill(0.0);
        }
        for_each_run(&mut y, pos, 0..tasks, usize::MAX, start, |k, run| {
            let (lo, hi) = (start(k), start(k + 1));
            let (first, mut seg, mut p) = (start_row(pos, lo), start_row(pos, lo), lo);
            while p < hi {
                let end = pos[seg + 1] as usize;
                if runs && seg != first && end <= hi {
                    let rows_end = (start_row(pos, hi)).max(seg + 1);
                    run.dot_rows(&g, crd, w, pos, seg..rows_end, false);
                    (p, seg) = (pos[rows_end] as usize, rows_end);
                    continue;
                }
                let stop = end.min(hi);
                let sum = g.dot(crd, w, p, stop);
                match seg == first || hi < end {
                    true => run.add(seg, sum),
                    false => run.set(seg, sum),
                }
                p = stop;
                seg += usize::from(stop == end);
            }
        });
        y
    }

    #[test]
    fn tasks_of_a_nonzero_split_give_every_row_its_sum() {
        let x: Vec<f64> = (0..9).map(|j| j as f64 - 4.0).collect();
        let shapes: [(usize, &dyn Fn(usize) -> usize); 6] = [
            (40, &|r| r % 5),                        // empty rows among short ones
            (30, &|r| if r == 7 { 200 } else { 1 }), // one row over many tasks
            (25, &|r| usize::from(r >= 20) * 3),     // empty rows first
            (25, &|r| usize::from(r < 3) * 4),       // empty rows last
            (12, &|r| usize::from(r == 5)),          // a single entry
            (1, &|_| 17),                            // one row
        ];
        for (rows, len) in shapes {
            let a = matrix(rows, len);
            let want = row_sums(&a, &x);
            for task in [1, 2, 3, 5, 16, 1000] {
                for runs in [false, true] {
                    let got = split_spmv(&a, &x, task, runs);
                    assert_eq!(got, want, "{rows} rows, tasks of {task}, runs {runs}");
                }
            }
        }
    }

    #[test]
    fn an_empty_matrix_has_one_task_and_no_rows_to_write() {
        let a = Tensor::<f64, Csr>::from_entries::<2>([4, 9], []).unwrap();
        let got = split_spmv(&a, &[1.0; 9], 4, true);
        assert_eq!(got, vec![0.0; 4]);
        let mut none: Vec<f64> = Vec::new();
        for_each_run(
            &mut none,
            &[0],
            0..3,
            0,
            |_| 0,
            |_, run: &mut Run<'_, f64>| {
                assert!(run.whole.is_empty() && run.first.is_none() && run.last.is_none());
            },
        );
    }

    /// Two tasks over rows of two positions each, the first from position 0 (rows 0 to 3), the
    /// second from position 6 (rows 3 to 6).
    fn two_tasks(y: &mut [f64], f: impl Fn(usize, &mut Run<'_, f64>) + Sync) {
        let pos = [0, 2, 4, 6, 8, 10, 12];
        for_each_run(y, &pos, 0..2, 0, |k| k * 6, f);
    }

    #[test]
    fn a_row_outside_the_task_s_positions_is_refused() {
        let mut y = vec![0.0; 6];
        let reached = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            two_tasks(&mut y, |k, run| run.add(if k == 0 { 5 } else { 0 }, 1.0));
        }));
        assert!(
            reached.is_err(),
            "task 0 reaches rows 0..3, task 1 rows 3..6"
        );
        two_tasks(&mut y, |k, run| {
            // Task 0 starts in row 0 and ends in row 3, which task 1 starts in. Every row it
            // reaches twice: its own rows by plain adds, the shared ones atomically.
            for row in [3 * k, 3 * k + 1, 3 * k + 2, 3 * k + 3]
                .into_iter()
                .filter(|&r| r < 6)
            {
                run.add(row, 1.0);
                run.add(row, 1.0);
                assert!(run.get(row) >= 2.0);
            }
        });
        assert_eq!(y, vec![2.0, 2.0, 2.0, 4.0, 2.0, 2.0]);
    }

    #[test]
    fn a_pos_that_does_not_ascend_only_merges_runs() {
        let first_rows = [2, 0, 3];
        let mut y = vec![0.0f64; 6];
        let runs = cut(&mut y, &first_rows);
        let own: Vec<(usize, usize)> = runs.iter().map(|r| (r.whole_from, r.whole.len())).collect();
        assert_eq!(own, vec![(3, 0), (3, 0), (4, 2)]);
    }
}
