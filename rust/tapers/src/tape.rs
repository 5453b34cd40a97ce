//! Recording: the tape, its entries, and the per-thread set of active tapes.
//!
//! A tape is a flat `Vec` of [`Entry`]s. Each entry names its inputs and outputs
//! by [`TensorId`] and holds the op's gradient rule, which captures exactly the
//! tensors the rule needs. Inputs also remember which entry of *this* tape
//! produced them, so the backward pass walks indices and needs no graph of
//! pointers and no id lookups.
//!
//! As in TensorFlow, the set of tapes that record is per thread: entering a tape
//! pushes it on the calling thread's set. [`RecordingContext`] captures a
//! thread's set so that work done for it on another thread (the backward pass on
//! rayon workers) records on the same tapes.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::backward::{self, Unconnected};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::Dims;
use crate::tensor::{Tensor, TensorId};
use crate::variable::Variable;

/// A gradient rule: given the gradients of an op's outputs (one per output,
/// zeros where nothing flowed), return the gradients of its inputs.
///
/// `needs[i]` says whether input `i` wants a gradient; a rule may return `None`
/// for inputs that do not. Rules are written with the public ops, so an outer
/// tape records them and higher derivatives follow.
pub trait BackwardFn: Send + Sync {
    /// Computes input gradients from output gradients.
    fn backward(&self, grads: &[Tensor], needs: &[bool]) -> Result<Vec<Option<Tensor>>>;
}

impl<F> BackwardFn for F
where
    F: Fn(&[Tensor], &[bool]) -> Result<Vec<Option<Tensor>>> + Send + Sync,
{
    fn backward(&self, grads: &[Tensor], needs: &[bool]) -> Result<Vec<Option<Tensor>>> {
        self(grads, needs)
    }
}

/// Where an entry's input came from, on the tape that holds the entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Not tracked by this tape: no gradient flows into it.
    Untracked,
    /// Watched directly (a source): a leaf.
    Watched,
    /// Produced by the entry at this index.
    Entry(u32),
}

#[derive(Clone, Debug)]
pub(crate) struct Input {
    pub id: TensorId,
    pub origin: Origin,
}

#[derive(Clone, Debug)]
pub(crate) struct Output {
    pub id: TensorId,
    pub dtype: DType,
    pub shape: Dims,
}

/// One recorded op.
#[derive(Clone)]
pub(crate) struct Entry {
    pub name: &'static str,
    pub inputs: SmallVec<[Input; 2]>,
    pub outputs: SmallVec<[Output; 1]>,
    pub rule: Arc<dyn BackwardFn>,
    /// The op's local derivative when it is a same-shape elementwise op
    /// (the backward pass may fuse such ops, see `fuse`).
    pub pointwise: Option<Arc<crate::fuse::Pointwise>>,
}

/// What a live tape holds. `None` in [`TapeInner::data`] means "no tape yet, or
/// spent": TensorFlow's `self._tape is None`.
#[derive(Default)]
pub(crate) struct TapeData {
    pub entries: Vec<Entry>,
    /// Every tensor the tape tracks (watched, or produced by a recorded op).
    pub tracked: FxHashMap<TensorId, Origin>,
    /// Watched variables by handle id, which is creation order.
    pub variables: BTreeMap<TensorId, Variable>,
    /// Tensors computed from tracked ones by ops that pass no gradient
    /// (`stop_gradient`, casts to integers and what follows them): kept only
    /// to explain a `None` gradient, never used by the backward pass.
    pub cuts: FxHashMap<TensorId, Cut>,
}

/// Why no gradient flows from a tensor back to the inputs it was computed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutReason {
    /// `stop_gradient` (or an op with no gradient by design).
    StopGradient,
    /// An integer or boolean value on the path.
    NonFloat,
}

/// A tensor computed, without a gradient, from tracked tensors.
#[derive(Clone, Debug)]
pub(crate) struct Cut {
    /// The op where the path was first cut.
    pub op: &'static str,
    pub reason: CutReason,
    pub from: SmallVec<[TensorId; 2]>,
}

impl TapeData {
    /// Elements in all recorded outputs: the size of a backward pass.
    fn output_elements(&self) -> usize {
        self.entries
            .iter()
            .flat_map(|e| e.outputs.iter())
            .map(|o| o.shape.iter().product::<usize>())
            .sum()
    }

    fn watch_id(&mut self, id: TensorId) {
        self.tracked.entry(id).or_insert(Origin::Watched);
    }
}

pub(crate) struct TapeInner {
    pub id: u64,
    pub persistent: bool,
    pub watch_accessed_variables: bool,
    pub data: Mutex<Option<TapeData>>,
    /// Whether a thread's active set holds this tape.
    pub recording: Mutex<bool>,
    /// Mirrors `recording` for the per-op check. A tape exited from another
    /// thread than the one that entered it leaves a stale handle in that
    /// thread's set; `live == false` makes every reader skip it.
    pub live: AtomicBool,
    /// What `watched_variables` reports after a non-persistent tape is spent.
    pub spent_variables: Mutex<Vec<Variable>>,
    /// Why sources got `None` from the call that spent a non-persistent tape.
    pub spent_explanations: Mutex<Vec<(TensorId, crate::inspect::Explanation)>>,
}

thread_local! {
    static ACTIVE: RefCell<Vec<Arc<TapeInner>>> = const { RefCell::new(Vec::new()) };
}

/// A snapshot of the tapes recording on some thread.
///
/// Capture it with [`RecordingContext::current`] and re-install it elsewhere
/// with [`RecordingContext::enter`], so that ops run on a worker thread are
/// recorded as if the capturing thread had run them.
#[derive(Clone, Default)]
pub struct RecordingContext {
    tapes: Vec<Arc<TapeInner>>,
}

impl RecordingContext {
    /// The calling thread's active tapes.
    pub fn current() -> RecordingContext {
        ACTIVE.with(|a| RecordingContext {
            tapes: a.borrow().clone(),
        })
    }

    /// Runs `f` with this context as the thread's active tape set, restoring the
    /// previous set afterwards (also on panic).
    pub fn enter<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Restore(Option<Vec<Arc<TapeInner>>>);
        impl Drop for Restore {
            fn drop(&mut self) {
                if let Some(prev) = self.0.take() {
                    ACTIVE.with(|a| *a.borrow_mut() = prev);
                }
            }
        }
        let prev = ACTIVE.with(|a| std::mem::replace(&mut *a.borrow_mut(), self.tapes.clone()));
        let _restore = Restore(Some(prev));
        f()
    }

    /// Whether no tape is recording.
    pub fn is_empty(&self) -> bool {
        self.tapes.is_empty()
    }
}

/// Whether any tape records on this thread. Ops use it to skip all tape work.
#[inline]
pub fn is_recording() -> bool {
    ACTIVE.with(|a| a.borrow().iter().any(|t| t.live.load(Ordering::Acquire)))
}

/// Records an op on every active tape that tracks one of its floating inputs.
///
/// `make_rule` is called at most once, and only if some tape records, so an op
/// pays nothing for its gradient rule when no tape is interested.
pub fn record_op(
    name: &'static str,
    inputs: &[(TensorId, DType)],
    outputs: &[&Tensor],
    make_rule: impl FnOnce() -> Arc<dyn BackwardFn>,
) {
    record_op_with(name, inputs, outputs, make_rule, || None);
}

/// [`record_op`] that also keeps the op's local derivative, for fusion.
pub(crate) fn record_op_with(
    name: &'static str,
    inputs: &[(TensorId, DType)],
    outputs: &[&Tensor],
    make_rule: impl FnOnce() -> Arc<dyn BackwardFn>,
    make_pointwise: impl FnOnce() -> Option<crate::fuse::Pointwise>,
) {
    ACTIVE.with(|a| {
        let active = a.borrow();
        if active.is_empty() {
            return;
        }
        let mut rule: Option<Arc<dyn BackwardFn>> = None;
        let mut make_rule = Some(make_rule);
        let mut pointwise: Option<Option<Arc<crate::fuse::Pointwise>>> = None;
        let mut make_pointwise = Some(make_pointwise);
        for tape in active.iter() {
            if !tape.live.load(Ordering::Acquire) {
                continue;
            }
            let mut guard = tape.data.lock();
            let Some(data) = guard.as_mut() else { continue };
            let mut any = false;
            let ins: SmallVec<[Input; 2]> = inputs
                .iter()
                .map(|&(id, dtype)| {
                    let origin = if dtype.is_floating() {
                        data.tracked.get(&id).copied().unwrap_or(Origin::Untracked)
                    } else {
                        Origin::Untracked
                    };
                    any |= origin != Origin::Untracked;
                    Input { id, origin }
                })
                .collect();
            if !any {
                // No gradient path: remember the connection for explanations,
                // if it descends from something this tape tracks.
                if !data.cuts.is_empty()
                    || inputs.iter().any(|(id, _)| data.tracked.contains_key(id))
                {
                    note_cut(
                        data,
                        name,
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
            for o in outputs {
                data.tracked.insert(o.id(), index);
            }
            data.entries.push(Entry {
                name,
                inputs: ins,
                outputs: outputs
                    .iter()
                    .map(|o| Output {
                        id: o.id(),
                        dtype: o.dtype(),
                        shape: o.shape().iter().copied().collect(),
                    })
                    .collect(),
                rule,
                pointwise: pointwise
                    .get_or_insert_with(|| {
                        (make_pointwise.take().expect("made once"))().map(Arc::new)
                    })
                    .clone(),
            });
        }
    })
}

/// Records on `data` that `outputs` were computed from `inputs` without a
/// gradient. A cut descending from an earlier cut keeps that cut's op and
/// reason (the first place the path was broken).
fn note_cut(
    data: &mut TapeData,
    op: &'static str,
    reason: CutReason,
    inputs: impl Iterator<Item = TensorId>,
    outputs: impl Iterator<Item = TensorId>,
) {
    let from: SmallVec<[TensorId; 2]> = inputs
        .filter(|id| data.tracked.contains_key(id) || data.cuts.contains_key(id))
        .collect();
    let Some(first) = from.first() else { return };
    let (op, reason) = match data.cuts.get(first) {
        Some(c) if !data.tracked.contains_key(first) => (c.op, c.reason),
        _ => (op, reason),
    };
    for o in outputs {
        data.cuts.insert(
            o,
            Cut {
                op,
                reason,
                from: from.clone(),
            },
        );
    }
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
        for tape in a.borrow().iter() {
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
    if !var.trainable() {
        return;
    }
    ACTIVE.with(|a| {
        for tape in a.borrow().iter() {
            if tape.watch_accessed_variables && tape.live.load(Ordering::Acquire) {
                if let Some(data) = tape.data.lock().as_mut() {
                    data.watch_id(var.handle_id());
                    data.variables
                        .entry(var.handle_id())
                        .or_insert_with(|| var.clone());
                }
            }
        }
    })
}

/// Something a gradient can be taken with respect to.
#[derive(Clone)]
pub enum Source {
    /// A tensor (watched explicitly, or an intermediate result).
    Tensor(Tensor),
    /// A variable (watched explicitly or by being read).
    Variable(Variable),
}

impl Source {
    pub(crate) fn id(&self) -> TensorId {
        match self {
            Source::Tensor(t) => t.id(),
            Source::Variable(v) => v.handle_id(),
        }
    }
    pub(crate) fn dtype(&self) -> DType {
        match self {
            Source::Tensor(t) => t.dtype(),
            Source::Variable(v) => v.dtype(),
        }
    }
    pub(crate) fn zeros(&self) -> Result<Tensor> {
        match self {
            Source::Tensor(t) => Tensor::zeros(t.shape(), t.dtype()),
            Source::Variable(v) => Tensor::zeros(&v.shape(), v.dtype()),
        }
    }
}

impl From<&Tensor> for Source {
    fn from(t: &Tensor) -> Source {
        Source::Tensor(t.clone())
    }
}

impl From<&Variable> for Source {
    fn from(v: &Variable) -> Source {
        Source::Variable(v.clone())
    }
}

/// Records operations for automatic differentiation, as `tf.GradientTape`.
///
/// ```
/// use tapers::{ops, GradientTape, Tensor};
/// let x = Tensor::scalar(3.0f32);
/// let tape = GradientTape::new();
/// let y = {
///     let _rec = tape.record().unwrap();
///     tape.watch(&x);
///     ops::mul(&x, &x).unwrap()
/// };
/// let g = tape.gradient(&[y], &[(&x).into()]).unwrap();
/// assert_eq!(g[0].as_ref().unwrap().to_vec::<f32>().unwrap(), vec![6.0]);
/// ```
///
/// The handle is cheap to clone and can be shared between threads; recording
/// happens on whichever thread entered it.
#[derive(Clone)]
pub struct GradientTape {
    inner: Arc<TapeInner>,
}

/// Ends recording on the tape that produced it when dropped.
pub struct RecordingGuard<'a> {
    tape: &'a GradientTape,
}

impl Drop for RecordingGuard<'_> {
    fn drop(&mut self) {
        // The guard was created by a successful push on this thread.
        let _ = self.tape.pop();
    }
}

/// Resumes recording on the tape when dropped (see [`GradientTape::stop_recording`]).
pub struct PausedGuard<'a> {
    tape: &'a GradientTape,
}

impl Drop for PausedGuard<'_> {
    fn drop(&mut self) {
        let _ = self.tape.push();
    }
}

impl Default for GradientTape {
    fn default() -> Self {
        GradientTape::new()
    }
}

impl GradientTape {
    /// A non-persistent tape that watches variables it sees read.
    pub fn new() -> GradientTape {
        GradientTape::with_options(false, true)
    }

    /// A tape with TensorFlow's two options.
    pub fn with_options(persistent: bool, watch_accessed_variables: bool) -> GradientTape {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        GradientTape {
            inner: Arc::new(TapeInner {
                id: NEXT.fetch_add(1, Ordering::Relaxed),
                persistent,
                watch_accessed_variables,
                data: Mutex::new(None),
                recording: Mutex::new(false),
                live: AtomicBool::new(false),
                spent_variables: Mutex::new(Vec::new()),
                spent_explanations: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Whether `gradient` may be called more than once.
    pub fn persistent(&self) -> bool {
        self.inner.persistent
    }

    /// Whether reads of trainable variables are watched automatically.
    pub fn watch_accessed_variables(&self) -> bool {
        self.inner.watch_accessed_variables
    }

    /// Whether the tape is on some thread's active set.
    pub fn is_recording(&self) -> bool {
        *self.inner.recording.lock()
    }

    /// A number identifying the tape, unique in the process.
    pub fn id(&self) -> u64 {
        self.inner.id
    }

    /// Starts recording on the calling thread until the guard drops.
    pub fn record(&self) -> Result<RecordingGuard<'_>> {
        self.push()?;
        Ok(RecordingGuard { tape: self })
    }

    /// Starts recording on the calling thread (TensorFlow's `__enter__`).
    ///
    /// A tape that was spent (or never used) starts empty; a tape that was
    /// paused continues where it stopped.
    pub fn push(&self) -> Result<()> {
        let mut rec = self.inner.recording.lock();
        if *rec {
            return Err(Error::TapeState(
                "Tape is still recording, This can happen if you try to re-enter an already-active tape.".into(),
            ));
        }
        self.inner.data.lock().get_or_insert_with(|| {
            self.inner.spent_variables.lock().clear();
            self.inner.spent_explanations.lock().clear();
            TapeData::default()
        });
        ACTIVE.with(|a| {
            let mut a = a.borrow_mut();
            // Drop a stale handle this thread may still hold from an exit elsewhere.
            a.retain(|t| !Arc::ptr_eq(t, &self.inner));
            a.push(self.inner.clone());
        });
        *rec = true;
        self.inner.live.store(true, Ordering::Release);
        Ok(())
    }

    /// Stops recording on the calling thread (TensorFlow's `__exit__`).
    pub fn pop(&self) -> Result<()> {
        let mut rec = self.inner.recording.lock();
        if !*rec {
            return Err(Error::TapeState("Tape is not recording.".into()));
        }
        // Remove it from this thread's set. Exited from another thread, the
        // entering thread keeps a stale handle that `live` disables (and that
        // thread drops it when it next enters the tape).
        ACTIVE.with(|a| a.borrow_mut().retain(|t| !Arc::ptr_eq(t, &self.inner)));
        self.inner.live.store(false, Ordering::Release);
        *rec = false;
        Ok(())
    }

    /// Pauses recording until the returned guard drops.
    pub fn stop_recording(&self) -> Result<PausedGuard<'_>> {
        self.pause()?;
        Ok(PausedGuard { tape: self })
    }

    /// Pauses recording; [`push`](Self::push) resumes it. Fails if the tape
    /// holds no recording.
    pub fn pause(&self) -> Result<()> {
        if self.inner.data.lock().is_none() {
            return Err(Error::NotRecording);
        }
        self.pop()
    }

    /// Discards everything recorded; recording continues on a fresh tape.
    pub fn reset(&self) -> Result<()> {
        self.pop()?;
        *self.inner.data.lock() = None;
        self.push()
    }

    /// Watches a tensor. Returns `false` (and watches nothing) for non-floating
    /// tensors, whose gradients are always `None`, or when the tape holds no
    /// recording.
    pub fn watch(&self, t: &Tensor) -> bool {
        if !t.dtype().is_floating() {
            return false;
        }
        match self.inner.data.lock().as_mut() {
            Some(data) => {
                data.watch_id(t.id());
                true
            }
            None => false,
        }
    }

    /// Watches a variable.
    pub fn watch_variable(&self, v: &Variable) -> bool {
        if !v.dtype().is_floating() {
            return false;
        }
        match self.inner.data.lock().as_mut() {
            Some(data) => {
                data.watch_id(v.handle_id());
                data.variables
                    .entry(v.handle_id())
                    .or_insert_with(|| v.clone());
                true
            }
            None => false,
        }
    }

    /// The variables this tape watches, in creation order.
    pub fn watched_variables(&self) -> Vec<Variable> {
        match self.inner.data.lock().as_ref() {
            Some(d) => d.variables.values().cloned().collect(),
            None => self.inner.spent_variables.lock().clone(),
        }
    }

    /// How many ops the tape holds.
    pub fn len(&self) -> usize {
        self.inner
            .data
            .lock()
            .as_ref()
            .map_or(0, |d| d.entries.len())
    }

    /// Whether differentiating this tape is cheap enough that handing the
    /// work to other threads (or releasing a language runtime's lock) would
    /// cost more than it saves: at most 16 ops, all on small tensors. Such a
    /// tape is always differentiated sequentially on the calling thread.
    pub fn is_small(&self) -> bool {
        let guard = self.inner.data.lock();
        let Some(d) = guard.as_ref() else { return true };
        d.entries.len() <= 16 && d.output_elements() < 1 << 14
    }

    /// Whether differentiating this tape may take long enough (tens of
    /// milliseconds or more) to be worth making interruptible: at least
    /// 4096 ops, or outputs totalling 2^22 elements or more.
    pub fn is_long(&self) -> bool {
        let guard = self.inner.data.lock();
        let Some(d) = guard.as_ref() else {
            return false;
        };
        d.entries.len() >= 4096 || d.output_elements() >= 1 << 22
    }

    /// Bytes the tape holds for its recording itself: entry records, the index
    /// of tracked ids, and the gradient-rule closures (whose captured tensors
    /// are shared handles; the tensors' own storage is not counted).
    pub fn memory_bytes(&self) -> usize {
        let guard = self.inner.data.lock();
        let Some(d) = guard.as_ref() else { return 0 };
        let mut bytes = d.entries.capacity() * std::mem::size_of::<Entry>();
        for e in &d.entries {
            // The rule's Arc allocation: two counters plus the closure.
            bytes += 2 * std::mem::size_of::<usize>() + std::mem::size_of_val(&*e.rule);
            if let Some(p) = &e.pointwise {
                bytes += 2 * std::mem::size_of::<usize>() + std::mem::size_of_val(&**p);
            }
            if e.inputs.spilled() {
                bytes += e.inputs.capacity() * std::mem::size_of::<Input>();
            }
            if e.outputs.spilled() {
                bytes += e.outputs.capacity() * std::mem::size_of::<Output>();
            }
            bytes += e
                .outputs
                .iter()
                .filter(|o| o.shape.spilled())
                .map(|o| o.shape.capacity() * 8)
                .sum::<usize>();
        }
        // hashbrown: one control byte per bucket plus the (key, value) pair.
        bytes += d.tracked.capacity() * (std::mem::size_of::<(TensorId, Origin)>() + 1);
        bytes
    }

    /// Whether the tape holds no ops.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Gradients of the sum of `targets` with respect to each source (`None`
    /// where unconnected). Non-scalar targets count as their sum.
    pub fn gradient(&self, targets: &[Tensor], sources: &[Source]) -> Result<Vec<Option<Tensor>>> {
        self.gradient_with(targets, sources, None, Unconnected::None)
    }

    /// [`gradient`](Self::gradient) with TensorFlow's `output_gradients`
    /// (one per target, the seed instead of ones) and `unconnected_gradients`.
    pub fn gradient_with(
        &self,
        targets: &[Tensor],
        sources: &[Source],
        output_gradients: Option<&[Tensor]>,
        unconnected: Unconnected,
    ) -> Result<Vec<Option<Tensor>>> {
        self.gradient_cancellable(targets, sources, output_gradients, unconnected, None)
    }

    /// [`gradient_with`](Self::gradient_with) that another thread can stop:
    /// once `cancel` is set, the pass returns [`Error::Cancelled`] before
    /// running its next gradient rule. A cancelled pass spends nothing: a
    /// non-persistent tape keeps its recording and can be differentiated again.
    ///
    /// ```
    /// use std::sync::atomic::AtomicBool;
    /// use tapers::{ops, Error, GradientTape, Tensor, Unconnected};
    /// let x = Tensor::scalar(2.0f64);
    /// let tape = GradientTape::new();
    /// let y = {
    ///     let _r = tape.record().unwrap();
    ///     tape.watch(&x);
    ///     ops::mul(&x, &x).unwrap()
    /// };
    /// let stop = AtomicBool::new(true);
    /// let r = tape.gradient_cancellable(&[y.clone()], &[(&x).into()], None, Unconnected::None, Some(&stop));
    /// assert!(matches!(r, Err(Error::Cancelled)));
    /// // Nothing was spent.
    /// let g = tape.gradient(&[y], &[(&x).into()]).unwrap();
    /// assert_eq!(g[0].as_ref().unwrap().to_vec::<f64>().unwrap(), vec![4.0]);
    /// ```
    pub fn gradient_cancellable(
        &self,
        targets: &[Tensor],
        sources: &[Source],
        output_gradients: Option<&[Tensor]>,
        unconnected: Unconnected,
        cancel: Option<&AtomicBool>,
    ) -> Result<Vec<Option<Tensor>>> {
        let (grads, spend) =
            self.gradient_pending(targets, sources, output_gradients, unconnected, cancel)?;
        spend.commit();
        Ok(grads)
    }

    /// [`gradient_cancellable`](Self::gradient_cancellable) that leaves the
    /// decision to spend a non-persistent tape to the caller: the gradients
    /// come with a [`PendingSpend`], and the tape is spent only when that is
    /// committed. Dropping it instead puts the recording back, so a caller
    /// can still abandon a pass that finished (for example when Ctrl-C came
    /// during its last rule) and leave the tape as a failed pass does.
    ///
    /// ```
    /// use tapers::{ops, GradientTape, Tensor, Unconnected};
    /// let x = Tensor::scalar(2.0f64);
    /// let tape = GradientTape::new();
    /// let y = {
    ///     let _r = tape.record().unwrap();
    ///     tape.watch(&x);
    ///     ops::mul(&x, &x).unwrap()
    /// };
    /// let sources = [(&x).into()];
    /// let (g, spend) = tape.gradient_pending(&[y.clone()], &sources, None, Unconnected::None, None).unwrap();
    /// assert_eq!(g[0].as_ref().unwrap().to_vec::<f64>().unwrap(), vec![4.0]);
    /// drop(spend); // abandoned: nothing was spent
    /// let (_, spend) = tape.gradient_pending(&[y.clone()], &sources, None, Unconnected::None, None).unwrap();
    /// spend.commit();
    /// assert!(tape.gradient(&[y], &sources).is_err()); // spent
    /// ```
    pub fn gradient_pending(
        &self,
        targets: &[Tensor],
        sources: &[Source],
        output_gradients: Option<&[Tensor]>,
        unconnected: Unconnected,
        cancel: Option<&AtomicBool>,
    ) -> Result<(Vec<Option<Tensor>>, PendingSpend)> {
        if let Some(og) = output_gradients {
            if og.len() != targets.len() {
                return Err(Error::invalid(format!(
                    "output_gradients has {} tensors but there are {} targets",
                    og.len(),
                    targets.len()
                )));
            }
            for (t, g) in targets.iter().zip(og) {
                if t.shape() != g.shape() {
                    return Err(Error::IncompatibleShapes {
                        op: "GradientTape.gradient",
                        lhs: crate::shape::ShapeDisplay::of(t.shape()),
                        rhs: crate::shape::ShapeDisplay::of(g.shape()),
                    });
                }
                crate::kernels::same_dtype("GradientTape.gradient", t, g)?;
            }
        }
        // Why sources got `None`, kept for `explain` once the tape is spent
        // (nothing when every source got a gradient).
        let explain = |grads: &Vec<Option<Tensor>>, data: &TapeData, entries: &[Entry]| {
            grads
                .iter()
                .zip(sources)
                .filter(|(g, _)| g.is_none())
                .map(|(_, s)| {
                    (
                        s.id(),
                        crate::inspect::explain_in(data, entries, targets, s),
                    )
                })
                .collect()
        };
        self.with_snapshot_pending(targets, explain, |entries, origins| {
            backward::run(
                entries,
                origins,
                targets,
                sources,
                output_gradients,
                unconnected,
                cancel,
            )
        })
    }

    /// Runs `f` over a snapshot of the recording, with the origins of
    /// `targets` on this tape. Non-persistent tapes are spent by a successful
    /// `f` (and left intact by a failing one); `f` runs without any tape lock.
    ///
    /// `on_spend` sees the result and the recording just before a
    /// non-persistent tape drops it.
    pub(crate) fn with_snapshot<R>(
        &self,
        targets: &[Tensor],
        on_spend: impl FnOnce(&R, &TapeData, &[Entry]),
        f: impl FnOnce(&[Entry], &[Origin]) -> Result<R>,
    ) -> Result<R> {
        let explain = |r: &R, data: &TapeData, entries: &[Entry]| {
            on_spend(r, data, entries);
            Vec::new()
        };
        let (r, spend) = self.with_snapshot_pending(targets, explain, f)?;
        spend.commit();
        Ok(r)
    }

    /// [`with_snapshot`](Self::with_snapshot) that does not spend the tape
    /// yet: a successful `f` leaves a non-persistent tape's recording in the
    /// returned [`PendingSpend`] (with what `explain` says about the result,
    /// for `explain` after the spend); a failing one puts it back at once.
    pub(crate) fn with_snapshot_pending<R>(
        &self,
        targets: &[Tensor],
        explain: impl FnOnce(&R, &TapeData, &[Entry]) -> Vec<(TensorId, crate::inspect::Explanation)>,
        f: impl FnOnce(&[Entry], &[Origin]) -> Result<R>,
    ) -> Result<(R, PendingSpend)> {
        // TensorFlow: a non-persistent tape stops recording for good when its
        // gradient is taken inside the `with` block.
        if !self.inner.persistent && self.is_recording() {
            self.pop()?;
        }
        let mut guard = self.inner.data.lock();
        let Some(data) = guard.as_mut() else {
            return Err(Error::TapeSpent);
        };
        let target_origins: SmallVec<[Origin; 4]> = targets
            .iter()
            .map(|t| {
                data.tracked
                    .get(&t.id())
                    .copied()
                    .unwrap_or(Origin::Untracked)
            })
            .collect();
        let mut spend = PendingSpend {
            tape: self.inner.clone(),
            taken: None,
        };
        if self.inner.persistent {
            let entries = data.entries.clone();
            // Never hold the tape's lock while differentiating: a persistent tape
            // inside its `with` block records the gradient ops on itself.
            drop(guard);
            return f(&entries, &target_origins).map(|r| (r, spend));
        }
        // Non-persistent: take everything out, so that saved tensors are freed
        // with the entries when the spend is committed; on failure (or when
        // the spend is dropped) `spend` puts it back, so nothing is spent.
        let mut data = guard.take().expect("checked above");
        drop(guard);
        let entries = std::mem::take(&mut data.entries);
        let r = f(&entries, &target_origins);
        let explanations = match &r {
            Ok(r) => explain(r, &data, &entries),
            Err(_) => Vec::new(),
        };
        data.entries = entries;
        spend.taken = Some((data, explanations));
        r.map(|r| (r, spend))
    }
}

/// A finished gradient pass's hold on a non-persistent tape's recording
/// (see [`GradientTape::gradient_pending`]). [`commit`](Self::commit) spends
/// the tape: the recording and the tensors it saved are freed. Dropping it
/// uncommitted puts the recording back, as after a failed pass. For a
/// persistent tape there is nothing to spend and both do nothing.
#[must_use = "dropping a PendingSpend puts the recording back; commit() spends the tape"]
pub struct PendingSpend {
    tape: Arc<TapeInner>,
    /// The recording taken out by the pass, and why sources got `None`.
    taken: Option<(TapeData, Vec<(TensorId, crate::inspect::Explanation)>)>,
}

impl PendingSpend {
    /// Spends the tape: a later `gradient` fails as TensorFlow's does, and
    /// `watched_variables` and `explain` answer from what the pass saw.
    pub fn commit(mut self) {
        if let Some((data, explanations)) = self.taken.take() {
            *self.tape.spent_variables.lock() = data.variables.values().cloned().collect();
            *self.tape.spent_explanations.lock() = explanations;
        }
    }
}

impl Drop for PendingSpend {
    fn drop(&mut self) {
        if let Some((data, _)) = self.taken.take() {
            let mut guard = self.tape.data.lock();
            // Entered again since the pass took it: keep the new recording.
            if guard.is_none() {
                *guard = Some(data);
            }
        }
    }
}

impl GradientTape {
    /// Runs `f` on the recording (`None` when there is none), under the lock.
    pub(crate) fn with_data<R>(&self, f: impl FnOnce(Option<&TapeData>) -> R) -> R {
        f(self.inner.data.lock().as_ref())
    }

    pub(crate) fn spent_explanation(
        &self,
        source: TensorId,
    ) -> Option<crate::inspect::Explanation> {
        self.inner
            .spent_explanations
            .lock()
            .iter()
            .find(|(id, _)| *id == source)
            .map(|(_, e)| e.clone())
    }
}

impl std::fmt::Debug for GradientTape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GradientTape")
            .field("id", &self.inner.id)
            .field("persistent", &self.inner.persistent)
            .field("ops", &self.len())
            .finish()
    }
}
