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
mod conv;
mod grad;
mod index;
mod linalg;
mod math;
mod matmul;
mod nn;
mod reduce;

pub use arith::{add, add_n, div, floordiv, floormod, maximum, minimum, mul, neg, pow, sub};
pub use array::{
    broadcast_to, cast, concat, expand_dims, eye, fill, linspace, one_hot, ones_like, range,
    reshape, split, squeeze, stack, tile, transpose, unstack, where_, zeros_like,
};
pub use compare::{
    equal, greater, greater_equal, less, less_equal, logical_and, logical_not, logical_or,
    logical_xor, not_equal,
};
pub use conv::{avg_pool2d, conv2d, max_pool2d, patches, patches_adjoint, Padding, Window};
pub use grad::{custom_op, identity, stop_gradient};
pub use index::{
    gather, gather_nd, index_first, pad, scatter_add, slice_ranges, strided_slice, take, SliceItem,
};
pub use linalg::{einsum, norm, tensordot, trace, NormOrd};
pub use math::{
    abs, acos, asin, atan, cos, cosh, erf, exp, expm1, is_finite, is_inf, is_nan, log, log1p,
    reciprocal, relu, relu6, relu_grad, rsqrt, sigmoid, sigmoid_grad, sign, sin, sinh, softplus,
    sqrt, square, tan, tanh, tanh_grad,
};
pub use matmul::matmul;
pub use nn::{
    bias_add, dropout_with_mask, elu, gelu, l2_normalize, leaky_relu, log_softmax, selu,
    sigmoid_cross_entropy_with_logits, silu, softmax, softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
};
pub use reduce::{
    argmax, argmin, cumprod, cumsum, reduce_all, reduce_any, reduce_logsumexp, reduce_max,
    reduce_mean, reduce_min, reduce_prod, reduce_std, reduce_sum, reduce_variance,
};

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
