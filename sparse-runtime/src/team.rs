//! A team of threads that spin between thread regions, for regions too short for rayon.
//!
//! rayon's workers go to sleep soon after their queue empties, so a kernel called in a loop pays a
//! wake-up on every call: 5-11 µs on the 2-core VM of BENCHMARKS.md, while the row-split SpMV of
//! a 1,138-row matrix takes 1.5 µs of work. An OpenMP runtime keeps its threads spinning for a
//! while after each parallel region (Intel's, under oneMKL, for 200 ms by default), so its next
//! region starts in about a microsecond. The team does the same for the row blocks of a thread
//! region ([`for_each_block`]) and for its tasks over a shared output ([`for_each_task`]):
//! `rayon::current_num_threads() - 1` threads, started on first use, that spin for [`SPIN`]
//! after a region before they park; the calling thread works as the team's thread 0.
//!
//! One caller at a time owns the team. A region that finds it taken, or that runs on a rayon
//! worker (a kernel called inside the user's own `par_iter`), goes to rayon as before, so the
//! team never adds threads to a machine rayon already keeps busy.
//!
//! The team runs a closure that borrows the caller's stack, as a scoped thread does: the one
//! `unsafe` lifetime extension below is sound because the caller does not return, or unwind,
//! before every worker has finished with the closure ([`Dispatch`]'s `Drop`).

#![allow(unsafe_code)]

use std::any::Any;
use std::marker::PhantomData;
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use rayon::prelude::*;

/// How long an idle worker spins before it parks: longer than the gap between the kernel calls of
/// an iterative solver, short enough that a program that stops calling kernels gives the cores
/// back at once.
pub const SPIN: Duration = Duration::from_micros(200);

/// A job as the workers see it: the caller's closure with its lifetime erased.
type Job = &'static (dyn Fn(usize) + Sync);

/// A worker's panic, passed to the caller.
type Payload = Box<dyn Any + Send>;

struct Team {
    workers: usize,
    /// Taken by the one caller whose job the workers run.
    busy: AtomicBool,
    /// Bumped by the caller to start a job.
    epoch: AtomicUsize,
    /// The current job: set before `epoch` is bumped, cleared once `remaining` is 0.
    job: Mutex<Option<Job>>,
    /// Workers that have not finished the current job.
    remaining: AtomicUsize,
    panic: Mutex<Option<Payload>>,
    /// Parked workers wait on `wake`, holding `parked`'s count under its lock.
    parked: Mutex<usize>,
    wake: Condvar,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The team's locks guard plain data that no panic leaves half-written.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The team, started on first use; `None` where rayon has one thread or a thread cannot start.
fn team() -> Option<&'static Team> {
    static TEAM: OnceLock<Option<&'static Team>> = OnceLock::new();
    *TEAM.get_or_init(|| {
        let workers = rayon::current_num_threads().saturating_sub(1);
        if workers == 0 {
            return None;
        }
        let team: &'static Team = Box::leak(Box::new(Team {
            workers,
            busy: AtomicBool::new(false),
            epoch: AtomicUsize::new(0),
            job: Mutex::new(None),
            remaining: AtomicUsize::new(0),
            panic: Mutex::new(None),
            parked: Mutex::new(0),
            wake: Condvar::new(),
        }));
        let started = (0..workers).all(|w| {
            std::thread::Builder::new()
                .name(format!("sparse-team-{w}"))
                .spawn(move || team.work(w + 1))
                .is_ok()
        });
        // A team short of a worker would wait for it forever: use rayon instead.
        started.then_some(team)
    })
}

impl Team {
    /// The life of worker `me` (the caller is thread 0): wait for each epoch, run its job, report.
    fn work(&self, me: usize) {
        let mut seen = 0;
        loop {
            seen = self.next_epoch(seen);
            let job = lock(&self.job).expect("the job is set before its epoch starts");
            if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| job(me))) {
                lock(&self.panic).get_or_insert(payload);
            }
            self.remaining.fetch_sub(1, SeqCst);
        }
    }

    /// Spins for [`SPIN`], then parks, until the epoch moves past `seen`.
    fn next_epoch(&self, seen: usize) -> usize {
        let start = Instant::now();
        let mut spins = 0u32;
        loop {
            let epoch = self.epoch.load(SeqCst);
            if epoch != seen {
                return epoch;
            }
            spins = spins.wrapping_add(1);
            if !spins.is_multiple_of(64) || start.elapsed() < SPIN {
                std::hint::spin_loop();
                continue;
            }
            let mut parked = lock(&self.parked);
            *parked += 1;
            while self.epoch.load(SeqCst) == seen {
                parked = self
                    .wake
                    .wait(parked)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            *parked -= 1;
        }
    }

    /// Runs `job(t)` on each thread `t` of the team, the calling thread as 0, returning once all
    /// have finished; `false` (and nothing run) when another caller owns the team.
    fn run(&self, job: &(dyn Fn(usize) + Sync)) -> bool {
        if self
            .busy
            .compare_exchange(false, true, SeqCst, SeqCst)
            .is_err()
        {
            return false;
        }
        lock(&self.panic).take();
        // SAFETY: the workers call `job` only between the epoch bump below and `remaining`
        // reaching 0, and `Dispatch::drop` waits for that (on return and on unwind alike) before
        // this borrow of `job` ends; the slot is cleared before `busy` is released.
        let erased: Job = unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), Job>(job) };
        *lock(&self.job) = Some(erased);
        self.remaining.store(self.workers, SeqCst);
        self.epoch.fetch_add(1, SeqCst);
        // A worker counts itself parked under the lock and rechecks the epoch before it waits, so
        // it sees the bump above or is counted here.
        if *lock(&self.parked) > 0 {
            self.wake.notify_all();
        }
        let dispatch = Dispatch(self);
        job(0);
        drop(dispatch);
        if let Some(payload) = lock(&self.panic).take() {
            panic::resume_unwind(payload);
        }
        true
    }
}

/// Waits for the workers to finish the current job, then frees the team.
struct Dispatch<'a>(&'a Team);

impl Drop for Dispatch<'_> {
    fn drop(&mut self) {
        while self.0.remaining.load(SeqCst) != 0 {
            std::hint::spin_loop();
        }
        *lock(&self.0.job) = None;
        self.0.busy.store(false, SeqCst);
    }
}

/// The fewest stored values (summed over the inputs a region reads) for which a region's row
/// blocks go to the team; below it they run on the calling thread, in order.
///
/// Starting the team and collecting it took 0.9-1.2 µs on the 2-core VM of BENCHMARKS.md (its
/// section on the spinning thread team), so two threads pay once the serial loop takes a few
/// microseconds: the row-split SpMV of 1138_bus (5,192 values, 1.4 µs serially) was slower on
/// the team (2.3 µs), that of plat1919 (about 17,000 values, 7.8 µs) faster (6.5 µs).
pub const TEAM_MIN_WORK: usize = 1 << 13;

/// The work below which a kernel runs a row split's rows unsplit, as the unscheduled kernel's
/// loop, instead of its region: [`TEAM_MIN_WORK`] unless a test lowered it.
static UNSPLIT_BELOW: AtomicUsize = AtomicUsize::new(TEAM_MIN_WORK);

/// The stored values below which a row split runs unsplit. Below [`TEAM_MIN_WORK`] the region's
/// blocks would run on the calling thread anyway, and the loop over the blocks' rows cost
/// 1.3-2.4 times the plain loop over the rows (the row-split SpMV of 1138_bus, 5,192 values:
/// 2.8-4.8 µs against the serial kernel's 2.0).
#[inline]
pub fn unsplit_below() -> usize {
    UNSPLIT_BELOW.load(Relaxed)
}

/// Sets [`unsplit_below`] for the whole process, for tests: at 0 every row split runs its
/// region, so that tests on small inputs check the regions' code.
pub fn set_unsplit_below(work: usize) {
    UNSPLIT_BELOW.store(work, Relaxed);
}

/// `f(k, block)` for each block of `size` values of `vals` (the last may be shorter), `k` counting
/// from 0: on the calling thread in order when `work` is below [`TEAM_MIN_WORK`], else shared out
/// among the team's threads (or rayon's, when the team is taken).
pub fn for_each_block<T, F>(vals: &mut [T], size: usize, work: usize, f: F)
where
    T: Send,
    F: Fn(usize, &mut [T]) + Sync,
{
    blocks(vals, size, work, None, f);
}

/// [`for_each_block`] for a row split over a compressed level, each thread's share holding about
/// as many stored entries as the others': block `k` holds the rows from `k * rows`, whose entries
/// are `pos[k * rows]..pos[(k + 1) * rows]`.
///
/// Shares of equal block counts left one thread most of the work where the heavy rows sit at one
/// end (lp_woodw's last rows hold up to 1,477 entries each), and the other took it back half a
/// share at a time, moving rows between the cores' caches on every call. Two-thread SpMM of
/// lp_woodw took 0.8 of the time with shares of equal entries (BENCHMARKS.md). A `pos` that is
/// not ascending (a corrupted tensor) only makes the shares uneven.
pub fn for_each_block_balanced<T, F>(
    vals: &mut [T],
    size: usize,
    work: usize,
    pos: &[crate::Idx],
    rows: usize,
    f: F,
) where
    T: Send,
    F: Fn(usize, &mut [T]) + Sync,
{
    blocks(vals, size, work, Some((pos, rows)), f);
}

fn blocks<T, F>(vals: &mut [T], size: usize, work: usize, weights: Weights<'_>, f: F)
where
    T: Send,
    F: Fn(usize, &mut [T]) + Sync,
{
    let size = size.max(1);
    let Some(team) = team_for(work) else {
        return vals.chunks_mut(size).enumerate().for_each(|(k, b)| f(k, b));
    };
    let blocks = Blocks::new(vals, size);
    let job = |k: usize| {
        // SAFETY: `share_out` calls this once for each block.
        f(k, unsafe { blocks.get(k) })
    };
    let threads = team.workers + 1;
    let shares = match weights {
        Some((pos, rows)) => Shares::balanced(blocks.count, threads, |k| {
            let row = k.saturating_mul(rows).min(pos.len().saturating_sub(1));
            pos.get(row).map_or(0, |&p| p as usize)
        }),
        None => Shares::new(blocks.count, threads),
    };
    share_out(team, 0..blocks.count, shares, &job);
}

/// A row split's `pos` array and rows a block, for [`for_each_block_balanced`].
type Weights<'p> = Option<(&'p [crate::Idx], usize)>;

/// `f(k)` for each `k` of `range`: on the calling thread in order when `work` is below
/// [`TEAM_MIN_WORK`], else shared out among the team's threads (or rayon's, when the team is
/// taken).
pub fn for_each_task<F: Fn(usize) + Sync>(range: Range<usize>, work: usize, f: F) {
    match team_for(work) {
        Some(team) => {
            let shares = Shares::new(range.len(), team.workers + 1);
            share_out(team, range, shares, &f)
        }
        None => range.for_each(f),
    }
}

/// The team, for a region of `work` stored values that is worth it and is not on a rayon worker.
fn team_for(work: usize) -> Option<&'static Team> {
    match work < TEAM_MIN_WORK || rayon::current_thread_index().is_some() {
        true => None,
        false => team(),
    }
}

/// `f(k)` once for each `k` of `range`, on the team's threads, or on rayon's when another caller
/// owns the team.
fn share_out(team: &Team, range: Range<usize>, shares: Shares, f: &(dyn Fn(usize) + Sync)) {
    let job = |me: usize| {
        while let Some(taken) = shares.claim(me) {
            taken.for_each(|k| f(range.start + k));
        }
    };
    if !team.run(&job) {
        range.into_par_iter().for_each(f);
    }
}

/// The blocks of a region, cut into one contiguous share per thread. A thread takes its own
/// share from the front a quarter at a time, then takes the back half of another's: on a
/// matrix that stays in cache, each thread finds the rows it had on the last call in its own
/// core's cache, and a thread whose rows were light helps the others at the end.
struct Shares(Vec<Share>);

/// One thread's share, on a cache line of its own (the claims of two threads would otherwise
/// move one line back and forth).
#[repr(align(128))]
struct Share(Mutex<Range<usize>>);

impl Shares {
    fn new(count: usize, threads: usize) -> Self {
        let bound = |t: usize| count * t / threads;
        Shares(
            (0..threads)
                .map(|t| Share(Mutex::new(bound(t)..bound(t + 1))))
                .collect(),
        )
    }

    /// Shares of `count` blocks whose first `k` hold `before(k)` entries (ascending in `k`), cut
    /// where the entries reach each thread's fraction of the total.
    fn balanced(count: usize, threads: usize, before: impl Fn(usize) -> usize) -> Self {
        let total = before(count) as u128;
        let mut bounds = vec![0];
        for t in 1..threads {
            let goal = total * t as u128 / threads as u128;
            let (mut lo, mut hi) = (*bounds.last().expect("starts at 0"), count);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                match (before(mid) as u128) < goal {
                    true => lo = mid + 1,
                    false => hi = mid,
                }
            }
            bounds.push(lo);
        }
        bounds.push(count);
        Shares(
            (bounds.windows(2))
                .map(|w| Share(Mutex::new(w[0]..w[1])))
                .collect(),
        )
    }

    /// The next blocks for thread `me`, or `None` when every block is claimed.
    fn claim(&self, me: usize) -> Option<Range<usize>> {
        {
            let mut own = lock(&self.0[me].0);
            if !own.is_empty() {
                let end = own.start + own.len().div_ceil(4);
                let taken = own.start..end;
                own.start = end;
                return Some(taken);
            }
        }
        let threads = self.0.len();
        (1..threads).find_map(|d| {
            let mut other = lock(&self.0[(me + d) % threads].0);
            let mid = other.end - other.len() / 2;
            let taken = mid..other.end;
            other.end = mid;
            (!taken.is_empty()).then_some(taken)
        })
    }
}

/// A slice cut into blocks of `size` values that threads claim, each block once.
struct Blocks<'a, T> {
    ptr: *mut T,
    len: usize,
    size: usize,
    count: usize,
    vals: PhantomData<&'a mut [T]>,
}

// SAFETY: threads reach the values only through `get`, whose callers take each block once, so no
// two threads hold the same value; `T: Send` lets a value be written from another thread.
unsafe impl<T: Send> Sync for Blocks<'_, T> {}

impl<'a, T> Blocks<'a, T> {
    fn new(vals: &'a mut [T], size: usize) -> Self {
        Blocks {
            ptr: vals.as_mut_ptr(),
            len: vals.len(),
            size,
            count: vals.len().div_ceil(size),
            vals: PhantomData,
        }
    }

    /// Block `k`.
    ///
    /// # Safety
    ///
    /// Each `k` is passed once over the life of `self`: the block is then the only reference to
    /// its values.
    #[allow(clippy::mut_from_ref)]
    unsafe fn get(&self, k: usize) -> &'a mut [T] {
        assert!(k < self.count, "block {k} of {}", self.count);
        let start = k * self.size;
        let len = self.size.min(self.len - start);
        // SAFETY: `start + len <= self.len`, the values are borrowed mutably for `'a`, and the
        // caller takes block `k` once, so no other reference reaches them.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(start), len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_block_is_visited_once_with_its_own_values() {
        for (len, size) in [(0, 4), (1, 4), (5, 1), (1000, 32), (1001, 32), (100_000, 7)] {
            let mut vals = vec![0usize; len];
            for_each_block(&mut vals, size, TEAM_MIN_WORK, |k, block| {
                assert!(block.len() <= size);
                for (r, v) in block.iter_mut().enumerate() {
                    *v += k * size + r + 1;
                }
            });
            let want: Vec<usize> = (1..=len).collect();
            assert_eq!(vals, want, "len {len}, size {size}");
        }
    }

    #[test]
    fn balanced_blocks_are_each_visited_once() {
        // Rows of 1 entry, then rows of 1,000: and a `pos` that is not ascending.
        let skewed: Vec<crate::Idx> = (0..=200u32)
            .map(|r| if r <= 150 { r } else { 150 + (r - 150) * 1000 })
            .collect();
        let corrupt: Vec<crate::Idx> = vec![0, 900, 3, 7, 2, 1];
        for (pos, rows) in [(&skewed[..], 4), (&corrupt[..], 1), (&[][..], 3)] {
            for len in [0, 1, 201, 1000] {
                let mut vals = vec![0usize; len];
                for_each_block_balanced(&mut vals, 5, TEAM_MIN_WORK, pos, rows, |k, block| {
                    for (r, v) in block.iter_mut().enumerate() {
                        *v += k * 5 + r + 1;
                    }
                });
                let want: Vec<usize> = (1..=len).collect();
                assert_eq!(vals, want, "pos {pos:?}, len {len}");
            }
        }
    }

    #[test]
    fn balanced_shares_hold_equal_entries() {
        // 100 blocks, the last 10 holding 10 entries each and the others 1: 190 entries, and the
        // first share ends at the first block that takes it to half of them.
        let before = |k: usize| k.min(90) + k.saturating_sub(90) * 10;
        let bounds = |shares: &Shares| -> Vec<Range<usize>> {
            shares.0.iter().map(|s| lock(&s.0).clone()).collect()
        };
        assert_eq!(bounds(&Shares::balanced(100, 2, before)), [0..91, 91..100]);
        assert_eq!(bounds(&Shares::new(100, 2)), [0..50, 50..100]);
        // More threads than blocks, and no entries at all.
        assert_eq!(bounds(&Shares::balanced(2, 3, before)), [0..0, 0..1, 1..2]);
        assert_eq!(bounds(&Shares::balanced(4, 2, |_| 0)), [0..0, 0..4]);
    }

    #[test]
    fn every_task_runs_once() {
        for (lo, hi) in [(0, 0), (5, 6), (3, 1000), (0, 100_003)] {
            let hits: Vec<AtomicUsize> = (0..hi).map(|_| AtomicUsize::new(0)).collect();
            for_each_task(lo..hi, TEAM_MIN_WORK, |k| {
                hits[k].fetch_add(1, SeqCst);
            });
            for (k, h) in hits.iter().enumerate() {
                assert_eq!(
                    h.load(SeqCst),
                    usize::from(k >= lo),
                    "task {k} of {lo}..{hi}"
                );
            }
        }
    }

    #[test]
    fn small_work_runs_in_order_on_the_calling_thread() {
        let caller = std::thread::current().id();
        let mut seen = vec![None; 100];
        for_each_block(&mut seen, 3, TEAM_MIN_WORK - 1, |k, block| {
            for slot in block {
                *slot = Some((k, std::thread::current().id()));
            }
        });
        for (i, slot) in seen.iter().enumerate() {
            assert_eq!(*slot, Some((i / 3, caller)));
        }
    }

    #[test]
    fn callers_on_many_threads_share_the_team_or_fall_back() {
        std::thread::scope(|s| {
            for t in 0..4 {
                s.spawn(move || {
                    for round in 0..200 {
                        let mut vals = vec![0u64; 513];
                        for_each_block(&mut vals, 16, TEAM_MIN_WORK, |k, block| {
                            for (r, v) in block.iter_mut().enumerate() {
                                *v = (k * 16 + r) as u64 + t + round;
                            }
                        });
                        assert!(
                            vals.iter()
                                .enumerate()
                                .all(|(i, &v)| v == i as u64 + t + round)
                        );
                    }
                });
            }
        });
    }

    #[test]
    fn a_panic_in_a_block_reaches_the_caller_and_the_team_recovers() {
        let mut vals = vec![0u8; 4096];
        let caught = panic::catch_unwind(AssertUnwindSafe(|| {
            for_each_block(&mut vals, 1, TEAM_MIN_WORK, |k, _| {
                assert!(k != 4000, "block 4000");
            })
        }));
        assert!(caught.is_err());
        let mut vals = vec![0u8; 4096];
        for_each_block(&mut vals, 1, TEAM_MIN_WORK, |_, b| b[0] = 1);
        assert!(vals.iter().all(|&v| v == 1));
    }

    #[test]
    fn a_region_after_the_workers_parked_still_runs() {
        let mut vals = vec![0u32; 64];
        for_each_block(&mut vals, 1, TEAM_MIN_WORK, |_, b| b[0] += 1);
        std::thread::sleep(SPIN * 5);
        for_each_block(&mut vals, 1, TEAM_MIN_WORK, |_, b| b[0] += 1);
        assert!(vals.iter().all(|&v| v == 2));
    }
}
