//! The tape users hold: `tf.GradientTape`'s handle, its recording scope
//! and the gradient driver.
//!
//! Recording itself (entries, the per-thread registry) lives in `record`;
//! the backward pass, fusion, Jacobians and explanations in `autodiff`. This
//! module ties them to TensorFlow's API: entering and exiting, persistence,
//! spending a non-persistent tape, and what a spent tape still reports.

mod inspect;
mod jacobian;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use smallvec::SmallVec;

use crate::autodiff::{self, Explanation, Gradient, PassCounter, PassStats, Source, Unconnected};
use crate::error::{Error, Result};
use crate::record::{Entry, Input, Origin, Output, Recorder, TapeData, Variable};
use crate::tensor::{Tensor, TensorId};

struct TapeInner {
    id: u64,
    persistent: bool,
    rec: Arc<Recorder>,
    /// Whether a thread's active set holds this tape.
    recording: Mutex<bool>,
    /// What `watched_variables` reports after a non-persistent tape is spent.
    spent_variables: Mutex<Vec<Variable>>,
    /// Why sources got `None` from the call that spent a non-persistent tape.
    spent_explanations: Mutex<Vec<(TensorId, Explanation)>>,
    /// What the last `gradient` or Jacobian call's backward passes did.
    last_pass: Mutex<PassStats>,
}

/// How big a recording is: what a caller needs to decide whether a backward
/// pass is worth handing to another thread or making interruptible.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TapeStats {
    /// Recorded ops.
    pub ops: usize,
    /// Elements in all recorded outputs: the size of a backward pass.
    pub output_elements: usize,
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
                rec: Arc::new(Recorder::new(watch_accessed_variables)),
                recording: Mutex::new(false),
                spent_variables: Mutex::new(Vec::new()),
                spent_explanations: Mutex::new(Vec::new()),
                last_pass: Mutex::new(PassStats::default()),
            }),
        }
    }

    /// Whether `gradient` may be called more than once.
    pub fn persistent(&self) -> bool {
        self.inner.persistent
    }

    /// Whether reads of trainable variables are watched automatically.
    pub fn watch_accessed_variables(&self) -> bool {
        self.inner.rec.watch_accessed_variables
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
        self.inner.rec.data.lock().get_or_insert_with(|| {
            self.inner.spent_variables.lock().clear();
            self.inner.spent_explanations.lock().clear();
            TapeData::default()
        });
        self.inner.rec.activate();
        *rec = true;
        Ok(())
    }

    /// Stops recording on the calling thread (TensorFlow's `__exit__`).
    pub fn pop(&self) -> Result<()> {
        let mut rec = self.inner.recording.lock();
        if !*rec {
            return Err(Error::TapeState("Tape is not recording.".into()));
        }
        self.inner.rec.deactivate();
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
        if self.inner.rec.data.lock().is_none() {
            return Err(Error::NotRecording);
        }
        self.pop()
    }

    /// Discards everything recorded; recording continues on a fresh tape.
    pub fn reset(&self) -> Result<()> {
        self.pop()?;
        *self.inner.rec.data.lock() = None;
        self.push()
    }

    /// Watches a tensor. Returns `false` (and watches nothing) for non-floating
    /// tensors, whose gradients are always `None`, or when the tape holds no
    /// recording.
    pub fn watch(&self, t: &Tensor) -> bool {
        if !t.dtype().is_differentiable() {
            return false;
        }
        match self.inner.rec.data.lock().as_mut() {
            Some(data) => {
                data.watch_id(t.id());
                true
            }
            None => false,
        }
    }

    /// Watches a variable.
    pub fn watch_variable(&self, v: &Variable) -> bool {
        if !v.dtype().is_differentiable() {
            return false;
        }
        match self.inner.rec.data.lock().as_mut() {
            Some(data) => {
                data.watch_variable(v);
                true
            }
            None => false,
        }
    }

    /// The variables this tape watches, in creation order.
    pub fn watched_variables(&self) -> Vec<Variable> {
        match self.inner.rec.data.lock().as_ref() {
            Some(d) => d.variables.values().cloned().collect(),
            None => self.inner.spent_variables.lock().clone(),
        }
    }

    /// How many ops the tape holds.
    pub fn len(&self) -> usize {
        self.inner
            .rec
            .data
            .lock()
            .as_ref()
            .map_or(0, |d| d.entries.len())
    }

    /// What the backward passes of the last `gradient` or Jacobian call on
    /// this tape did: how many ran, whether they fused or vectorized.
    pub fn last_pass_stats(&self) -> PassStats {
        *self.inner.last_pass.lock()
    }

    /// How big the recording is (zeros when there is none).
    pub fn stats(&self) -> TapeStats {
        let guard = self.inner.rec.data.lock();
        guard.as_ref().map_or(TapeStats::default(), |d| TapeStats {
            ops: d.entries.len(),
            output_elements: d.output_elements(),
        })
    }

    /// Bytes the tape holds for its recording itself: entry records, the index
    /// of tracked ids, and the gradient-rule closures (whose captured tensors
    /// are shared handles; the tensors' own storage is not counted).
    pub fn memory_bytes(&self) -> usize {
        let guard = self.inner.rec.data.lock();
        let Some(d) = guard.as_ref() else { return 0 };
        let mut bytes = d.entries.capacity() * std::mem::size_of::<Entry>();
        for e in &d.entries {
            // The rule's Arc allocation: two counters plus the closure.
            bytes += 2 * std::mem::size_of::<usize>() + std::mem::size_of_val(&*e.rule);
            if let crate::op::OpRef::Shared(op) = &e.op {
                bytes += 2 * std::mem::size_of::<usize>() + std::mem::size_of_val(&**op);
            }
            if let Some(p) = &e.fusable {
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
    /// use tapers::{GradientTape, Tensor, Unconnected};
    /// let x = Tensor::scalar(2.0f64);
    /// let tape = GradientTape::new();
    /// let y = {
    ///     let _r = tape.record().unwrap();
    ///     tape.watch(&x);
    ///     x.mul(&x).unwrap()
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
        let (grads, spend) = self.pass(
            targets,
            sources,
            output_gradients,
            unconnected,
            cancel,
            false,
        )?;
        let grads = grads
            .into_iter()
            .map(|g| g.map(Gradient::into_dense).transpose())
            .collect::<Result<_>>()?;
        Ok((grads, spend))
    }

    /// [`gradient_pending`](Self::gradient_pending) as TensorFlow returns
    /// it: a source read only through gathers of rows along axis 0
    /// (`tf.gather`, `embedding_lookup`) gets a sparse gradient
    /// ([`Gradient::Sparse`], TensorFlow's `IndexedSlices`), so the pass
    /// allocates the rows read rather than the whole table; every other
    /// gradient is [`Gradient::Dense`].
    ///
    /// ```
    /// use tapers::{ops, Gradient, GradientTape, Tensor, Unconnected, Variable};
    /// let table = Variable::new(Tensor::from_vec(vec![1.0f32; 8], &[4, 2]).unwrap());
    /// let tape = GradientTape::new();
    /// let y = {
    ///     let _r = tape.record().unwrap();
    ///     let ids = Tensor::from_vec(vec![3i32, 1], &[2]).unwrap();
    ///     ops::reduce_sum(&ops::gather(&table.read(), &ids, 0, 0).unwrap(), None, false).unwrap()
    /// };
    /// let (g, spend) = tape
    ///     .gradient_pending_sparse(&[y], &[(&table).into()], None, Unconnected::None, None)
    ///     .unwrap();
    /// spend.commit();
    /// match g[0].as_ref().unwrap() {
    ///     Gradient::Sparse(s) => {
    ///         assert_eq!(*s.indices, vec![3, 1]);
    ///         assert_eq!(s.values.shape(), &[2, 2]);
    ///         assert_eq!(s.dense_shape, vec![4, 2]);
    ///     }
    ///     Gradient::Dense(_) => panic!("dense"),
    /// }
    /// ```
    pub fn gradient_pending_sparse(
        &self,
        targets: &[Tensor],
        sources: &[Source],
        output_gradients: Option<&[Tensor]>,
        unconnected: Unconnected,
        cancel: Option<&AtomicBool>,
    ) -> Result<(Vec<Option<Gradient>>, PendingSpend)> {
        self.pass(
            targets,
            sources,
            output_gradients,
            unconnected,
            cancel,
            true,
        )
    }

    fn pass(
        &self,
        targets: &[Tensor],
        sources: &[Source],
        output_gradients: Option<&[Tensor]>,
        unconnected: Unconnected,
        cancel: Option<&AtomicBool>,
        sparse: bool,
    ) -> Result<(Vec<Option<Gradient>>, PendingSpend)> {
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
        let explain = |grads: &Vec<Option<Gradient>>, data: &TapeData, entries: &[Entry]| {
            grads
                .iter()
                .zip(sources)
                .filter(|(g, _)| g.is_none())
                .map(|(_, s)| (s.id(), autodiff::explain_in(data, entries, targets, s)))
                .collect()
        };
        self.with_snapshot_pending(targets, explain, |entries, origins, stats| {
            autodiff::run_grads(
                entries,
                origins,
                targets,
                sources,
                output_gradients,
                unconnected,
                cancel,
                stats,
                sparse,
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
        f: impl FnOnce(&[Entry], &[Origin], &PassCounter) -> Result<R>,
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
    /// What the passes did is kept for [`last_pass_stats`](Self::last_pass_stats).
    fn with_snapshot_pending<R>(
        &self,
        targets: &[Tensor],
        explain: impl FnOnce(&R, &TapeData, &[Entry]) -> Vec<(TensorId, Explanation)>,
        f: impl FnOnce(&[Entry], &[Origin], &PassCounter) -> Result<R>,
    ) -> Result<(R, PendingSpend)> {
        let stats = PassCounter::default();
        let r = self.snapshot_run(targets, explain, |e, o| f(e, o, &stats));
        *self.inner.last_pass.lock() = stats.get();
        r
    }

    fn snapshot_run<R>(
        &self,
        targets: &[Tensor],
        explain: impl FnOnce(&R, &TapeData, &[Entry]) -> Vec<(TensorId, Explanation)>,
        f: impl FnOnce(&[Entry], &[Origin]) -> Result<R>,
    ) -> Result<(R, PendingSpend)> {
        // TensorFlow: a non-persistent tape stops recording for good when its
        // gradient is taken inside the `with` block.
        if !self.inner.persistent && self.is_recording() {
            self.pop()?;
        }
        let mut guard = self.inner.rec.data.lock();
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
        spend.taken = Some(Box::new((data, explanations)));
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
    /// The recording taken out by the pass, and why sources got `None`
    /// (boxed: the spend travels through the pass's results by value).
    taken: Option<Box<Taken>>,
}

/// A spent recording and what `explain` says about the pass's result.
type Taken = (TapeData, Vec<(TensorId, Explanation)>);

impl PendingSpend {
    /// Spends the tape: a later `gradient` fails as TensorFlow's does, and
    /// `watched_variables` and `explain` answer from what the pass saw.
    pub fn commit(mut self) {
        if let Some(mut taken) = self.taken.take() {
            let (data, explanations) = &mut *taken;
            // Both lists are empty until now (`push` clears them when it
            // starts a recording): most tapes watch no variable and explain
            // nothing, and skip the locks.
            if !data.variables.is_empty() {
                *self.tape.spent_variables.lock() = data.variables.values().cloned().collect();
            }
            if !explanations.is_empty() {
                *self.tape.spent_explanations.lock() = std::mem::take(explanations);
            }
        }
    }
}

impl Drop for PendingSpend {
    fn drop(&mut self) {
        if let Some(taken) = self.taken.take() {
            let (data, _) = *taken;
            let mut guard = self.tape.rec.data.lock();
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
        f(self.inner.rec.data.lock().as_ref())
    }

    pub(crate) fn spent_explanation(&self, source: TensorId) -> Option<Explanation> {
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
