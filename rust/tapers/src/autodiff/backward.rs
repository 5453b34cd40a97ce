//! The backward pass: pruning, ordering and accumulation.
//!
//! The tape is in recording order, which is a topological order, so the pass
//! needs no recursion and no sort: one reverse sweep marks the entries that
//! reach a target, one forward sweep marks those that lead back to a source.
//!
//! Small graphs then run in one reverse sweep on the calling thread. Large
//! ones run on rayon: each entry counts the consumers that still owe it a
//! gradient and runs as soon as the last one has delivered, so independent
//! branches run in parallel.
//!
//! Either way, the contributions to a tensor are summed in one fixed order
//! (the seed first, then by consumer, latest-recorded first), which is the
//! order the sequential sweep delivers them in. Results are therefore
//! bitwise identical whatever the thread count or the timing.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use parking_lot::Mutex;
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use super::{Gradient, IndexedSlices, Source};
use crate::error::{Error, Result};
use crate::record::{Entry, Origin};
use crate::tensor::{Tensor, TensorId};

/// What `gradient` returns for a source no path connects to the targets
/// (TensorFlow's `UnconnectedGradients`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unconnected {
    /// `None`.
    #[default]
    None,
    /// Zeros of the source's shape and dtype.
    Zero,
}

/// What backward passes did, counted as they run: whether fusion and
/// vectorized Jacobians engaged (tests and diagnostics read it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassStats {
    /// Backward passes run (a Jacobian runs one per row, or one per block
    /// of rows when vectorized).
    pub passes: usize,
    /// Passes whose gradients carried leading row dims (vectorized Jacobians).
    pub row_passes: usize,
    /// Gradient rules run (a fused region's counts once).
    pub rules: usize,
    /// Fused elementwise regions.
    pub fused_regions: usize,
    /// Recorded ops contracted into those regions.
    pub fused_ops: usize,
    /// Gathers of rows whose gradient was delivered sparse (TensorFlow's
    /// `IndexedSlices`): no dense gradient of the gathered tensor was built.
    pub sparse_gathers: usize,
}

/// [`PassStats`] being counted, possibly from several threads.
#[derive(Debug, Default)]
pub(crate) struct PassCounter {
    passes: AtomicUsize,
    row_passes: AtomicUsize,
    rules: AtomicUsize,
    fused_regions: AtomicUsize,
    fused_ops: AtomicUsize,
    sparse_gathers: AtomicUsize,
}

impl PassCounter {
    /// What was counted.
    pub fn get(&self) -> PassStats {
        PassStats {
            passes: self.passes.load(Ordering::Relaxed),
            row_passes: self.row_passes.load(Ordering::Relaxed),
            rules: self.rules.load(Ordering::Relaxed),
            fused_regions: self.fused_regions.load(Ordering::Relaxed),
            fused_ops: self.fused_ops.load(Ordering::Relaxed),
            sparse_gathers: self.sparse_gathers.load(Ordering::Relaxed),
        }
    }
}

/// Pruned graphs with at least this many output elements in total run on the
/// parallel scheduler (when more than one rayon thread is available).
const PARALLEL_WORK: usize = 1 << 20;

/// Key that orders contributions: the seed first, then consumers from the
/// latest-recorded down (the sequential sweep's delivery order).
const SEED: usize = usize::MAX;

/// Sums `(key, contribution)` pairs in canonical order (descending key):
/// dense ones in one pass, sparse ones concatenated as TensorFlow does.
fn sum_keyed(mut parts: Keyed) -> Result<Gradient> {
    if parts.len() == 1 {
        return Ok(parts.pop().expect("one part").1);
    }
    // The sequential sweep delivers in canonical order already.
    if !parts.windows(2).all(|w| w[0].0 > w[1].0) {
        parts.sort_by_key(|p| std::cmp::Reverse(p.0));
    }
    Gradient::sum(parts.into_iter().map(|(_, t)| t).collect())
}

/// One entry's input gradients (`None` where an input needs none): a rule's
/// dense results as it returned them (not copied), or a sparse step's one.
enum InputGrads {
    Dense(Vec<Option<Tensor>>),
    One(Option<Gradient>),
}

impl IntoIterator for InputGrads {
    type Item = Option<Gradient>;
    type IntoIter = InputGradsIter;

    fn into_iter(self) -> InputGradsIter {
        match self {
            InputGrads::Dense(v) => InputGradsIter::Dense(v.into_iter()),
            InputGrads::One(g) => InputGradsIter::One(Some(g)),
        }
    }
}

enum InputGradsIter {
    Dense(std::vec::IntoIter<Option<Tensor>>),
    One(Option<Option<Gradient>>),
}

impl Iterator for InputGradsIter {
    type Item = Option<Gradient>;

    fn next(&mut self) -> Option<Option<Gradient>> {
        match self {
            InputGradsIter::Dense(it) => it.next().map(|g| g.map(Gradient::Dense)),
            InputGradsIter::One(g) => g.take(),
        }
    }
}

/// The sources' ids. A training step has a handful of sources, searched
/// faster in a short list than hashed (and without allocating); beyond a
/// few dozen, a hash set.
pub(crate) enum IdSet {
    Few(SmallVec<[TensorId; 8]>),
    Many(FxHashSet<TensorId>),
}

impl IdSet {
    fn new(ids: impl Iterator<Item = TensorId>) -> IdSet {
        let few: SmallVec<[TensorId; 8]> = ids.collect();
        if few.len() <= 32 {
            IdSet::Few(few)
        } else {
            IdSet::Many(few.into_iter().collect())
        }
    }

    pub(crate) fn contains(&self, id: &TensorId) -> bool {
        match self {
            IdSet::Few(ids) => ids.iter().any(|i| i == id),
            IdSet::Many(ids) => ids.contains(id),
        }
    }
}

/// Per-entry flags; inline for the small tapes of scalar loops.
type Flags = SmallVec<[bool; 32]>;

struct Plan<'a> {
    entries: &'a [Entry],
    stats: &'a PassCounter,
    /// Set by another thread to stop the pass between two rules.
    cancel: Option<&'a AtomicBool>,
    source_ids: IdSet,
    /// Whether gathers of rows may deliver sparse gradients (not in
    /// Jacobian passes, whose gradients carry row dims).
    sparse: bool,
    /// Entry is on a path from a source to a target.
    needed: Flags,
    leads: Flags,
}

impl Plan<'_> {
    fn input_leads(&self, origin: Origin, id: TensorId) -> bool {
        match origin {
            Origin::Untracked => false,
            Origin::Watched => self.source_ids.contains(&id),
            Origin::Entry(j) => self.leads[j as usize] || self.source_ids.contains(&id),
        }
    }

    fn needs(&self, e: &Entry) -> SmallVec<[bool; 4]> {
        let mut needs = SmallVec::with_capacity(e.inputs.len());
        for inp in &e.inputs {
            needs.push(self.input_leads(inp.origin, inp.id));
        }
        needs
    }

    /// Runs one entry's rule on its summed output gradients (zeros for outputs
    /// that received none). `None` when no output received anything.
    fn apply(
        &self,
        e: &Entry,
        grads: SmallVec<[Option<Gradient>; 1]>,
    ) -> Result<Option<InputGrads>> {
        if grads.iter().all(Option::is_none) {
            return Ok(None);
        }
        if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(Error::Cancelled);
        }
        if let Some(g) = self.sparse_step(e, &grads)? {
            self.stats.rules.fetch_add(1, Ordering::Relaxed);
            let keep = self.needs(e)[0];
            return Ok(Some(InputGrads::One(g.filter(|_| keep))));
        }
        let mut dense: SmallVec<[Tensor; 1]> = SmallVec::with_capacity(grads.len());
        for (g, o) in grads.into_iter().zip(&e.outputs) {
            dense.push(match g {
                Some(g) => g.into_dense()?,
                None => Tensor::zeros(&o.shape, o.dtype)?,
            });
        }
        let grads = dense;
        let needs = self.needs(e);
        self.stats.rules.fetch_add(1, Ordering::Relaxed);
        let mut input_grads = e.rule.backward(&grads, &needs)?;
        if input_grads.len() != e.inputs.len() {
            return Err(Error::invalid(format!(
                "the gradient of {} returned {} values for {} inputs",
                e.name(),
                input_grads.len(),
                e.inputs.len()
            )));
        }
        for (g, n) in input_grads.iter_mut().zip(needs) {
            if !n {
                *g = None;
            }
        }
        Ok(Some(InputGrads::Dense(input_grads)))
    }

    /// TensorFlow's sparse steps: a gather of rows (`Op::sparse_rows`) hands
    /// its output gradient on as the values of an `IndexedSlices`, and a
    /// variable read or `identity` passes a sparse gradient through as it
    /// is. `None` for every other entry (its rule then runs on dense
    /// gradients, a sparse one being converted first, as TensorFlow's
    /// gradient functions convert theirs).
    fn sparse_step(
        &self,
        e: &Entry,
        grads: &[Option<Gradient>],
    ) -> Result<Option<Option<Gradient>>> {
        if !self.sparse || e.inputs.len() != 1 || grads.len() != 1 {
            return Ok(None);
        }
        if let Some(rows) = e.op.sparse_rows() {
            let values = match &grads[0] {
                Some(g) => g.clone().into_dense()?,
                None => return Ok(None),
            };
            self.stats.sparse_gathers.fetch_add(1, Ordering::Relaxed);
            let dense_shape = std::iter::once(rows.n)
                .chain(values.shape()[1..].iter().copied())
                .collect();
            return Ok(Some(Some(Gradient::Sparse(Box::new(IndexedSlices {
                values,
                indices: rows.idx,
                index_dtype: rows.index_dtype,
                dense_shape,
                source: rows.source,
            })))));
        }
        match (&grads[0], e.name()) {
            (Some(Gradient::Sparse(s)), "ReadVariableOp" | "Identity") => {
                Ok(Some(Some(Gradient::Sparse(s.clone()))))
            }
            _ => Ok(None),
        }
    }
}

impl<'a> Plan<'a> {
    /// Prunes the tape to the entries on a path from a source to a target.
    fn new(
        entries: &'a [Entry],
        target_origins: &[Origin],
        sources: &[Source],
        cancel: Option<&'a AtomicBool>,
        stats: &'a PassCounter,
        sparse: bool,
    ) -> Self {
        let n = entries.len();
        let source_ids = IdSet::new(
            sources
                .iter()
                .filter(|s| s.dtype().is_differentiable())
                .map(Source::id),
        );

        // Entries some target depends on.
        let mut reached: Flags = smallvec::smallvec![false; n];
        for o in target_origins {
            if let Origin::Entry(i) = *o {
                reached[i as usize] = true;
            }
        }
        for i in (0..n).rev() {
            if reached[i] {
                for inp in &entries[i].inputs {
                    if let Origin::Entry(j) = inp.origin {
                        reached[j as usize] = true;
                    }
                }
            }
        }
        let mut plan = Plan {
            entries,
            stats,
            cancel,
            source_ids,
            sparse,
            needed: smallvec::smallvec![false; n],
            leads: smallvec::smallvec![false; n],
        };
        // Entries with a tracked path back to a source.
        for i in 0..n {
            if reached[i] {
                let l = entries[i]
                    .inputs
                    .iter()
                    .any(|inp| plan.input_leads(inp.origin, inp.id));
                plan.leads[i] = l;
                plan.needed[i] = l;
            }
        }
        plan
    }
}

/// Each source's gradient from what the pass delivered (a source listed
/// twice gets the same gradient twice).
fn collect(
    sources: &[Source],
    delivered: &mut Delivered,
    unconnected: Unconnected,
) -> Result<Vec<Option<Gradient>>> {
    let Delivered { finished, pending } = delivered;
    sources
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let id = s.id();
            let g = if !s.dtype().is_differentiable() {
                None
            } else if let Some(g) = finished.get(&id) {
                Some(g.clone())
            } else if let Some(parts) = pending.remove(&id) {
                let g = sum_keyed(parts)?;
                if sources[k + 1..].iter().any(|t| t.id() == id) {
                    finished.insert(id, g.clone());
                }
                Some(g)
            } else {
                None
            };
            match (g, unconnected) {
                (Some(g), _) => Ok(Some(g)),
                (None, Unconnected::None) => Ok(None),
                (None, Unconnected::Zero) => s.zeros().map(|z| Some(Gradient::Dense(z))),
            }
        })
        .collect()
}

/// One backward pass (see the module docs); `stats` counts what it did.
/// Every gradient comes back dense.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    entries: &[Entry],
    target_origins: &[Origin],
    targets: &[Tensor],
    sources: &[Source],
    output_gradients: Option<&[Tensor]>,
    unconnected: Unconnected,
    cancel: Option<&AtomicBool>,
    stats: &PassCounter,
) -> Result<Vec<Option<Tensor>>> {
    run_grads(
        entries,
        target_origins,
        targets,
        sources,
        output_gradients,
        unconnected,
        cancel,
        stats,
        false,
    )?
    .into_iter()
    .map(|g| g.map(Gradient::into_dense).transpose())
    .collect()
}

/// [`run`], where with `sparse` a source read only through gathers of rows
/// gets TensorFlow's sparse gradient ([`Gradient::Sparse`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_grads(
    entries: &[Entry],
    target_origins: &[Origin],
    targets: &[Tensor],
    sources: &[Source],
    output_gradients: Option<&[Tensor]>,
    unconnected: Unconnected,
    cancel: Option<&AtomicBool>,
    stats: &PassCounter,
    sparse: bool,
) -> Result<Vec<Option<Gradient>>> {
    let plan = Plan::new(entries, target_origins, sources, cancel, stats, sparse);
    // Fuse elementwise regions, unless an outer tape must record each rule
    // (a tracer alone records each region as one op).
    let recording = crate::record::tapes_recording();
    let fused = if recording {
        None
    } else {
        super::fuse::fuse(entries, &plan.needed, &plan.source_ids, targets)
    };
    // Plans are referenced, not moved: each is a few hundred bytes inline.
    let fused_plan;
    let (entries, plan) = match &fused {
        Some(f) => {
            stats.fused_regions.fetch_add(f.regions, Ordering::Relaxed);
            stats.fused_ops.fetch_add(f.ops, Ordering::Relaxed);
            fused_plan = Plan::new(&f.entries, target_origins, sources, cancel, stats, sparse);
            (f.entries.as_slice(), &fused_plan)
        }
        None => (entries, &plan),
    };
    stats.passes.fetch_add(1, Ordering::Relaxed);

    // Seeds. A target that is itself a source gets its seed even if the tape
    // never saw it (TensorFlow: d x / d x = 1 always).
    let mut seeds = Seeds::with_capacity(targets.len());
    for (k, t) in targets.iter().enumerate() {
        if !t.dtype().is_differentiable() {
            continue;
        }
        let seed = match output_gradients {
            Some(og) => og[k].clone(),
            None => Tensor::ones(t.shape(), t.dtype())?,
        };
        seeds.push((t.id(), Gradient::Dense(seed)));
    }

    let work: usize = (0..entries.len())
        .filter(|&i| plan.needed[i])
        .map(|i| {
            entries[i]
                .outputs
                .iter()
                .map(|o| o.shape.iter().product::<usize>())
                .sum::<usize>()
        })
        .sum();
    // An outer tape records the rules in order (and a tracer records them
    // in one order): then the pass runs here.
    let work = if recording || crate::record::is_tracing() {
        0
    } else {
        work
    };
    let mut delivered = Delivered::default();
    crate::kernels::parallel(work, PARALLEL_WORK, |par| {
        if par {
            run_parallel(plan, seeds, &mut delivered)
        } else {
            run_sequential(plan, seeds, &mut delivered)
        }
    })?;
    collect(sources, &mut delivered, unconnected)
}

/// Many backward passes in one: `seed` is the target's shape with leading
/// "row" dims, each index of which is one pass's seed, and each source's
/// gradient comes back with those leading dims. `Ok(None)` when an op on the
/// path has a rule that cannot carry row dims (its description says so,
/// [`crate::op::Op::carries_rows`]); the caller then runs the passes one by
/// one. Rules see the row dims as extra leading dims of their gradients
/// (beyond their outputs' rank). Nothing may be recording.
pub(crate) fn run_rows(
    entries: &[Entry],
    target_origins: &[Origin],
    target: &Tensor,
    sources: &[Source],
    seed: Tensor,
    stats: &PassCounter,
) -> Result<Option<Vec<Option<Tensor>>>> {
    let plan = Plan::new(entries, target_origins, sources, None, stats, false);
    let all_handle_rows = (0..entries.len())
        .filter(|&i| plan.needed[i])
        .all(|i| entries[i].op.carries_rows());
    if !all_handle_rows {
        return Ok(None);
    }
    let seeds: Seeds = if target.dtype().is_differentiable() {
        smallvec::smallvec![(target.id(), Gradient::Dense(seed))]
    } else {
        Seeds::new()
    };
    let mut delivered = Delivered::default();
    run_sequential(&plan, seeds, &mut delivered)?;
    stats.passes.fetch_add(1, Ordering::Relaxed);
    stats.row_passes.fetch_add(1, Ordering::Relaxed);
    let grads = collect(sources, &mut delivered, Unconnected::None)?;
    grads
        .into_iter()
        .map(|g| g.map(Gradient::into_dense).transpose())
        .collect::<Result<_>>()
        .map(Some)
}

/// Values by tensor id. The passes of small tapes (a scalar training loop)
/// keep a handful of ids at a time: searched in a short inline list, they
/// cost no hashing and no allocation; past [`IdMap::FEW`] ids, a hash map.
enum IdMap<V> {
    Few(SmallVec<[(TensorId, V); 4]>),
    Many(FxHashMap<TensorId, V>),
}

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        IdMap::Few(SmallVec::new())
    }
}

impl<V: Default> IdMap<V> {
    /// The value of `id`, inserted as `V::default()` if missing.
    fn entry(&mut self, id: TensorId) -> &mut V {
        if let IdMap::Few(few) = self {
            if let Some(k) = few.iter().position(|(i, _)| *i == id) {
                return match self {
                    IdMap::Few(few) => &mut few[k].1,
                    IdMap::Many(_) => unreachable!("checked above"),
                };
            }
            if few.len() == Self::FEW {
                *self = IdMap::Many(std::mem::take(few).into_iter().collect());
            }
        }
        match self {
            IdMap::Few(few) => {
                few.push((id, V::default()));
                &mut few.last_mut().expect("just pushed").1
            }
            IdMap::Many(many) => many.entry(id).or_default(),
        }
    }
}

impl<V> IdMap<V> {
    const FEW: usize = 16;

    fn get(&self, id: &TensorId) -> Option<&V> {
        match self {
            IdMap::Few(few) => few.iter().find(|(i, _)| i == id).map(|(_, v)| v),
            IdMap::Many(many) => many.get(id),
        }
    }

    fn remove(&mut self, id: &TensorId) -> Option<V> {
        match self {
            IdMap::Few(few) => {
                let k = few.iter().position(|(i, _)| i == id)?;
                Some(few.swap_remove(k).1)
            }
            IdMap::Many(many) => many.remove(id),
        }
    }

    fn insert(&mut self, id: TensorId, v: V) {
        if let IdMap::Few(few) = self {
            if let Some(k) = few.iter().position(|(i, _)| *i == id) {
                few[k].1 = v;
                return;
            }
            if few.len() < Self::FEW {
                few.push((id, v));
                return;
            }
            *self = IdMap::Many(std::mem::take(few).into_iter().collect());
        }
        if let IdMap::Many(many) = self {
            many.insert(id, v);
        }
    }
}

/// Each target's seed (its output gradient).
type Seeds = SmallVec<[(TensorId, Gradient); 2]>;

/// Contributions keyed by the consumer that delivered them (usually one).
type Keyed = SmallVec<[(usize, Gradient); 2]>;
type Pending = IdMap<Keyed>;

/// What a pass delivers: the sources' finished gradients, and the
/// contributions still pending (to leaves, summed by `collect`). Filled in
/// place by the pass: the maps are a few hundred bytes inline.
#[derive(Default)]
struct Delivered {
    finished: IdMap<Gradient>,
    pending: Pending,
}

/// One reverse sweep on the calling thread.
fn run_sequential(plan: &Plan<'_>, seeds: Seeds, out: &mut Delivered) -> Result<()> {
    let Delivered { finished, pending } = out;
    for (id, s) in seeds {
        pending.entry(id).push((SEED, s));
    }
    for i in (0..plan.entries.len()).rev() {
        if !plan.needed[i] {
            continue;
        }
        let e = &plan.entries[i];
        let mut grads: SmallVec<[Option<Gradient>; 1]> = SmallVec::with_capacity(e.outputs.len());
        for o in &e.outputs {
            // Delivered in canonical order already: seed, then descending consumers.
            let g = pending.remove(&o.id).map(sum_keyed).transpose()?;
            if let (Some(g), true) = (&g, plan.source_ids.contains(&o.id)) {
                finished.insert(o.id, g.clone());
            }
            grads.push(g);
        }
        if let Some(input_grads) = plan.apply(e, grads)? {
            for (inp, g) in e.inputs.iter().zip(input_grads) {
                if let Some(g) = g {
                    pending.entry(inp.id).push((i, g));
                }
            }
        }
    }
    Ok(())
}

struct Node {
    /// Consumers that have not delivered yet.
    waiting: AtomicUsize,
    /// Contributions per output, keyed by consumer for canonical summing.
    slots: Mutex<SmallVec<[Keyed; 1]>>,
}

/// Dependency-counting scheduler on rayon.
fn run_parallel(plan: &Plan<'_>, seeds: Seeds, out: &mut Delivered) -> Result<()> {
    let entries = plan.entries;
    let n = entries.len();
    let nodes: Vec<Node> = entries
        .iter()
        .map(|e| Node {
            waiting: AtomicUsize::new(0),
            slots: Mutex::new(e.outputs.iter().map(|_| Keyed::new()).collect()),
        })
        .collect();
    // Where each tracked tensor lives: (producer entry, output index).
    let mut producer: FxHashMap<TensorId, (usize, usize)> = FxHashMap::default();
    for (i, e) in entries.iter().enumerate() {
        if plan.needed[i] {
            for (k, o) in e.outputs.iter().enumerate() {
                producer.insert(o.id, (i, k));
            }
            for (inp, need) in e.inputs.iter().zip(plan.needs(e)) {
                if let (true, Origin::Entry(p)) = (need, inp.origin) {
                    if plan.needed[p as usize] {
                        nodes[p as usize].waiting.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }
    }
    let leaves: Mutex<Pending> = Mutex::new(IdMap::default());
    for (id, s) in seeds {
        match producer.get(&id) {
            Some(&(p, k)) => nodes[p].slots.lock()[k].push((SEED, s)),
            None => leaves.lock().entry(id).push((SEED, s)),
        }
    }
    let finished: Mutex<IdMap<Gradient>> = Mutex::new(IdMap::default());
    let failed = AtomicBool::new(false);
    let error: Mutex<Option<Error>> = Mutex::new(None);

    fn run_node<'s>(i: usize, scope: &rayon::Scope<'s>, ctx: &'s Ctx<'s>) {
        if ctx.failed.load(Ordering::Relaxed) {
            return;
        }
        let e = &ctx.plan.entries[i];
        let result = (|| -> Result<()> {
            let slots = std::mem::take(&mut *ctx.nodes[i].slots.lock());
            let mut grads: SmallVec<[Option<Gradient>; 1]> =
                SmallVec::with_capacity(e.outputs.len());
            for (o, parts) in e.outputs.iter().zip(slots) {
                let g = if parts.is_empty() {
                    None
                } else {
                    Some(sum_keyed(parts)?)
                };
                if let (Some(g), true) = (&g, ctx.plan.source_ids.contains(&o.id)) {
                    ctx.finished.lock().insert(o.id, g.clone());
                }
                grads.push(g);
            }
            let input_grads: Option<SmallVec<[Option<Gradient>; 2]>> =
                ctx.plan.apply(e, grads)?.map(|gs| gs.into_iter().collect());
            let needs = ctx.plan.needs(e);
            for (j, (inp, need)) in e.inputs.iter().zip(needs).enumerate() {
                let g = input_grads.as_ref().and_then(|gs| gs[j].clone());
                match ctx.producer.get(&inp.id) {
                    Some(&(p, k)) if need => {
                        if let Some(g) = g {
                            ctx.nodes[p].slots.lock()[k].push((i, g));
                        }
                        // The last consumer to deliver schedules the producer.
                        if ctx.nodes[p].waiting.fetch_sub(1, Ordering::AcqRel) == 1 {
                            scope.spawn(move |s| run_node(p, s, ctx));
                        }
                    }
                    _ => {
                        if let Some(g) = g {
                            ctx.leaves.lock().entry(inp.id).push((i, g));
                        }
                    }
                }
            }
            Ok(())
        })();
        if let Err(err) = result {
            ctx.failed.store(true, Ordering::Relaxed);
            ctx.error.lock().get_or_insert(err);
        }
    }

    struct Ctx<'a> {
        plan: &'a Plan<'a>,
        nodes: &'a [Node],
        producer: &'a FxHashMap<TensorId, (usize, usize)>,
        leaves: &'a Mutex<Pending>,
        finished: &'a Mutex<IdMap<Gradient>>,
        failed: &'a AtomicBool,
        error: &'a Mutex<Option<Error>>,
    }
    let ctx = Ctx {
        plan,
        nodes: &nodes,
        producer: &producer,
        leaves: &leaves,
        finished: &finished,
        failed: &failed,
        error: &error,
    };
    let ready: Vec<usize> = (0..n)
        .filter(|&i| plan.needed[i] && nodes[i].waiting.load(Ordering::Relaxed) == 0)
        .collect();
    rayon::scope(|s| {
        for i in ready {
            let ctx = &ctx;
            s.spawn(move |s| run_node(i, s, ctx));
        }
    });
    if let Some(e) = error.into_inner() {
        return Err(e);
    }
    *out = Delivered {
        finished: finished.into_inner(),
        pending: leaves.into_inner(),
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::IdMap;
    use crate::tensor::Tensor;

    /// Past `FEW` ids the map turns into a hash map and keeps every value.
    #[test]
    fn id_map_keeps_values_across_the_switch_to_hashing() {
        let ids: Vec<_> = (0..40).map(|_| Tensor::scalar(0.0f32).id()).collect();
        let mut m: IdMap<Vec<usize>> = IdMap::default();
        for (k, &id) in ids.iter().enumerate() {
            m.entry(id).push(k);
            m.entry(id).push(k + 100);
            assert_eq!(matches!(m, IdMap::Few(_)), k < IdMap::<Vec<usize>>::FEW);
        }
        let mut n: IdMap<usize> = IdMap::default();
        for (k, &id) in ids.iter().enumerate() {
            n.insert(id, k);
            n.insert(id, k + 1);
        }
        for (k, id) in ids.iter().enumerate() {
            assert_eq!(m.get(id), Some(&vec![k, k + 100]));
            assert_eq!(n.get(id), Some(&(k + 1)));
            assert_eq!(m.remove(id), Some(vec![k, k + 100]));
            assert_eq!(m.remove(id), None);
        }
    }
}
