//! Constant folding: ops of a traced graph whose inputs are all constants
//! run once when the graph is built, and their outputs become constants.
//!
//! A trace records every op it sees, including arithmetic on values that
//! are the same at every replay: `tf.sqrt(tf.cast(d, tf.float32))`,
//! `1.0 - tf.constant(beta)`, a learning-rate expression of Python floats.
//! Such an op's output is computed here, with the op's own forward (so the
//! bits are the ones a replay would compute), and the node is dropped.
//!
//! Only small values fold: every input and output of the op has at most
//! [`FOLD_MAX`] elements. A graph that captures a large tensor (a dataset,
//! a benchmark's input) keeps computing on it at each replay, as TensorFlow
//! does with its captures, instead of storing every intermediate result of
//! it. Ops without inputs (random draws, which give new values at each
//! replay) and control ops whose branches have host effects never fold.

use rustc_hash::FxHashMap;

use super::{Graph, Node, Slot};
use crate::record::RecordingContext;
use crate::tensor::Tensor;

/// The most elements an input or output of a folded op may have.
pub(super) const FOLD_MAX: usize = 1 << 10;

/// Folds the ops of `g` whose inputs are all (small) constants, in order,
/// so chains fold; returns how many ops were folded.
pub(super) fn fold_constants(g: &mut Graph) -> usize {
    let mut known: FxHashMap<Slot, Tensor> = g
        .consts
        .iter()
        .filter(|(_, t)| t.numel() <= FOLD_MAX)
        .map(|(s, t)| (*s, t.clone()))
        .collect();
    let mut folded = 0;
    let mut kept = Vec::with_capacity(g.nodes.len());
    for node in std::mem::take(&mut g.nodes) {
        if let Some(outs) = try_fold(&node, &known) {
            let Node::Op { outputs, .. } = &node else {
                unreachable!("only ops fold")
            };
            for (&s, t) in outputs.iter().zip(outs) {
                known.insert(s, t.clone());
                g.consts.push((s, t));
            }
            folded += 1;
        } else {
            kept.push(node);
        }
    }
    g.nodes = kept;
    if folded > 0 {
        // Constants that only folded ops read are no longer needed.
        let mut read: rustc_hash::FxHashSet<Slot> = g.outputs.iter().copied().collect();
        read.extend(g.guards.iter().map(|(s, _)| *s));
        for n in &g.nodes {
            match n {
                Node::Op { inputs, .. } => read.extend(inputs.iter().copied()),
                Node::Effect { inputs, .. } => read.extend(inputs.iter().copied()),
                Node::Read { .. } => {}
            }
        }
        g.consts.retain(|(s, _)| read.contains(s));
    }
    folded
}

/// The outputs of `node` computed now, when it is an op that may fold and
/// its inputs are known constants.
fn try_fold(node: &Node<Slot>, known: &FxHashMap<Slot, Tensor>) -> Option<Vec<Tensor>> {
    let Node::Op {
        op,
        inputs,
        outputs,
    } = node
    else {
        return None;
    };
    if inputs.is_empty() || op.has_effects() {
        return None;
    }
    let ins: Vec<Tensor> = inputs
        .iter()
        .map(|s| known.get(s).cloned())
        .collect::<Option<_>>()?;
    // Neither the caller's tapes nor an outer trace see this run.
    let outs = RecordingContext::default()
        .enter(|| op.forward(&ins))
        .ok()?;
    let small = outs.len() == outputs.len() && outs.iter().all(|t| t.numel() <= FOLD_MAX);
    small.then_some(outs)
}
