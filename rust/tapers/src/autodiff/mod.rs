//! The autodiff engine: the backward pass over a snapshot of a tape's
//! entries (`backward`), fused regions of large elementwise ops (`fuse`),
//! Jacobians (`jacobian`), and explanations of missing gradients
//! (`inspect`). It reads recordings and runs gradient rules; it never
//! records on its own account (rules do, when an outer tape is active).

mod backward;
mod fuse;
pub(crate) mod inspect;
pub(crate) mod jacobian;

pub(crate) use backward::run;
pub(crate) use backward::PassCounter;
pub use backward::{PassStats, Unconnected};
pub(crate) use inspect::explain_in;
pub use inspect::Explanation;

use crate::dtype::DType;
use crate::error::Result;
use crate::record::Variable;
use crate::tensor::{Tensor, TensorId};

/// Something a gradient can be taken with respect to.
#[derive(Clone)]
pub enum Source {
    /// A tensor (watched explicitly, or an intermediate result).
    Tensor(Tensor),
    /// A variable (watched explicitly or by being read).
    Variable(Variable),
}

impl Source {
    pub(crate) fn id(&self) -> TensorId {
        match self {
            Source::Tensor(t) => t.id(),
            Source::Variable(v) => v.handle_id(),
        }
    }
    pub(crate) fn dtype(&self) -> DType {
        match self {
            Source::Tensor(t) => t.dtype(),
            Source::Variable(v) => v.dtype(),
        }
    }
    pub(crate) fn zeros(&self) -> Result<Tensor> {
        match self {
            Source::Tensor(t) => Tensor::zeros(t.shape(), t.dtype()),
            Source::Variable(v) => Tensor::zeros(&v.shape(), v.dtype()),
        }
    }
}

impl From<&Tensor> for Source {
    fn from(t: &Tensor) -> Source {
        Source::Tensor(t.clone())
    }
}

impl From<&Variable> for Source {
    fn from(v: &Variable) -> Source {
        Source::Variable(v.clone())
    }
}
