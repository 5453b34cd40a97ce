//! The backward pass: pruning, ordering and accumulation.
//!
//! The tape is in recording order, which is a topological order, so the pass
//! needs no recursion and no sort: one reverse sweep marks the entries that
//! reach a target, one forward sweep marks those that lead back to a source, and
//! a final reverse sweep runs each needed entry's rule once all of its outputs'
//! consumers (which were all recorded later) have delivered.
//!
//! Contributions to a tensor are kept per tensor in delivery order and summed in
//! that order, which is fixed by the tape, so results never depend on timing.

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use crate::error::{Error, Result};
use crate::ops;
use crate::tape::{Entry, Origin, Source};
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

/// Sums contributions in the order given.
fn sum_all(mut parts: SmallVec<[Tensor; 2]>) -> Result<Tensor> {
    let first = parts.remove(0);
    parts.iter().try_fold(first, |acc, g| ops::add(&acc, g))
}

pub(crate) fn run(
    entries: &[Entry],
    target_origins: &[Origin],
    targets: &[Tensor],
    sources: &[Source],
    output_gradients: Option<&[Tensor]>,
    unconnected: Unconnected,
) -> Result<Vec<Option<Tensor>>> {
    let n = entries.len();
    let source_ids: FxHashSet<TensorId> = sources
        .iter()
        .filter(|s| s.dtype().is_floating())
        .map(Source::id)
        .collect();

    // Entries some target depends on.
    let mut reached = vec![false; n];
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
    // Entries with a tracked path back to a source.
    let mut leads = vec![false; n];
    let input_leads = |leads: &[bool], origin: Origin, id: TensorId| match origin {
        Origin::Untracked => false,
        Origin::Watched => source_ids.contains(&id),
        Origin::Entry(j) => leads[j as usize] || source_ids.contains(&id),
    };
    for i in 0..n {
        if reached[i] {
            leads[i] = entries[i]
                .inputs
                .iter()
                .any(|inp| input_leads(&leads, inp.origin, inp.id));
        }
    }

    // Seed the targets. A target that is itself a source gets its seed even if
    // the tape never saw it (TensorFlow: d x / d x = 1 always).
    let mut pending: FxHashMap<TensorId, SmallVec<[Tensor; 2]>> = FxHashMap::default();
    for (k, t) in targets.iter().enumerate() {
        if !t.dtype().is_floating() {
            continue;
        }
        let seed = match output_gradients {
            Some(og) => og[k].clone(),
            None => Tensor::ones(t.shape(), t.dtype())?,
        };
        pending.entry(t.id()).or_default().push(seed);
    }

    let mut finished: FxHashMap<TensorId, Tensor> = FxHashMap::default();
    for i in (0..n).rev() {
        if !(reached[i] && leads[i]) {
            continue;
        }
        let e = &entries[i];
        let mut any = false;
        let mut grads: SmallVec<[Option<Tensor>; 1]> = SmallVec::with_capacity(e.outputs.len());
        for o in &e.outputs {
            let g = match pending.remove(&o.id) {
                Some(parts) => Some(sum_all(parts)?),
                None => None,
            };
            if let (Some(g), true) = (&g, source_ids.contains(&o.id)) {
                finished.insert(o.id, g.clone());
            }
            any |= g.is_some();
            grads.push(g);
        }
        if !any {
            continue;
        }
        let grads: SmallVec<[Tensor; 1]> = grads
            .into_iter()
            .zip(&e.outputs)
            .map(|(g, o)| match g {
                Some(g) => Ok(g),
                None => Tensor::zeros(&o.shape, o.dtype),
            })
            .collect::<Result<_>>()?;
        let needs: SmallVec<[bool; 2]> = e
            .inputs
            .iter()
            .map(|inp| input_leads(&leads, inp.origin, inp.id))
            .collect();
        let input_grads = e.rule.backward(&grads, &needs)?;
        if input_grads.len() != e.inputs.len() {
            return Err(Error::invalid(format!(
                "the gradient of {} returned {} values for {} inputs",
                e.name,
                input_grads.len(),
                e.inputs.len()
            )));
        }
        for ((inp, g), need) in e.inputs.iter().zip(input_grads).zip(needs) {
            if let (Some(g), true) = (g, need) {
                pending.entry(inp.id).or_default().push(g);
            }
        }
    }

    sources
        .iter()
        .map(|s| {
            let id = s.id();
            let g = if !s.dtype().is_floating() {
                None
            } else if let Some(g) = finished.get(&id) {
                Some(g.clone())
            } else if let Some(parts) = pending.get(&id) {
                Some(sum_all(parts.clone())?)
            } else {
                None
            };
            match (g, unconnected) {
                (Some(g), _) => Ok(Some(g)),
                (None, Unconnected::None) => Ok(None),
                (None, Unconnected::Zero) => s.zeros().map(Some),
            }
        })
        .collect()
}
