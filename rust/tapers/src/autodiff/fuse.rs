//! Fused backward passes over regions of large, same-shape elementwise ops.
//!
//! Unfused, every rule of an elementwise chain makes a full pass over memory:
//! `reduce_sum(tanh(x) * exp(-x * x) + x)` costs seven passes backward,
//! each reading and writing the whole tensor. Here such a region of the
//! pruned graph becomes one synthetic entry whose rule walks the elements in
//! cache-sized chunks and runs every op's local derivative (the chunk
//! kernel of its description's `Pointwise` formula) on each chunk in turn,
//! so only the region's incoming gradient, the values the rules need,
//! and the gradients leaving the region touch memory.
//!
//! A region has one head (the only op whose output is used outside the
//! region or is a target); every other op's output is used only inside it
//! and is no source or target. A sum of every element may be the head: its
//! one-value gradient then reaches each element without the full-size
//! broadcast its op-by-op rule builds. Each formula's chunk kernel runs
//! inside pulp's runtime SIMD dispatch, and every wanted leaf's gradient is
//! written once, never zero-filled first (`uninit::fill_chunked_many`). Such a region is convex,
//! so contracting it to one entry keeps the graph acyclic. Fusion only runs
//! when no outer tape records the pass (rules must then be recorded op by
//! op), and decisions depend on the graph and shapes alone, never on the
//! thread count.
//!
//! A pass first resolves the region's steps into a [`Program`]: where each
//! contribution is read and written, so chunks run a flat list of kernels.
//! A gradient that is a value as it is (the seed, an add's operands, and,
//! when the seed is all ones, a product's other operand: `1 * v` is `v`
//! exactly) is read in place instead of copied into a buffer; the first
//! contribution added to it writes `value + contribution` into a buffer,
//! what copying first would give.
//!
//! Each chunk sums a tensor's contributions in the unfused order (latest
//! consumer first) with the same compiled formulas the unfused rules run;
//! gradients that stay
//! inside the region are bitwise the same as unfused. Leaves that also get
//! gradients from outside the region receive the region's share as one
//! contribution, so their sum may round differently (still the same on
//! every run and thread count).

use std::sync::Arc;

use num_traits::Float;
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use super::backward::IdSet;
use crate::dims::ShapeDisplay;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::uninit::ChunkOut;
use crate::kernels::{parallel, PAR_THRESHOLD};
use crate::op::{Acc, Op, Pointwise};
use crate::ops::FUSE_MIN;
use crate::record::{BackwardFn, Entry, Fusable, Input, Origin};
use crate::tensor::{Element, Storage, Tensor, TensorId};

/// Elements per chunk: a dozen chunk buffers stay in L2.
pub(crate) const CHUNK: usize = 1 << 12;

/// One op of a region: its local derivative, the slot of its output
/// gradient and the slots its inputs' gradients accumulate in (`None` for a
/// leaf that wants no gradient).
#[derive(Clone)]
struct Step {
    /// The op's local derivative (`None`: a full sum, whose gradient every
    /// element receives as is).
    local: Option<&'static dyn Pointwise>,
    /// The values it reads.
    saved: SmallVec<[Tensor; 2]>,
    out: usize,
    ins: SmallVec<[Option<usize>; 2]>,
}

/// The rule of a fused region. Slot 0 is the head's output gradient; leaf
/// slots follow, in the order of the synthetic entry's inputs.
struct FusedRule {
    dtype: DType,
    /// The elements every step walks.
    shape: Vec<usize>,
    /// The head's output: `shape`, or one element for a full sum.
    seed_shape: Vec<usize>,
    steps: Vec<Step>,
    slots: usize,
    leaves: usize,
}

/// The entries of a backward pass with its fused regions contracted.
pub(crate) struct Fused {
    /// A copy of the entries in which each region's head is a synthetic
    /// entry (inputs: the region's leaves) and its other ops are no longer
    /// reached from any target.
    pub entries: Vec<Entry>,
    /// How many regions were contracted.
    pub regions: usize,
    /// How many recorded ops they hold.
    pub ops: usize,
}

/// Finds fusable regions among the `needed` entries (`None` when there are
/// none).
pub(crate) fn fuse(
    entries: &[Entry],
    needed: &[bool],
    source_ids: &IdSet,
    targets: &[Tensor],
) -> Option<Fused> {
    let n = entries.len();
    // A scalar operand (broadcast) may only be a constant: its gradient
    // would be a reduction, not elementwise.
    let scalar_inputs_untracked = |e: &Entry| {
        let scalar = match e.fusable.as_deref() {
            Some(Fusable::Pointwise { scalars, .. }) => *scalars,
            _ => [false; 2],
        };
        e.inputs
            .iter()
            .zip(scalar)
            .all(|(inp, scalar)| !scalar || inp.origin == Origin::Untracked)
    };
    let candidate = |i: usize| {
        needed[i]
            && entries[i].fusable.is_some()
            && scalar_inputs_untracked(&entries[i])
            && entries[i].outputs.len() == 1
            && region_shape(&entries[i]).iter().product::<usize>() >= FUSE_MIN
    };
    // Candidates, latest first; a region needs at least two.
    let cands: Vec<usize> = (0..n).rev().filter(|&i| candidate(i)).collect();
    if cands.len() < 2 {
        return None;
    }
    let target_ids: FxHashSet<TensorId> = targets.iter().map(Tensor::id).collect();
    // Consumers (needed entries) of each candidate's output.
    let mut consumers: FxHashMap<TensorId, SmallVec<[usize; 2]>> = FxHashMap::default();
    for &i in &cands {
        consumers.insert(entries[i].outputs[0].id, SmallVec::new());
    }
    for (i, e) in entries.iter().enumerate().filter(|&(i, _)| needed[i]) {
        for inp in &e.inputs {
            if let Some(c) = consumers.get_mut(&inp.id) {
                if !c.contains(&i) {
                    c.push(i);
                }
            }
        }
    }
    let mut region_of: Vec<Option<usize>> = vec![None; n];
    let mut out: Option<Fused> = None;
    for (h, &head) in cands.iter().enumerate() {
        if region_of[head].is_some() {
            continue;
        }
        region_of[head] = Some(head);
        let (shape, dtype) = (region_shape(&entries[head]), entries[head].outputs[0].dtype);
        let mut members = vec![head];
        // Only candidates below the head can join (every candidate is
        // visited once per head: quadratic in candidates, which are large
        // tensors and so few, never in the tape's length).
        for &j in &cands[h + 1..] {
            let o = &entries[j].outputs[0];
            let joins = region_of[j].is_none()
                && o.shape[..] == *shape
                && o.dtype == dtype
                && !source_ids.contains(&o.id)
                && !target_ids.contains(&o.id)
                && consumers[&o.id].iter().all(|&c| region_of[c] == Some(head));
            if joins && !consumers[&o.id].is_empty() {
                region_of[j] = Some(head);
                members.push(j);
            }
        }
        if members.len() < 2 {
            continue;
        }
        let fused = out.get_or_insert_with(|| Fused {
            entries: entries.to_vec(),
            regions: 0,
            ops: 0,
        });
        fused.entries[head] = region_entry(entries, &members);
        fused.regions += 1;
        fused.ops += members.len();
    }
    out
}

/// The shape of the elements a candidate's region walks: its output's, or
/// for a full sum its input's.
fn region_shape(e: &Entry) -> &[usize] {
    match e.fusable.as_deref() {
        Some(Fusable::SumAll(shape)) => shape,
        _ => &e.outputs[0].shape,
    }
}

/// The synthetic entry of a region (`members` in descending order, head first).
fn region_entry(entries: &[Entry], members: &[usize]) -> Entry {
    let mut slot_of: FxHashMap<TensorId, usize> = FxHashMap::default();
    slot_of.insert(entries[members[0]].outputs[0].id, 0);
    let internal: FxHashSet<TensorId> = members.iter().map(|&m| entries[m].outputs[0].id).collect();
    // Leaves first (slots 1..=leaves), in order of first use.
    let mut leaves: Vec<Input> = Vec::new();
    for &m in members {
        for inp in &entries[m].inputs {
            if !internal.contains(&inp.id) && !slot_of.contains_key(&inp.id) {
                slot_of.insert(inp.id, 1 + leaves.len());
                leaves.push(inp.clone());
            }
        }
    }
    for &m in &members[1..] {
        let next = slot_of.len();
        slot_of.insert(entries[m].outputs[0].id, next);
    }
    let steps = members
        .iter()
        .map(|&m| {
            let e = &entries[m];
            let (local, saved) = match e.fusable.as_deref().expect("a candidate") {
                Fusable::Pointwise { local, saved, .. } => (Some(*local), saved.clone()),
                Fusable::SumAll(_) => (None, SmallVec::new()),
            };
            Step {
                local,
                saved,
                out: slot_of[&e.outputs[0].id],
                ins: e
                    .inputs
                    .iter()
                    // Untracked leaves get no gradient.
                    .map(|i| (i.origin != Origin::Untracked).then(|| slot_of[&i.id]))
                    .collect(),
            }
        })
        .collect();
    let head = &entries[members[0]];
    Entry {
        op: crate::op::OpRef::Static(&FusedElementwise),
        inputs: leaves.iter().cloned().collect(),
        outputs: head.outputs.clone(),
        rule: Arc::new(FusedRule {
            dtype: head.outputs[0].dtype,
            shape: region_shape(head).to_vec(),
            seed_shape: head.outputs[0].shape.to_vec(),
            steps,
            slots: slot_of.len(),
            leaves: leaves.len(),
        }),
        fusable: None,
    }
}

/// The description of a fused region's synthetic entry. It exists only
/// inside one backward pass, never on a tape.
struct FusedElementwise;

impl Op for FusedElementwise {
    fn name(&self) -> &'static str {
        "FusedElementwise"
    }

    fn forward(&self, _inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        Err(Error::invalid(
            "a fused region exists only inside a backward pass and has no forward",
        ))
    }
}

impl BackwardFn for FusedRule {
    fn backward(&self, grads: &[Tensor], needs: &[bool]) -> Result<Vec<Option<Tensor>>> {
        let out = self.apply(&grads[0], needs)?;
        if crate::record::is_tracing() {
            self.trace(&grads[0], needs, &out);
        }
        Ok(out)
    }
}

/// A fused region's rule as one traced op (a pass that only a tracer sees
/// fuses as eager's does): its inputs are the head's gradient and every
/// step's saved values in order, its outputs the wanted leaves' gradients.
/// A replay runs the same chunk kernels on the values of that replay.
pub(crate) struct TracedRegion {
    /// The rule with no saved values (their counts per step in `saved`).
    rule: FusedRule,
    saved: Vec<usize>,
    needs: Vec<bool>,
}

impl Op for TracedRegion {
    fn name(&self) -> &'static str {
        "FusedElementwiseGrad"
    }

    fn fusion(&self) -> crate::op::Fusion<'_> {
        crate::op::Fusion::Region(self)
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let want = 1 + self.saved.iter().sum::<usize>();
        if inputs.len() != want {
            return Err(Error::invalid(format!(
                "FusedElementwiseGrad takes {want} inputs, {} were given",
                inputs.len()
            )));
        }
        let mut rest = inputs[1..].iter();
        let mut rule = FusedRule {
            steps: self.rule.steps.clone(),
            ..self.rule.shell()
        };
        for (step, &n) in rule.steps.iter_mut().zip(&self.saved) {
            step.saved = rest.by_ref().take(n).cloned().collect();
        }
        Ok(rule
            .apply(&inputs[0], &self.needs)?
            .into_iter()
            .flatten()
            .collect())
    }
}

/// What a traced graph's fusion pass needs of a recorded region: it may run
/// the region's chunks inside its own loop, on values that loop computes
/// (so they are never written to memory).
impl TracedRegion {
    /// The region's dtype.
    pub(crate) fn dtype(&self) -> DType {
        self.rule.dtype
    }

    /// The elements every step walks (the shape of each leaf's gradient).
    pub(crate) fn shape(&self) -> &[usize] {
        &self.rule.shape
    }

    /// The region's program for a pass whose seed is (`ones`) or may not
    /// be all ones, with the wanted leaves' gradients written to
    /// `dst[output_of[leaf]]` (see [`output_of`]).
    pub(crate) fn program(&self, ones: bool, stream: bool) -> Program {
        self.rule.program(
            ones,
            stream,
            &self.saved,
            &output_of(self.rule.leaves, &self.needs),
        )
    }
}

/// For each of `leaves` leaves, the index of its gradient among the wanted
/// ones (`None`: not wanted).
fn output_of(leaves: usize, needs: &[bool]) -> Vec<Option<usize>> {
    let mut next = 0;
    (0..leaves)
        .map(|k| {
            (needs.get(k) == Some(&true)).then(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}

/// A gradient seed over chunks: one value for every element (ones, known
/// without reading them, or a full sum's gradient) as one chunk's worth of
/// copies, or the seed's elements.
pub(crate) struct Seed<'a, T: Clone> {
    chunk: Option<Vec<T>>,
    all: std::borrow::Cow<'a, [T]>,
}

impl<'a, T: Element + Float> Seed<'a, T> {
    /// The seed `g` of a region of `n` elements.
    pub(crate) fn new(g: &'a Tensor, n: usize) -> Self {
        let chunk = if g.is_all_ones() {
            Some(vec![T::one(); CHUNK.min(n)])
        } else if g.numel() == 1 && n > 1 {
            Some(vec![elements::<T>(g)[0]; CHUNK.min(n)])
        } else {
            None
        };
        let all = match &chunk {
            Some(_) => std::borrow::Cow::Borrowed(&[][..]),
            None => elements::<T>(g),
        };
        Seed { chunk, all }
    }

    /// Whether every element is known to be exactly one.
    pub(crate) fn is_ones(&self) -> bool {
        self.chunk
            .as_ref()
            .is_some_and(|c| c.first() == Some(&T::one()))
    }

    /// The seed over elements `range` (at most [`CHUNK`] of them).
    #[inline]
    pub(crate) fn at(&self, range: std::ops::Range<usize>) -> &[T] {
        match &self.chunk {
            Some(c) => &c[..range.len()],
            None => &self.all[range],
        }
    }
}

impl FusedRule {
    /// This rule's shape without its steps.
    fn shell(&self) -> FusedRule {
        FusedRule {
            dtype: self.dtype,
            shape: self.shape.clone(),
            seed_shape: self.seed_shape.clone(),
            steps: Vec::new(),
            slots: self.slots,
            leaves: self.leaves,
        }
    }

    /// Tells the active tracer that this region ran on `g` and gave `out`.
    fn trace(&self, g: &Tensor, needs: &[bool], out: &[Option<Tensor>]) {
        let mut inputs: Vec<&Tensor> = vec![g];
        inputs.extend(self.steps.iter().flat_map(|s| s.saved.iter()));
        let outputs: Vec<&Tensor> = out.iter().flatten().collect();
        let steps = self
            .steps
            .iter()
            .map(|s| Step {
                saved: SmallVec::new(),
                ..s.clone()
            })
            .collect();
        let op = TracedRegion {
            rule: FusedRule {
                steps,
                ..self.shell()
            },
            saved: self.steps.iter().map(|s| s.saved.len()).collect(),
            needs: needs.to_vec(),
        };
        crate::record::trace_op(&crate::op::OpRef::Shared(Arc::new(op)), &inputs, &outputs);
    }

    fn apply(&self, g: &Tensor, needs: &[bool]) -> Result<Vec<Option<Tensor>>> {
        match (g.storage(), self.dtype) {
            (Storage::F32(_), DType::F32) if g.shape() == &self.seed_shape[..] => {
                Ok(self.run::<f32>(g, needs))
            }
            (Storage::F64(_), DType::F64) if g.shape() == &self.seed_shape[..] => {
                Ok(self.run::<f64>(g, needs))
            }
            // A seed that does not match its target (the op-by-op rules
            // would refuse it too).
            _ => Err(Error::invalid(format!(
                "the gradient of a {} tensor of shape {} was given as a {} tensor of shape {}",
                self.dtype.name(),
                ShapeDisplay::of(&self.seed_shape),
                g.dtype().name(),
                ShapeDisplay::of(g.shape())
            ))),
        }
    }
}

/// A contiguous view of a tensor's elements (copied only if not row-major).
fn elements<T: Element>(t: &Tensor) -> std::borrow::Cow<'_, [T]> {
    let a = T::unwrap(t.storage()).expect("fused regions have one dtype");
    match a.as_slice() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(a.iter().copied().collect()),
    }
}

impl FusedRule {
    fn run<T: Fusible>(&self, g: &Tensor, needs: &[bool]) -> Vec<Option<Tensor>> {
        // `backward` checked that `g` has the head's shape.
        let n: usize = self.shape.iter().product();
        let seed = Seed::<T>::new(g, n);
        let saved: Vec<SmallVec<[std::borrow::Cow<'_, [T]>; 2]>> = self
            .steps
            .iter()
            .map(|s| {
                s.saved
                    .iter()
                    .map(|t| match t.numel() {
                        // A scalar operand: one chunk's worth of copies,
                        // read at chunk-local offsets.
                        1 if n > 1 => {
                            std::borrow::Cow::Owned(vec![elements::<T>(t)[0]; CHUNK.min(n)])
                        }
                        _ => elements::<T>(t),
                    })
                    .collect()
            })
            .collect();
        // Each wanted leaf's gradient is one output of `fill_chunked_many`,
        // written chunk by chunk (never zero-filled first).
        let output_of = output_of(self.leaves, needs);
        let outputs = output_of.iter().flatten().count();
        if outputs == 0 {
            return vec![None; self.leaves];
        }
        let counts: Vec<usize> = self.steps.iter().map(|s| s.saved.len()).collect();
        let stream = crate::kernels::uninit::streams::<T>(n);
        let program = self.program(seed.is_ones(), stream, &counts, &output_of);
        let new_scratch = || program.scratch();
        let outs = parallel(n, PAR_THRESHOLD, |par| {
            crate::kernels::uninit::fill_chunked_many::<T, _, _, CHUNK>(
                n,
                outputs,
                par,
                vec![(); n.div_ceil(CHUNK)],
                new_scratch,
                |s, c, (), dst| {
                    let lo = c * CHUNK;
                    let hi = (lo + CHUNK).min(n);
                    let len = hi - lo;
                    // On the stack: this runs for every chunk.
                    let saved: SmallVec<[&[T]; 16]> = saved
                        .iter()
                        .flatten()
                        .map(|v| if v.len() == n { &v[lo..hi] } else { &v[..len] })
                        .collect();
                    program.chunk(s, seed.at(lo..hi), &saved, dst)
                },
            )
        });
        let mut outs = outs.into_iter();
        output_of
            .iter()
            .map(|o| {
                o.map(|_| {
                    let o = outs.next().expect("one output per wanted leaf");
                    Tensor::from_array(
                        ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&self.shape), o)
                            .expect("sizes match"),
                    )
                })
            })
            .collect()
    }

    /// The region's steps resolved for one pass: where each contribution
    /// is read and written, decided once instead of per chunk. `ones`: the
    /// seed is known to be all ones (then a product's contribution is its
    /// other operand, read in place). `saved[i]`: how many values step `i`
    /// reads (a traced region's steps hold none; their values are the
    /// node's inputs).
    fn program(
        &self,
        ones: bool,
        stream: bool,
        saved: &[usize],
        output_of: &[Option<usize>],
    ) -> Program {
        let mut p = Program {
            instrs: Vec::new(),
            bufs: 0,
            stream,
        };
        // Buffers no slot holds any more, reused before new ones.
        let mut free: Vec<u16> = Vec::new();
        let alloc = |p: &mut Program, free: &mut Vec<u16>| {
            free.pop().unwrap_or_else(|| {
                p.bufs += 1;
                (p.bufs - 1) as u16
            })
        };
        // What each slot holds so far (`None`: nothing reached it).
        let mut held: Vec<Option<Src>> = vec![None; self.slots];
        held[0] = Some(Src::Seed);
        // Saved values are numbered in step order.
        let mut first_saved = 0;
        for (si, step) in self.steps.iter().enumerate() {
            let first = first_saved;
            first_saved += saved[si];
            // Nothing reached this op (not in a pruned region): it adds
            // nothing.
            let Some(go) = held[step.out] else { continue };
            let count = saved[si];
            let saved = |j: usize| {
                if j < count {
                    Src::Saved((first + j) as u16)
                } else {
                    // Nothing saved: the formula does not read it.
                    go
                }
            };
            let v = [saved(0), saved(if count > 1 { 1 } else { 0 })];
            let through = |k: usize| step.local.is_none_or(|l| l.passes_through(k));
            // An input whose first contribution is the output gradient
            // itself takes over its buffer instead of a copy, when no other
            // input of this step is the same slot.
            let handover = match go {
                Src::Buf(_) => step.ins.iter().enumerate().rev().find_map(|(k, slot)| {
                    let slot = (*slot)?;
                    let alone = step.ins.iter().filter(|&&o| o == Some(slot)).count() == 1;
                    (through(k) && alone && held[slot].is_none()).then_some((k, slot))
                }),
                _ => None,
            };
            for (k, slot) in step.ins.iter().enumerate() {
                let Some(slot) = *slot else { continue };
                if handover == Some((k, slot)) {
                    continue;
                }
                // The contribution: `go` or a saved value as they are, or a
                // kernel's result.
                let same = if through(k) {
                    Some(go)
                } else if ones && go == Src::Seed {
                    step.local.and_then(|l| l.scales(k)).map(saved)
                } else {
                    None
                };
                let (into, now) = match (held[slot], same) {
                    // Read in place where nothing will write it.
                    (None, Some(src)) if !matches!(src, Src::Buf(_)) => {
                        held[slot] = Some(src);
                        continue;
                    }
                    (None, _) => {
                        let b = alloc(&mut p, &mut free);
                        (Into::Set(b), Src::Buf(b))
                    }
                    (Some(Src::Buf(b)), _) => (Into::Add(b), Src::Buf(b)),
                    (Some(base), _) => {
                        let b = alloc(&mut p, &mut free);
                        (Into::Onto(b, base), Src::Buf(b))
                    }
                };
                held[slot] = Some(now);
                p.instrs.push(match same {
                    Some(src) => Instr::Add { src, into },
                    None => Instr::Local {
                        local: step.local.expect("a sum passes its gradient through"),
                        k: k as u8,
                        go,
                        v,
                        into,
                    },
                });
            }
            match (handover, go) {
                (Some((_, slot)), _) => held[slot] = Some(go),
                (None, Src::Buf(b)) => free.push(b),
                _ => {}
            }
            held[step.out] = None;
        }
        for (k, o) in output_of.iter().enumerate() {
            if let Some(o) = *o {
                p.instrs.push(Instr::Out {
                    src: held[1 + k],
                    o,
                });
            }
        }
        if !stream {
            p.write_outputs_directly();
        }
        p
    }
}

/// Where a value a [`Program`] reads lives during a chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Src {
    /// The head's gradient.
    Seed,
    /// A saved value: step `i`'s `j`th is number `j` plus the counts of the
    /// steps before.
    Saved(u16),
    /// A scratch buffer.
    Buf(u16),
}

/// Where a contribution goes: a new buffer, added into a buffer, a new
/// buffer holding the value so far (read in place) plus the contribution,
/// or output `o` (the value so far, if any, plus the contribution: a
/// gradient's last contribution, written once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Into {
    Set(u16),
    Add(u16),
    Onto(u16, Src),
    Out(u16, Option<Src>),
}

impl Into {
    /// The buffer it writes.
    fn buf(self) -> Option<u16> {
        match self {
            Into::Set(b) | Into::Add(b) | Into::Onto(b, _) => Some(b),
            Into::Out(..) => None,
        }
    }
}

#[derive(Clone, Copy)]
enum Instr {
    /// Input `k`'s contribution by its local derivative.
    Local {
        local: &'static dyn Pointwise,
        k: u8,
        go: Src,
        v: [Src; 2],
        into: Into,
    },
    /// A contribution that is a value as it is.
    Add { src: Src, into: Into },
    /// A wanted leaf's gradient (`None`: nothing reached it, zeros) to
    /// `dst[o]`.
    Out { src: Option<Src>, o: usize },
}

/// A fused region's steps as instructions over the chunk's seed, saved
/// values and `bufs` scratch buffers (see [`FusedRule::program`]).
pub(crate) struct Program {
    instrs: Vec<Instr>,
    bufs: usize,
    /// Gradients are finished in buffers and streamed to their outputs
    /// (outputs far larger than the caches), instead of written there by
    /// their last contribution.
    stream: bool,
}

impl Program {
    /// The values instruction `i` reads (the seed, saved values and
    /// buffers).
    fn reads(&self, i: usize) -> SmallVec<[Src; 4]> {
        let base = |into: Into| match into {
            Into::Add(b) => Some(Src::Buf(b)),
            Into::Onto(_, s) | Into::Out(_, Some(s)) => Some(s),
            Into::Set(_) | Into::Out(_, None) => None,
        };
        match self.instrs[i] {
            Instr::Local { go, v, into, .. } => {
                [go, v[0], v[1]].into_iter().chain(base(into)).collect()
            }
            Instr::Add { src, into } => [src].into_iter().chain(base(into)).collect(),
            Instr::Out { src, .. } => src.into_iter().collect(),
        }
    }

    /// A wanted leaf's gradient finished in a buffer and then copied out
    /// is instead written to the output by its last contribution (the
    /// buffer's value so far as that write's base): one pass over the
    /// chunk fewer, the same sums in the same order.
    fn write_outputs_directly(&mut self) {
        let mut i = self.instrs.len();
        while i > 0 {
            i -= 1;
            let Instr::Out {
                src: Some(Src::Buf(b)),
                o,
            } = self.instrs[i]
            else {
                continue;
            };
            let target = |ins: &Instr| match ins {
                Instr::Local { into, .. } | Instr::Add { into, .. } => into.buf(),
                Instr::Out { .. } => None,
            };
            let Some(last) = (0..i).rev().find(|&j| target(&self.instrs[j]) == Some(b)) else {
                continue;
            };
            // Nothing between reads the buffer (it holds the final value
            // only after `last`).
            if (last + 1..i).any(|j| self.reads(j).contains(&Src::Buf(b))) {
                continue;
            }
            let o = o as u16;
            let into = match self.instrs[last] {
                Instr::Local { into, .. } | Instr::Add { into, .. } => into,
                Instr::Out { .. } => unreachable!("a target"),
            };
            let direct = match into {
                Into::Set(_) => Into::Out(o, None),
                Into::Add(b) => Into::Out(o, Some(Src::Buf(b))),
                Into::Onto(_, base) => Into::Out(o, Some(base)),
                Into::Out(..) => unreachable!("a buffer target"),
            };
            match &mut self.instrs[last] {
                Instr::Local { into, .. } | Instr::Add { into, .. } => *into = direct,
                Instr::Out { .. } => unreachable!("a target"),
            }
            self.instrs.remove(i);
        }
    }

    /// Per-worker buffers.
    pub(crate) fn scratch<T>(&self) -> Scratch<T> {
        // One `with_capacity` per buffer: `vec![buf; n]` would clone, and a
        // clone keeps no spare capacity, so each would grow on first use.
        Scratch {
            bufs: (0..self.bufs).map(|_| Vec::with_capacity(CHUNK)).collect(),
        }
    }

    /// Runs every instruction on one chunk: `g` is the seed over it,
    /// `saved` every step's saved values in step order (each as long as
    /// `g`).
    pub(crate) fn chunk<T: Fusible>(
        &self,
        s: &mut Scratch<T>,
        g: &[T],
        saved: &[&[T]],
        dst: &mut [ChunkOut<'_, T>],
    ) {
        let len = g.len();
        let bufs = &mut s.bufs;
        for ins in &self.instrs {
            // The target buffer is taken out so that sources can borrow the
            // others (a target is never its own source).
            let (into, b) = match ins {
                Instr::Local { into, .. } | Instr::Add { into, .. } => match into.buf() {
                    Some(b) => (*into, b as usize),
                    None => {
                        let Into::Out(o, base) = *into else {
                            unreachable!("only outputs have no buffer")
                        };
                        let r = |src: Src| read(src, g, saved, bufs, len);
                        let acc = Acc::out(dst[o as usize].tail(), base.map(r));
                        Self::run(ins, r, acc);
                        continue;
                    }
                },
                Instr::Out { src, o } => {
                    let out = &mut dst[*o];
                    match src {
                        Some(src) if self.stream => {
                            out.stream_from_slice(read(*src, g, saved, bufs, len))
                        }
                        Some(src) => out.extend_from_slice(read(*src, g, saved, bufs, len)),
                        None => out.extend(std::iter::repeat_n(T::zero(), len)),
                    }
                    continue;
                }
            };
            let mut target = std::mem::take(&mut bufs[b]);
            let mut filled = matches!(into, Into::Add(_));
            {
                let r = |src: Src| read(src, g, saved, bufs, len);
                let acc = match into {
                    Into::Onto(_, base) => Acc::onto(&mut target, &mut filled, r(base)),
                    _ => Acc::new(&mut target, &mut filled),
                };
                Self::run(ins, r, acc);
            }
            bufs[b] = target;
        }
    }

    /// Runs a contribution instruction into `acc`, its sources read by `r`.
    #[inline(always)]
    fn run<'a, T: Fusible>(ins: &Instr, r: impl Fn(Src) -> &'a [T], acc: Acc<'_, T>) {
        match *ins {
            Instr::Local {
                local, k, go, v, ..
            } => T::chunk(local, k as usize, r(go), [r(v[0]), r(v[1])], acc),
            Instr::Add { src, .. } => acc.add_slice(r(src)),
            Instr::Out { .. } => unreachable!("not a contribution"),
        }
    }
}

/// The values of `src` over the current chunk.
#[inline]
fn read<'a, 's: 'a, T>(
    src: Src,
    g: &'a [T],
    saved: &'a [&'s [T]],
    bufs: &'a [Vec<T>],
    len: usize,
) -> &'a [T] {
    match src {
        Src::Seed => g,
        Src::Saved(i) => saved[i as usize],
        Src::Buf(b) => &bufs[b as usize][..len],
    }
}

/// The element types a fused region runs in: each picks its local
/// derivatives' chunk kernel.
pub(crate) trait Fusible: Element + Float + crate::kernels::uninit::Plain {
    fn chunk(p: &dyn Pointwise, k: usize, g: &[Self], v: [&[Self]; 2], acc: Acc<'_, Self>);
}

impl Fusible for f32 {
    fn chunk(p: &dyn Pointwise, k: usize, g: &[f32], v: [&[f32]; 2], acc: Acc<'_, f32>) {
        p.chunk_f32(k, g, v, acc)
    }
}

impl Fusible for f64 {
    fn chunk(p: &dyn Pointwise, k: usize, g: &[f64], v: [&[f64]; 2], acc: Acc<'_, f64>) {
        p.chunk_f64(k, g, v, acc)
    }
}

/// Per-worker chunk buffers of a [`Program`].
pub(crate) struct Scratch<T> {
    bufs: Vec<Vec<T>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ops, GradientTape};

    fn big(n: usize, f: impl Fn(usize) -> f64) -> Tensor {
        Tensor::from_vec((0..n).map(f).collect::<Vec<f64>>(), &[n]).unwrap()
    }

    /// `reduce_sum(tanh(x) * exp(-x * x) + x)` on a large tensor: the six
    /// ops from the sum down are one region.
    fn chain(x: &Tensor) -> Tensor {
        let sq = ops::mul(x, x).unwrap();
        let e = ops::exp(&ops::neg(&sq).unwrap()).unwrap();
        let t = ops::mul(&ops::tanh(x).unwrap(), &e).unwrap();
        ops::reduce_sum(&ops::add(&t, x).unwrap(), None, false).unwrap()
    }

    fn grad(x: &Tensor, f: impl Fn(&Tensor) -> Tensor) -> (Vec<f64>, crate::PassStats) {
        let tape = GradientTape::new();
        let y = {
            let _r = tape.record().unwrap();
            tape.watch(x);
            f(x)
        };
        let g = tape.gradient(&[y], &[x.into()]).unwrap()[0]
            .clone()
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        (g, tape.last_pass_stats())
    }

    /// The rule of `reduce_sum(a * b + c)` over `n` elements (slots: 0 the
    /// sum, 1..=3 the leaves a, b, c, 4 the add's output, 5 the product's).
    fn product_rule(a: &Tensor, b: &Tensor) -> FusedRule {
        let local = |name: &str| {
            let op = ops::by_name(name).expect("a unit op");
            Some(op.pointwise().expect("a pointwise op"))
        };
        let step =
            |local: Option<&'static dyn Pointwise>, saved: &[&Tensor], out, ins: &[usize]| Step {
                local,
                saved: saved.iter().map(|&t| t.clone()).collect(),
                out,
                ins: ins.iter().map(|&i| Some(i)).collect(),
            };
        FusedRule {
            dtype: DType::F64,
            shape: a.shape().to_vec(),
            seed_shape: vec![],
            steps: vec![
                step(None, &[], 0, &[4]),
                step(local("add"), &[], 4, &[5, 3]),
                step(local("mul"), &[a, b], 5, &[1, 2]),
            ],
            slots: 6,
            leaves: 3,
        }
    }

    #[test]
    fn a_seed_of_ones_is_read_in_place_and_a_product_passes_its_other_operand() {
        let n = 1 << 12;
        let (a, b) = (big(n, |i| i as f64), big(n, |i| 0.5 - i as f64));
        let rule = product_rule(&a, &b);
        let all = [Some(0), Some(1), Some(2)];
        // Ones: the sum's and the add's gradients are the seed read in
        // place, the product's are its operands: no buffer, no kernel.
        let ones = rule.program(true, false, &[0, 0, 2], &all);
        assert_eq!(ones.bufs, 0);
        assert!(ones.instrs.iter().all(|i| matches!(i, Instr::Out { .. })));
        // Any other seed: one buffer per product contribution, each the
        // leaf's only one, so written straight to its output instead.
        let other = rule.program(false, false, &[0, 0, 2], &all);
        assert_eq!(other.bufs, 2);
        let direct = other
            .instrs
            .iter()
            .filter(|i| {
                matches!(
                    i,
                    Instr::Local {
                        into: Into::Out(_, None),
                        ..
                    }
                )
            })
            .count();
        assert_eq!(direct, 2);
        assert!(!other.instrs.iter().any(|i| matches!(
            i,
            Instr::Out {
                src: Some(Src::Buf(_)),
                ..
            }
        )));
        // The values are the formula's either way.
        for (seed, scale) in [(1.0, 1.0), (3.0, 3.0)] {
            let g = rule
                .apply(&Tensor::from_vec(vec![seed], &[]).unwrap(), &[true; 3])
                .unwrap();
            let got: Vec<Vec<f64>> = g
                .iter()
                .map(|t| t.as_ref().unwrap().to_vec().unwrap())
                .collect();
            for i in (0..n).step_by(101) {
                let (ai, bi) = (i as f64, 0.5 - i as f64);
                assert_eq!(
                    [got[0][i], got[1][i], got[2][i]],
                    [scale * bi, scale * ai, scale]
                );
            }
        }
    }

    #[test]
    fn a_leafs_last_contribution_is_added_to_its_buffer_on_the_way_out() {
        // d(a * a) = g a + g a: the first product goes to a buffer, the
        // second is written to the output as buffer + contribution.
        let n = 1 << 12;
        let a = big(n, |i| 0.25 + i as f64);
        let mul = ops::by_name("mul").unwrap().pointwise();
        let rule = FusedRule {
            dtype: DType::F64,
            shape: a.shape().to_vec(),
            seed_shape: vec![],
            steps: vec![
                Step {
                    local: None,
                    saved: SmallVec::new(),
                    out: 0,
                    ins: [Some(2)].into_iter().collect(),
                },
                Step {
                    local: mul,
                    saved: [a.clone(), a.clone()].into_iter().collect(),
                    out: 2,
                    ins: [Some(1), Some(1)].into_iter().collect(),
                },
            ],
            slots: 3,
            leaves: 1,
        };
        let p = rule.program(false, false, &[0, 2], &[Some(0)]);
        assert!(matches!(
            p.instrs[..],
            [
                Instr::Local {
                    into: Into::Set(b),
                    ..
                },
                Instr::Local {
                    into: Into::Out(0, Some(Src::Buf(c))),
                    ..
                }
            ] if b == c
        ));
        let g = rule
            .apply(&Tensor::from_vec(vec![3.0], &[]).unwrap(), &[true])
            .unwrap();
        let got = g[0].as_ref().unwrap().to_vec::<f64>().unwrap();
        for i in (0..n).step_by(97) {
            let ai = 0.25 + i as f64;
            assert_eq!(got[i], 3.0 * ai + 3.0 * ai);
        }
    }

    #[test]
    fn a_large_elementwise_chain_is_one_region_with_the_op_by_op_values() {
        let n = 1 << 17;
        let x = big(n, |i| (i as f64 / n as f64) * 4.0 - 2.0);
        let (g, stats) = grad(&x, chain);
        assert_eq!((stats.fused_regions, stats.fused_ops), (1, 7), "{stats:?}");
        assert_eq!(stats.rules, 1, "the region runs as one rule: {stats:?}");
        // The same formula op by op, in float64: d/dx = tanh' e + tanh e' + 1.
        for (i, gi) in g.iter().enumerate().step_by(997) {
            let v = (i as f64 / n as f64) * 4.0 - 2.0;
            let (t, e) = (v.tanh(), (-v * v).exp());
            let want = (1.0 - t * t) * e + t * (-2.0 * v * e) + 1.0;
            assert!((gi - want).abs() < 1e-12, "x[{i}] = {v}: {gi} vs {want}");
        }
    }

    #[test]
    fn small_tensors_and_recording_outer_tapes_do_not_fuse() {
        let x = big(1000, |i| i as f64 * 1e-3);
        let (_, stats) = grad(&x, chain);
        assert_eq!(stats.fused_regions, 0, "{stats:?}");
        assert_eq!(stats.rules, 7, "{stats:?}");

        let x = big(1 << 17, |i| i as f64 * 1e-6);
        let outer = GradientTape::new();
        let _o = outer.record().unwrap();
        outer.watch(&x);
        let (_, stats) = grad(&x, chain);
        assert_eq!(stats.fused_regions, 0, "an outer tape records each rule");
    }

    #[test]
    fn fused_and_unfused_passes_give_the_same_bits_in_float32() {
        let n = 1 << 17;
        let x = Tensor::from_vec(
            (0..n)
                .map(|i| (i as f32 / n as f32) * 3.0 - 1.5)
                .collect::<Vec<f32>>(),
            &[n],
        )
        .unwrap();
        let f = |x: &Tensor| {
            let s = ops::sigmoid(&ops::mul(x, x).unwrap()).unwrap();
            let r = ops::relu(&ops::sub(x, &Tensor::scalar(0.25f32)).unwrap()).unwrap();
            let q = ops::div(&ops::sqrt(&ops::add(&s, &r).unwrap()).unwrap(), &s).unwrap();
            ops::reduce_sum(&ops::log(&ops::square(&q).unwrap()).unwrap(), None, false).unwrap()
        };
        let fused = {
            let tape = GradientTape::new();
            let y = {
                let _r = tape.record().unwrap();
                tape.watch(&x);
                f(&x)
            };
            let g = tape.gradient(&[y], &[(&x).into()]).unwrap()[0]
                .clone()
                .unwrap();
            assert!(tape.last_pass_stats().fused_regions > 0);
            g.to_vec::<f32>().unwrap()
        };
        // Op by op: the same program in pieces below the fusion threshold.
        let k = 1 << 12;
        let mut unfused = Vec::with_capacity(n);
        for c in 0..n / k {
            let part = Tensor::from_vec(
                x.to_vec::<f32>().unwrap()[c * k..(c + 1) * k].to_vec(),
                &[k],
            )
            .unwrap();
            let tape = GradientTape::new();
            let y = {
                let _r = tape.record().unwrap();
                tape.watch(&part);
                f(&part)
            };
            let g = tape.gradient(&[y], &[(&part).into()]).unwrap()[0]
                .clone()
                .unwrap();
            assert_eq!(tape.last_pass_stats().fused_regions, 0);
            unfused.extend(g.to_vec::<f32>().unwrap());
        }
        let same = fused
            .iter()
            .zip(&unfused)
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same, "fused and op-by-op gradients differ");
    }
}
