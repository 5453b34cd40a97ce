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
    record_with(name, inputs, out, make_rule, || None);
}

/// [`record`] for a same-shape elementwise op, keeping its local derivative
/// (`pointwise`, only asked for when recording) so the backward pass can fuse
/// it with its neighbours. Only broadcasts of scalars (rank 0) may fuse;
/// ops that broadcast otherwise record plainly.
#[inline]
pub(crate) fn record_pointwise(
    name: &'static str,
    inputs: &[&Tensor],
    out: &Tensor,
    make_rule: impl FnOnce() -> Arc<dyn BackwardFn>,
    pointwise: impl FnOnce() -> crate::fuse::Pointwise,
) {
    record_with(name, inputs, out, make_rule, || {
        let fusable = out.numel() >= crate::fuse::FUSE_MIN
            && out.dtype().is_floating()
            && inputs
                .iter()
                .all(|t| (t.shape() == out.shape() || t.rank() == 0) && t.dtype() == out.dtype());
        fusable.then(pointwise)
    });
}

/// [`record`] with the local derivative a fused backward pass may use
/// (`None`: the op records plainly). `pointwise` runs only when recording.
#[inline]
pub(crate) fn record_with(
    name: &'static str,
    inputs: &[&Tensor],
    out: &Tensor,
    make_rule: impl FnOnce() -> Arc<dyn BackwardFn>,
    pointwise: impl FnOnce() -> Option<crate::fuse::Pointwise>,
) {
    if !tape::is_recording() {
        return;
    }
    let ins: SmallVec<[(TensorId, DType); 3]> =
        inputs.iter().map(|t| (t.id(), t.dtype())).collect();
    tape::record_op_with(name, &ins, &[out], make_rule, pointwise);
}

thread_local! {
    /// Leading "row" dims every gradient carries during a vectorized Jacobian
    /// pass (0 otherwise). Thread-local because that pass runs its rules on
    /// the calling thread only.
    static ROW_DIMS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The row dims gradients carry on this thread (see [`with_row_dims`]).
pub(crate) fn row_dims() -> usize {
    ROW_DIMS.with(std::cell::Cell::get)
}

/// Runs `f` with every gradient carrying `dims` extra leading dims: one
/// backward pass then computes many rows of a Jacobian at once (as `pfor`
/// does in TensorFlow, or `vmap` in JAX). Only rules that
/// [`rule_handles_rows`] may run inside.
pub(crate) fn with_row_dims<R>(dims: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            ROW_DIMS.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(ROW_DIMS.with(|c| c.replace(dims)));
    f()
}

/// `shape` behind the row dims `g` carries (none outside a vectorized
/// Jacobian pass): where a rule reshapes or broadcasts its gradient.
pub(crate) fn rows_then(g: &Tensor, shape: &[usize]) -> Vec<usize> {
    let lead = row_dims().min(g.rank());
    g.shape()[..lead].iter().chain(shape).copied().collect()
}

/// Ops whose gradient rules stay correct when gradients carry extra leading
/// row dims: rules built only from broadcasting elementwise ops, batched
/// matmuls and [`unbroadcast`], or that place the row dims themselves
/// (`Reshape`, `Sum`, `Transpose`, with [`rows_then`]). Any other op on the path makes a Jacobian fall back to one
/// backward pass per row.
pub(crate) fn rule_handles_rows(name: &str) -> bool {
    matches!(
        name,
        "AddV2"
            | "Sub"
            | "Mul"
            | "RealDiv"
            | "Neg"
            | "Identity"
            | "Abs"
            | "Exp"
            | "Log"
            | "Sqrt"
            | "Square"
            | "Sin"
            | "Cos"
            | "Tanh"
            | "Sigmoid"
            | "Relu"
            | "MatMul"
            | "Reshape"
            | "BroadcastTo"
            | "Sum"
            | "Transpose"
    )
}

/// Sums `g` down to `shape`, undoing NumPy broadcasting (keeping the
/// leading row dims of a vectorized Jacobian pass, see [`with_row_dims`]).
pub(crate) fn unbroadcast(g: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let lead = row_dims();
    if lead == 0 && g.shape() == shape {
        return Ok(g.clone());
    }
    if g.rank() < lead + shape.len() {
        return Err(crate::error::Error::invalid(format!(
            "a gradient of shape {} cannot be reduced to {} with {lead} row dims",
            crate::shape::ShapeDisplay::of(g.shape()),
            crate::shape::ShapeDisplay::of(shape)
        )));
    }
    let (rows, inner) = g.shape().split_at(lead);
    if inner == shape {
        return Ok(g.clone());
    }
    let axes: Vec<isize> = crate::shape::broadcast_reduction_axes(shape, inner)
        .into_iter()
        .map(|a| (a + lead) as isize)
        .collect();
    let s = reduce_sum(g, Some(&axes), false)?;
    let full: Vec<isize> = rows.iter().chain(shape).map(|&d| d as isize).collect();
    reshape(&s, &full)
}
