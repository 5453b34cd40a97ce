//! What a live tape holds: its entries, the ids it tracks, the variables it
//! watches, and the cuts that explain missing gradients.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::{Entry, Origin, Variable};
use crate::tensor::TensorId;

/// One tape's recording.
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

impl Default for TapeData {
    /// Room for a few tracked ids from the start: nearly every tape tracks
    /// some, and growing an empty hash map on the first insert costs more
    /// than allocating it at this size.
    fn default() -> Self {
        TapeData {
            entries: Vec::new(),
            tracked: FxHashMap::with_capacity_and_hasher(8, Default::default()),
            variables: BTreeMap::new(),
            cuts: FxHashMap::default(),
        }
    }
}

impl TapeData {
    /// Elements in all recorded outputs: the size of a backward pass.
    pub fn output_elements(&self) -> usize {
        self.entries
            .iter()
            .flat_map(|e| e.outputs.iter())
            .map(|o| o.shape.iter().product::<usize>())
            .sum()
    }

    /// Starts tracking `id` as a leaf (a no-op if it is tracked already).
    pub fn watch_id(&mut self, id: TensorId) {
        self.tracked.entry(id).or_insert(Origin::Watched);
    }

    /// Watches a variable's handle and remembers the variable.
    pub fn watch_variable(&mut self, v: &Variable) {
        self.watch_id(v.handle_id());
        self.variables
            .entry(v.handle_id())
            .or_insert_with(|| v.clone());
    }
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

/// Records on `data` that `outputs` were computed from `inputs` without a
/// gradient. A cut descending from an earlier cut keeps that cut's op and
/// reason (the first place the path was broken).
pub(super) fn note_cut(
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
