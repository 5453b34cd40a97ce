//! One-element graphs: a graph whose every value is a one-element float
//! tensor of one dtype, and whose every node is an elementwise op with a
//! per-element formula ([`Fusion::Map`]), a pointwise gradient
//! contribution ([`Fusion::Gradient`]) or a sum ([`Fusion::AddN`]), replays on numbers held in a local
//! array instead of on tensors (`y = x * x` and its gradient, a scalar
//! loss's arithmetic). Each node runs the formula eager's kernel runs, so
//! the values are eager's bits; only the graph's outputs become tensors, in
//! their traced shapes.
//!
//! A replay under a recording tape or an active trace, or on inputs of
//! other shapes or dtypes, takes the general path (each op's forward), which
//! records what it runs.

use smallvec::SmallVec;

use super::fuse::Meta;
use super::{Node, Slot};
use crate::dtype::DType;
use crate::kernels::Arith;
use crate::op::{Elementwise, Fusion, Pointwise};
use crate::tensor::{Element, Tensor};

/// One node's formula.
enum Formula {
    /// An elementwise op's forward on inputs `[a, b]` (`b` is ignored by
    /// unary formulas).
    Map(&'static dyn Elementwise),
    /// A pointwise gradient contribution on inputs `[g, a, b]`.
    Gradient(&'static dyn Pointwise, usize),
    /// The sum of the inputs in order.
    AddN,
}

/// One node: its formula, input slots and output slot.
struct Step {
    f: Formula,
    ins: SmallVec<[Slot; 3]>,
    out: Slot,
}

/// The plan of a one-element graph.
pub(super) struct ScalarPlan {
    dtype: DType,
    slots: usize,
    steps: Vec<Step>,
    /// Captured constants (one element of the graph's dtype each) and
    /// their slots.
    consts: Vec<(Slot, Tensor)>,
    /// Each output's slot and traced shape.
    outputs: Vec<(Slot, SmallVec<[usize; 4]>)>,
}

/// The element types a one-element replay runs in.
trait Num: Element + Default + Arith {
    fn map(k: &dyn Elementwise, ins: [&[Self]; 2], out: &mut Vec<Self>);
    fn gradient(p: &dyn Pointwise, k: usize, g: Self, v: [Self; 2]) -> Self;
}

impl Num for f32 {
    fn map(k: &dyn Elementwise, ins: [&[f32]; 2], out: &mut Vec<f32>) {
        k.chunk_f32(ins, out)
    }
    fn gradient(p: &dyn Pointwise, k: usize, g: f32, v: [f32; 2]) -> f32 {
        p.scalar_f32(k, g, v)
    }
}

impl Num for f64 {
    fn map(k: &dyn Elementwise, ins: [&[f64]; 2], out: &mut Vec<f64>) {
        k.chunk_f64(ins, out)
    }
    fn gradient(p: &dyn Pointwise, k: usize, g: f64, v: [f64; 2]) -> f64 {
        p.scalar_f64(k, g, v)
    }
}

/// The first element of `t`, if it holds `T`s.
fn first<T: Element>(t: &Tensor) -> Option<T> {
    T::unwrap(t.storage())?.iter().next().copied()
}

impl ScalarPlan {
    /// The plan of a graph whose inputs, constants and node outputs are all
    /// one-element values of one float dtype, with only elementwise nodes;
    /// `None` for any other graph.
    pub(super) fn new(g: &super::Graph, meta: &[Option<Meta>]) -> Option<ScalarPlan> {
        if !g.guards.is_empty() || !g.variables.is_empty() || g.unreplayable.is_some() {
            return None;
        }
        let dtype = match g
            .inputs
            .first()
            .map(|s| s.dtype)
            .or_else(|| g.consts.first().map(|(_, t)| t.dtype()))?
        {
            d @ (DType::F32 | DType::F64) => d,
            _ => return None,
        };
        let one = |m: Option<&Meta>| m.is_some_and(|m| m.dtype == dtype && m.numel() == 1);
        if !g
            .inputs
            .iter()
            .all(|s| s.dtype == dtype && s.shape.iter().product::<usize>() == 1)
        {
            return None;
        }
        if !g
            .consts
            .iter()
            .all(|(_, t)| t.dtype() == dtype && t.numel() == 1)
        {
            return None;
        }
        let mut steps = Vec::with_capacity(g.nodes.len());
        for n in &g.nodes {
            let Node::Op {
                op,
                inputs,
                outputs,
            } = n
            else {
                return None;
            };
            let (f, arity) = match op.fusion() {
                Fusion::Map(k) => (Formula::Map(k), k.arity()),
                Fusion::Gradient { local, k } => (Formula::Gradient(local, k), 3),
                Fusion::AddN => (Formula::AddN, inputs.len().max(1)),
                _ => return None,
            };
            let m = |s: Slot| meta.get(s as usize).and_then(Option::as_ref);
            if inputs.len() != arity
                || outputs.len() != 1
                || !inputs.iter().all(|&s| one(m(s)))
                || !one(m(outputs[0]))
            {
                return None;
            }
            steps.push(Step {
                f,
                ins: inputs.iter().copied().collect(),
                out: outputs[0],
            });
        }
        let outputs = g
            .outputs
            .iter()
            .map(|&s| {
                let shape = match g.inputs.get(s as usize) {
                    Some(spec) => spec.shape.iter().copied().collect(),
                    None => meta.get(s as usize)?.as_ref()?.shape.clone(),
                };
                Some((s, shape))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(ScalarPlan {
            dtype,
            slots: g.slots,
            steps,
            consts: g.consts.clone(),
            outputs,
        })
    }

    /// Replays on `inputs` (already checked against the traced shapes and
    /// dtypes); `None` when a tape records or a trace is active here (the
    /// general path must run the ops so that they are seen).
    pub(super) fn run(&self, inputs: &[Tensor]) -> Option<Vec<Tensor>> {
        if super::observed() {
            return None;
        }
        match self.dtype {
            DType::F32 => self.run_as::<f32>(inputs),
            DType::F64 => self.run_as::<f64>(inputs),
            _ => None,
        }
    }

    fn run_as<T: Num>(&self, inputs: &[Tensor]) -> Option<Vec<Tensor>> {
        let mut vals: SmallVec<[T; 16]> = SmallVec::from_elem(T::default(), self.slots);
        for (v, t) in vals.iter_mut().zip(inputs) {
            *v = first(t)?;
        }
        for (s, t) in &self.consts {
            vals[*s as usize] = first(t)?;
        }
        let mut out: Vec<T> = Vec::with_capacity(1);
        for st in &self.steps {
            let at = |i: usize| vals[st.ins[i.min(st.ins.len() - 1)] as usize];
            vals[st.out as usize] = match st.f {
                Formula::Map(k) => {
                    T::map(k, [&[at(0)], &[at(1)]], &mut out);
                    *out.first()?
                }
                Formula::Gradient(p, k) => T::gradient(p, k, at(0), [at(1), at(2)]),
                Formula::AddN => st.ins[1..]
                    .iter()
                    .fold(at(0), |acc, &s| Arith::add(acc, vals[s as usize])),
            };
        }
        self.outputs
            .iter()
            .map(|(s, shape)| Tensor::from_vec(vec![vals[*s as usize]], shape).ok())
            .collect()
    }
}
