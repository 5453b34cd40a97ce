//! Differentiable operations, one family per module. Each op's gradient rule
//! sits beside its forward kernel and is written with these same ops, so it is
//! recorded by outer tapes (higher derivatives).

use std::sync::Arc;

use smallvec::SmallVec;

use crate::dtype::DType;
use crate::error::Result;
use crate::tape::{self, BackwardFn};
use crate::tensor::{Tensor, TensorId};

mod arith;
mod array;
mod compare;
mod grad;
mod index;
mod math;
mod matmul;
mod reduce;

pub use arith::{add, div, floordiv, floormod, maximum, minimum, mul, neg, pow, sub};
pub use array::{broadcast_to, cast, ones_like, reshape, transpose, where_, zeros_like};
pub use compare::{equal, greater, greater_equal, less, less_equal, not_equal};
pub use grad::{custom_op, identity, stop_gradient};
pub use index::{embed_first, index_first};
pub use math::{abs, cos, exp, log, sigmoid, sign, sin, sqrt, square, tanh};
pub use matmul::matmul;
pub use reduce::{reduce_mean, reduce_sum};

/// The gradient-rule closure type every op builds.
pub(crate) fn rule<F>(f: F) -> Arc<dyn BackwardFn>
where
    F: Fn(&[Tensor], &[bool]) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
{
    Arc::new(f)
}

/// Records `out = op(inputs)` on the active tapes that track an input.
#[inline]
pub(crate) fn record(
    name: &'static str,
    inputs: &[&Tensor],
    out: &Tensor,
    make_rule: impl FnOnce() -> Arc<dyn BackwardFn>,
) {
    if !tape::is_recording() {
        return;
    }
    let ins: SmallVec<[(TensorId, DType); 3]> =
        inputs.iter().map(|t| (t.id(), t.dtype())).collect();
    tape::record_op(name, &ins, &[out], make_rule);
}

/// Sums `g` down to `shape`, undoing NumPy broadcasting.
pub(crate) fn unbroadcast(g: &Tensor, shape: &[usize]) -> Result<Tensor> {
    if g.shape() == shape {
        return Ok(g.clone());
    }
    let axes: Vec<isize> = crate::shape::broadcast_reduction_axes(shape, g.shape())
        .into_iter()
        .map(|a| a as isize)
        .collect();
    let s = reduce_sum(g, Some(&axes), false)?;
    reshape(&s, &shape.iter().map(|&d| d as isize).collect::<Vec<_>>())
}
