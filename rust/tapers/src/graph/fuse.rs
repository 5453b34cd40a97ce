//! Forward elementwise fusion: chains of large same-shape elementwise ops of
//! a traced graph run as one chunked loop.
//!
//! Replayed op by op, `reduce_sum(tanh(x) * exp(-x * x) + x)` makes one
//! pass over memory per op, each reading and writing whole tensors. This
//! pass finds groups of nodes that can run together over the same elements
//! and replaces each by one node ([`FusedLoop`]) that walks the elements in
//! fixed chunks (in parallel on rayon when large) and runs every member on
//! each chunk while it is in cache:
//!
//! * an elementwise op ([`Fusion::Map`]) runs its [`Elementwise`] kernel,
//!   the same per-element formula its eager forward runs (each op's formula
//!   is written once, with `ops::elementwise!`), so the bits are eager's;
//!   its inputs have the group's shape and dtype, or one element
//!   (broadcast);
//! * a sum of every element ([`Fusion::Sum`]) of a member's output sums each
//!   chunk of [`crate::ops::SUM_CHUNK`] elements in `kernels::sum`'s lanes,
//!   fed piece by piece as the member computes them (never stored), then
//!   the partial sums in order from zero: the split and order of eager's
//!   `reduce_sum`, so the same bits;
//! * a fused backward region that a trace recorded (`FusedElementwiseGrad`,
//!   [`Fusion::Region`]) runs its chunk (the same chunk kernels as eager's
//!   fused backward) on the forward values the loop has just computed, so a
//!   forward and backward pass reads its inputs and writes its results once.
//!
//! A member's output is written to memory only when something outside the
//! group reads it (a later op, a variable write, an output or a guard);
//! values only the group reads are never materialized. Outputs far larger
//! than the caches are finished in chunk buffers and copied out with
//! non-temporal stores (`kernels::uninit::streams`), which do not read the
//! destination's cache lines first (half of a plain write's traffic). Sums
//! and regions end chains (their results are complete only after the
//! loop), so no member reads them.
//!
//! A group runs where its last member ran, so a member joins only when every
//! node that reads the group's values and ran before it is in the group.
//! Ops that only compute on sums' results (`reduce_mean`'s division by the
//! count) are first moved after the loop ([`sink_sum_readers`]), so that
//! they do not keep the backward region recorded after them out of it; a
//! region that reads no member's value but reads a value a group reads
//! (the input of `reduce_sum(x * x)`) joins that group.
//! Decisions depend on the graph and traced shapes alone. At replay, a
//! fused node whose inputs do not have the traced shapes, or that runs while
//! a tape records or a trace is active (which must see each op), runs its
//! members op by op.

use std::borrow::Cow;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::{Graph, Node, Slot};
use crate::autodiff::fuse::{
    Fusible, Program as RegionProgram, Scratch as RegionScratch, TracedRegion,
};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::sum::{Lanes, LANES};
use crate::kernels::uninit::ChunkOut;
use crate::kernels::{parallel, Arith, PAR_THRESHOLD};
use crate::op::{Elementwise, Fusion, Op, OpRef};
use crate::ops::SUM_CHUNK;
use crate::tensor::{Element, Tensor};

/// Elements every member of a loop runs on before the next member: small
/// enough that the chunk buffers of a long chain stay in the first cache
/// levels; a multiple of the sums' lanes that divides [`SUM_CHUNK`], so a
/// sum fed chunk by chunk keeps `reduce_sum`'s order.
const LOOP_CHUNK: usize = 1 << 10;
const _: () = assert!(SUM_CHUNK % LOOP_CHUNK == 0 && LOOP_CHUNK % LANES == 0);

/// Groups over fewer elements are left op by op.
const FORWARD_MIN: usize = 1 << 14;

/// What the fusion pass made of a graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FusionStats {
    /// Fused loops (each one node of the graph).
    pub loops: usize,
    /// Recorded nodes they replaced (elementwise ops, sums and backward
    /// regions).
    pub ops: usize,
    /// Sums of every element computed inside a loop.
    pub sums: usize,
    /// Fused backward regions joined with the forward ops they read.
    pub joined_backward: usize,
    /// Values computed inside loops that are never written to memory.
    pub not_materialized: usize,
    /// Loops whose outputs are far larger than the caches, written with
    /// non-temporal stores (where the CPU has them).
    pub streamed: usize,
}

/// The traced shape and dtype of a value.
#[derive(Clone, Debug)]
pub(super) struct Meta {
    pub(super) shape: SmallVec<[usize; 4]>,
    pub(super) dtype: DType,
}

impl Meta {
    pub(super) fn of(t: &Tensor) -> Meta {
        Meta {
            shape: t.shape().into(),
            dtype: t.dtype(),
        }
    }

    pub(super) fn numel(&self) -> usize {
        self.shape.iter().product()
    }
}

/// What a member of a group does.
#[derive(Clone)]
enum Kind {
    Map(&'static dyn Elementwise),
    Sum,
    Region,
}

impl Kind {
    /// Whether later members may read its outputs chunk by chunk.
    fn streams(&self) -> bool {
        matches!(self, Kind::Map(_))
    }
}

/// How a node could join a group: its kind and the elements it walks.
fn classify(n: &Node<Slot>, meta: &[Option<Meta>]) -> Option<(Kind, Meta)> {
    let Node::Op {
        op,
        inputs,
        outputs,
    } = n
    else {
        return None;
    };
    let m = |s: Slot| meta[s as usize].as_ref();
    let float = |d: DType| matches!(d, DType::F32 | DType::F64);
    match op.fusion() {
        Fusion::Map(k) => {
            let out = m(*outputs.first()?)?;
            let fits = outputs.len() == 1
                && inputs.len() == k.arity()
                && float(out.dtype)
                && out.numel() >= FORWARD_MIN
                && inputs.iter().all(|&i| {
                    m(i).is_some_and(|im| {
                        im.dtype == out.dtype && (im.shape == out.shape || im.numel() == 1)
                    })
                });
            fits.then(|| (Kind::Map(k), out.clone()))
        }
        Fusion::Sum { axes } => {
            let (x, y) = (m(*inputs.first()?)?, m(*outputs.first()?)?);
            let fits = inputs.len() == 1
                && outputs.len() == 1
                && axes == x.shape.len()
                && float(x.dtype)
                && x.numel() >= FORWARD_MIN
                && y.numel() == 1;
            fits.then(|| (Kind::Sum, x.clone()))
        }
        Fusion::Region(any) => {
            let r = any.downcast_ref::<TracedRegion>()?;
            let shape: SmallVec<[usize; 4]> = r.shape().into();
            let n: usize = shape.iter().product();
            let fits = float(r.dtype())
                && n >= FORWARD_MIN
                && outputs
                    .iter()
                    .all(|&o| m(o).is_some_and(|om| om.shape == shape && om.dtype == r.dtype()))
                && inputs.iter().all(|&i| {
                    m(i).is_some_and(|im| {
                        im.dtype == r.dtype() && (im.shape == shape || im.numel() == 1)
                    })
                });
            fits.then(|| {
                (
                    Kind::Region,
                    Meta {
                        shape,
                        dtype: r.dtype(),
                    },
                )
            })
        }
        Fusion::None | Fusion::Gradient { .. } | Fusion::AddN | Fusion::Product { .. } => None,
    }
}

/// Replaces each group of fusable nodes in `g` by one [`FusedLoop`] node.
pub(super) fn fuse(g: &mut Graph, meta: &[Option<Meta>]) -> FusionStats {
    let mut stats = FusionStats::default();
    let mut kinds: Vec<Option<(Kind, Meta)>> = g.nodes.iter().map(|n| classify(n, meta)).collect();
    if kinds.iter().flatten().count() < 2 {
        return stats;
    }
    if sink_sum_readers(g, &kinds) {
        kinds = g.nodes.iter().map(|n| classify(n, meta)).collect();
    }
    let n = g.nodes.len();
    // Readers of each slot (node indices, ascending), the producer of each,
    // and the slots read after every node (outputs, guards).
    let readers = slot_readers(g);
    let kept = kept_slots(g);
    let mut producer: Vec<Option<usize>> = vec![None; g.slots];
    for (i, node) in g.nodes.iter().enumerate() {
        for &s in node_slots(node).1 {
            producer[s as usize] = Some(i);
        }
    }
    // Groups by union: `group_of[i]` is the group node `i` is in.
    let mut group_of: Vec<Option<usize>> = vec![None; n];
    let mut members: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        let Some((_, m)) = &kinds[i] else { continue };
        let (ins, _) = node_slots(&g.nodes[i]);
        // Groups whose streamed values (same shape and dtype) this node reads.
        let mut joins: SmallVec<[usize; 2]> = SmallVec::new();
        for &s in ins {
            let Some(p) = producer[s as usize] else {
                continue;
            };
            let (Some(gp), Some((pk, pm))) = (group_of[p], &kinds[p]) else {
                continue;
            };
            if pk.streams() && pm.shape == m.shape && pm.dtype == m.dtype && !joins.contains(&gp) {
                joins.push(gp);
            }
        }
        // A backward region that reads no member's value but reads a value
        // of its shape that groups before it read too (the input `x` of
        // `reduce_sum(x * x)`) joins them: the value is read once.
        if joins.is_empty() && matches!(kinds[i], Some((Kind::Region, _))) {
            for &s in ins {
                let shaped = meta[s as usize]
                    .as_ref()
                    .is_some_and(|sm| sm.shape == m.shape && sm.dtype == m.dtype);
                if !shaped {
                    continue;
                }
                // Readers are ascending: those before this region.
                for &r in readers[s as usize].iter().take_while(|&&r| r < i) {
                    if let (Some(gr), Some((_, rm))) = (group_of[r], &kinds[r]) {
                        if rm.shape == m.shape && rm.dtype == m.dtype && !joins.contains(&gr) {
                            joins.push(gr);
                        }
                    }
                }
            }
        }
        let union: Vec<usize> = joins
            .iter()
            .flat_map(|&gi| members[gi].iter().copied())
            .chain([i])
            .collect();
        if joins.is_empty() || !can_run_together(g, &union, i, &kinds, &readers, &producer) {
            group_of[i] = Some(members.len());
            members.push(vec![i]);
            continue;
        }
        let into = joins[0];
        for &other in &joins[1..] {
            let moved = std::mem::take(&mut members[other]);
            for &mbr in &moved {
                group_of[mbr] = Some(into);
            }
            members[into].extend(moved);
        }
        members[into].push(i);
        group_of[i] = Some(into);
    }
    // Emit each group of two or more at its last member's position.
    let mut replace: FxHashMap<usize, Node<Slot>> = FxHashMap::default();
    let mut drop = vec![false; n];
    for group in members.iter_mut().filter(|m| m.len() >= 2) {
        group.sort_unstable();
        // A region alone with no forward member gains nothing.
        if group
            .iter()
            .all(|&i| matches!(kinds[i], Some((Kind::Region, _))))
        {
            continue;
        }
        let (node, st) = build_loop(g, group, &kinds, meta, &readers, &kept);
        stats.loops += 1;
        stats.ops += group.len();
        stats.sums += st.sums;
        stats.joined_backward += st.joined_backward;
        stats.not_materialized += st.not_materialized;
        stats.streamed += st.streamed;
        let last = *group.last().expect("two or more");
        for &i in group.iter() {
            drop[i] = true;
        }
        drop[last] = false;
        replace.insert(last, node);
    }
    if stats.loops == 0 {
        return stats;
    }
    let old = std::mem::take(&mut g.nodes);
    g.nodes = old
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !drop[*i])
        .map(|(i, node)| replace.remove(&i).unwrap_or(node))
        .collect();
    stats
}

/// Moves the ops that only compute on sums' results (`reduce_mean`'s
/// division by the count, a loss scaled by a constant) to just before their
/// first reader, or to the end, so that a backward region recorded after
/// them can still join the loop that computes the sums: a group runs where
/// its last member ran, and it cannot while a node before that reads one of
/// its sums. Moved are ops without effects whose output shapes do not
/// depend on values, that no fusion group can take, and that read a
/// fusable sum's result or another moved op's; the relative order of moved
/// ops, and of all other nodes, is kept. Returns whether anything moved.
fn sink_sum_readers(g: &mut Graph, kinds: &[Option<(Kind, Meta)>]) -> bool {
    if !kinds
        .iter()
        .flatten()
        .any(|(k, _)| matches!(k, Kind::Region))
    {
        return false;
    }
    let mut producer: Vec<Option<usize>> = vec![None; g.slots];
    for (i, node) in g.nodes.iter().enumerate() {
        for &s in node_slots(node).1 {
            producer[s as usize] = Some(i);
        }
    }
    let mut sink = vec![false; g.nodes.len()];
    for (i, node) in g.nodes.iter().enumerate() {
        let Node::Op { op, inputs, .. } = node else {
            continue;
        };
        if kinds[i].is_some() || op.has_effects() || op.shape_from_values() {
            continue;
        }
        sink[i] = inputs.iter().any(|&s| {
            producer[s as usize]
                .is_some_and(|p| sink[p] || matches!(kinds[p], Some((Kind::Sum, _))))
        });
    }
    if !sink.iter().any(|&b| b) {
        return false;
    }
    // Each moved op goes out with the first node that reads one of its
    // outputs, together with the moved ops before it (in their order:
    // whatever they read is out by then).
    let mut order: Vec<usize> = Vec::with_capacity(g.nodes.len());
    let mut pending: Vec<usize> = Vec::new();
    for (j, node) in g.nodes.iter().enumerate() {
        if sink[j] {
            pending.push(j);
            continue;
        }
        let needs = node_slots(node)
            .0
            .iter()
            .filter_map(|&s| producer[s as usize])
            .filter(|&p| sink[p])
            .max();
        if let Some(last) = needs {
            let k = pending.partition_point(|&p| p <= last);
            order.extend(pending.drain(..k));
        }
        order.push(j);
    }
    order.extend(pending);
    if order.iter().enumerate().all(|(k, &j)| k == j) {
        return false;
    }
    let mut old: Vec<Option<Node<Slot>>> =
        std::mem::take(&mut g.nodes).into_iter().map(Some).collect();
    g.nodes = order
        .into_iter()
        .map(|j| old[j].take().expect("each node once"))
        .collect();
    true
}

/// Whether the nodes `union` (`i`, the latest, among them) can run as one
/// loop at `i`'s position: every value a member reads from another member
/// streams (a sum or a region's gradients are complete only after the
/// loop), and every node before `i` that reads a member's value is a member.
fn can_run_together(
    g: &Graph,
    union: &[usize],
    i: usize,
    kinds: &[Option<(Kind, Meta)>],
    readers: &[SmallVec<[usize; 2]>],
    producer: &[Option<usize>],
) -> bool {
    let member = |r: usize| union.contains(&r);
    union.iter().all(|&mbr| {
        let (ins, outs) = node_slots(&g.nodes[mbr]);
        let streams_in = ins.iter().all(|&s| match producer[s as usize] {
            Some(p) if member(p) => kinds[p].as_ref().is_some_and(|(k, _)| k.streams()),
            _ => true,
        });
        let read_after = outs
            .iter()
            .all(|&s| readers[s as usize].iter().all(|&r| r >= i || member(r)));
        streams_in && read_after
    })
}

/// Whether a loop over `n` elements of `dtype` writes its outputs with
/// non-temporal stores (outputs far larger than the caches).
fn streams(dtype: DType, n: usize) -> bool {
    match dtype {
        DType::F32 => crate::kernels::uninit::streams::<f32>(n),
        DType::F64 => crate::kernels::uninit::streams::<f64>(n),
        _ => false,
    }
}

/// The nodes that read each slot, ascending, each once.
pub(super) fn slot_readers(g: &Graph) -> Vec<SmallVec<[usize; 2]>> {
    let mut readers: Vec<SmallVec<[usize; 2]>> = vec![SmallVec::new(); g.slots];
    for (i, node) in g.nodes.iter().enumerate() {
        for &s in node_slots(node).0 {
            if readers[s as usize].last() != Some(&i) {
                readers[s as usize].push(i);
            }
        }
    }
    readers
}

/// Whether each slot is read after every node: the graph's outputs and the
/// values its guards check.
pub(super) fn kept_slots(g: &Graph) -> Vec<bool> {
    let mut kept = vec![false; g.slots];
    for &s in g.outputs.iter().chain(g.guards.iter().map(|(s, _)| s)) {
        kept[s as usize] = true;
    }
    kept
}

/// The slots a node reads and writes.
pub(super) fn node_slots(n: &Node<Slot>) -> (&[Slot], &[Slot]) {
    match n {
        Node::Op {
            inputs, outputs, ..
        } => (inputs, outputs),
        Node::Read { output, .. } => (&[], std::slice::from_ref(output)),
        Node::Effect { inputs, .. } => (inputs, &[]),
    }
}

/// What one group's loop counted.
#[derive(Default)]
struct LoopStats {
    sums: usize,
    joined_backward: usize,
    not_materialized: usize,
    streamed: usize,
}

/// The fused node of one group (`group`: node indices, ascending).
fn build_loop(
    g: &Graph,
    group: &[usize],
    kinds: &[Option<(Kind, Meta)>],
    meta: &[Option<Meta>],
    readers: &[SmallVec<[usize; 2]>],
    kept: &[bool],
) -> (Node<Slot>, LoopStats) {
    let mut st = LoopStats::default();
    let in_group = |i: usize| group.binary_search(&i).is_ok();
    // Locals: the loop's inputs first, then the members' outputs.
    let mut local: FxHashMap<Slot, usize> = FxHashMap::default();
    let mut inputs: SmallVec<[Slot; 2]> = SmallVec::new();
    let produced: Vec<Slot> = group
        .iter()
        .flat_map(|&i| node_slots(&g.nodes[i]).1.iter().copied())
        .collect();
    for &i in group {
        for &s in node_slots(&g.nodes[i]).0 {
            if !produced.contains(&s) && !local.contains_key(&s) {
                local.insert(s, inputs.len());
                inputs.push(s);
            }
        }
    }
    for &s in &produced {
        let next = local.len();
        local.insert(s, next);
    }
    let mut steps = Vec::with_capacity(group.len());
    // Outputs: each region's gradients (contiguous), then materialized
    // values of elementwise members, then sums.
    let mut region_outs: Vec<Slot> = Vec::new();
    let mut map_outs: Vec<Slot> = Vec::new();
    let mut sum_outs: Vec<Slot> = Vec::new();
    for &i in group {
        let Node::Op {
            op,
            inputs: ins,
            outputs: outs,
        } = &g.nodes[i]
        else {
            unreachable!("members are ops")
        };
        let (kind, _) = kinds[i].clone().expect("a member");
        let ins = ins.iter().map(|s| local[s]).collect();
        let locals: SmallVec<[usize; 1]> = outs.iter().map(|s| local[s]).collect();
        match kind {
            Kind::Map(_) => {
                let o = outs[0];
                let outside = readers[o as usize].iter().any(|&r| !in_group(r));
                if outside || kept[o as usize] {
                    map_outs.push(o);
                } else {
                    st.not_materialized += 1;
                }
            }
            Kind::Sum => {
                st.sums += 1;
                sum_outs.push(outs[0]);
            }
            Kind::Region => {
                st.joined_backward += 1;
                region_outs.extend(outs.iter().copied());
            }
        }
        steps.push(Step {
            op: op.clone(),
            kind,
            ins,
            outs: locals,
        });
    }
    let outputs: SmallVec<[Slot; 1]> = region_outs
        .iter()
        .chain(&map_outs)
        .chain(&sum_outs)
        .copied()
        .collect();
    let out_locals = outputs.iter().map(|s| local[s]).collect();
    let (buf_of, bufs) = assign_buffers(&steps, inputs.len(), local.len());
    let (_, m) = kinds[group[0]].clone().expect("a member");
    st.streamed = usize::from(streams(m.dtype, m.numel()));
    let shape_of = |s: Slot| {
        meta[s as usize]
            .as_ref()
            .map_or_else(|| m.shape.clone(), |sm| sm.shape.clone())
    };
    let input_shapes = inputs.iter().map(|&s| shape_of(s)).collect();
    // Sums keep their traced (scalar or kept-dims) shapes.
    let out_shapes = outputs.iter().map(|&o| shape_of(o)).collect();
    let fused = FusedLoop {
        shape: m.shape.to_vec(),
        dtype: m.dtype,
        input_shapes,
        steps,
        locals: local.len(),
        inputs: inputs.len(),
        buf_of,
        bufs,
        out_locals,
        out_shapes,
    };
    (
        Node::Op {
            op: OpRef::Shared(Arc::new(fused)),
            inputs,
            outputs,
        },
        st,
    )
}

/// The chunk buffer each local an elementwise member computes is held in
/// (`buf_of`, indexed by local; `usize::MAX` for others), and how many
/// there are: a buffer is reused once every member that reads its value
/// has run, so a long chain's chunks stay in the first cache level.
fn assign_buffers(steps: &[Step], inputs: usize, locals: usize) -> (Vec<usize>, usize) {
    let mut last: Vec<Option<usize>> = vec![None; locals];
    for (i, st) in steps.iter().enumerate() {
        for &l in &st.ins {
            last[l] = Some(i);
        }
    }
    let mut buf_of = vec![usize::MAX; locals];
    let mut free: Vec<usize> = Vec::new();
    let mut bufs = 0;
    for (i, st) in steps.iter().enumerate() {
        let made = matches!(st.kind, Kind::Map(_)).then(|| st.outs[0]);
        if let Some(o) = made {
            buf_of[o] = free.pop().unwrap_or_else(|| {
                bufs += 1;
                bufs - 1
            });
        }
        // Inputs read for the last time, then an output nothing reads
        // (only copied out), are free for the next members.
        for (k, &l) in st.ins.iter().enumerate() {
            if l >= inputs && last[l] == Some(i) && !st.ins[..k].contains(&l) {
                free.push(buf_of[l]);
            }
        }
        if let Some(o) = made.filter(|&o| last[o].is_none()) {
            free.push(buf_of[o]);
        }
    }
    (buf_of, bufs)
}

/// One member of a fused loop, over the loop's locals.
#[derive(Clone)]
struct Step {
    op: OpRef,
    kind: Kind,
    ins: SmallVec<[usize; 2]>,
    outs: SmallVec<[usize; 1]>,
}

/// A group of a graph's nodes run as one chunked loop (see the module docs).
struct FusedLoop {
    /// The elements every member walks.
    shape: Vec<usize>,
    dtype: DType,
    /// The traced shape of each input.
    input_shapes: Vec<SmallVec<[usize; 4]>>,
    steps: Vec<Step>,
    /// Locals: inputs, then every member's outputs.
    locals: usize,
    inputs: usize,
    /// The chunk buffer of each local a member computes (see
    /// [`assign_buffers`]), and how many buffers there are.
    buf_of: Vec<usize>,
    bufs: usize,
    /// The locals the node outputs, in order: regions' gradients, values
    /// read outside the loop, sums.
    out_locals: Vec<usize>,
    out_shapes: Vec<SmallVec<[usize; 4]>>,
}

impl Op for FusedLoop {
    fn name(&self) -> &'static str {
        "FusedElementwise"
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        if !runs_fused(self.name(), inputs, &self.input_shapes, self.dtype)? {
            return self.op_by_op(inputs);
        }
        Ok(match self.dtype {
            DType::F32 => self.run::<f32>(inputs),
            DType::F64 => self.run::<f64>(inputs),
            _ => return self.op_by_op(inputs),
        })
    }
}

/// Whether a fused node runs fused on `inputs`: they have the traced
/// shapes and the node's dtype, and no tape or trace watches the replay
/// (those must see each op; the node then runs its ops one by one). An
/// error when there are not as many inputs as traced.
pub(super) fn runs_fused(
    name: &str,
    inputs: &[Tensor],
    shapes: &[SmallVec<[usize; 4]>],
    dtype: DType,
) -> Result<bool> {
    if inputs.len() != shapes.len() {
        return Err(Error::invalid(format!(
            "{name} takes {} inputs, {} were given",
            shapes.len(),
            inputs.len()
        )));
    }
    let traced = inputs
        .iter()
        .zip(shapes)
        .all(|(t, s)| t.shape() == &s[..] && t.dtype() == dtype);
    Ok(traced && !super::observed())
}

/// The element types a fused loop runs in.
pub(super) trait Elem: Fusible + Arith {
    fn map(k: &dyn Elementwise, ins: [&[Self]; 2], out: &mut Vec<Self>);
}

impl Elem for f32 {
    fn map(k: &dyn Elementwise, ins: [&[f32]; 2], out: &mut Vec<f32>) {
        k.chunk_f32(ins, out)
    }
}

impl Elem for f64 {
    fn map(k: &dyn Elementwise, ins: [&[f64]; 2], out: &mut Vec<f64>) {
        k.chunk_f64(ins, out)
    }
}

/// Per-worker buffers: one chunk per local a member computes, the running
/// sums of each sum over the current [`SUM_CHUNK`], one scratch per region.
struct Scratch<T> {
    bufs: Vec<Vec<T>>,
    sums: Vec<Lanes<T>>,
    regions: Vec<RegionScratch<T>>,
}

/// A loop input over chunks: its elements, or one chunk's worth of copies
/// of a broadcast element (or of ones, known without reading them).
enum View<'a, T: Clone> {
    All(Cow<'a, [T]>),
    Same(Vec<T>),
}

impl<T: Copy> View<'_, T> {
    #[inline]
    fn at(&self, lo: usize, hi: usize) -> &[T] {
        match self {
            View::All(v) => &v[lo..hi],
            View::Same(v) => &v[..hi - lo],
        }
    }
}

/// A tensor's elements in order, borrowed when it is in standard layout.
pub(super) fn elements<T: Element>(t: &Tensor) -> Cow<'_, [T]> {
    let a = T::unwrap(t.storage()).expect("a fused node has one dtype");
    match a.as_slice() {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(a.iter().copied().collect()),
    }
}

impl FusedLoop {
    /// The members' own forwards, in order (under a recording tape, or on
    /// inputs of other shapes than traced).
    fn op_by_op(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let mut vals: Vec<Option<Tensor>> = vec![None; self.locals];
        for (v, t) in vals.iter_mut().zip(inputs) {
            *v = Some(t.clone());
        }
        for step in &self.steps {
            let ins: Vec<Tensor> = step
                .ins
                .iter()
                .map(|&l| vals[l].clone().expect("computed before"))
                .collect();
            let outs = step.op.forward(&ins)?;
            if outs.len() != step.outs.len() {
                return Err(Error::invalid(format!(
                    "{} gave {} outputs on replay, {} when traced",
                    step.op.name(),
                    outs.len(),
                    step.outs.len()
                )));
            }
            for (&l, t) in step.outs.iter().zip(outs) {
                vals[l] = Some(t);
            }
        }
        Ok(self
            .out_locals
            .iter()
            .map(|&l| vals[l].clone().expect("computed"))
            .collect())
    }

    fn region(step: &Step) -> &TracedRegion {
        match step.op.fusion() {
            Fusion::Region(any) => any
                .downcast_ref::<TracedRegion>()
                .expect("classified as a region"),
            _ => unreachable!("classified as a region"),
        }
    }

    fn run<T: Elem>(&self, inputs: &[Tensor]) -> Vec<Tensor> {
        let n: usize = self.shape.iter().product();
        let views: Vec<View<'_, T>> = inputs
            .iter()
            .map(|t| {
                if t.numel() == 1 && n > 1 {
                    View::Same(vec![elements::<T>(t)[0]; LOOP_CHUNK.min(n)])
                } else if t.is_all_ones() {
                    View::Same(vec![T::one(); LOOP_CHUNK.min(n)])
                } else {
                    View::All(elements::<T>(t))
                }
            })
            .collect();
        // Which output each local is written to, and each region's first
        // output and leaf map.
        let mut written: Vec<Option<usize>> = vec![None; self.locals];
        let mut sum_of: Vec<Option<usize>> = vec![None; self.locals];
        let mut streamed = 0;
        let mut sums = 0;
        for (j, &l) in self.out_locals.iter().enumerate() {
            written[l] = Some(j);
        }
        let mut region_base: Vec<usize> = Vec::new();
        for step in &self.steps {
            match step.kind {
                Kind::Sum => {
                    sum_of[step.outs[0]] = Some(sums);
                    sums += 1;
                }
                Kind::Region => {
                    let base = written[step.outs[0]].expect("a region's gradients are outputs");
                    region_base.push(base);
                }
                Kind::Map(_) => {
                    if written[step.outs[0]].is_some() {
                        streamed += 1;
                    }
                }
            }
        }
        let region_outs: usize = self
            .steps
            .iter()
            .filter(|s| matches!(s.kind, Kind::Region))
            .map(|s| s.outs.len())
            .sum();
        let arrays = region_outs + streamed;
        // Outputs far larger than the caches go to memory with
        // non-temporal stores.
        let stream = streams(self.dtype, n);
        let chunks = n.div_ceil(SUM_CHUNK);
        let mut partials = vec![T::zero(); chunks * sums.max(1)];
        let work: Vec<&mut [T]> = partials.chunks_mut(sums.max(1)).collect();
        // Each region's program (a seed of ones lets products pass their
        // other operand on as it is).
        let programs: Vec<RegionProgram> = self
            .steps
            .iter()
            .filter(|s| matches!(s.kind, Kind::Region))
            .map(|step| {
                // A seed of ones is a loop input read as copies of one.
                let l = step.ins[0];
                let ones = l < self.inputs
                    && matches!(&views[l], View::Same(v) if v.first() == Some(&T::one()));
                let r = Self::region(step);
                r.program(ones, stream)
            })
            .collect();
        let init = || Scratch {
            bufs: (0..self.bufs)
                .map(|_| Vec::with_capacity(LOOP_CHUNK))
                .collect(),
            sums: vec![Lanes::default(); sums],
            regions: programs.iter().map(|p| p.scratch()).collect(),
        };
        let outs = parallel(n, PAR_THRESHOLD, |par| {
            crate::kernels::uninit::fill_chunked_many::<T, &mut [T], Scratch<T>, SUM_CHUNK>(
                n,
                arrays,
                par,
                work,
                init,
                |s, c, partial, dst| {
                    let (lo, hi) = (c * SUM_CHUNK, ((c + 1) * SUM_CHUNK).min(n));
                    s.sums.iter_mut().for_each(|l| *l = Lanes::default());
                    let mut at = lo;
                    while at < hi {
                        let end = (at + LOOP_CHUNK).min(hi);
                        self.chunk(
                            s,
                            stream,
                            &views,
                            &programs,
                            &region_base,
                            &sum_of,
                            &written,
                            at,
                            end,
                            dst,
                        );
                        at = end;
                    }
                    for (p, lanes) in partial.iter_mut().zip(&s.sums) {
                        *p = lanes.total();
                    }
                },
            )
        });
        let mut result: Vec<Tensor> = outs
            .into_iter()
            .map(|v| {
                Tensor::from_array(
                    ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&self.shape), v)
                        .expect("sizes match"),
                )
            })
            .collect();
        for k in 0..sums {
            let total = partials
                .iter()
                .skip(k)
                .step_by(sums)
                .fold(T::zero(), |a, &b| Arith::add(a, b));
            let shape = &self.out_shapes[arrays + k];
            result.push(Tensor::from_array(ndarray::ArrayD::from_elem(
                ndarray::IxDyn(shape),
                total,
            )));
        }
        result
    }

    /// Local `l`'s values on elements `lo..hi`: a loop input's, or the
    /// chunk buffer a member computed it into.
    #[inline(always)]
    fn local<'a, T: Copy>(
        &self,
        views: &'a [View<'_, T>],
        bufs: &'a [Vec<T>],
        l: usize,
        lo: usize,
        hi: usize,
    ) -> &'a [T] {
        if l < self.inputs {
            views[l].at(lo, hi)
        } else {
            &bufs[self.buf_of[l]][..hi - lo]
        }
    }

    /// Every member on elements `lo..hi` (at most [`LOOP_CHUNK`]).
    #[allow(clippy::too_many_arguments)]
    fn chunk<T: Elem>(
        &self,
        s: &mut Scratch<T>,
        stream: bool,
        views: &[View<'_, T>],
        programs: &[RegionProgram],
        region_base: &[usize],
        sum_of: &[Option<usize>],
        written: &[Option<usize>],
        lo: usize,
        hi: usize,
        dst: &mut [ChunkOut<'_, T>],
    ) {
        let mut region = 0;
        for step in &self.steps {
            match step.kind {
                Kind::Map(k) => {
                    let o = step.outs[0];
                    let mut out = std::mem::take(&mut s.bufs[self.buf_of[o]]);
                    {
                        let at = |l| self.local(views, &s.bufs, l, lo, hi);
                        let a = at(step.ins[0]);
                        let b = step.ins.get(1).map_or(a, |&l| at(l));
                        T::map(k, [a, b], &mut out);
                    }
                    match written[o] {
                        Some(j) if stream => dst[j].stream_from_slice(&out),
                        Some(j) => dst[j].extend_from_slice(&out),
                        None => {}
                    }
                    s.bufs[self.buf_of[o]] = out;
                }
                Kind::Sum => {
                    let l = step.ins[0];
                    let k = sum_of[step.outs[0]].expect("a sum");
                    s.sums[k].feed(self.local(views, &s.bufs, l, lo, hi));
                }
                Kind::Region => {
                    let (r, base) = (&programs[region], region_base[region]);
                    let at = |l| self.local(views, &s.bufs, l, lo, hi);
                    let g = at(step.ins[0]);
                    // The values each step reads, in step order. On the
                    // stack: this runs for every chunk.
                    let saved: SmallVec<[&[T]; 16]> =
                        step.ins[1..].iter().map(|&l| at(l)).collect();
                    let k = step.outs.len();
                    r.chunk(&mut s.regions[region], g, &saved, &mut dst[base..base + k]);
                    region += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops;

    fn map(name: &str, ins: &[usize], out: usize) -> Step {
        let op = ops::by_name(name).expect("a unit op");
        let Fusion::Map(k) = op.fusion() else {
            panic!("{name} is elementwise")
        };
        Step {
            op: OpRef::Static(op),
            kind: Kind::Map(k),
            ins: ins.iter().copied().collect(),
            outs: [out].into_iter().collect(),
        }
    }

    #[test]
    fn chunk_buffers_are_reused_once_their_last_reader_ran() {
        // x = 0; t = tanh(x) 1; m = neg(x) 2; p = m * x 3; e = exp(p) 4;
        // q = t * e 5; y = q + x 6; s = sum(y) 7.
        let mut steps = vec![
            map("tanh", &[0], 1),
            map("neg", &[0], 2),
            map("mul", &[2, 0], 3),
            map("exp", &[3], 4),
            map("mul", &[1, 4], 5),
            map("add", &[5, 0], 6),
        ];
        steps.push(Step {
            kind: Kind::Sum,
            outs: [7].into_iter().collect(),
            ins: [6].into_iter().collect(),
            ..steps[0].clone()
        });
        let (buf_of, bufs) = assign_buffers(&steps, 1, 8);
        // Live at once at most: t, m and p (computing p), or t, e and q.
        assert_eq!(bufs, 3);
        // No two values alive at the same time share a buffer: a value
        // lives from its step to its last reader.
        let live = |l: usize| {
            let born = steps.iter().position(|s| s.outs[0] == l).unwrap();
            let last = steps.iter().rposition(|s| s.ins.contains(&l)).unwrap();
            born..=last
        };
        for a in 1..7 {
            for b in a + 1..7 {
                let (ra, rb) = (live(a), live(b));
                let overlap = ra.start() <= rb.end() && rb.start() <= ra.end();
                assert!(!overlap || buf_of[a] != buf_of[b], "locals {a} and {b}");
            }
        }
    }
}
