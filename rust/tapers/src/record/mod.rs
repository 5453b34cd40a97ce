//! Recording: the entries a tape holds, the per-thread registry of active
//! tapes, and the cuts that explain missing gradients.
//!
//! A tape is a flat `Vec` of [`Entry`]s. Each entry carries its op's
//! description ([`crate::op::Op`]), names its inputs and outputs by
//! [`TensorId`], and holds the op's gradient rule, which captures exactly
//! the tensors the rule needs. Inputs also remember which entry of *this*
//! tape produced them, so the backward pass walks indices and needs no graph
//! of pointers and no id lookups.

mod active;
mod data;
mod trace;
mod variable;

use std::sync::Arc;

use smallvec::SmallVec;

pub use active::{is_recording, record_op, tapes_recording, RecordingContext};
pub(crate) use active::{record_cut, record_entry, set_tracer, variable_accessed, Recorder};
pub use data::CutReason;
pub(crate) use data::TapeData;
pub use trace::{
    is_tracing, trace_effect, trace_guard, trace_unreplayable, Effect, InPlace, Linear, Tracer,
};
pub(crate) use trace::{trace_created, trace_op, trace_read, Assign};
pub use variable::{ValueGuard, Variable};

use crate::dims::Dims;
use crate::dtype::DType;
use crate::error::Result;
use crate::op::{OpRef, Pointwise};
use crate::tensor::{Tensor, TensorId};

/// A gradient rule: given the gradients of an op's outputs (one per output,
/// zeros where nothing flowed), return the gradients of its inputs.
///
/// `needs[i]` says whether input `i` wants a gradient; a rule may return `None`
/// for inputs that do not. Rules are written with the public ops, so an outer
/// tape records them and higher derivatives follow.
pub trait BackwardFn: Send + Sync {
    /// Computes input gradients from output gradients.
    fn backward(&self, grads: &[Tensor], needs: &[bool]) -> Result<Vec<Option<Tensor>>>;
}

impl<F> BackwardFn for F
where
    F: Fn(&[Tensor], &[bool]) -> Result<Vec<Option<Tensor>>> + Send + Sync,
{
    fn backward(&self, grads: &[Tensor], needs: &[bool]) -> Result<Vec<Option<Tensor>>> {
        self(grads, needs)
    }
}

/// Where an entry's input came from, on the tape that holds the entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Not tracked by this tape: no gradient flows into it.
    Untracked,
    /// Watched directly (a source): a leaf.
    Watched,
    /// Produced by the entry at this index.
    Entry(u32),
}

#[derive(Clone, Debug)]
pub(crate) struct Input {
    pub id: TensorId,
    pub origin: Origin,
}

#[derive(Clone, Debug)]
pub(crate) struct Output {
    pub id: TensorId,
    pub dtype: DType,
    pub shape: Dims,
}

/// One recorded op.
#[derive(Clone)]
pub(crate) struct Entry {
    pub op: OpRef,
    pub inputs: SmallVec<[Input; 2]>,
    pub outputs: SmallVec<[Output; 1]>,
    pub rule: Arc<dyn BackwardFn>,
    /// What a fused backward pass needs of a large elementwise op.
    pub fusable: Option<Arc<Fusable>>,
}

impl Entry {
    /// The op's name.
    pub fn name(&self) -> &'static str {
        self.op.name()
    }
}

/// What the fused backward pass needs of an op it may fuse.
pub(crate) enum Fusable {
    /// A same-shape elementwise op: its local derivative, the values the
    /// derivative reads, and which inputs are broadcast scalars (rank 0).
    Pointwise {
        local: &'static dyn Pointwise,
        saved: SmallVec<[Tensor; 2]>,
        scalars: [bool; 2],
    },
    /// A sum of every element of a tensor of this shape: only ever a
    /// region's head, whose one-element gradient every element receives.
    SumAll(Dims),
}
