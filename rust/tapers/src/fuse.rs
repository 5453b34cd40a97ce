//! Fused backward passes over regions of large, same-shape elementwise ops.
//!
//! Unfused, every rule of an elementwise chain makes a full pass over memory:
//! `reduce_sum(tanh(x) * exp(-x * x) + x)` on 4M floats costs seven passes
//! backward, each reading and writing 16 MB. Here such a region of the
//! pruned graph becomes one synthetic entry whose rule walks the elements in
//! cache-sized chunks and runs every op's local derivative on each chunk in
//! turn, so only the region's incoming gradient, the values the rules need,
//! and the gradients leaving the region touch memory.
//!
//! A region has one head (the only op whose output is used outside the
//! region or is a target); every other op's output is used only inside it
//! and is no source or target. A sum of every element may be the head: its
//! one-value gradient then reaches each element without the full-size
//! broadcast its op-by-op rule builds. Chunks run inside pulp's runtime SIMD
//! dispatch, and every wanted leaf's gradient is written once, never
//! zero-filled first (`uninit::fill_chunked_many`). Such a region is convex,
//! so contracting it to one entry keeps the graph acyclic. Fusion only runs
//! when no outer tape records the pass (rules must then be recorded op by
//! op), and decisions depend on the graph and shapes alone, never on the
//! thread count.
//!
//! Each chunk sums a tensor's contributions in the unfused order (latest
//! consumer first) with the unfused rules' formulas; gradients that stay
//! inside the region are bitwise the same as unfused. Leaves that also get
//! gradients from outside the region receive the region's share as one
//! contribution, so their sum may round differently (still the same on
//! every run and thread count).

use std::sync::Arc;

use num_traits::Float;
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::{parallel_section, PAR_THRESHOLD};
use crate::shape::{Dims, ShapeDisplay};
use crate::tape::{BackwardFn, Entry, Input, Origin};
use crate::tensor::{Element, Storage, Tensor, TensorId};
use crate::uninit::ChunkOut;

/// Elements per chunk: a dozen chunk buffers stay in L2.
const CHUNK: usize = 1 << 12;

/// Ops below this many elements are not worth fusing (nor is their local
/// derivative kept when they are recorded).
pub(crate) const FUSE_MIN: usize = 1 << 16;

/// The local derivative of a same-shape elementwise op, with the values it
/// needs (saved when the op was recorded, like its rule's).
#[derive(Clone)]
pub(crate) enum Pointwise {
    /// `a + b`; which operands are broadcast scalars.
    Add([bool; 2]),
    /// `a - b`; which operands are broadcast scalars.
    Sub([bool; 2]),
    /// `-a`.
    Neg,
    /// `a * b`: inputs `a`, `b`.
    Mul(Tensor, Tensor),
    /// `a / b`: inputs `a`, `b`.
    Div(Tensor, Tensor),
    /// `tanh`: its output.
    Tanh(Tensor),
    /// `exp`: its output.
    Exp(Tensor),
    /// `sigmoid`: its output.
    Sigmoid(Tensor),
    /// `relu`: its input.
    Relu(Tensor),
    /// `square`: its input.
    Square(Tensor),
    /// `log`: its input.
    Log(Tensor),
    /// `sqrt`: its output.
    Sqrt(Tensor),
    /// A sum of every element (`reduce_sum`/`reduce_mean` to one value) of
    /// a tensor of this shape: only ever a region's head, whose one-element
    /// gradient every element then receives (the op-by-op rule broadcasts
    /// it into a full-size tensor first).
    SumAll(Dims),
}

impl Pointwise {
    /// Which inputs are broadcast scalars (rank 0).
    fn scalar_inputs(&self) -> [bool; 2] {
        use Pointwise::*;
        match self {
            Add(m) | Sub(m) => *m,
            Mul(a, b) | Div(a, b) => [a.rank() == 0, b.rank() == 0],
            _ => [false, false],
        }
    }

    fn saved(&self) -> SmallVec<[&Tensor; 2]> {
        use Pointwise::*;
        match self {
            Add(_) | Sub(_) | Neg | SumAll(_) => SmallVec::new(),
            Mul(a, b) | Div(a, b) => [a, b].into_iter().collect(),
            Tanh(t) | Exp(t) | Sigmoid(t) | Relu(t) | Square(t) | Log(t) | Sqrt(t) => {
                [t].into_iter().collect()
            }
        }
    }
}

/// One op of a region: its local derivative, the slot of its output
/// gradient and the slots its inputs' gradients accumulate in (`None` for a
/// leaf that wants no gradient).
struct Step {
    local: Pointwise,
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

/// Finds fusable regions among the `needed` entries. `None` when there are
/// none; otherwise a copy of `entries` in which each region's head is a
/// synthetic entry (inputs: the region's leaves) and its other ops are no
/// longer reached from any target.
pub(crate) fn fuse(
    entries: &[Entry],
    needed: &[bool],
    source_ids: &crate::backward::IdSet,
    targets: &[Tensor],
) -> Option<Vec<Entry>> {
    let n = entries.len();
    // A scalar operand (broadcast) may only be a constant: its gradient
    // would be a reduction, not elementwise.
    let scalar_inputs_untracked = |e: &Entry| {
        let scalar = e
            .pointwise
            .as_deref()
            .map_or([false; 2], Pointwise::scalar_inputs);
        e.inputs
            .iter()
            .zip(scalar)
            .all(|(inp, scalar)| !scalar || inp.origin == Origin::Untracked)
    };
    let candidate = |i: usize| {
        needed[i]
            && entries[i].pointwise.is_some()
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
    let mut out: Option<Vec<Entry>> = None;
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
        let entries_out = out.get_or_insert_with(|| entries.to_vec());
        entries_out[head] = region_entry(entries, &members);
    }
    out
}

/// The shape of the elements a candidate's region walks: its output's, or
/// for a full sum its input's.
fn region_shape(e: &Entry) -> &[usize] {
    match e.pointwise.as_deref() {
        Some(Pointwise::SumAll(shape)) => shape,
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
            Step {
                local: e.pointwise.as_deref().expect("a candidate").clone(),
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
        name: "FusedElementwise",
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
        pointwise: None,
    }
}

impl BackwardFn for FusedRule {
    fn backward(&self, grads: &[Tensor], needs: &[bool]) -> Result<Vec<Option<Tensor>>> {
        let g = &grads[0];
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
    fn run<T: Element + Float>(&self, g: &Tensor, needs: &[bool]) -> Vec<Option<Tensor>> {
        // `backward` checked that `g` has the head's shape.
        let n: usize = self.shape.iter().product();
        // A seed of one value for every element (ones, known without reading
        // them, or a full sum's gradient): one chunk's worth of copies.
        let seed_chunk = if g.is_all_ones() {
            Some(vec![T::one(); CHUNK.min(n)])
        } else if g.numel() == 1 && n > 1 {
            Some(vec![elements::<T>(g)[0]; CHUNK.min(n)])
        } else {
            None
        };
        let g = match &seed_chunk {
            Some(_) => std::borrow::Cow::Borrowed(&[][..]),
            None => elements::<T>(g),
        };
        let saved: Vec<SmallVec<[std::borrow::Cow<'_, [T]>; 2]>> = self
            .steps
            .iter()
            .map(|s| {
                s.local
                    .saved()
                    .into_iter()
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
        // written chunk by chunk (no zero-filled 16 MB first).
        let mut output_of: Vec<Option<usize>> = Vec::with_capacity(self.leaves);
        let mut outputs = 0;
        for k in 0..self.leaves {
            if needs.get(k) == Some(&true) {
                output_of.push(Some(outputs));
                outputs += 1;
            } else {
                output_of.push(None);
            }
        }
        if outputs == 0 {
            return vec![None; self.leaves];
        }
        let arch = pulp::Arch::new();
        // One `with_capacity` per slot: `vec![buf; n]` would clone, and a
        // clone keeps no spare capacity, so each slot would grow on first use.
        let new_scratch = || Scratch {
            bufs: (0..self.slots).map(|_| Vec::with_capacity(CHUNK)).collect(),
            filled: vec![false; self.slots],
        };
        let par = parallel_section(n, PAR_THRESHOLD);
        let outs = crate::uninit::fill_chunked_many::<T, _, _, CHUNK>(
            n,
            outputs,
            par.is_some(),
            vec![(); n.div_ceil(CHUNK)],
            new_scratch,
            |s, c, (), dst| {
                let lo = c * CHUNK;
                let hi = (lo + CHUNK).min(n);
                let g = match &seed_chunk {
                    Some(chunk) => &chunk[..hi - lo],
                    None => &g[lo..hi],
                };
                arch.dispatch(ChunkJob {
                    rule: self,
                    s,
                    g,
                    saved: &saved,
                    n,
                    range: lo..hi,
                    output_of: &output_of,
                    dst,
                })
            },
        );
        drop(par);
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

    /// One chunk: every step on `range`, each wanted leaf's gradient into
    /// its output's cursor (`dst[output_of[leaf]]`). Inlined into
    /// [`ChunkJob`]'s SIMD dispatch, so its loops compile for the CPU's
    /// vector width.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn chunk<T: Element + Float>(
        &self,
        s: &mut Scratch<T>,
        g: &[T],
        saved: &[SmallVec<[std::borrow::Cow<'_, [T]>; 2]>],
        n: usize,
        range: std::ops::Range<usize>,
        output_of: &[Option<usize>],
        dst: &mut [ChunkOut<'_, T>],
    ) {
        let len = range.len();
        s.filled.iter_mut().for_each(|f| *f = false);
        s.filled[0] = true;
        for (step, vals) in self.steps.iter().zip(saved) {
            // Slot 0 (the head's gradient) is read in place.
            let taken = std::mem::take(&mut s.bufs[step.out]);
            let go: &[T] = if step.out == 0 { g } else { &taken[..len] };
            if !s.filled[step.out] {
                // Nothing reached this op (cannot happen in a pruned region,
                // but a zero gradient contributes nothing either way).
                s.bufs[step.out] = taken;
                continue;
            }
            let v = |k: usize| match vals[k].len() {
                l if l == n => &vals[k][range.clone()],
                _ => &vals[k][..len],
            };
            let two = T::one() + T::one();
            let half = T::one() / two;
            let (i0, i1) = (step.ins[0], step.ins.get(1).copied().flatten());
            match &step.local {
                Pointwise::Add(_) => {
                    s.acc(i0, go, |g| g);
                    s.acc(i1, go, |g| g);
                }
                Pointwise::Sub(_) => {
                    s.acc(i0, go, |g| g);
                    s.acc(i1, go, |g| -g);
                }
                Pointwise::Neg => s.acc(i0, go, |g| -g),
                Pointwise::SumAll(_) => s.acc(i0, go, |g| g),
                Pointwise::Mul(..) => {
                    let (a, b) = (v(0), v(1));
                    s.acc1(i0, go, b, |g, b| g * b);
                    s.acc1(i1, go, a, |g, a| g * a);
                }
                Pointwise::Div(..) => {
                    let (a, b) = (v(0), v(1));
                    s.acc1(i0, go, b, |g, b| g / b);
                    s.acc2(i1, go, a, b, |g, a, b| -(g * ((a / b) / b)));
                }
                Pointwise::Tanh(_) => s.acc1(i0, go, v(0), |g, y| g * (T::one() - y * y)),
                Pointwise::Exp(_) => s.acc1(i0, go, v(0), |g, y| g * y),
                Pointwise::Sigmoid(_) => s.acc1(i0, go, v(0), |g, y| g * (y * (T::one() - y))),
                Pointwise::Relu(_) => {
                    s.acc1(
                        i0,
                        go,
                        v(0),
                        |g, x| {
                            if x > T::zero() {
                                g
                            } else {
                                T::zero()
                            }
                        },
                    )
                }
                Pointwise::Square(_) => s.acc1(i0, go, v(0), |g, x| g * (x * two)),
                Pointwise::Log(_) => s.acc1(i0, go, v(0), |g, x| g / x),
                Pointwise::Sqrt(_) => s.acc1(i0, go, v(0), |g, y| (g * half) / y),
            }
            s.bufs[step.out] = taken;
        }
        for (k, o) in output_of.iter().enumerate() {
            let Some(o) = *o else { continue };
            if s.filled[1 + k] {
                dst[o].extend(s.bufs[1 + k][..len].iter().copied());
            } else {
                // A leaf nothing reached in this region: zeros.
                dst[o].extend(std::iter::repeat_n(T::zero(), len));
            }
        }
    }
}

/// One chunk of a fused backward pass, run through pulp's runtime SIMD
/// dispatch (the wheel's baseline target has only SSE2).
struct ChunkJob<'a, 'b, 'c, T: Element + Float> {
    rule: &'a FusedRule,
    s: &'a mut Scratch<T>,
    g: &'a [T],
    saved: &'a [SmallVec<[std::borrow::Cow<'b, [T]>; 2]>],
    n: usize,
    range: std::ops::Range<usize>,
    output_of: &'a [Option<usize>],
    dst: &'a mut [ChunkOut<'c, T>],
}

impl<T: Element + Float> pulp::WithSimd for ChunkJob<'_, '_, '_, T> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        self.rule.chunk(
            self.s,
            self.g,
            self.saved,
            self.n,
            self.range,
            self.output_of,
            self.dst,
        );
    }
}

/// Per-worker chunk buffers: one per slot, `filled` when some op has
/// written its slot in the current chunk.
struct Scratch<T> {
    bufs: Vec<Vec<T>>,
    filled: Vec<bool>,
}

impl<T: Float> Scratch<T> {
    /// Adds `f(go[i], a[i], b[i])` into `slot` (the first contribution is
    /// stored). The three-way zip has no bounds checks, so it vectorizes.
    #[inline(always)]
    fn acc2(&mut self, slot: Option<usize>, go: &[T], a: &[T], b: &[T], f: impl Fn(T, T, T) -> T) {
        let Some(slot) = slot else { return };
        let buf = &mut self.bufs[slot];
        let vals = go.iter().zip(a).zip(b).map(|((&g, &a), &b)| f(g, a, b));
        if self.filled[slot] {
            for (d, v) in buf.iter_mut().zip(vals) {
                *d = *d + v;
            }
        } else {
            buf.clear();
            buf.extend(vals);
            self.filled[slot] = true;
        }
    }

    /// [`Scratch::acc2`] with one saved value per element.
    #[inline(always)]
    fn acc1(&mut self, slot: Option<usize>, go: &[T], a: &[T], f: impl Fn(T, T) -> T) {
        self.acc2(slot, go, a, a, |g, a, _| f(g, a));
    }

    /// [`Scratch::acc2`] with no saved values.
    #[inline(always)]
    fn acc(&mut self, slot: Option<usize>, go: &[T], f: impl Fn(T) -> T) {
        self.acc2(slot, go, go, go, |g, _, _| f(g));
    }
}
