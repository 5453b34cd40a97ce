//! Data-dependent control flow in traced graphs: `cond` and `while_loop`
//! (TensorFlow's `tf.cond` and `tf.while_loop`).
//!
//! Each branch (or the loop's condition and body) is traced once into a
//! sub-graph ([`trace_branch`]): its own ops, with the outside values it uses
//! (captures) and the variables it reads turned into inputs. The control op
//! takes the predicate (or the loop variables) and those captures as inputs
//! and picks the branch, or iterates, on the values it is given, so a graph
//! that records it replays the choice instead of the traced path.
//!
//! Outside a trace, running the op runs the chosen sub-graph's ops one by
//! one: every tape records them as eager execution would, so gradients
//! (and higher derivatives) are eager's. Inside a trace the op is one node,
//! recorded on the tapes with its own gradient rule, itself a control op:
//! the gradient of a `cond` is a `cond` over the branches' gradient graphs
//! (traced when the rule first runs), and the gradient of a `while_loop`
//! runs the loop again, keeping each iteration's values, then the body's
//! gradient graph backwards over them.
//!
//! Not supported inside a branch or a loop body: assigning a variable,
//! creating one, or reading a traced value into the caller's code (a guard);
//! tracing such a branch fails with an error that says so. Host effects
//! (a print) are kept: they run where the branch or iteration runs, and not
//! in the runs a gradient makes ([`super::without_host_effects`]).

use std::sync::Arc;

use parking_lot::Mutex;
use rustc_hash::FxHashMap;

use super::{Graph, Node, Recording, State};
use crate::autodiff::{Source, Unconnected};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::op::{Op, OpRef};
use crate::record::{record_op, trace_op, BackwardFn, Effect, RecordingContext, Tracer, Variable};
use crate::tape::GradientTape;
use crate::tensor::{Tensor, TensorId};

/// A traced branch, loop condition or loop body: a graph of its arguments
/// and of the outside values it captured.
#[derive(Clone)]
pub struct Branch {
    graph: Arc<Graph>,
    args: usize,
    /// The outside values the branch used, in graph-input order after the
    /// arguments; a variable's read names its variable (the control op
    /// reads it again when it is called).
    captures: Vec<(Tensor, Option<Variable>)>,
    outputs: Vec<(DType, Vec<usize>)>,
}

impl std::fmt::Debug for Branch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Branch")
            .field("graph", &self.graph)
            .field("captures", &self.captures.len())
            .finish()
    }
}

impl Branch {
    /// The traced graph (arguments first, then captures).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The dtypes and shapes of the traced outputs.
    pub fn output_specs(&self) -> &[(DType, Vec<usize>)] {
        &self.outputs
    }
}

/// A tracer for a branch: a trace whose variable reads become captures.
struct BranchRecording {
    inner: Recording,
    reads: Mutex<FxHashMap<TensorId, Variable>>,
}

impl Tracer for BranchRecording {
    fn op(&self, op: &OpRef, inputs: &[&Tensor], outputs: &[&Tensor]) {
        self.inner.op(op, inputs, outputs)
    }

    fn read(&self, var: &Variable, out: &Tensor) {
        // Not a known value: its first use captures it.
        self.reads.lock().insert(out.id(), var.clone());
    }

    fn effect(&self, effect: Arc<dyn Effect>, inputs: &[&Tensor]) {
        self.inner.effect(effect, inputs)
    }

    fn unreplayable(&self, name: &str) {
        self.inner.unreplayable(name)
    }

    fn created(&self, var: &Variable) {
        self.inner.created(var)
    }

    fn guard(&self, t: &Tensor) {
        self.inner.guard(t)
    }
}

/// Runs `f` on `args` once with no tape recording and every op traced into
/// a [`Branch`]; returns the branch and the values this run computed. The
/// caller's tapes see nothing of it (the control op built from the branch
/// records instead).
pub fn trace_branch(
    args: &[Tensor],
    f: impl FnOnce(&[Tensor]) -> Result<Vec<Tensor>>,
) -> Result<(Branch, Vec<Tensor>)> {
    let mut state = State::default();
    state.known.extend(args.iter().map(Tensor::id));
    let rec = Arc::new(BranchRecording {
        inner: Recording {
            state: Mutex::new(state),
        },
        reads: Mutex::new(FxHashMap::default()),
    });
    let (state, outs) = RecordingContext::default().enter(|| -> Result<_> {
        let prev = crate::record::set_tracer(Some(rec.clone()));
        let outs = f(args);
        crate::record::set_tracer(prev);
        let state = std::mem::take(&mut *rec.inner.state.lock());
        Ok((state, outs?))
    })?;
    if let Some(op) = &state.unreplayable {
        crate::record::trace_unreplayable(op);
    }
    // Host effects (a print: no variable written) replay with the branch.
    if let Some(name) = state.nodes.iter().find_map(|n| match n {
        Node::Effect { effect, .. } if !effect.variables().is_empty() => Some(effect.name()),
        _ => None,
    }) {
        return Err(Error::invalid(format!(
            "a cond branch or while_loop body ran {name}: assigning a Variable inside compiled control flow is not supported (assign after the cond/while_loop instead)"
        )));
    }
    if !state.created.is_empty() {
        return Err(Error::invalid(
            "a cond branch or while_loop body created a Variable: create it outside the control flow",
        ));
    }
    if !state.guards.is_empty() {
        return Err(Error::invalid(
            "a cond branch or while_loop body read a tensor's value into the caller's code (bool, float, numpy): compiled control flow cannot replay that; use tapers.cond inside the branch instead",
        ));
    }
    let reads = std::mem::take(&mut *rec.reads.lock());
    let mut state = state;
    // A variable read returned as it is: an input too (not a constant).
    for t in &outs {
        if reads.contains_key(&t.id()) {
            state.use_value(t);
        }
    }
    let captured = state.captured.clone();
    let mut inputs = args.to_vec();
    inputs.extend(captured.iter().cloned());
    let graph = Graph::build(state, &inputs, &outs);
    let captures = captured
        .into_iter()
        .map(|t| {
            let v = reads.get(&t.id()).cloned();
            (t, v)
        })
        .collect();
    let outputs = outs
        .iter()
        .map(|t| (t.dtype(), t.shape().to_vec()))
        .collect();
    Ok((
        Branch {
            graph: Arc::new(graph),
            args: args.len(),
            captures,
            outputs,
        },
        outs,
    ))
}

/// The outside values a control op takes (each branch's captures, merged),
/// and for each branch where its captures are among them.
fn operands(branches: &[&Branch]) -> (Vec<Tensor>, Vec<Vec<usize>>) {
    #[derive(Hash, PartialEq, Eq)]
    enum Key {
        Var(TensorId),
        Value(TensorId),
    }
    let mut index: FxHashMap<Key, usize> = FxHashMap::default();
    let mut values = Vec::new();
    let maps = branches
        .iter()
        .map(|b| {
            b.captures
                .iter()
                .map(|(t, var)| {
                    let key = match var {
                        Some(v) => Key::Var(v.handle_id()),
                        None => Key::Value(t.id()),
                    };
                    *index.entry(key).or_insert_with(|| {
                        // A variable is read again here, where the caller's
                        // tapes and trace see the read.
                        values.push(match var {
                            Some(v) => v.read(),
                            None => t.clone(),
                        });
                        values.len() - 1
                    })
                })
                .collect()
        })
        .collect();
    (values, maps)
}

/// Runs `b` on `args` and the operands `map` picks.
fn run_branch(b: &Branch, map: &[usize], args: &[Tensor], ops: &[Tensor]) -> Result<Vec<Tensor>> {
    let mut ins = args.to_vec();
    ins.extend(map.iter().map(|&i| ops[i].clone()));
    b.graph.run(&ins)
}

/// Runs a control op: outside a trace, `run` runs the chosen ops one by
/// one (every tape records them); inside one, `run` runs unseen and the op
/// is one node, recorded on the tapes with `rule`.
fn call(
    op: Arc<dyn Op>,
    inputs: &[Tensor],
    run: impl FnOnce() -> Result<Vec<Tensor>>,
    rule: impl FnOnce() -> Arc<dyn BackwardFn>,
) -> Result<Vec<Tensor>> {
    if !crate::record::is_tracing() {
        return run();
    }
    let outs: Vec<Tensor> = RecordingContext::default()
        .enter(run)?
        .iter()
        .map(Tensor::alias)
        .collect();
    let ids: Vec<(TensorId, DType)> = inputs.iter().map(|t| (t.id(), t.dtype())).collect();
    let out_refs: Vec<&Tensor> = outs.iter().collect();
    let in_refs: Vec<&Tensor> = inputs.iter().collect();
    let op = OpRef::Shared(op);
    record_op(op.clone(), &ids, &out_refs, rule);
    trace_op(&op, &in_refs, &out_refs);
    Ok(outs)
}

fn predicate(p: &Tensor) -> Result<bool> {
    if p.numel() != 1 {
        return Err(Error::invalid(format!(
            "the predicate of cond must be a scalar, got shape {}",
            crate::dims::ShapeDisplay::of(p.shape())
        )));
    }
    match p.dtype() {
        DType::Bool => Ok(p.to_vec::<bool>()?[0]),
        _ => Ok(p.to_f64_scalar()? != 0.0),
    }
}

/// The floating values among `ts`, by position.
fn floating(ts: &[Tensor]) -> Vec<usize> {
    (0..ts.len())
        .filter(|&i| ts[i].dtype().is_floating())
        .collect()
}

/// Gradients of `outs` (seeded with `seeds` at positions `out_float`) with
/// respect to `sources`, zeros where unconnected.
fn grads_of(
    tape: &GradientTape,
    outs: &[Tensor],
    out_float: &[usize],
    seeds: &[Tensor],
    sources: &[Tensor],
) -> Result<Vec<Tensor>> {
    if sources.is_empty() {
        return Ok(Vec::new());
    }
    let targets: Vec<Tensor> = out_float.iter().map(|&i| outs[i].clone()).collect();
    let srcs: Vec<Source> = sources.iter().cloned().map(Source::Tensor).collect();
    if targets.is_empty() {
        return sources.iter().map(crate::ops::zeros_like).collect();
    }
    let gs = tape.gradient_with(&targets, &srcs, Some(seeds), Unconnected::Zero)?;
    gs.into_iter()
        .zip(sources)
        .map(|(g, s)| g.map_or_else(|| crate::ops::zeros_like(s), Ok))
        .collect()
}

// ---------------------------------------------------------------- cond

/// `tf.cond` over two traced branches (no arguments): the outputs of
/// `true_branch` when `pred` holds, else of `false_branch`. Both branches
/// must give the same number of outputs with the same dtypes.
pub fn cond(pred: &Tensor, true_branch: &Branch, false_branch: &Branch) -> Result<Vec<Tensor>> {
    check_same_outputs(true_branch, false_branch)?;
    let (ops, maps) = operands(&[true_branch, false_branch]);
    let op = Arc::new(CondOp(Arc::new(CondInner {
        branches: [true_branch.clone(), false_branch.clone()],
        maps: [maps[0].clone(), maps[1].clone()],
        args: 0,
        grads: Mutex::new(None),
    })));
    let mut inputs = vec![pred.clone()];
    inputs.extend(ops);
    op.forward(&inputs)
}

/// Traces `true_fn` and `false_fn` and runs [`cond`] on them.
pub fn cond_fn(
    pred: &Tensor,
    true_fn: impl FnOnce() -> Result<Vec<Tensor>>,
    false_fn: impl FnOnce() -> Result<Vec<Tensor>>,
) -> Result<Vec<Tensor>> {
    let (t, _) = trace_branch(&[], |_| true_fn())?;
    let (f, _) = trace_branch(&[], |_| false_fn())?;
    cond(pred, &t, &f)
}

fn check_same_outputs(a: &Branch, b: &Branch) -> Result<()> {
    let da: Vec<DType> = a.outputs.iter().map(|o| o.0).collect();
    let db: Vec<DType> = b.outputs.iter().map(|o| o.0).collect();
    if da != db {
        return Err(Error::invalid(format!(
            "true_fn and false_fn arguments to tf.cond must have the same number, type, and overall structure of return values: true_fn returns {} value(s) of dtypes {:?}, false_fn {} of dtypes {:?}",
            da.len(),
            da.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
            db.len(),
            db.iter().map(|d| d.to_string()).collect::<Vec<_>>()
        )));
    }
    Ok(())
}

struct CondInner {
    branches: [Branch; 2],
    maps: [Vec<usize>; 2],
    /// How many arguments the branches take (before their captures).
    args: usize,
    /// The gradient op and its operands, traced when the rule first runs.
    grads: Mutex<Option<(Arc<CondOp>, Vec<Tensor>)>>,
}

/// The op a traced `cond` records: inputs `[pred, args..., operands...]`.
struct CondOp(Arc<CondInner>);

impl Op for CondOp {
    fn name(&self) -> &'static str {
        "If"
    }

    fn has_effects(&self) -> bool {
        self.0.branches.iter().any(|b| b.graph.has_effects())
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let k = if predicate(&inputs[0])? { 0 } else { 1 };
        let inner = self.0.clone();
        let (args, ops) = inputs[1..].split_at(inner.args);
        let saved = inputs.to_vec();
        call(
            Arc::new(CondOp(self.0.clone())),
            inputs,
            || run_branch(&inner.branches[k], &inner.maps[k], args, ops),
            || {
                let inner = self.0.clone();
                Arc::new(move |g: &[Tensor], needs: &[bool]| inner.gradient(&saved, g, needs))
            },
        )
    }
}

impl CondInner {
    /// The branch's gradient graph: arguments `[inputs..., seeds of the
    /// floating outputs...]` (inputs: the op's, after the predicate),
    /// outputs the gradients of the floating inputs.
    fn grad_branch(&self, k: usize, ops: &[Tensor], seeds: &[Tensor]) -> Result<Branch> {
        let b = &self.branches[k];
        let map = &self.maps[k];
        let na = self.args;
        let float_ops = floating(ops);
        let out_float: Vec<usize> = (0..b.outputs.len())
            .filter(|&i| b.outputs[i].0.is_floating())
            .collect();
        let mut args = ops.to_vec();
        args.extend(seeds.iter().cloned());
        let n = ops.len();
        let (g, _) = super::without_host_effects(|| {
            trace_branch(&args, |a| {
                let tape = GradientTape::new();
                let outs = {
                    let _r = tape.record()?;
                    for &i in &float_ops {
                        tape.watch(&a[i]);
                    }
                    run_branch(b, map, &a[..na], &a[na..n])?
                };
                let sources: Vec<Tensor> = float_ops.iter().map(|&i| a[i].clone()).collect();
                grads_of(&tape, &outs, &out_float, &a[n..], &sources)
            })
        })?;
        Ok(g)
    }

    fn gradient(
        &self,
        saved: &[Tensor],
        grads: &[Tensor],
        needs: &[bool],
    ) -> Result<Vec<Option<Tensor>>> {
        let ops = &saved[1..];
        let float_ops = floating(ops);
        let seeds: Vec<Tensor> = (0..grads.len())
            .filter(|&i| self.branches[0].outputs[i].0.is_floating())
            .map(|i| grads[i].clone())
            .collect();
        let (op, own) = {
            let mut cached = self.grads.lock();
            match &*cached {
                Some(c) => c.clone(),
                None => {
                    let t = self.grad_branch(0, ops, &seeds)?;
                    let f = self.grad_branch(1, ops, &seeds)?;
                    // The constants the gradient graphs captured.
                    let (own, maps) = operands(&[&t, &f]);
                    let op = Arc::new(CondOp(Arc::new(CondInner {
                        maps: [maps[0].clone(), maps[1].clone()],
                        branches: [t, f],
                        args: ops.len() + seeds.len(),
                        grads: Mutex::new(None),
                    })));
                    *cached = Some((op.clone(), own.clone()));
                    (op, own)
                }
            }
        };
        let mut inputs = vec![saved[0].clone()];
        inputs.extend(ops.iter().cloned());
        inputs.extend(seeds);
        inputs.extend(own);
        let gs = op.forward(&inputs)?;
        let mut out: Vec<Option<Tensor>> = vec![None; saved.len()];
        for (g, &i) in gs.into_iter().zip(&float_ops) {
            if needs[i + 1] {
                out[i + 1] = Some(g);
            }
        }
        Ok(out)
    }
}

// ---------------------------------------------------------------- while

/// `tf.while_loop` over a traced condition and body, each taking the loop
/// variables as arguments: runs `body` while `cond` holds (and fewer than
/// `maximum_iterations` iterations ran), returning the final variables.
pub fn while_loop(
    cond: &Branch,
    body: &Branch,
    loop_vars: &[Tensor],
    maximum_iterations: Option<usize>,
) -> Result<Vec<Tensor>> {
    let n = loop_vars.len();
    if cond.args != n || body.args != n || body.outputs.len() != n {
        return Err(Error::invalid(format!(
            "while_loop: the body must return as many values as loop_vars ({n}), it returns {}",
            body.outputs.len()
        )));
    }
    if cond.outputs.len() != 1 || !cond.outputs[0].1.iter().all(|&d| d == 1) {
        return Err(Error::invalid(
            "while_loop: cond must return one scalar boolean tensor",
        ));
    }
    for (i, (v, (dt, shape))) in loop_vars.iter().zip(&body.outputs).enumerate() {
        if v.dtype() != *dt {
            return Err(Error::invalid(format!(
                "while_loop: loop variable {i} enters the loop as {} but the body returns {}",
                v.dtype(),
                dt
            )));
        }
        if v.shape() != shape.as_slice() {
            return Err(Error::invalid(format!(
                "Input tensor {i} enters the loop with shape {}, but has shape {} after one iteration. To allow the shape to vary across iterations, use the `shape_invariants` argument of tf.while_loop to specify a less-specific shape.",
                crate::dims::tuple_string(v.shape()),
                crate::dims::tuple_string(shape)
            )));
        }
    }
    let (ops, maps) = operands(&[cond, body]);
    let op = Arc::new(WhileOp(Arc::new(WhileInner {
        cond: cond.clone(),
        body: body.clone(),
        cond_map: maps[0].clone(),
        body_map: maps[1].clone(),
        n,
        max_iter: maximum_iterations,
        body_grad: Mutex::new(None),
    })));
    let mut inputs = loop_vars.to_vec();
    inputs.extend(ops);
    op.forward(&inputs)
}

/// Traces `cond_fn` and `body_fn` on `loop_vars` and runs [`while_loop`].
pub fn while_loop_fn(
    cond_fn: impl FnOnce(&[Tensor]) -> Result<Tensor>,
    body_fn: impl FnOnce(&[Tensor]) -> Result<Vec<Tensor>>,
    loop_vars: &[Tensor],
    maximum_iterations: Option<usize>,
) -> Result<Vec<Tensor>> {
    let (c, _) = trace_branch(loop_vars, |a| Ok(vec![cond_fn(a)?]))?;
    let (b, _) = trace_branch(loop_vars, body_fn)?;
    while_loop(&c, &b, loop_vars, maximum_iterations)
}

/// A loop body's gradient graph, where its captures are among its own
/// operands, and those operands.
type BodyGrad = (Branch, Vec<usize>, Vec<Tensor>);

struct WhileInner {
    cond: Branch,
    body: Branch,
    cond_map: Vec<usize>,
    body_map: Vec<usize>,
    n: usize,
    max_iter: Option<usize>,
    body_grad: Mutex<Option<BodyGrad>>,
}

impl WhileInner {
    /// The loop variables at the start of each iteration, and the final ones.
    fn states(&self, vars: &[Tensor], ops: &[Tensor]) -> Result<Vec<Vec<Tensor>>> {
        let mut states = vec![vars.to_vec()];
        loop {
            let cur = states.last().expect("one state at least");
            if self.max_iter.is_some_and(|m| states.len() > m) {
                break;
            }
            let c = run_branch(&self.cond, &self.cond_map, cur, ops)?;
            if !predicate(&c[0])? {
                break;
            }
            let next = run_branch(&self.body, &self.body_map, cur, ops)?;
            states.push(next);
        }
        Ok(states)
    }

    /// The body's gradient graph: arguments `[vars..., operands..., seeds of
    /// the floating vars...]`, outputs the gradients of the floating vars
    /// then of the floating operands.
    fn body_grad(&self, vars: &[Tensor], ops: &[Tensor], seeds: &[Tensor]) -> Result<BodyGrad> {
        let mut cached = self.body_grad.lock();
        if let Some(b) = &*cached {
            return Ok(b.clone());
        }
        let n = self.n;
        let float_vars = floating(vars);
        let float_ops = floating(ops);
        let mut args = vars.to_vec();
        args.extend(ops.iter().cloned());
        args.extend(seeds.iter().cloned());
        let (g, _) = trace_branch(&args, |a| {
            let tape = GradientTape::new();
            let (v, o) = (&a[..n], &a[n..n + ops.len()]);
            let outs = {
                let _r = tape.record()?;
                for &i in &float_vars {
                    tape.watch(&v[i]);
                }
                for &i in &float_ops {
                    tape.watch(&o[i]);
                }
                run_branch(&self.body, &self.body_map, v, o)?
            };
            let mut sources: Vec<Tensor> = float_vars.iter().map(|&i| v[i].clone()).collect();
            sources.extend(float_ops.iter().map(|&i| o[i].clone()));
            grads_of(&tape, &outs, &float_vars, &a[n + ops.len()..], &sources)
        })?;
        // The constants the gradient graph captured.
        let (own, maps) = operands(&[&g]);
        let made = (g, maps[0].clone(), own);
        *cached = Some(made.clone());
        Ok(made)
    }

    /// The gradients of the floating vars, then of the floating operands,
    /// given the seeds of the floating outputs.
    fn backward(&self, vars: &[Tensor], ops: &[Tensor], seeds: &[Tensor]) -> Result<Vec<Tensor>> {
        let states = self.states(vars, ops)?;
        let float_vars = floating(vars);
        let float_ops = floating(ops);
        let mut g = seeds.to_vec();
        let mut g_ops: Option<Vec<Tensor>> = None;
        if states.len() > 1 {
            let (gb, map, own) = self.body_grad(vars, ops, seeds)?;
            for s in states[..states.len() - 1].iter().rev() {
                let mut args = s.clone();
                args.extend(ops.iter().cloned());
                args.extend(g.iter().cloned());
                let outs = run_branch(&gb, &map, &args, &own)?;
                let (gv, go) = outs.split_at(float_vars.len());
                g = gv.to_vec();
                g_ops = Some(match g_ops {
                    None => go.to_vec(),
                    Some(acc) => acc
                        .iter()
                        .zip(go)
                        .map(|(a, b)| crate::ops::add(a, b))
                        .collect::<Result<_>>()?,
                });
            }
        }
        let g_ops = match g_ops {
            Some(g) => g,
            None => float_ops
                .iter()
                .map(|&i| crate::ops::zeros_like(&ops[i]))
                .collect::<Result<_>>()?,
        };
        g.extend(g_ops);
        Ok(g)
    }
}

/// The op a traced `while_loop` records: inputs `[loop vars..., operands...]`.
struct WhileOp(Arc<WhileInner>);

impl Op for WhileOp {
    fn name(&self) -> &'static str {
        "While"
    }

    fn has_effects(&self) -> bool {
        self.0.cond.graph.has_effects() || self.0.body.graph.has_effects()
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let inner = self.0.clone();
        let n = inner.n;
        let saved = inputs.to_vec();
        call(
            Arc::new(WhileOp(self.0.clone())),
            inputs,
            || {
                let mut states = inner.states(&inputs[..n], &inputs[n..])?;
                Ok(states.pop().expect("one state at least"))
            },
            || {
                let inner = self.0.clone();
                Arc::new(move |g: &[Tensor], needs: &[bool]| {
                    let (vars, ops) = saved.split_at(inner.n);
                    let float_vars = floating(vars);
                    let float_ops = floating(ops);
                    let seeds: Vec<Tensor> = float_vars.iter().map(|&i| g[i].clone()).collect();
                    let op = WhileGradOp(inner.clone());
                    let mut ins = saved.clone();
                    ins.extend(seeds);
                    let gs = op.forward(&ins)?;
                    let mut out: Vec<Option<Tensor>> = vec![None; saved.len()];
                    let at: Vec<usize> = float_vars
                        .iter()
                        .copied()
                        .chain(float_ops.iter().map(|&i| i + inner.n))
                        .collect();
                    for (g, i) in gs.into_iter().zip(at) {
                        if needs[i] {
                            out[i] = Some(g);
                        }
                    }
                    Ok(out)
                })
            },
        )
    }
}

/// The gradient of a traced `while_loop`: inputs `[loop vars..., operands...,
/// seeds of the floating outputs...]`.
struct WhileGradOp(Arc<WhileInner>);

impl Op for WhileGradOp {
    fn name(&self) -> &'static str {
        "WhileGrad"
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let inner = self.0.clone();
        let n = inner.n;
        let float_vars = floating(&inputs[..n]).len();
        let m = inputs.len() - n - float_vars;
        call(
            Arc::new(WhileGradOp(self.0.clone())),
            inputs,
            || {
                super::without_host_effects(|| {
                    inner.backward(&inputs[..n], &inputs[n..n + m], &inputs[n + m..])
                })
            },
            || {
                Arc::new(|_: &[Tensor], _: &[bool]| {
                    Err(Error::invalid(
                        "second derivatives through a while_loop inside tapers.function are not supported (take them outside the function, where the loop's ops record one by one)",
                    ))
                })
            },
        )
    }
}
