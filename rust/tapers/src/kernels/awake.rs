//! One pool worker kept awake between parallel sections.
//!
//! An idle rayon worker goes to sleep within microseconds, and waking it
//! takes tens of microseconds: a training step's matrix products, each split
//! in two row halves (see `gemm`), found the worker asleep after every
//! stretch of single-threaded work in between and waited for it each time.
//! Each parallel section granted to a thread outside the pool therefore
//! keeps one worker running a loop that executes whatever pool work it finds
//! (a half handed off through its [`MAILBOX`], a split elementwise loop)
//! and spins otherwise, until
//! [`KEEP_US`] pass without a section. Under contention no section is
//! granted (see [`super::parallel`]), so the loop ends and leaves the cores
//! to the threads that compete for them.
//!
//! Nothing here changes what runs where in a way results can see: every
//! split is fixed by the shapes.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use super::handoff::Mailbox;

/// How long the kept worker waits for the next section.
const KEEP_US: u64 = 500;

/// Whether a keeper loop is running on the pool.
static ALIVE: AtomicBool = AtomicBool::new(false);

/// When a section last started or ended (microseconds since the epoch of
/// [`super::epoch_us`]).
static LAST_USE: AtomicU64 = AtomicU64::new(0);

/// Pool jobs the keeper ran (for tests).
static JOBS: AtomicUsize = AtomicUsize::new(0);

/// How many pool jobs a kept-awake worker has run in this process: more
/// than zero once a parallel section's work was picked up without waking a
/// sleeping worker.
pub fn keeper_jobs() -> usize {
    JOBS.load(Ordering::Relaxed)
}

/// Whether a keeper loop is running now (it may end at any moment: a
/// section taken afterwards says whether it still ran then, see
/// [`super::worker_awake`]).
pub(super) fn alive() -> bool {
    ALIVE.load(Ordering::Relaxed)
}

/// Notes a parallel section's start or end, and starts the keeper loop if
/// none runs.
pub(super) fn keep() -> bool {
    LAST_USE.store(super::epoch_us(), Ordering::SeqCst);
    let was = ALIVE.swap(true, Ordering::SeqCst);
    if !was {
        rayon::spawn(run);
    }
    was
}

/// Where a thread holding the pool hands the kept worker half of its work
/// ([`super::kept_join`]).
pub(super) static MAILBOX: Mailbox = Mailbox::new();

/// The keeper loop: a job handed through [`MAILBOX`] when there is one,
/// now and then pool work (a large kernel split across the pool), spinning
/// otherwise, and now and then a look at the clock.
fn run() {
    let mut spins = 0u32;
    loop {
        if MAILBOX.serve() {
            JOBS.fetch_add(1, Ordering::Relaxed);
            spins = 0;
            continue;
        }
        spins = spins.wrapping_add(1);
        // The pool's work-stealing search costs far more than a look at
        // the mailbox.
        if spins % 8 == 0 {
            if let Some(rayon::Yield::Executed) = rayon::yield_now() {
                JOBS.fetch_add(1, Ordering::Relaxed);
                spins = 0;
                continue;
            }
        }
        if spins % 64 != 0 {
            std::hint::spin_loop();
            continue;
        }
        if spins % 4096 == 0 {
            // Let any other runnable thread of this core have it.
            std::thread::yield_now();
        }
        if idle() {
            ALIVE.store(false, Ordering::SeqCst);
            // A section that started between the check and the store found
            // the loop alive and started none: take its place (unless a new
            // loop already has).
            if !idle() && !ALIVE.swap(true, Ordering::SeqCst) {
                continue;
            }
            return;
        }
    }
}

fn idle() -> bool {
    super::epoch_us().saturating_sub(LAST_USE.load(Ordering::SeqCst)) > KEEP_US
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Work split in a parallel section shortly after another one is run by
    /// the kept worker at least once (tests run concurrently: sections are
    /// retried until this thread is granted the pool).
    #[test]
    fn the_kept_worker_runs_the_next_sections_work() {
        if rayon::current_num_threads() < 2 {
            return;
        }
        let _alone = super::super::SECTION_TESTS
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let before = keeper_jobs();
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_secs(20) {
            super::super::parallel(usize::MAX, 1, |granted| {
                if granted {
                    let spin = || (0..20_000u64).fold(0u64, |a, b| std::hint::black_box(a ^ b));
                    rayon::join(spin, spin);
                }
            });
            if keeper_jobs() > before {
                return;
            }
            std::thread::sleep(std::time::Duration::from_micros(100));
        }
        panic!("no parallel section's work ran on the kept worker in 20 s");
    }
}
