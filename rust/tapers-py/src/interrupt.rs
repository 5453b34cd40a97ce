//! Ctrl-C during a long backward pass.
//!
//! CPython runs signal handlers only on the main thread, and only when that
//! thread holds the GIL and calls `PyErr_CheckSignals`. A long pass runs with
//! the GIL released, so the main thread hands the pass to a scoped worker and
//! watches: every 50 ms it takes the GIL and checks for signals; on
//! `KeyboardInterrupt` it sets the pass's cancel flag, waits for the worker to
//! stop at its next gradient rule, and raises the interrupt. The core leaves a
//! cancelled tape as it was, so it can be differentiated again.

use std::sync::atomic::AtomicBool;
use std::sync::{Condvar, Mutex, OnceLock};
use std::thread::ThreadId;
use std::time::Duration;

use pyo3::prelude::*;
use tapers::RecordingContext;

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
        (Err(tapers::Error::Cancelled), Some(e)) => Err(e),
        // Finished before it saw the flag: keep the result, re-raise the
        // interrupt so the program still stops.
        (Ok(_), Some(e)) => Err(e),
        (r, None) => r.py(),
        (Err(other), Some(_)) => Err(crate::errors::to_py(other)),
    }
}
