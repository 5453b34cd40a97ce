//! The per-thread registry of active tapes.
//!
//! As in TensorFlow, the set of tapes that record is per thread: entering a
//! tape pushes its [`Recorder`] on the calling thread's set. A
//! [`RecordingContext`] captures a thread's set so that work done for it on
//! another thread (the backward pass on rayon workers) records on the same
//! tapes.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use smallvec::SmallVec;

use super::data::{note_cut, CutReason, TapeData};
use super::trace::Tracer;
use super::{BackwardFn, Entry, Fusable, Input, Origin, Output, Variable};
use crate::dims::Dims;
use crate::dtype::DType;
use crate::op::OpRef;
use crate::tensor::{Tensor, TensorId};

/// What the registry holds of a tape: its recording and whether it records.
pub(crate) struct Recorder {
    pub watch_accessed_variables: bool,
    /// `None`: no recording yet, or spent (TensorFlow's `self._tape is None`).
    pub data: Mutex<Option<TapeData>>,
    /// Whether a thread's active set holds this tape. A tape exited from
    /// another thread than the one that entered it leaves a stale handle in
    /// that thread's set; `live == false` makes every reader skip it.
    pub live: AtomicBool,
}

impl Recorder {
    pub fn new(watch_accessed_variables: bool) -> Recorder {
        Recorder {
            watch_accessed_variables,
            data: Mutex::new(None),
            live: AtomicBool::new(false),
        }
    }

    /// Puts the recorder on the calling thread's active set.
    pub fn activate(self: &Arc<Self>) {
        ACTIVE.with(|a| {
            let a = &mut a.borrow_mut().tapes;
            // Drop a stale handle this thread may still hold from an exit elsewhere.
            a.retain(|t| !Arc::ptr_eq(t, self));
            a.push(self.clone());
        });
        self.live.store(true, Ordering::Release);
    }

    /// Takes the recorder off the calling thread's active set. Exited from
    /// another thread, the entering thread keeps a stale handle that `live`
    /// disables (and that thread drops it when it next enters the tape).
    pub fn deactivate(self: &Arc<Self>) {
        ACTIVE.with(|a| a.borrow_mut().tapes.retain(|t| !Arc::ptr_eq(t, self)));
        self.live.store(false, Ordering::Release);
    }
}

/// What records on a thread: its tapes, and the tracer (`crate::graph`)
/// when one is active.
#[derive(Clone, Default)]
struct Active {
    tapes: Vec<Arc<Recorder>>,
    tracer: Option<Arc<dyn Tracer>>,
}

thread_local! {
    static ACTIVE: RefCell<Active> = const {
        RefCell::new(Active {
            tapes: Vec::new(),
            tracer: None,
        })
    };
}

/// Whether a tracer is active on this thread.
#[inline]
pub(super) fn has_tracer() -> bool {
    ACTIVE.with(|a| a.borrow().tracer.is_some())
}

/// Calls `f` with the thread's tracer, if one is active.
#[inline]
pub(super) fn with_tracer(f: impl FnOnce(&dyn Tracer)) {
    if let Some(t) = ACTIVE.with(|a| a.borrow().tracer.clone()) {
        f(&*t)
    }
}

/// Makes `tracer` the calling thread's tracer (or none), returning the
/// previous one.
pub(crate) fn set_tracer(tracer: Option<Arc<dyn Tracer>>) -> Option<Arc<dyn Tracer>> {
    ACTIVE.with(|a| std::mem::replace(&mut a.borrow_mut().tracer, tracer))
}

/// A snapshot of the tapes recording on some thread.
///
/// Capture it with [`RecordingContext::current`] and re-install it elsewhere
/// with [`RecordingContext::enter`], so that ops run on a worker thread are
/// recorded as if the capturing thread had run them.
#[derive(Clone, Default)]
pub struct RecordingContext {
    active: Active,
}

impl RecordingContext {
    /// The calling thread's active tapes.
    pub fn current() -> RecordingContext {
        ACTIVE.with(|a| RecordingContext {
            active: a.borrow().clone(),
        })
    }

    /// Runs `f` with this context as the thread's active tape set, restoring the
    /// previous set afterwards (also on panic).
    pub fn enter<R>(&self, f: impl FnOnce() -> R) -> R {
        /// Installs the replaced context back however `f` ends.
        struct Restore(Option<RecordingContext>);
        impl Drop for Restore {
            fn drop(&mut self) {
                if let Some(prev) = self.0.take() {
                    prev.install();
                }
            }
        }
        let _restore = Restore(Some(self.clone().install()));
        f()
    }

    /// Makes this context the calling thread's active set, returning the
    /// one it replaced: installing that one back restores the thread. For
    /// scopes that cannot be a closure around [`RecordingContext::enter`]
    /// (Python's `with tapers.init_scope():`); the default context installed
    /// this way makes nothing record until the previous one is back.
    pub fn install(self) -> RecordingContext {
        ACTIVE.with(|a| RecordingContext {
            active: std::mem::replace(&mut *a.borrow_mut(), self.active),
        })
    }

    /// Whether no tape is recording and no tracer traces.
    pub fn is_empty(&self) -> bool {
        self.active.tapes.is_empty() && self.active.tracer.is_none()
    }
}

/// Whether any tape records on this thread, or a tracer traces. Ops use it
/// to skip all tape work.
#[inline]
pub fn is_recording() -> bool {
    ACTIVE.with(|a| {
        let a = a.borrow();
        a.tracer.is_some() || a.tapes.iter().any(|t| t.live.load(Ordering::Acquire))
    })
}

/// Whether any tape records on this thread; a tracer alone does not count.
/// Work no tape differentiates may then take a kernel that is no public op,
/// as long as it tells an active tracer about itself as one replayable op
/// (`crate::graph` replays it with the same kernel, so with the same bits).
#[inline]
pub fn tapes_recording() -> bool {
    ACTIVE.with(|a| {
        a.borrow()
            .tapes
            .iter()
            .any(|t| t.live.load(Ordering::Acquire))
    })
}

/// Records `outputs = op(inputs)` on every active tape that tracks one of its
/// floating inputs (inputs as `(id, dtype)`: a variable's read names its
/// handle).
///
/// `make_rule` and `fusable` are called at most once, and only if some tape
/// records, so an op pays nothing for its gradient rule when no tape is
/// interested.
pub fn record_op(
    op: OpRef,
    inputs: &[(TensorId, DType)],
    outputs: &[&Tensor],
    make_rule: impl FnOnce() -> Arc<dyn BackwardFn>,
) {
    record_entry(op, inputs, outputs, make_rule, || None)
}

/// [`record_op`] that also keeps what a fused backward pass needs.
pub(crate) fn record_entry(
    op: OpRef,
    inputs: &[(TensorId, DType)],
    outputs: &[&Tensor],
    make_rule: impl FnOnce() -> Arc<dyn BackwardFn>,
    fusable: impl FnOnce() -> Option<Fusable>,
) {
    ACTIVE.with(|a| {
        let active = a.borrow();
        let active = &active.tapes;
        if active.is_empty() {
            return;
        }
        let mut rule: Option<Arc<dyn BackwardFn>> = None;
        let mut make_rule = Some(make_rule);
        let mut fused: Option<Option<Arc<Fusable>>> = None;
        let mut fusable = Some(fusable);
        for tape in active.iter() {
            if !tape.live.load(Ordering::Acquire) {
                continue;
            }
            let mut guard = tape.data.lock();
            let Some(data) = guard.as_mut() else { continue };
            let mut any = false;
            let mut ins: SmallVec<[Input; 2]> = SmallVec::with_capacity(inputs.len());
            for &(id, dtype) in inputs {
                let origin = if dtype.is_differentiable() {
                    data.tracked.get(&id).copied().unwrap_or(Origin::Untracked)
                } else {
                    Origin::Untracked
                };
                any |= origin != Origin::Untracked;
                ins.push(Input { id, origin });
            }
            if !any {
                // No gradient path: remember the connection for explanations,
                // if it descends from something this tape tracks.
                if !data.cuts.is_empty()
                    || inputs.iter().any(|(id, _)| data.tracked.contains_key(id))
                {
                    note_cut(
                        data,
                        op.name(),
                        CutReason::NonFloat,
                        inputs.iter().map(|p| p.0),
                        outputs.iter().map(|o| o.id()),
                    );
                }
                continue;
            }
            let rule = rule
                .get_or_insert_with(|| (make_rule.take().expect("made once"))())
                .clone();
            let index = Origin::Entry(data.entries.len() as u32);
            let mut outs: SmallVec<[Output; 1]> = SmallVec::with_capacity(outputs.len());
            for o in outputs {
                data.tracked.insert(o.id(), index);
                outs.push(Output {
                    id: o.id(),
                    dtype: o.dtype(),
                    shape: Dims::from_slice(o.shape()),
                });
            }
            data.entries.push(Entry {
                op: op.clone(),
                inputs: ins,
                outputs: outs,
                rule,
                fusable: fused
                    .get_or_insert_with(|| (fusable.take().expect("made once"))().map(Arc::new))
                    .clone(),
            });
        }
    })
}

/// Notes, on every active tape that tracks an input, that `output` was
/// computed from `inputs` by an op that passes no gradient (for explanations
/// of `None` gradients; the backward pass never sees it).
pub(crate) fn record_cut(
    op: &'static str,
    reason: CutReason,
    inputs: &[TensorId],
    output: TensorId,
) {
    ACTIVE.with(|a| {
        for tape in a.borrow().tapes.iter() {
            if !tape.live.load(Ordering::Acquire) {
                continue;
            }
            if let Some(data) = tape.data.lock().as_mut() {
                note_cut(
                    data,
                    op,
                    reason,
                    inputs.iter().copied(),
                    std::iter::once(output),
                );
            }
        }
    })
}

/// Tells the active tapes that a variable was read; tapes that watch accessed
/// variables start watching it.
pub(crate) fn variable_accessed(var: &Variable) {
    if !var.is_trainable() {
        return;
    }
    ACTIVE.with(|a| {
        for tape in a.borrow().tapes.iter() {
            if tape.watch_accessed_variables && tape.live.load(Ordering::Acquire) {
                if let Some(data) = tape.data.lock().as_mut() {
                    data.watch_variable(var);
                }
            }
        }
    })
}
