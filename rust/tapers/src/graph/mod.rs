//! Traced graphs: run a computation once under a tracer, replay it later on
//! new inputs without the code that built it (the core of `tapers.function`).
//!
//! While a [`Tracing`] is active on a thread, every op run there (and on the
//! rayon workers that run work for it, such as a backward pass) is recorded
//! as a node: the op's description ([`crate::op::Op`]), the ids of its input
//! values and of its outputs. Tensors that no recorded node produced and that
//! are not declared inputs become captured constants. Variable reads become
//! read nodes and variable writes (`assign`, `assign_add`, `assign_sub`,
//! optimizer updates) become effect nodes, both naming the variable itself,
//! so a replay reads the values variables hold then and writes new ones. A
//! tape's backward pass inside the trace is made of recorded ops (each rule
//! is written with the public ops), so a step with its gradient is a graph.
//!
//! [`Graph::run`] replays the nodes in recorded order with each op's
//! [`crate::op::Op::forward`], keeps variable writes aside until every node
//! has succeeded and every guard held, then writes them: a failed replay
//! leaves variables as they were. Nodes whose values reach no output, guard
//! or effect are dropped when the trace finishes; chains of large
//! elementwise ops (with a sum that ends them, and a fused backward region
//! that reads them) run as one chunked loop (`fuse.rs`); ops on small
//! constants run once when the graph is built (`fold.rs`); each value is
//! released after its last reader (`plan.rs`).
//!
//! Ops whose description cannot run again (custom gradients whose forward is
//! the caller's code) make the graph unreplayable, naming the op;
//! [`Graph::run`] then refuses to run. Random draws are nodes holding their
//! stream (each replay draws the next values), and `cond`/`while_loop` are
//! nodes holding sub-graphs ([`control`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::op::OpRef;
use crate::record::{set_tracer, Effect, Tracer};
use crate::tensor::{Storage, Tensor, TensorId};
use crate::variable::Variable;

pub mod control;
mod epilogue;
mod fold;
mod fuse;
mod plan;
mod product_update;
mod scalar;
pub use control::{cond, cond_fn, trace_branch, while_loop, while_loop_fn, Branch};
pub use fuse::FusionStats;
pub use plan::PlanStats;

/// Whether a tape records or a trace is active on this thread: a replay
/// step that would run several ops at once (a fused loop, numbers instead of
/// tensors) then runs each op's forward, so that they see every op.
fn observed() -> bool {
    crate::record::is_recording() || crate::record::is_tracing()
}

/// One recorded step, with values named by id (while tracing) or by slot
/// (in a finished graph).
#[derive(Clone)]
enum Node<V> {
    Op {
        op: OpRef,
        inputs: SmallVec<[V; 2]>,
        outputs: SmallVec<[V; 1]>,
    },
    Read {
        var: Variable,
        output: V,
    },
    Effect {
        effect: Arc<dyn Effect>,
        inputs: SmallVec<[V; 1]>,
    },
}

/// What a tracer gathers.
#[derive(Default)]
struct State {
    nodes: Vec<Node<TensorId>>,
    /// Ids of declared inputs and of values nodes produced.
    known: FxHashSet<TensorId>,
    captured: Vec<Tensor>,
    captured_ids: FxHashSet<TensorId>,
    /// Values the caller read, with the value seen.
    guards: Vec<Tensor>,
    created: Vec<Variable>,
    unreplayable: Option<String>,
    /// The shape and dtype of every value an op read or made (what the
    /// fusion pass needs to know of a slot).
    meta: FxHashMap<TensorId, fuse::Meta>,
}

impl State {
    fn use_value(&mut self, t: &Tensor) -> TensorId {
        let id = t.id();
        if !self.known.contains(&id) && self.captured_ids.insert(id) {
            self.captured.push(t.clone());
        }
        id
    }
}

struct Recording {
    state: Mutex<State>,
}

impl Tracer for Recording {
    fn op(&self, op: &OpRef, inputs: &[&Tensor], outputs: &[&Tensor]) {
        let mut s = self.state.lock();
        for t in inputs.iter().chain(outputs) {
            s.meta.entry(t.id()).or_insert_with(|| fuse::Meta::of(t));
        }
        let inputs = inputs.iter().map(|t| s.use_value(t)).collect();
        let outputs = outputs
            .iter()
            .map(|t| {
                s.known.insert(t.id());
                t.id()
            })
            .collect();
        s.nodes.push(Node::Op {
            op: op.clone(),
            inputs,
            outputs,
        });
    }

    fn read(&self, var: &Variable, out: &Tensor) {
        let mut s = self.state.lock();
        s.known.insert(out.id());
        s.nodes.push(Node::Read {
            var: var.clone(),
            output: out.id(),
        });
    }

    fn effect(&self, effect: Arc<dyn Effect>, inputs: &[&Tensor]) {
        let mut s = self.state.lock();
        let inputs = inputs.iter().map(|t| s.use_value(t)).collect();
        s.nodes.push(Node::Effect { effect, inputs });
    }

    fn unreplayable(&self, name: &str) {
        let mut s = self.state.lock();
        if s.unreplayable.is_none() {
            s.unreplayable = Some(name.to_string());
        }
    }

    fn created(&self, var: &Variable) {
        self.state.lock().created.push(var.clone());
    }

    fn guard(&self, t: &Tensor) {
        let mut s = self.state.lock();
        // A constant's value cannot change: only traced values need a guard.
        if s.known.contains(&t.id()) && !s.guards.iter().any(|g| g.id() == t.id()) {
            s.guards.push(t.clone());
        }
    }
}

/// A trace in progress on the calling thread: every op run on it (and on
/// the workers that run work for it) is recorded until [`Tracing::finish`]
/// (or drop, which discards the trace).
pub struct Tracing {
    rec: Arc<Recording>,
    inputs: Vec<Tensor>,
    variables: Vec<Variable>,
    prev: Option<Option<Arc<dyn Tracer>>>,
}

impl Tracing {
    /// Starts tracing on the calling thread, with `inputs` as the values a
    /// replay is given (all other outside values are captured constants).
    /// A trace started while another is active replaces it until it ends.
    pub fn start(inputs: &[Tensor]) -> Tracing {
        Tracing::start_with(inputs, &[])
    }

    /// [`Tracing::start`] with variables that are inputs too: a replay may
    /// be given other variables of the same shapes and dtypes in their place
    /// ([`Graph::try_run_with`]), as `tf.function` traces a Variable argument.
    pub fn start_with(inputs: &[Tensor], variables: &[Variable]) -> Tracing {
        let mut state = State::default();
        state.known.extend(inputs.iter().map(Tensor::id));
        let rec = Arc::new(Recording {
            state: Mutex::new(state),
        });
        let prev = set_tracer(Some(rec.clone()));
        Tracing {
            rec,
            inputs: inputs.to_vec(),
            variables: variables.to_vec(),
            prev: Some(prev),
        }
    }

    /// Stops tracing and returns the graph computing `outputs` from the
    /// inputs.
    pub fn finish(mut self, outputs: &[Tensor]) -> Graph {
        self.stop();
        let state = std::mem::take(&mut *self.rec.state.lock());
        let mut g = Graph::build(state, &self.inputs, outputs);
        g.variables = std::mem::take(&mut self.variables)
            .into_iter()
            .map(|v| VarSpec {
                handle: v.handle_id(),
                shape: v.shape(),
                dtype: v.dtype(),
            })
            .collect();
        g
    }

    fn stop(&mut self) {
        if let Some(prev) = self.prev.take() {
            set_tracer(prev);
        }
    }
}

impl Drop for Tracing {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Runs `f` on `inputs` once under a tracer and returns its graph with the
/// values this run computed.
///
/// ```
/// use tapers::{graph, ops, Tensor};
/// let x = Tensor::scalar(3.0f32);
/// let (g, first) = graph::trace(&[x], |i| Ok(vec![ops::mul(&i[0], &i[0])?])).unwrap();
/// assert_eq!(first[0].to_vec::<f32>().unwrap(), vec![9.0]);
/// let again = g.run(&[Tensor::scalar(4.0f32)]).unwrap();
/// assert_eq!(again[0].to_vec::<f32>().unwrap(), vec![16.0]);
/// ```
pub fn trace(
    inputs: &[Tensor],
    f: impl FnOnce(&[Tensor]) -> Result<Vec<Tensor>>,
) -> Result<(Graph, Vec<Tensor>)> {
    let t = Tracing::start(inputs);
    let outs = f(inputs)?;
    Ok((t.finish(&outs), outs))
}

thread_local! {
    /// How many [`without_host_effects`] calls are active on this thread.
    static HOST_EFFECTS_MUTED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Runs `f` with the host effects of the graphs it replays on this thread
/// skipped: effects that write no variable ([`Effect::variables`] empty,
/// such as a print). A `while_loop`'s gradient runs the loop again to get
/// each iteration's values, and a `cond`'s gradient traces its branch
/// again: those runs are not calls of the user's code, so they print
/// nothing.
pub fn without_host_effects<R>(f: impl FnOnce() -> R) -> R {
    struct Unmute;
    impl Drop for Unmute {
        fn drop(&mut self) {
            HOST_EFFECTS_MUTED.set(HOST_EFFECTS_MUTED.get() - 1);
        }
    }
    HOST_EFFECTS_MUTED.set(HOST_EFFECTS_MUTED.get() + 1);
    let _unmute = Unmute;
    f()
}

/// Whether a trace is active on the calling thread.
pub fn is_tracing() -> bool {
    crate::record::is_tracing()
}

/// Tells the active trace, if any, that the caller read `t`'s value into
/// its own code: a replay is valid only while that value is the same
/// ([`Graph::try_run`] reports a failed guard).
pub fn guard(t: &Tensor) {
    crate::record::trace_guard(t);
}

/// Tells the active trace, if any, that `effect` ran on `inputs`: a replay
/// runs it again at this point with that replay's values (a host effect such
/// as a print writes no variable; see [`crate::Effect`]).
pub fn effect(effect: Arc<dyn Effect>, inputs: &[&Tensor]) {
    crate::record::trace_effect(|| effect, inputs);
}

/// A value a replay is given or computes.
type Slot = u32;

/// The shape and dtype of a graph input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The traced shape.
    pub shape: Vec<usize>,
    /// The traced dtype.
    pub dtype: DType,
}

/// A variable input's handle when traced, shape and dtype.
#[derive(Clone, Debug)]
struct VarSpec {
    handle: TensorId,
    shape: Vec<usize>,
    dtype: DType,
}

/// A traced computation, replayable on new inputs of the traced shapes and
/// dtypes ([`trace`], [`Tracing`]).
pub struct Graph {
    inputs: Vec<Spec>,
    variables: Vec<VarSpec>,
    /// Captured constants and the slots they fill.
    consts: Vec<(Slot, Tensor)>,
    nodes: Vec<Node<Slot>>,
    outputs: Vec<Slot>,
    guards: Vec<(Slot, Tensor)>,
    /// The traced shapes of the outputs of ops whose shapes depend on
    /// values ([`crate::op::Op::shape_from_values`]), checked after each
    /// such op runs.
    shape_checks: FxHashMap<Slot, SmallVec<[usize; 4]>>,
    slots: usize,
    created: Vec<Variable>,
    unreplayable: Option<String>,
    fusion: FusionStats,
    plan: plan::Plan,
    /// The replay on numbers of a graph of one-element values (`scalar.rs`).
    scalar: Option<scalar::ScalarPlan>,
    updates: UpdateCounts,
    /// Ops computed once when the graph was built (`fold.rs`).
    folded: usize,
    /// Updates run with their gradient products (`product_update.rs`).
    product_updates: usize,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("inputs", &self.inputs)
            .field("ops", &self.op_names())
            .field("constants", &self.consts.len())
            .field("guards", &self.guards.len())
            .field("unreplayable", &self.unreplayable)
            .finish()
    }
}

impl Graph {
    fn build(state: State, inputs: &[Tensor], outputs: &[Tensor]) -> Graph {
        let State {
            nodes,
            captured,
            guards,
            created,
            unreplayable,
            meta,
            ..
        } = state;
        // Liveness, backwards: effects are live, ops whose output shapes
        // depend on values (the caller may have read those shapes), and
        // what outputs, guards and live nodes read. A node defines its
        // outputs: a value defined again later (an op that read an index
        // tensor, told to the tracer once more as one op computing the same
        // value from its inputs) is needed from the earlier node only by
        // what reads it in between.
        let mut needed: FxHashSet<TensorId> = outputs.iter().map(Tensor::id).collect();
        needed.extend(guards.iter().map(Tensor::id));
        let mut live = vec![false; nodes.len()];
        for (i, n) in nodes.iter().enumerate().rev() {
            let (is_live, defs, ins): (bool, &[TensorId], &[TensorId]) = match n {
                Node::Op {
                    op,
                    inputs,
                    outputs,
                } => (
                    op.has_effects()
                        || op.shape_from_values()
                        || outputs.iter().any(|o| needed.contains(o)),
                    outputs,
                    inputs,
                ),
                Node::Read { output, .. } => {
                    (needed.contains(output), std::slice::from_ref(output), &[])
                }
                Node::Effect { inputs, .. } => (true, &[], inputs),
            };
            if is_live {
                live[i] = true;
                for d in defs {
                    needed.remove(d);
                }
                needed.extend(ins.iter().copied());
            }
        }
        let mut slot_of: FxHashMap<TensorId, Slot> = FxHashMap::default();
        let mut next: Slot = 0;
        let mut fresh = |slot_of: &mut FxHashMap<TensorId, Slot>, id: TensorId| -> Slot {
            let s = next;
            next += 1;
            slot_of.insert(id, s);
            s
        };
        for t in inputs {
            fresh(&mut slot_of, t.id());
        }
        // A value given as an input twice reads the last slot given.
        let kept: Vec<Tensor> = captured
            .into_iter()
            .filter(|t| needed.contains(&t.id()) && !slot_of.contains_key(&t.id()))
            .collect();
        let mut consts: Vec<(Slot, Tensor)> = kept
            .into_iter()
            .map(|t| (fresh(&mut slot_of, t.id()), t))
            .collect();
        let mut out_nodes = Vec::new();
        for (n, l) in nodes.into_iter().zip(live) {
            if !l {
                continue;
            }
            let look = |slot_of: &FxHashMap<TensorId, Slot>, id: &TensorId| slot_of[id];
            out_nodes.push(match n {
                Node::Op {
                    op,
                    inputs,
                    outputs,
                } => {
                    let inputs = inputs.iter().map(|i| look(&slot_of, i)).collect();
                    let outputs = outputs.iter().map(|o| fresh(&mut slot_of, *o)).collect();
                    Node::Op {
                        op,
                        inputs,
                        outputs,
                    }
                }
                Node::Read { var, output } => Node::Read {
                    var,
                    output: fresh(&mut slot_of, output),
                },
                Node::Effect { effect, inputs } => Node::Effect {
                    effect,
                    inputs: inputs.iter().map(|i| look(&slot_of, i)).collect(),
                },
            });
        }
        // Outputs no node produced and no input gave are constants.
        let mut outs = Vec::with_capacity(outputs.len());
        for t in outputs {
            let s = match slot_of.get(&t.id()) {
                Some(&s) => s,
                None => {
                    let s = fresh(&mut slot_of, t.id());
                    consts.push((s, t.clone()));
                    s
                }
            };
            outs.push(s);
        }
        let guards = guards
            .into_iter()
            .filter_map(|g| slot_of.get(&g.id()).map(|&s| (s, g)))
            .collect();
        let mut slot_meta: Vec<Option<fuse::Meta>> = vec![None; next as usize];
        for (id, &s) in &slot_of {
            slot_meta[s as usize] = meta.get(id).cloned();
        }
        let mut g = Graph {
            fusion: FusionStats::default(),
            plan: plan::Plan::default(),
            variables: Vec::new(),
            inputs: inputs
                .iter()
                .map(|t| Spec {
                    shape: t.shape().to_vec(),
                    dtype: t.dtype(),
                })
                .collect(),
            consts,
            nodes: out_nodes,
            outputs: outs,
            guards,
            shape_checks: FxHashMap::default(),
            slots: next as usize,
            created,
            unreplayable,
            scalar: None,
            updates: UpdateCounts::default(),
            folded: 0,
            product_updates: 0,
        };
        if g.unreplayable.is_none() {
            g.folded = fold::fold_constants(&mut g);
        }
        fold_scaled_updates(&mut g, &slot_meta);
        g.product_updates = product_update::fuse_product_updates(&mut g, &slot_meta);
        epilogue::fuse_products(&mut g, &slot_meta);
        g.fusion = fuse::fuse(&mut g, &slot_meta);
        g.shape_checks = g
            .nodes
            .iter()
            .filter_map(|n| match n {
                Node::Op { op, outputs, .. } if op.shape_from_values() => Some(outputs),
                _ => None,
            })
            .flatten()
            .filter_map(|&o| Some((o, slot_meta.get(o as usize)?.as_ref()?.shape.clone())))
            .collect();
        g.plan = plan::Plan::new(&g);
        g.scalar = scalar::ScalarPlan::new(&g, &slot_meta);
        g
    }

    /// What the fusion pass made of the graph's elementwise ops.
    pub fn fusion_stats(&self) -> &FusionStats {
        &self.fusion
    }

    /// How many ops were computed once, when the graph was built, because
    /// their inputs are constants (small values only: `fold.rs`).
    pub fn folded_constants(&self) -> usize {
        self.folded
    }

    /// How many variable updates run with the matrix products that make
    /// their gradients, half by half (`product_update.rs`): each replaces a
    /// `MatMul` node and the update that read it.
    pub fn product_updates(&self) -> usize {
        self.product_updates
    }

    /// What the graph's execution plan does on each replay.
    pub fn plan_stats(&self) -> &PlanStats {
        self.plan.stats()
    }

    /// Whether the graph replays on numbers instead of tensors: every value
    /// is a one-element float of one dtype and every node an elementwise op
    /// (see the `scalar` module). Such a replay is cheaper than handing it
    /// to another thread, so callers need not release locks around it.
    pub fn is_scalar(&self) -> bool {
        self.scalar.is_some()
    }

    /// Whether a replay does something besides computing outputs and
    /// writing variables: a host effect (a print) runs in it, or in a
    /// branch of a control op it runs.
    pub fn has_effects(&self) -> bool {
        self.nodes.iter().any(|n| match n {
            Node::Effect { effect, .. } => effect.variables().is_empty(),
            Node::Op { op, .. } => op.has_effects(),
            Node::Read { .. } => false,
        })
    }

    /// The traced inputs' shapes and dtypes.
    pub fn inputs(&self) -> &[Spec] {
        &self.inputs
    }

    /// The number of outputs.
    pub fn num_outputs(&self) -> usize {
        self.outputs.len()
    }

    /// The names of the recorded ops, effects and reads, in replay order.
    pub fn op_names(&self) -> Vec<&'static str> {
        self.nodes
            .iter()
            .map(|n| match n {
                Node::Op { op, .. } => op.name(),
                Node::Read { .. } => "ReadVariableOp",
                Node::Effect { effect, .. } => effect.name(),
            })
            .collect()
    }

    /// The number of captured constants.
    pub fn num_constants(&self) -> usize {
        self.consts.len()
    }

    /// The number of values read by the caller while tracing (each must be
    /// the same at replay).
    pub fn num_guards(&self) -> usize {
        self.guards.len()
    }

    /// Variables created while tracing.
    pub fn created_variables(&self) -> &[Variable] {
        &self.created
    }

    /// The first op recorded that a replay cannot run again, if any.
    pub fn unreplayable(&self) -> Option<&str> {
        self.unreplayable.as_deref()
    }

    /// Replays the graph on `inputs` and returns its outputs. A value the
    /// caller read while tracing that differs now is an error (see
    /// [`Graph::try_run`]); on any error, variables are unchanged.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        self.try_run(inputs)?.ok_or(Error::StaleGraph)
    }

    /// Replays the graph on `inputs`: `Ok(None)` when a guard failed (a value
    /// the caller read while tracing differs now, or an op whose output's
    /// shape depends on values, such as `tf.where`, made another shape;
    /// nothing was written).
    ///
    /// Nodes run in recorded order with the ops' own forwards, on the calling
    /// thread, under whatever tapes record there (a caller that records gets
    /// the replay on its tape). Variable reads see the writes made earlier in
    /// the same replay; writes reach the variables only after every node
    /// succeeded and every guard held.
    pub fn try_run(&self, inputs: &[Tensor]) -> Result<Option<Vec<Tensor>>> {
        self.try_run_with(inputs, &[])
    }

    /// [`Graph::try_run`] with `variables` in place of the variable inputs
    /// the trace declared ([`Tracing::start_with`]); none keeps the traced
    /// ones.
    pub fn try_run_with(
        &self,
        inputs: &[Tensor],
        variables: &[Variable],
    ) -> Result<Option<Vec<Tensor>>> {
        if let Some(op) = &self.unreplayable {
            return Err(Error::invalid(format!(
                "the traced function ran {op}, which a graph cannot run again"
            )));
        }
        self.check_inputs(inputs)?;
        if let (Some(p), true) = (&self.scalar, variables.is_empty()) {
            if let Some(outs) = p.run(inputs) {
                return Ok(Some(outs));
            }
        }
        let subst = self.substitutes(variables)?;
        let resolve = |v: &Variable| -> Variable {
            subst
                .get(&v.handle_id())
                .map_or_else(|| v.clone(), |s| (*s).clone())
        };
        let _overlap = Overlap::enter();
        let mut vals: Vec<Option<Tensor>> = vec![None; self.slots];
        for (v, t) in vals.iter_mut().zip(inputs) {
            *v = Some(t.clone());
        }
        for (s, t) in &self.consts {
            vals[*s as usize] = Some(t.clone());
        }
        let get = |vals: &[Option<Tensor>], s: Slot| -> Tensor {
            vals[s as usize]
                .clone()
                .expect("a slot is filled before it is read")
        };
        // Pending writes, in first-write order.
        let mut pending: Vec<(Variable, Tensor)> = Vec::new();
        let mut index: FxHashMap<TensorId, usize> = FxHashMap::default();
        // Updates deferred to the end, run on the variables' own buffers:
        // effects that are the last to touch their variables. Not when two
        // variables given in place of the traced ones are others (the plan
        // saw the traced ones' reads and writes; another variable could be
        // one the graph touches elsewhere).
        let mut deferred: Vec<(Vec<Variable>, crate::record::InPlace)> = Vec::new();
        let defer_ok = variables
            .iter()
            .zip(&self.variables)
            .all(|(v, spec)| v.handle_id() == spec.handle);
        for (i, n) in self.nodes.iter().enumerate() {
            match n {
                Node::Op {
                    op,
                    inputs,
                    outputs,
                } => {
                    let ins: Vec<Tensor> = inputs.iter().map(|&s| get(&vals, s)).collect();
                    let outs = match op.forward(&ins) {
                        // A `cond` branch or loop body graph that does not
                        // apply: neither does this one (nothing written yet).
                        Err(Error::StaleGraph) => return Ok(None),
                        outs => outs?,
                    };
                    if outs.len() != outputs.len() {
                        return Err(Error::invalid(format!(
                            "{} gave {} outputs on replay, {} when traced",
                            op.name(),
                            outs.len(),
                            outputs.len()
                        )));
                    }
                    // A shape the trace built on differs (nothing was
                    // written yet): the graph does not apply to this call.
                    if op.shape_from_values()
                        && outputs.iter().zip(&outs).any(|(s, t)| {
                            self.shape_checks
                                .get(s)
                                .is_some_and(|traced| t.shape() != &traced[..])
                        })
                    {
                        return Ok(None);
                    }
                    for (&s, t) in outputs.iter().zip(outs) {
                        vals[s as usize] = Some(t);
                    }
                }
                Node::Read { var, output } => {
                    let var = resolve(var);
                    let t = match index.get(&var.handle_id()) {
                        Some(&i) => ops_identity(&pending[i].1),
                        None => var.read(),
                    };
                    vals[*output as usize] = Some(t);
                }
                Node::Effect { effect, .. }
                    if effect.variables().is_empty() && HOST_EFFECTS_MUTED.get() > 0 => {}
                Node::Effect { effect, inputs } => {
                    let vars: Vec<Variable> = effect.variables().iter().map(resolve).collect();
                    let current: Vec<Tensor> = vars
                        .iter()
                        .map(|v| match index.get(&v.handle_id()) {
                            Some(&i) => pending[i].1.clone(),
                            None => v.value(),
                        })
                        .collect();
                    let ins: Vec<Tensor> = inputs.iter().map(|&s| get(&vals, s)).collect();
                    if defer_ok {
                        if let Some(ip) = effect.in_place(&current, &ins)? {
                            let w = ip.writes.min(vars.len());
                            if self.plan.last_to_touch(i, w)
                                && vars[..w]
                                    .iter()
                                    .all(|v| !index.contains_key(&v.handle_id()))
                            {
                                // Our copies of the values would make the
                                // buffers look shared.
                                drop(current);
                                deferred.push((vars[..w].to_vec(), ip));
                                self.plan.release(i, &mut vals);
                                continue;
                            }
                        }
                    }
                    let new = effect.apply(&current, &ins)?;
                    for (v, t) in vars.iter().zip(new) {
                        match index.get(&v.handle_id()) {
                            Some(&i) => pending[i].1 = t,
                            None => {
                                index.insert(v.handle_id(), pending.len());
                                pending.push((v.clone(), t));
                            }
                        }
                    }
                }
            }
            self.plan.release(i, &mut vals);
        }
        for (s, seen) in &self.guards {
            if !same_value(&get(&vals, *s), seen) {
                return Ok(None);
            }
        }
        for (v, t) in &pending {
            v.assign(t)?;
        }
        let outs: Vec<Tensor> = self.outputs.iter().map(|&s| get(&vals, s)).collect();
        // Values still held (none but outputs and guards, after the plan's
        // releases) must not keep the variables' buffers shared.
        drop(vals);
        let (mut in_place, mut copied) = (0, 0);
        let fused_before = product_update::fused_runs();
        for (vars, ip) in deferred {
            if with_storages(&vars, ip.run)? {
                in_place += 1;
            } else {
                copied += 1;
            }
        }
        let with_products = product_update::fused_runs() - fused_before;
        self.updates.store(in_place, copied, with_products);
        Ok(Some(outs))
    }

    /// How the last replay applied its deferred variable updates: on the
    /// variables' own buffers (`in_place`) or on copies (`copied`: another
    /// holder, such as a tensor the caller kept of an old value, shared the
    /// buffer). Updates that later nodes read are neither (they make new
    /// values as eager execution does).
    pub fn update_stats(&self) -> UpdateStats {
        self.updates.load()
    }

    fn substitutes<'a>(
        &self,
        variables: &'a [Variable],
    ) -> Result<FxHashMap<TensorId, &'a Variable>> {
        let mut out = FxHashMap::default();
        if variables.is_empty() {
            return Ok(out);
        }
        if variables.len() != self.variables.len() {
            return Err(Error::invalid(format!(
                "the graph takes {} variable(s), but {} were given",
                self.variables.len(),
                variables.len()
            )));
        }
        for (k, (v, spec)) in variables.iter().zip(&self.variables).enumerate() {
            if v.shape() != spec.shape || v.dtype() != spec.dtype {
                return Err(Error::invalid(format!(
                    "variable input {k} of the graph was traced as {} {}, but {} {} was given",
                    spec.dtype,
                    crate::dims::ShapeDisplay::of(&spec.shape),
                    v.dtype(),
                    crate::dims::ShapeDisplay::of(&v.shape())
                )));
            }
            out.insert(spec.handle, v);
        }
        Ok(out)
    }

    fn check_inputs(&self, inputs: &[Tensor]) -> Result<()> {
        if inputs.len() != self.inputs.len() {
            return Err(Error::invalid(format!(
                "the graph takes {} input(s), but {} were given",
                self.inputs.len(),
                inputs.len()
            )));
        }
        for (k, (t, spec)) in inputs.iter().zip(&self.inputs).enumerate() {
            if t.shape() != spec.shape.as_slice() || t.dtype() != spec.dtype {
                return Err(Error::invalid(format!(
                    "input {k} of the graph was traced as {} {}, but {} {} was given",
                    spec.dtype,
                    crate::dims::ShapeDisplay::of(&spec.shape),
                    t.dtype(),
                    crate::dims::ShapeDisplay::of(t.shape())
                )));
            }
        }
        Ok(())
    }
}

/// Runs `f` on the storages of `vars` taken out of them (locked in handle
/// order, so concurrent replays never deadlock) and puts them back.
fn with_storages(
    vars: &[Variable],
    f: impl FnOnce(&mut [crate::tensor::Storage]) -> Result<bool>,
) -> Result<bool> {
    let mut order: Vec<usize> = (0..vars.len()).collect();
    order.sort_by_key(|&i| vars[i].handle_id());
    let mut guards: Vec<_> = order.iter().map(|&i| (i, vars[i].lock_value())).collect();
    guards.sort_by_key(|(i, _)| *i);
    let mut storages: Vec<_> = guards.iter_mut().map(|(_, g)| g.take_storage()).collect();
    let r = f(&mut storages);
    for ((_, g), s) in guards.iter_mut().zip(storages) {
        g.put_storage(s);
    }
    r
}

/// Which nodes read and which node makes each slot of a graph: what the
/// passes that fold an op into the one node reading its output look up.
struct Feeds {
    readers: Vec<SmallVec<[usize; 2]>>,
    kept: Vec<bool>,
    producer: Vec<Option<usize>>,
}

impl Feeds {
    fn of(g: &Graph) -> Feeds {
        let mut producer = vec![None; g.slots];
        for (i, n) in g.nodes.iter().enumerate() {
            if let Node::Op { outputs, .. } = n {
                for &o in outputs {
                    producer[o as usize] = Some(i);
                }
            }
        }
        Feeds {
            readers: fuse::slot_readers(g),
            kept: fuse::kept_slots(g),
            producer,
        }
    }

    /// The op node making `d` (its position, op and operands) when `d` is
    /// its only output and node `reader` reads `d` once and is its only
    /// reader (no other node, output or guard): an op a pass may fold into
    /// `reader`.
    fn sole_source<'g>(
        &self,
        g: &'g Graph,
        reader: usize,
        d: Slot,
    ) -> Option<(usize, &'g OpRef, &'g [Slot])> {
        let p = self.producer[d as usize]?;
        let Node::Op {
            op,
            inputs,
            outputs,
        } = &g.nodes[p]
        else {
            return None;
        };
        let reads = fuse::node_slots(&g.nodes[reader]).0;
        let once = reads.iter().filter(|&&s| s == d).count() == 1;
        let sole = self.readers[d as usize][..] == [reader] && !self.kept[d as usize];
        (outputs[..] == [d] && once && sole).then_some((p, op, &inputs[..]))
    }
}

/// Removes the nodes marked in `dropped` (indexed as `g.nodes`).
fn drop_nodes(g: &mut Graph, dropped: &[bool]) {
    let mut i = 0;
    g.nodes.retain(|_| {
        i += 1;
        !dropped[i - 1]
    });
}

/// Gives each variable update whose input is a `Mul` of a one-element value
/// and a tensor, read by nothing else, the product's operands instead
/// ([`crate::record::Effect::scaled`]), and drops the `Mul`: a replay then
/// updates the variable in one pass (`v.assign_sub(lr * g)` per variable, as
/// TensorFlow users write SGD).
fn fold_scaled_updates(g: &mut Graph, meta: &[Option<fuse::Meta>]) {
    let feeds = Feeds::of(g);
    let one_element = |s: Slot| {
        meta[s as usize]
            .as_ref()
            .is_some_and(|m| m.shape.is_empty() && matches!(m.dtype, DType::F32 | DType::F64))
    };
    let mut dropped = vec![false; g.nodes.len()];
    for e in 0..g.nodes.len() {
        let Node::Effect { effect, inputs } = &g.nodes[e] else {
            continue;
        };
        let [d] = inputs[..] else { continue };
        let Some((p, op, operands)) = feeds.sole_source(g, e, d) else {
            continue;
        };
        if op.name() != "Mul" || operands.len() != 2 {
            continue;
        }
        if !(one_element(operands[0]) || one_element(operands[1])) {
            continue;
        }
        let Some(scaled) = effect.scaled() else {
            continue;
        };
        let operands = operands.iter().copied().collect();
        g.nodes[e] = Node::Effect {
            effect: scaled,
            inputs: operands,
        };
        dropped[p] = true;
    }
    drop_nodes(g, &dropped);
}

/// How a replay applied its deferred variable updates ([`Graph::update_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpdateStats {
    /// Updates written into the variable's own buffer.
    pub in_place: usize,
    /// Updates written into a copy (the old buffer was shared).
    pub copied: usize,
    /// Of those, updates that computed their gradient product half by half
    /// as they wrote ([`Graph::product_updates`]).
    pub with_products: usize,
}

/// [`UpdateStats`] of a graph's last replay (atomics: replays may overlap).
#[derive(Default)]
struct UpdateCounts {
    in_place: AtomicUsize,
    copied: AtomicUsize,
    with_products: AtomicUsize,
}

impl UpdateCounts {
    fn store(&self, in_place: usize, copied: usize, with_products: usize) {
        self.in_place.store(in_place, Ordering::Relaxed);
        self.copied.store(copied, Ordering::Relaxed);
        self.with_products.store(with_products, Ordering::Relaxed);
    }

    fn load(&self) -> UpdateStats {
        UpdateStats {
            in_place: self.in_place.load(Ordering::Relaxed),
            copied: self.copied.load(Ordering::Relaxed),
            with_products: self.with_products.load(Ordering::Relaxed),
        }
    }
}

/// A read of a value written earlier in the same replay: a new tensor (as a
/// read is), recorded on the caller's tapes like a variable read's identity.
fn ops_identity(t: &Tensor) -> Tensor {
    crate::ops::identity(t)
}

/// Whether two tensors hold the same dtype, shape and bits.
fn same_value(a: &Tensor, b: &Tensor) -> bool {
    if a.dtype() != b.dtype() || a.shape() != b.shape() {
        return false;
    }
    match (a.storage(), b.storage()) {
        (Storage::F32(x), Storage::F32(y)) => {
            x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
        }
        (Storage::F64(x), Storage::F64(y)) => {
            x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
        }
        (Storage::I32(x), Storage::I32(y)) => x == y,
        (Storage::I64(x), Storage::I64(y)) => x == y,
        (Storage::Bool(x), Storage::Bool(y)) => x == y,
        _ => false,
    }
}

static REPLAYING: AtomicUsize = AtomicUsize::new(0);
static MOST_AT_ONCE: AtomicUsize = AtomicUsize::new(0);

/// Counts replays in progress (for [`replays_at_once`]).
struct Overlap;

impl Overlap {
    fn enter() -> Overlap {
        let now = REPLAYING.fetch_add(1, Ordering::AcqRel) + 1;
        MOST_AT_ONCE.fetch_max(now, Ordering::AcqRel);
        Overlap
    }
}

impl Drop for Overlap {
    fn drop(&mut self) {
        REPLAYING.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The most replays that were in progress at once in this process since the
/// last [`reset_replays_at_once`]: a binding's test that replays from two
/// threads sees 2 when the replays really overlap.
pub fn replays_at_once() -> usize {
    MOST_AT_ONCE.load(Ordering::Acquire)
}

/// Resets [`replays_at_once`] to the number of replays now in progress.
pub fn reset_replays_at_once() {
    MOST_AT_ONCE.store(REPLAYING.load(Ordering::Acquire), Ordering::Release);
}
