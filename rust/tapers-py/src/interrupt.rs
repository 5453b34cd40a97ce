//! Ctrl-C during a backward pass.
//!
//! CPython runs signal handlers only on the main thread, and only when that
//! thread holds the GIL and runs bytecode or calls `PyErr_CheckSignals`. A
//! long pass runs with the GIL released, so the main thread hands the pass
//! to a scoped worker and watches: every 50 ms it takes the GIL and checks
//! for signals; on `KeyboardInterrupt` it sets the pass's cancel flag, waits
//! for the worker to stop at its next gradient rule, and raises the
//! interrupt. The core leaves a cancelled tape as it was, so it can be
//! differentiated again.
//!
//! Ctrl-C can also land where no cancel flag is checked any more: during the
//! pass's last rule, between the worker finishing and the main thread's next
//! look, during a short pass run on the main thread, or in the Python code
//! that packs a nested result; CPython would then raise it as soon as
//! bytecode runs again, after a pass that had spent a non-persistent tape.
//! So no pass spends the tape by itself: it returns the core's
//! [`PendingSpend`], and [`settle`] commits it only after a last signal
//! check on the main thread, once the result is ready to be returned. An
//! interrupt seen there drops the pending spend, which puts the recording
//! back. A signal that arrives after that check is raised by CPython once
//! the call has returned, as for any builtin: the gradient was computed and
//! the tape spent as asked.

use std::sync::atomic::AtomicBool;
use std::sync::{Condvar, Mutex, OnceLock};
use std::thread::ThreadId;
use std::time::Duration;

use pyo3::prelude::*;
use tapers::{PendingSpend, RecordingContext};

use crate::errors::IntoPyResult;

static MAIN_THREAD: OnceLock<ThreadId> = OnceLock::new();

/// Remembers the thread that imports the module: CPython's main thread in
/// every ordinary program.
pub fn init(py: Python<'_>) -> PyResult<()> {
    let threading = py.import("threading")?;
    let main = threading.call_method0("main_thread")?;
    let current = threading.call_method0("current_thread")?;
    if main.is(&current) {
        let _ = MAIN_THREAD.set(std::thread::current().id());
    }
    Ok(())
}

/// Runs a cancellable core computation with the GIL released. On the main
/// thread, and when `long` says it may take a while, Ctrl-C stops it
/// (`KeyboardInterrupt`); elsewhere it simply runs.
///
/// An interrupt seen while `f` runs is raised even when `f` finished anyway;
/// its result is then dropped, so it must commit nothing by itself (a
/// gradient pass returns a [`PendingSpend`], which [`settle`] commits).
pub fn run<T: Send>(
    py: Python<'_>,
    long: bool,
    f: impl FnOnce(Option<&AtomicBool>) -> tapers::Result<T> + Send,
) -> PyResult<T> {
    let on_main = MAIN_THREAD.get() == Some(&std::thread::current().id());
    if !(long && on_main) {
        return py.detach(|| f(None)).py();
    }
    let cancel = AtomicBool::new(false);
    // The pass records on this thread's tapes (higher derivatives), so the
    // worker runs it in this thread's recording context.
    let ctx = RecordingContext::current();
    let done = (Mutex::new(false), Condvar::new());
    let mut interrupt: Option<PyErr> = None;
    let result = std::thread::scope(|s| {
        let worker = s.spawn(|| {
            let r = ctx.enter(|| f(Some(&cancel)));
            *done.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
            done.1.notify_all();
            r
        });
        loop {
            let finished = py.detach(|| {
                let guard = done.0.lock().unwrap_or_else(|e| e.into_inner());
                let (guard, _) = done
                    .1
                    .wait_timeout_while(guard, Duration::from_millis(50), |d| !*d)
                    .unwrap_or_else(|e| e.into_inner());
                *guard
            });
            if finished {
                break;
            }
            if interrupt.is_none() {
                if let Err(e) = py.check_signals() {
                    interrupt = Some(e);
                    cancel.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            }
        }
        match worker.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    });
    match (result, interrupt) {
        (r, None) => r.py(),
        // Cancelled; or finished before it saw the flag, its uncommitted
        // result dropped here; or failed otherwise, which spent nothing
        // either: the program still stops, and the failure is kept as the
        // interrupt's context.
        (r, Some(e)) => {
            if let Err(other) = r {
                if !matches!(other, tapers::Error::Cancelled) {
                    e.set_context(py, Some(crate::errors::to_py(other)));
                }
            }
            Err(e)
        }
    }
}

/// Spends the tape for a pass whose result is ready to be returned, unless
/// Ctrl-C came first: a pending `KeyboardInterrupt` is raised instead and
/// `spend` is dropped uncommitted, so the tape keeps its recording. Only the
/// main thread sees signals; elsewhere this just commits.
pub fn settle(py: Python<'_>, spend: PendingSpend) -> PyResult<()> {
    py.check_signals()?;
    spend.commit();
    Ok(())
}
