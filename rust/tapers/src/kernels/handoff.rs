//! Handing one closure to a spinning worker without the pool's queues.
//!
//! A row-halves product or a shared elementwise pass gives its second half
//! to the worker kept awake between parallel sections ([`super::awake`]).
//! Through rayon, each hand-off boxes a job, pushes it on the pool's
//! injector, and wakes the pool's other (sleeping) thread, which then
//! competes with the two threads already running for two cores; the kept
//! worker finds the job through the pool's work-stealing search. A
//! [`Mailbox`] is one pointer: the caller puts its job there, the worker
//! polling it takes it with one compare-and-swap, and a job nobody took
//! by the time the caller's own half is done is taken back and run by the
//! caller, so a worker that is late, busy or gone never makes the caller
//! wait for it to start.
//!
//! This is the crate's second audited `unsafe` (the first is
//! [`super::uninit`]): the job lives on the caller's stack and the worker
//! reaches it through a raw pointer, with its lifetime erased, as rayon's
//! own stack jobs do. The proof is at [`Mailbox::join`]. The tests run
//! under miri (`MIRIFLAGS="-Zmiri-tree-borrows
//! -Zmiri-permissive-provenance -Zmiri-ignore-leaks" cargo +nightly miri
//! test -p tapers --lib handoff`).
#![allow(unsafe_code)]

use std::any::Any;
use std::cell::UnsafeCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// The part of a job the worker sees before knowing its type.
#[repr(C)]
struct Header {
    /// Runs the job behind the header (a [`run_job`] for its type).
    run: unsafe fn(*const Header),
    /// Set by the worker after its last access to the job.
    done: AtomicBool,
}

/// A job on the caller's stack: the header first, so a pointer to the job
/// is a pointer to its header.
#[repr(C)]
struct Job<F> {
    header: Header,
    f: UnsafeCell<Option<F>>,
    panic: UnsafeCell<Option<Box<dyn Any + Send>>>,
}

/// Runs the job `h` points to, stores its panic if it panics, and marks it
/// done.
///
/// # Safety
/// `h` points to a live `Job<F>` that this thread took from a mailbox (so
/// the caller that put it there waits for `done` before touching it again
/// or letting it go).
unsafe fn run_job<F: FnOnce() + Send>(h: *const Header) {
    let job = h.cast::<Job<F>>();
    // SAFETY: by the contract above, the job is live and only this thread
    // accesses its `f` and `panic` until `done` is set.
    let f = unsafe { (*(*job).f.get()).take() };
    if let Some(f) = f {
        if let Err(p) = catch_unwind(AssertUnwindSafe(f)) {
            // SAFETY: as above.
            unsafe { *(*job).panic.get() = Some(p) };
        }
    }
    // SAFETY: as above; this store is the last access: the caller may
    // free the job as soon as it sees it.
    unsafe { (*job).header.done.store(true, Ordering::Release) };
}

/// One job slot between a caller ([`Mailbox::join`]) and a thread polling
/// it ([`Mailbox::serve`]).
pub(crate) struct Mailbox {
    slot: AtomicPtr<Header>,
}

impl Mailbox {
    pub(crate) const fn new() -> Mailbox {
        Mailbox {
            slot: AtomicPtr::new(null_mut()),
        }
    }

    /// Runs `here` on this thread while a thread serving this mailbox may
    /// run `there`; `there` runs here, after `here`, if no one took it
    /// (the slot was busy, or no server took it in time). Returns once both
    /// are done; a panic in either is raised here after both ended (`here`'s
    /// first; `there` is not run after `here` panicked unless a server had
    /// already taken it).
    pub(crate) fn join<R>(&self, here: impl FnOnce() -> R, there: impl FnOnce() + Send) -> R {
        let mut job = Job {
            header: Header {
                run: run_job_of(&there),
                done: AtomicBool::new(false),
            },
            f: UnsafeCell::new(Some(there)),
            panic: UnsafeCell::new(None),
        };
        // A pointer to the whole job (not to its header field), so that the
        // worker may reach every field through it.
        let ptr = std::ptr::addr_of!(job).cast::<Header>().cast_mut();
        // Release: a server that takes the pointer (Acquire) sees the job
        // initialized.
        let handed = self
            .slot
            .compare_exchange(null_mut(), ptr, Ordering::Release, Ordering::Relaxed)
            .is_ok();
        let mine = catch_unwind(AssertUnwindSafe(here));
        // SAFETY (the hand-off as a whole): while `ptr` is in the slot or a
        // server runs the job, `job` is neither moved nor dropped nor
        // accessed here: this function does not return or unwind before
        // (a) taking the pointer back out of the slot, after which no
        // server can take it, or (b) seeing `done`, which the server sets
        // (Release, read with Acquire) after its last access. `here`'s
        // panic is caught above for that reason. The server touches only
        // `f` (a `Send` closure, run once) and `panic` (a `Send` payload)
        // and then `done`, so handing them to another thread is sound.
        // `job` is a local that nothing moves; the pointer covers it whole.
        let taken = handed
            && self
                .slot
                .compare_exchange(ptr, null_mut(), Ordering::Relaxed, Ordering::Relaxed)
                .is_err();
        if taken {
            spin_until(&job.header.done);
        }
        let theirs = job.panic.get_mut().take();
        let mine = match mine {
            Ok(r) => r,
            Err(p) => resume_unwind(p),
        };
        if let Some(p) = theirs {
            resume_unwind(p);
        }
        if !taken {
            if let Some(f) = job.f.get_mut().take() {
                f();
            }
        }
        mine
    }

    /// Takes the job waiting in the slot, if any, and runs it on this
    /// thread; `true` when one ran.
    pub(crate) fn serve(&self) -> bool {
        let p = self.slot.load(Ordering::Relaxed);
        if p.is_null()
            || self
                .slot
                .compare_exchange(p, null_mut(), Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return false;
        }
        // SAFETY: `p` was put in the slot by `join`, whose job stays live
        // until it sees `done` (it can no longer take the pointer back: this
        // thread took it), and the Acquire above sees it initialized.
        unsafe { ((*p).run)(p) };
        true
    }
}

/// The [`run_job`] for the type of `there`.
fn run_job_of<F: FnOnce() + Send>(_: &F) -> unsafe fn(*const Header) {
    run_job::<F>
}

/// Spins (yielding now and then) until `flag` is set.
fn spin_until(flag: &AtomicBool) {
    let mut spins = 0u32;
    while !flag.load(Ordering::Acquire) {
        spins = spins.wrapping_add(1);
        if spins % 4096 == 0 || cfg!(miri) {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Serves `mailbox` on a thread of its own while `body` runs.
    fn with_server<R>(mailbox: &Mailbox, body: impl FnOnce() -> R) -> (R, usize) {
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let server = s.spawn(|| {
                let mut served = 0;
                while !stop.load(Ordering::Acquire) {
                    if mailbox.serve() {
                        served += 1;
                    } else {
                        std::thread::yield_now();
                    }
                }
                served
            });
            let r = body();
            stop.store(true, Ordering::Release);
            (r, server.join().unwrap())
        })
    }

    /// A served job runs on the server while the caller runs its half (the
    /// caller's half waits for it to start), writing into the caller's
    /// stack; the caller returns after it ended.
    #[test]
    fn a_taken_job_runs_beside_the_caller() {
        let mailbox = Mailbox::new();
        let caller = std::thread::current().id();
        let ((), served) = with_server(&mailbox, || {
            for round in 0..3 {
                let started = AtomicBool::new(false);
                let mut out = [0u64; 4];
                let (left, right) = out.split_at_mut(2);
                mailbox.join(
                    || {
                        spin_until(&started);
                        left.iter_mut().for_each(|v| *v = round);
                    },
                    || {
                        started.store(true, Ordering::Release);
                        right.iter_mut().for_each(|v| *v = round + 10);
                        assert_ne!(std::thread::current().id(), caller);
                    },
                );
                assert_eq!(out, [round, round, round + 10, round + 10]);
            }
        });
        assert_eq!(served, 3);
    }

    /// With no server, or the slot busy, the caller runs both halves.
    #[test]
    fn an_untaken_job_runs_on_the_caller() {
        let mailbox = Mailbox::new();
        let caller = std::thread::current().id();
        let ran = AtomicUsize::new(0);
        let r = mailbox.join(
            || {
                // The slot holds the outer job: the inner one is not handed.
                mailbox.join(
                    || ran.fetch_add(1, Ordering::Relaxed),
                    || {
                        ran.fetch_add(1, Ordering::Relaxed);
                    },
                );
                7
            },
            || {
                assert_eq!(std::thread::current().id(), caller);
                ran.fetch_add(1, Ordering::Relaxed);
            },
        );
        assert_eq!((r, ran.load(Ordering::Relaxed)), (7, 3));
        assert!(mailbox.slot.load(Ordering::Relaxed).is_null());
    }

    /// A panic in either half is raised by `join` after both ended, served
    /// or not, and leaves the mailbox usable.
    #[test]
    fn panics_in_either_half_are_raised_after_both_ended() {
        let mailbox = Mailbox::new();
        let (_, served) = with_server(&mailbox, || {
            let started = AtomicBool::new(false);
            let r = catch_unwind(AssertUnwindSafe(|| {
                mailbox.join(
                    || spin_until(&started),
                    || {
                        started.store(true, Ordering::Release);
                        panic!("the served half failed")
                    },
                )
            }));
            assert!(r.is_err());
            let started = AtomicBool::new(false);
            let there_ended = AtomicBool::new(false);
            let r = catch_unwind(AssertUnwindSafe(|| {
                mailbox.join(
                    || {
                        spin_until(&started);
                        panic!("the caller's half failed")
                    },
                    || {
                        started.store(true, Ordering::Release);
                        there_ended.store(true, Ordering::Release);
                    },
                )
            }));
            assert!(r.is_err());
            assert!(there_ended.load(Ordering::Acquire));
        });
        assert_eq!(served, 2);
        let r = catch_unwind(AssertUnwindSafe(|| {
            mailbox.join(|| 1, || panic!("the unserved half failed"))
        }));
        assert!(r.is_err());
        assert_eq!(mailbox.join(|| 2, || ()), 2);
    }
}
